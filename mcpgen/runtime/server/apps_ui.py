"""A scaffold's MCP Apps UIs (`io.modelcontextprotocol/ui`): handlers.py names a `ui://` HTML
resource per tool, the tool's definition says so in `_meta.ui.resourceUri`, and the resource is
served as `text/html;profile=mcp-app` from a file beside handlers.py.

```python
class Handlers(ToolsBase):
    TOOL_UI = {"get-forecast": "ui://weather/forecast.html"}   # served from ui/weather/forecast.html
```

`tool-ui = { get-forecast = "ui://weather/forecast.html" }` in a server target's [tool.mcpgen]
table is the generated ToolsBase's TOOL_UI, which a TOOL_UI on Handlers replaces.

The file of `ui://<path>` is `ui/<path>` in the folder of the module that declares TOOL_UI (the
package's, where handlers.py is, for the generated ToolsBase's). The rule of a page's path, held
here for the runtime and for `[tool.mcpgen]` alike (`ui_uri_problem`), is the one rule of every
path a user's settings name (paths.py): it never leaves that `ui/` folder — no `..`, `.` or empty
segment, no backslash, no absolute path — and no link is followed (neither the `ui/` folder, nor
a folder on the way, nor the file may be a symbolic link); the file exists when the server
starts. A TOOL_UI breaking it stops the build with a one-line ServerSetupError. The
page is read on every resources/read (so an edited page is served without a restart), at most
`MAX_UI_BYTES`, never through a link put there since.
"""

from __future__ import annotations

import copy
import inspect
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ..core.errors import RpcError, ServerSetupError
from ..core.jsonrpc import INTERNAL_ERROR, JSONObject, is_object
from ..core.protocol import APP_MIME_TYPE
from .paths import path_inside, relative_path_problem

SCHEME = "ui://"
UI_FOLDER = "ui"
MAX_UI_BYTES = 4 * 1024 * 1024
MAX_UI_URI_CHARS = 500
# Opening a page never follows a link (where the platform can say so).
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


def ui_uri_problem(uri: object) -> str | None:
    """Why `uri` cannot name a page under `ui/` (a phrase to follow the setting's name), or None.
    Lexical only: where the page is and whether it exists is `tool_uis`'s business."""
    if not isinstance(uri, str) or not uri.startswith(SCHEME) or len(uri) <= len(SCHEME):
        return f"must be a ui:// URI, not {uri!r:.80}"
    if len(uri) > MAX_UI_URI_CHARS or not uri.isprintable():
        return f"must be a printable ui:// URI of at most {MAX_UI_URI_CHARS} characters"
    # The one rule of a user-named path (paths.py), and a page is a file: no trailing '/'.
    path = uri[len(SCHEME) :]
    problem = relative_path_problem(path) or ("must not end with '/'" if path.endswith("/") else None)
    return None if problem is None else f"must name a file inside {UI_FOLDER}/: its path {problem}"


def tool_uis(handlers: object, tool_names: set[str], package: Path | None = None) -> dict[str, tuple[str, Path]]:
    """Tool wire name -> (its ui:// URI, the HTML file), from handlers' TOOL_UI; ServerSetupError
    names what is wrong (a tool the server lacks, a URI breaking `ui_uri_problem`, a file missing
    or reached through a link). `package`: the generated package's folder (the parent of its
    `_generated/`), where the generated ToolsBase's TOOL_UI pages are."""
    declared = getattr(handlers, "TOOL_UI", None)
    if declared is None:
        return {}
    if not isinstance(declared, Mapping):
        raise ServerSetupError(f"TOOL_UI must map tool names to ui:// URIs, not {type(declared).__name__}")
    folder = _folder_of(type(handlers), package) / UI_FOLDER
    out: dict[str, tuple[str, Path]] = {}
    # (checked just above; its keys are checked against tool_names, its values below)
    for tool, uri in cast("Mapping[str, object]", declared).items():
        if tool not in tool_names:
            raise ServerSetupError(f"TOOL_UI names {tool!r:.80}, which is no tool of this server")
        problem = ui_uri_problem(uri)
        if problem is not None or not isinstance(uri, str):  # (a problem whenever uri is no str)
            raise ServerSetupError(f"TOOL_UI[{tool!r:.80}] {problem}")
        out[tool] = (uri, _page_file(folder, uri[len(SCHEME) :], tool))
    return out


def _page_file(folder: Path, relative: str, tool: str) -> Path:
    """The page's file: every step from `ui/` down a real folder or file, none a link."""
    where = f"TOOL_UI[{tool!r:.80}]"
    try:
        path = path_inside(folder.parent, f"{UI_FOLDER}/{relative}")
    except ValueError as refused:
        raise ServerSetupError(f"{where}: {refused}") from None
    if not path.is_file():
        raise ServerSetupError(f"{where}: no file {UI_FOLDER}/{relative!s:.120} beside handlers.py")
    return path


def _folder_of(cls: type, package: Path | None) -> Path:
    """The folder of the module whose class declares TOOL_UI (a subclass elsewhere may reuse it);
    the package's for the generated ToolsBase (its module is in the package's `_generated/`)."""
    for klass in cls.__mro__:
        if "TOOL_UI" in vars(klass):
            folder = Path(inspect.getfile(klass)).parent
            if package is not None and folder.resolve() == (package / "_generated").resolve():
                return package
            return folder
    return Path(inspect.getfile(cls)).parent


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
        try:
            fd = os.open(path, os.O_RDONLY | _NO_FOLLOW)
        except OSError as exc:  # gone, or a link put there since the server started
            raise RpcError(INTERNAL_ERROR, f"the UI page of {uri!r:.120} cannot be read") from exc
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_UI_BYTES + 1)
        if len(data) > MAX_UI_BYTES:
            raise RpcError(INTERNAL_ERROR, f"the UI page of {uri!r:.120} is over {MAX_UI_BYTES} bytes")
        return {"contents": [{"uri": uri, "mimeType": APP_MIME_TYPE, "text": data.decode("utf-8", "replace")}]}

    return read
