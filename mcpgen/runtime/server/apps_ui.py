"""A scaffold's MCP Apps UIs (`io.modelcontextprotocol/ui`): handlers.py names a `ui://` HTML
resource per tool, the tool's definition says so in `_meta.ui.resourceUri`, and the resource is
served as `text/html;profile=mcp-app` from a file beside handlers.py.

```python
class Handlers(ToolsBase):
    TOOL_UI = {"get-forecast": "ui://weather/forecast.html"}   # served from ui/weather/forecast.html
```

The file of `ui://<path>` is `ui/<path>` in the folder of the module that declares TOOL_UI; it
must stay inside that `ui/` folder and exist when the server starts (a one-line error else), and
is read on every resources/read (so an edited page is served without a restart), at most
`MAX_UI_BYTES`.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ..core.errors import RpcError
from ..core.jsonrpc import INTERNAL_ERROR, JSONObject, is_object

# The MIME type MCP Apps hosts render (the same text as the client's runtime/client/apps.py).
APP_MIME_TYPE = "text/html;profile=mcp-app"
SCHEME = "ui://"
UI_FOLDER = "ui"
MAX_UI_BYTES = 4 * 1024 * 1024


def tool_uis(handlers: object, tool_names: set[str]) -> dict[str, tuple[str, Path]]:
    """Tool wire name -> (its ui:// URI, the HTML file), from handlers' TOOL_UI; ValueError names
    what is wrong (a tool the server lacks, a URI that is not ui://, a file missing or outside)."""
    declared = getattr(handlers, "TOOL_UI", None)
    if declared is None:
        return {}
    if not isinstance(declared, Mapping):
        raise ValueError(f"TOOL_UI must map tool names to ui:// URIs, not {type(declared).__name__}")
    folder = _folder_of(type(handlers)) / UI_FOLDER
    out: dict[str, tuple[str, Path]] = {}
    # (checked just above; its keys are checked against tool_names, its values below)
    for tool, uri in cast("Mapping[str, object]", declared).items():
        if tool not in tool_names:
            raise ValueError(f"TOOL_UI names {tool!r:.80}, which is no tool of this server")
        if not isinstance(uri, str) or not uri.startswith(SCHEME) or len(uri) <= len(SCHEME):
            raise ValueError(f"TOOL_UI[{tool!r:.80}] must be a ui:// URI, not {uri!r:.80}")
        path = (folder / uri[len(SCHEME) :]).resolve()
        if not path.is_relative_to(folder.resolve()) or not path.is_file():
            raise ValueError(
                f"TOOL_UI[{tool!r:.80}]: no file {UI_FOLDER}/{uri[len(SCHEME) :]!s:.120} beside handlers.py"
            )
        out[tool] = (uri, path)
    return out


def _folder_of(cls: type) -> Path:
    """The folder of the module whose class declares TOOL_UI (a subclass elsewhere may reuse it)."""
    for klass in cls.__mro__:
        if "TOOL_UI" in vars(klass):
            return Path(inspect.getfile(klass)).resolve().parent
    return Path(inspect.getfile(cls)).resolve().parent


def with_ui(definition: JSONObject, uri: str) -> JSONObject:
    """The tool's definition with `_meta.ui.resourceUri` (its other `_meta` kept)."""
    out = copy.deepcopy(definition)
    meta = out.get("_meta")
    meta = dict(meta) if is_object(meta) else {}
    ui = meta.get("ui")
    meta["ui"] = {**(ui if is_object(ui) else {}), "resourceUri": uri}
    out["_meta"] = meta
    return out


def ui_resource(tool: str, uri: str) -> JSONObject:
    return {"uri": uri, "name": f"{tool} UI", "mimeType": APP_MIME_TYPE}


def ui_reader(path: Path) -> Any:
    """The resources/read handler of one UI: the file's text, bounded, in the Apps MIME type."""

    async def read(uri: str, ctx: Any) -> JSONObject:
        with path.open("rb") as f:
            data = f.read(MAX_UI_BYTES + 1)
        if len(data) > MAX_UI_BYTES:
            raise RpcError(INTERNAL_ERROR, f"the UI page of {uri!r:.120} is over {MAX_UI_BYTES} bytes")
        return {"contents": [{"uri": uri, "mimeType": APP_MIME_TYPE, "text": data.decode("utf-8", "replace")}]}

    return read
