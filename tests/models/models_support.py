"""What the models tests import by name (a module of its own: a test importing `conftest` gets
whichever folder's conftest.py was imported first under that name)."""

from __future__ import annotations

import contextlib
import sys
import uuid
from collections.abc import Callable, Iterator
from types import ModuleType

from mcpgen.plan.types import Plan
from mcpgen.runtime.core.tables import ToolRow

# build(tools, skip_invalid=False, runtime="import") -> the imported package; the `build` fixture.
Build = Callable[..., ModuleType]


@contextlib.contextmanager
def loaded_models(source: str, plan: Plan, prefix: str = "models") -> Iterator[ModuleType]:
    """`source` (a generated models.py) run as the `models` module of a throwaway package whose
    `_catalog` holds the plan's tool texts and table: where the models' exact checks read their
    schemas (mcpgen/runtime/core/exact_schemas.py)."""
    package = f"{prefix}_{uuid.uuid4().hex[:8]}"
    catalog = ModuleType(f"{package}._catalog")
    catalog.TOOLS_JSON = plan.tools_json  # type: ignore[attr-defined]
    catalog.TOOL_TABLE = {t.wire: ToolRow(t.args_model, t.result_model, t.mode) for t in plan.tools}  # type: ignore[attr-defined]
    parent = ModuleType(package)
    parent.__path__ = []
    mod = ModuleType(f"{package}.models")
    mod.__package__ = package
    made = {m.__name__: m for m in (parent, catalog, mod)}
    sys.modules.update(made)  # pydantic resolves forward refs through sys.modules
    try:
        exec(compile(source, mod.__name__, "exec"), mod.__dict__)  # the test runs generated code on purpose
        yield mod
    finally:
        for name in made:
            del sys.modules[name]
