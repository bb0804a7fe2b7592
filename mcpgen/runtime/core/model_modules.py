"""A generated `models.py` as a front to `_models/`: each model loads with its module, on first use.

The generator writes a tool's models in `_models/<method>.py` and what tools share in
`_models/_shared.py` (mcpgen/models/per_tool.py); `_models/__init__.py` names, by module, what
each one declares, and `models.py` calls `lazy_models` with that index. A first call to one tool
thus declares that tool's classes, not every tool's.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_models(
    front: str, declares: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """`__getattr__`, `__dir__` and `__all__` for the front module `front` (its `__name__`):
    `declares` maps each module of the `_models` package beside it to the names it declares."""
    home = {name: module for module, names in declares.items() for name in names}
    package = front.rpartition(".")[0] + "._models"
    namespace = sys.modules[front].__dict__

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {front!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value  # found in the module's dict from now on, without this call
        return value

    def __dir__() -> list[str]:
        return sorted(namespace.keys() | home.keys())

    return __getattr__, __dir__, sorted(name for name in home if not name.startswith("_"))
