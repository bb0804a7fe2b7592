"""The client transport guard in process: which URLs a server may name (its origin, default
ports, malformed ones), and the bounded reading of bodies and lines (a Content-Length over the
cap, a chunked or compressed body passing it, a line over it, line endings split across
chunks). The bodies are stand-ins with the three members the guard reads; the transports'
own tests (tests/security/test_client_http_limits.py) send the same over real sockets."""

from __future__ import annotations

import asyncio
import gzip
import re
import zlib
from collections.abc import AsyncIterator, Iterable, Mapping
from pathlib import Path

import pytest

from mcpgen.runtime.core.errors import CrossOriginUrl, MessageTooLarge, ProtocolError
from mcpgen.runtime.transports.guard import DEFAULT_MAX_MESSAGE_BYTES, lines, origin, read_body, same_origin

DOCS = Path(__file__).resolve().parents[3] / "docs/how-to/runtime.md"


class Body:
    """A response: its headers and its raw (still encoded) chunks, counting what was read."""

    def __init__(self, raw: Iterable[bytes], headers: Mapping[str, str] | None = None) -> None:
        self.headers = dict(headers or {})
        self.raw = list(raw)
        self.read = 0
        self.whole = False

    async def aread(self) -> bytes:
        self.whole = True
        return b"".join(self.raw)

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        for chunk in self.raw:
            self.read += 1
            yield chunk


def body_of(response: Body, limit: int) -> bytes:
    return asyncio.run(read_body(response, limit))


def too_large(response: Body, limit: int, reason: str) -> None:
    with pytest.raises(MessageTooLarge, match=f"^{re.escape(reason)}$"):
        body_of(response, limit)


def lines_of(chunks: list[bytes], limit: int = 100) -> list[str]:
    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[str]:
        return [line async for line in lines(source(), limit)]

    return asyncio.run(collect())


def test_an_origin_is_scheme_host_and_port_with_the_default_filled_in() -> None:
    assert origin("HTTP://Example.COM/a") == ("http", "example.com", 80)
    assert origin("https://example.com:8443/") == ("https", "example.com", 8443)
    assert origin("https://example.com/") == ("https", "example.com", 443)
    assert origin("ftp://example.com/") == ("ftp", "example.com", None)
    assert origin("/relative") == ("", "", None)


@pytest.mark.parametrize(
    ("base", "reference", "target"),
    [
        ("http://127.0.0.1:8000/sse", "/messages?s=1", "http://127.0.0.1:8000/messages?s=1"),
        ("http://h.example/sse", "  http://h.example:80/m  ", "http://h.example:80/m"),  # the default port
        ("https://h.example/sse", "https://H.EXAMPLE:443/m", "https://H.EXAMPLE:443/m"),
    ],
)
def test_a_url_on_the_connections_origin_is_resolved(base: str, reference: str, target: str) -> None:
    assert same_origin(base, reference) == target


def test_another_origin_is_refused_naming_what_was_named_and_the_origin() -> None:
    with pytest.raises(
        CrossOriginUrl,
        match=(
            r"^refusing the server's endpoint 'http://other\.example/m': its origin differs from "
            r"http://h\.example:80 \(the connection's headers are never sent to another origin\)$"
        ),
    ):
        same_origin("http://h.example/sse", "http://other.example/m", what="endpoint")
    for elsewhere in ("https://h.example/m", "http://h.example:81/m", "http://h.example:443/m"):
        with pytest.raises(CrossOriginUrl, match="^refusing the server's URL "):
            same_origin("http://h.example/sse", elsewhere)


def test_a_url_without_a_host_is_refused_even_when_the_base_has_none() -> None:
    with pytest.raises(CrossOriginUrl, match=r"^refusing the server's URL 'file:///etc/passwd': its origin differs "):
        same_origin("file:///tmp/x", "file:///etc/passwd")


def test_a_url_without_a_host_is_refused_even_on_a_hostless_base_with_a_port() -> None:
    with pytest.raises(CrossOriginUrl, match=r"^refusing the server's URL 'http://:80/m': its origin differs "):
        same_origin("http://:80/sse", "/m")


def test_a_malformed_url_is_refused_with_at_most_200_characters_of_it() -> None:
    reference = "http://h.example:99999/" + "x" * 300
    with pytest.raises(CrossOriginUrl, match=f"^the server named a malformed URL: {re.escape(repr(reference[:200]))}$"):
        same_origin("http://h.example/sse", reference)
    long = "http://other.example/" + "y" * 300
    with pytest.raises(CrossOriginUrl, match=f"^refusing the server's URL {re.escape(repr(long[:200]))}: "):
        same_origin("http://h.example/sse", long)


