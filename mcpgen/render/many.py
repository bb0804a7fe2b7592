"""Many plans -> one package: each server's flat client under `servers/<namespace>/`, and on top
a client whose namespaces are those clients (`c.github.create_issue(...)`).

```
<package>/__init__.py  AsyncClient, Client, SERVERS, TOOL_NAMES, COLLISIONS
<package>/client.py    connect() starts every server; tool_definitions()/dispatch() by `server__tool`
<package>/_servers.py  data only: the config's path, namespaces, prefixed names, collisions
<package>/servers/<namespace>/  the server's own typed client (client.py, models.py, _catalog.py)
```
"""

from __future__ import annotations

from collections.abc import Mapping

from ..models import ModelsOutput
from ..models.imports import import_lines
from ..options import ClientOptions
from ..plan.docstrings import CALL_ERRORS
from ..plan.many import ManyPlan
from ..plan.types import Plan
from .client import render_client, runtime_module
from .emitters import PyCode, code
from .environment import make_environment, render
from .files import FileSet

TOP_FILES = ("__init__.py", "client.py", "_servers.py")


def _imports(many: ManyPlan, runtime: str, sync: bool) -> dict[str, PyCode]:
    """The import blocks of the package's `__init__.py` and `client.py`, sorted (namespaces are
    Python names made by plan/many.py, never untrusted text)."""
    errors = ", ".join(CALL_ERRORS)
    init = [
        "from __future__ import annotations",
        f"from {runtime}.support.client import ServersConfigError, {errors}, ToolResult",
        *([] if runtime.startswith(".") else [f"from {runtime}.support.version import require_runtime"]),
        "from ._servers import COLLISIONS, SERVERS, TOOL_NAMES",
        "from .client import AsyncClient" + (", Client" if sync else ""),
    ]
    client = [
        "from __future__ import annotations",
        "import contextlib as _contextlib",
        "import os as _os",
        "from collections.abc import AsyncIterator" + (", Iterator" if sync else ""),
        "from typing import Any",
        "from typing import cast as _cast",
        f"from {runtime}.support.client import config_path as _config_path",
        f"from {runtime}.support.client import AsyncManyClientBase" + (", SyncManyClientBase" if sync else ""),
        "from ._servers import CONFIG_FILE, SERVERS, TOOL_NAMES",
        *(f"from .servers import {s.namespace} as _server_{s.namespace}" for s in many.servers),
    ]
    return {"init_imports": code(import_lines(init)), "client_imports": code(import_lines(client))}


def render_many(
    many: ManyPlan,
    clients: Mapping[str, tuple[Plan, ModelsOutput]],
    options: ClientOptions,
    templates: str | None,
    config_file: str,
) -> FileSet:
    """`clients` maps each namespace to its server's bound plan and models."""
    env = make_environment(templates)
    fs = FileSet()
    context = {
        "many": many,
        "runtime_module": runtime_module(options.runtime),
        "sync": options.sync,
        "config_file": config_file,
    }
    context.update(_imports(many, runtime_module(options.runtime), options.sync), call_errors=CALL_ERRORS)
    for name in TOP_FILES:
        fs.add(name, render(env, f"many/{name}.jinja", **context))
    fs.add("py.typed", "")
    fs.add("servers/__init__.py", render(env, "many/servers.__init__.py.jinja", **context))
    for s in many.servers:
        plan, models = clients[s.namespace]
        sub = render_client(plan, models, options, templates)
        for path, text in sub.files.items():
            fs.add(f"servers/{s.namespace}/{path}", text, format=path not in sub.verbatim)
    return fs
