"""What every client transport enforces against a hostile server or network.

- Credentials stay with their origin: a URL the server names (the legacy transport's
  `endpoint` event, a redirect) is used only if its origin (scheme, host, port) is the
  connection's; user headers (Authorization...) never travel anywhere else. Every transport
  that is told a URL by the server resolves it with `same_origin`, and no HTTP client here
  follows redirects.
- Memory stays bounded: one message (a response body, one SSE line or event) is at most
  `max_bytes` (16 MiB by default, like the official SDK's default cap); a bigger one fails the
  call it belongs to with `MessageTooLarge`, and reading stops there. A compressed body is
  decoded a bounded piece at a time against that cap (`chunks`), and more than one
  content-coding is refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Protocol
from urllib.parse import urljoin, urlsplit

from ..core.errors import CrossOriginUrl, MessageTooLarge
from .content_coding import ContentDecoder, codings_of

DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the default port filled in; ValueError on a malformed URL."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port  # ValueError on a bad port
    return scheme, host, port if port is not None else _DEFAULT_PORTS.get(scheme)


def same_origin(base: str, reference: str, *, what: str = "URL") -> str:
    """`reference` resolved against `base`, if it stays on `base`'s origin; else CrossOriginUrl."""
    target = urljoin(base, reference.strip())
    try:
        ours, theirs = origin(base), origin(target)
    except ValueError:
        raise CrossOriginUrl(f"the server named a malformed {what}: {reference[:200]!r}") from None
    if ours != theirs or not theirs[1]:
        raise CrossOriginUrl(
            f"refusing the server's {what} {target[:200]!r}: its origin differs from {_show(ours)}"
            " (the connection's headers are never sent to another origin)"
        )
    return target


def _show(parts: tuple[str, str, int | None]) -> str:
    scheme, host, port = parts
    return f"{scheme}://{host}:{port}"


class Body(Protocol):
    @property
    def headers(self) -> Mapping[str, str]: ...

    async def aread(self) -> bytes: ...

    def aiter_raw(self) -> AsyncIterator[bytes]: ...


async def chunks(response: Body, max_raw_bytes: int | None = None) -> AsyncIterator[bytes]:
    """The body's bytes with its content-coding undone, a bounded piece at a time (the only way
    a body is read here: see content_coding.py); ProtocolError for stacked, unknown or corrupt
    codings. `max_raw_bytes` also bounds what arrives on the wire (a stream of empty deflate
    blocks decodes to nothing, forever)."""
    decoder = ContentDecoder.for_header(response.headers.get("content-encoding"))
    raw = 0
    async for chunk in response.aiter_raw():
        raw += len(chunk)
        if max_raw_bytes is not None and raw > max_raw_bytes:
            raise MessageTooLarge(f"the server's response body passed the {max_raw_bytes}-byte limit")
        if decoder is None:
            yield chunk
        else:
            for piece in decoder.pieces(chunk):
                yield piece
    if decoder is not None:
        decoder.finish()


async def read_body(response: Body, max_bytes: int) -> bytes:
    """The whole body decoded, or MessageTooLarge as soon as it passes max_bytes, encoded or
    decoded (nothing more is read or inflated)."""
    headers = response.headers
    length = headers.get("content-length", "").strip()
    plain = "chunked" not in headers.get("transfer-encoding", "").lower() and not codings_of(
        headers.get("content-encoding")
    )
    if length.isdigit():
        if int(length) > max_bytes:
            raise MessageTooLarge(f"the server's response body is {int(length)} bytes, over the {max_bytes}-byte limit")
        if plain:
            return await response.aread()  # a known length within the limit, not decoded
    parts: list[bytes] = []
    total = 0
    async for chunk in chunks(response, max_bytes):
        total += len(chunk)
        if total > max_bytes:
            raise MessageTooLarge(f"the server's response body passed the {max_bytes}-byte limit")
        parts.append(chunk)
    return b"".join(parts)


async def lines(chunks: AsyncIterator[bytes], max_bytes: int) -> AsyncIterator[str]:
    """Text lines (without \\r\\n, \\n or \\r) of a byte stream; MessageTooLarge for a line over max_bytes."""
    pending = bytearray()
    async for chunk in chunks:
        if b"\n" not in chunk and b"\r" not in chunk:
            pending += chunk
            if len(pending) > max_bytes:
                raise MessageTooLarge(f"the server sent a line over the {max_bytes}-byte limit")
            continue
        pending += chunk
        parts = bytes(pending).splitlines(keepends=True)
        pending.clear()
        last = parts[-1]
        if not last.endswith(b"\n"):  # unterminated, or a \r that may be the first half of \r\n
            pending += parts.pop()
        for part in parts:
            line = part.rstrip(b"\r\n")
            if len(line) > max_bytes:
                raise MessageTooLarge(f"the server sent a line over the {max_bytes}-byte limit")
            yield line.decode("utf-8", "replace")
        if len(pending) > max_bytes:
            raise MessageTooLarge(f"the server sent a line over the {max_bytes}-byte limit")
    if pending:
        yield bytes(pending).rstrip(b"\r\n").decode("utf-8", "replace")
