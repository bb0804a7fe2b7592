"""What the models tests import by name (a module of its own: a test importing `conftest` gets
whichever folder's conftest.py was imported first under that name)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

# build(tools, skip_invalid=False, runtime="import") -> the imported package; the `build` fixture.
Build = Callable[..., ModuleType]