def test_the_default_cap_is_the_documented_16_mib() -> None:
    assert "`max_message_bytes` (16 MiB by default)" in " ".join(DOCS.read_text(encoding="utf-8").split())
    assert DEFAULT_MAX_MESSAGE_BYTES == 16 * 1024 * 1024


def test_a_content_length_over_the_cap_is_refused_before_reading() -> None:
    response = Body([b"x" * 11], {"content-length": " 11 "})
    too_large(response, 10, "the server's response body is 11 bytes, over the 10-byte limit")
    assert response.read == 0 and not response.whole


def test_a_plain_body_of_a_known_length_within_the_cap_is_read_whole() -> None:
    response = Body([b"0123456789"], {"content-length": "10"})
    assert body_of(response, 10) == b"0123456789" and response.whole


def test_a_body_without_a_length_is_cut_as_soon_as_it_passes_the_cap() -> None:
    response = Body([b"12345", b"67890", b"1", b"never read"])
    too_large(response, 10, "the server's response body passed the 10-byte limit")
    assert response.read == 3
    assert body_of(Body([b"12345", b"67890"]), 10) == b"1234567890"
    # Chunked with a Content-Length too: read piece by piece, never trusted whole.
    chunked = Body([b"12345", b"678901"], {"content-length": "3", "transfer-encoding": "Chunked"})
    too_large(chunked, 10, "the server's response body passed the 10-byte limit")
    assert not chunked.whole


def test_a_compressed_body_counts_what_it_decodes_to() -> None:
    packed = gzip.compress(b"a" * 1000)
    assert len(packed) < 100
    response = Body([packed], {"content-length": str(len(packed)), "content-encoding": "gzip"})
    too_large(response, 100, "the server's response body passed the 100-byte limit")
    assert not response.whole
    fine = Body([packed[:10], packed[10:]], {"content-encoding": "gzip"})
    assert body_of(fine, 1000) == b"a" * 1000


def test_a_compressed_body_that_never_decodes_is_bounded_on_the_wire_too() -> None:
    # Empty deflate blocks: bytes on the wire, nothing decoded.
    empty_blocks = zlib.compressobj(wbits=zlib.MAX_WBITS)
    stream = empty_blocks.compress(b"") + empty_blocks.flush(zlib.Z_SYNC_FLUSH)
    response = Body([stream] + [b"\x00\x00\x00\xff\xff"] * 50, {"content-encoding": "deflate"})
    too_large(response, 20, "the server's response body passed the 20-byte limit")
    assert response.read < 10


def test_a_compressed_body_cut_short_is_a_protocol_error() -> None:
    packed = gzip.compress(b"a" * 1000)
    with pytest.raises(ProtocolError, match="gzip"):
        body_of(Body([packed[:-8]], {"content-encoding": "gzip"}), 10_000)


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ([b"a\nb\r\nc\rd"], ["a", "b", "c", "d"]),
        ([b"ab", b"c\n", b"d"], ["abc", "d"]),
        ([b"a\r", b"\nb\n"], ["a", "b"]),  # \r\n split across chunks is one line end
        ([b"a\n\nb\n"], ["a", "", "b"]),
        ([b"\xff\n"], ["\ufffd"]),
        ([b"tail\r\n"], ["tail"]),
        ([b"no end"], ["no end"]),
        ([b""], []),
    ],
)
def test_lines_are_split_on_every_line_end(chunks: list[bytes], expected: list[str]) -> None:
    assert lines_of(chunks) == expected


def test_a_line_over_the_cap_is_refused_however_it_arrives() -> None:
    reason = r"^the server sent a line over the 10-byte limit$"
    assert lines_of([b"0123456789\n"], 10) == ["0123456789"]
    assert lines_of([b"01234", b"56789"], 10) == ["0123456789"]
    with pytest.raises(MessageTooLarge, match=reason):
        lines_of([b"012345", b"67890"], 10)  # no line end yet
    with pytest.raises(MessageTooLarge, match=reason):
        lines_of([b"ok\n0123456789A\n"], 10)  # a whole line in one chunk
    with pytest.raises(MessageTooLarge, match=reason):
        lines_of([b"ok\n0123456789A"], 10)  # the unterminated rest after a line end
