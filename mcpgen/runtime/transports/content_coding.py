"""Content-codings undone a bounded piece at a time: the one decoder every HTTP body the runtime
reads goes through, on either side (the client's responses and SSE streams, OAuth discovery and
token answers, the resource server's JWKS and introspection answers, the server's request bodies).

The rule it holds: a body is decoded incrementally against the reader's cap, so a few kilobytes of
compressed input never become more than the cap in memory (zlib is asked for at most PIECE bytes
per step), and a body with more than one content-coding (`gzip, gzip`: a bomb inflates by a
thousand per layer) or a coding we did not offer is refused, as is a corrupt stream or data after
its end. `ACCEPT_ENCODING` is what our clients offer; nothing else is accepted.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from ..core.errors import ProtocolError

# The codings we decode, and offer in Accept-Encoding (brotli and zstd would need a decoder that
# bounds its output per step; neither is a dependency).
SUPPORTED = ("gzip", "deflate")
ACCEPT_ENCODING = ", ".join(SUPPORTED)
# The most one decompression step may produce: memory per step is bounded whatever the ratio.
PIECE = 64 * 1024


def codings_of(content_encoding: str | None) -> list[str]:
    """The codings a Content-Encoding header names, in order (identity and empty items dropped)."""
    if not content_encoding:
        return []
    items = (item.strip().lower() for item in content_encoding.split(","))
    return [item for item in items if item and item != "identity"]


class ContentDecoder:
    """Undoes one body's content-coding: `pieces(data)` yields what `data` decodes to, at most
    PIECE bytes at a time; `finish()` once the body has ended. The caller counts the pieces
    against its cap and stops reading when they pass it."""

    __slots__ = ("coding", "_zlib", "_raw_fallback")

    def __init__(self, coding: str) -> None:
        self.coding = coding
        # gzip: the gzip wrapper; deflate: the zlib wrapper (RFC 9110), raw deflate as a fallback
        # for the servers that send it (as browsers and httpx accept).
        self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS if coding == "gzip" else zlib.MAX_WBITS)
        self._raw_fallback = coding == "deflate"

    @classmethod
    def for_header(cls, content_encoding: str | None) -> ContentDecoder | None:
        """The decoder for a Content-Encoding header (None: no coding); ProtocolError for stacked
        codings or one we do not decode."""
        codings = codings_of(content_encoding)
        if not codings:
            return None
        if len(codings) > 1:
            raise ProtocolError(f"refusing a body with {len(codings)} content-codings ({', '.join(codings)[:80]})")
        if codings[0] not in SUPPORTED:
            raise ProtocolError(f"refusing a body with content-coding {codings[0][:40]!r} (only {ACCEPT_ENCODING})")
        return cls(codings[0])

    def pieces(self, data: bytes) -> Iterator[bytes]:
        if self._zlib.eof:
            if data:
                raise ProtocolError(f"data after the end of the {self.coding} stream")
            return
        while True:
            try:
                piece = self._zlib.decompress(data, PIECE)
            except zlib.error:
                if not self._raw_fallback:
                    raise ProtocolError(f"a corrupt {self.coding} body") from None
                self._raw_fallback = False
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self._raw_fallback = False  # the first bytes decided the wrapper
            if piece:
                yield piece
            if self._zlib.eof:
                if self._zlib.unused_data:
                    raise ProtocolError(f"data after the end of the {self.coding} stream")
                return
            data = self._zlib.unconsumed_tail
            # A full piece may leave output inside zlib even with no input left: ask again.
            if not data and len(piece) < PIECE:
                return

    def finish(self) -> None:
        if not self._zlib.eof:
            raise ProtocolError(f"a truncated {self.coding} body")
