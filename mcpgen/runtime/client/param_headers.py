"""The Mcp-Param-* headers of each tool (2026-07-28 over HTTP), from its x-mcp-header annotation.

A client on HTTP must drop a tool whose annotation is invalid: such a tool is not listed and
never called. Definitions known ahead of a live listing (a generated client's catalog) count
until the server lists its own.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import cast

from ..core.errors import ProtocolError
from ..core.headers import param_headers_of
from ..core.jsonrpc import JSONObject, is_object
from ..core.transport import EraAwareTransport, Transport

log = logging.getLogger("mcpgen.runtime.client")


class ToolHeaders:
    """The headers a transport adds per tool (its `param_headers`, when it has them) and the
    tools refused for an invalid annotation. A transport without `param_headers` (stdio,
    memory) has none of this: every method then leaves tools alone."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self._refused: set[str] = set()

    @property
    def active(self) -> bool:
        return getattr(self.transport, "param_headers", None) is not None

    def keep_listed(self, tools: list[JSONObject]) -> list[JSONObject]:
        """A live tools/list: the tools whose annotation is valid (their headers learned)."""
        if not self.active:
            return tools
        kept: list[JSONObject] = []
        for tool in tools:
            if not self._learn(tool, live=True):
                # 2026-07-28: a client on HTTP must drop tools with an invalid x-mcp-header.
                log.warning("dropping tool %r: invalid x-mcp-header annotation", tool.get("name"))
                continue
            kept.append(tool)
        return kept

    def know(self, tools: Sequence[JSONObject]) -> None:
        """Definitions known ahead of a live listing; a later live listing overrides them."""
        if not self.active:
            return
        for tool in tools:
            if is_object(tool):
                self._learn(tool, live=False)

    def check_callable(self, name: str) -> None:
        if name in self._refused:
            raise ProtocolError(f"tool {name!r} has an invalid x-mcp-header annotation; it is not called over HTTP")

    def _learn(self, tool: JSONObject, *, live: bool) -> bool:
        """Record one tool's Mcp-Param-* headers; False if its x-mcp-header is invalid."""
        param_headers = cast(EraAwareTransport, self.transport).param_headers
        name = str(tool.get("name"))
        headers = param_headers_of(tool)
        if not live and (name in param_headers or name in self._refused):
            return headers is not None  # the live listing already spoke for this tool
        param_headers.pop(name, None)
        self._refused.discard(name)
        if headers is None:
            self._refused.add(name)
            return False
        if headers:
            param_headers[name] = headers
        return True
