"""An optional dependency a feature needs, checked before the feature starts: one message that
says what to install, for the installed runtime and for a vendored copy alike.

The installed runtime names its own extra (`pip install 'mcpgen-runtime[http]'`); a copy vendored
into a generated package (`--runtime vendor`, where this module is `PKG._runtime.core.extras`)
has no extras to name, so it names the distribution itself and where the package lists its
run-time requirements (the copy's `__init__.py`). Standard library only.
"""

from __future__ import annotations

import importlib.util

# This module's own name when it is the installed runtime's (any other name is a vendored copy).
INSTALLED_NAME = "mcpgen.runtime.core.extras"


def install_hint(distribution: str, extra: str) -> str:
    """The pip command that brings `distribution` (the runtime's extra `extra` holds it)."""
    if __name__ == INSTALLED_NAME:
        return f"pip install 'mcpgen-runtime[{extra}]'"
    package = __name__.removesuffix("._runtime.core.extras")
    return f"pip install {distribution} (every run-time requirement of {package}: {package}/_runtime/__init__.py)"


def require_module(module: str, *, extra: str, feature: str, distribution: str | None = None) -> None:
    """ModuleNotFoundError naming `feature` and the command that fixes it, unless `module` imports."""
    if importlib.util.find_spec(module) is None:
        hint = install_hint(distribution or module, extra)
        raise ModuleNotFoundError(f"{feature} needs {module}, which is not installed: {hint}", name=module)
