"""MCP Apps (the `io.modelcontextprotocol/ui` extension), the client's side: a tool whose
definition carries `_meta.ui.resourceUri` has an interactive UI, a `ui://` resource served as
`text/html;profile=mcp-app`, that a host renders in a sandboxed iframe.

mcpgen renders nothing: it finds a tool's UI resource and reads it, checked, for the host
that will. Both the URI and the document come from the server and stay untrusted: the URI
must be a `ui://` one of bounded size (so a tool cannot point the host at `https://` or
`file:` content), and the answer must be that URI's text in the Apps MIME type, or the read is
an error naming the tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.errors import ProtocolError
from ..core.jsonrpc import JSONObject, is_array, is_object
from ..core.protocol import APP_MIME_TYPE, EXTENSION_UI, is_app_mime_type

if TYPE_CHECKING:
    from .session import ClientSession

EXTENSION_ID = EXTENSION_UI  # (the names this module always exported)
MAX_URI_CHARS = 2048


@dataclass(frozen=True)
class AppUi:
    """A tool's UI: the `ui://` resource's URI, its HTML, and its `_meta.ui` (csp, permissions,
    domain, prefersBorder: what the host's sandbox needs; {} when the server gave none)."""

    tool: str
    uri: str
    html: str
    ui_meta: dict[str, Any] = field(default_factory=dict[str, Any])


def capability() -> JSONObject:
    """What a client that hosts Apps declares under capabilities.extensions."""
    return {EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}


def ui_resource_uri(tool: JSONObject) -> str | None:
    """The tool definition's `_meta.ui.resourceUri`, if it is a `ui://` URI (None without one)."""
    meta = tool.get("_meta")
    ui = meta.get("ui") if is_object(meta) else None
    uri = ui.get("resourceUri") if is_object(ui) else None
    if uri is None:
        return None
    if not isinstance(uri, str) or not uri.startswith("ui://") or len(uri) > MAX_URI_CHARS or not uri.isprintable():
        raise ProtocolError(f"the tool {tool.get('name')!r:.80} names a UI resource that is not a ui:// URI")
    return uri


async def read_app(session: ClientSession, tool: JSONObject) -> AppUi | None:
    """The tool's UI resource, read and checked; None for a tool without one."""
    name = str(tool.get("name"))
    uri = ui_resource_uri(tool)
    if uri is None:
        return None
    result = await session.read_resource(uri)
    contents = result.get("contents") if is_object(result) else None
    for entry in contents if is_array(contents) else []:
        if not is_object(entry) or entry.get("uri") != uri:
            continue
        text, mime = entry.get("text"), entry.get("mimeType")
        if isinstance(text, str) and is_app_mime_type(mime):
            meta = entry.get("_meta")
            ui = meta.get("ui") if is_object(meta) else None
            return AppUi(name, uri, text, dict(ui) if is_object(ui) else {})
    raise ProtocolError(f"the UI resource {uri!r:.200} of the tool {name!r:.80} is not HTML of {APP_MIME_TYPE}")
