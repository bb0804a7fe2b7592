"""The runtime's version, and the check that generated code runs on it.

The minor version says which generated code a runtime runs: a generated package states the
releases it runs on as a pip specifier (`RUNTIME_REQUIRES = ">=0.2,<0.3"`) and calls
`require_runtime` (through `support.version`) when it is imported, so that a mismatch fails at
once, in one line, instead of as an AttributeError deep in a call. Read by the mcpgen-runtime
distribution's build (runtime/pyproject.toml), so `__version__` is the one place to raise it.
Standard library only, and nothing imported: the check costs no import time.
"""

from __future__ import annotations

__version__ = "0.2.0"


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def require_runtime(package: str, requires: str) -> None:
    """Raise ImportError unless this runtime's version is within `requires` (">=X.Y,<X.Z")."""
    package = package.removesuffix("._generated")  # a server checks in its _generated package
    lowest, above = (_major_minor(bound.lstrip("><=")) for bound in requires.split(","))
    if not lowest <= _major_minor(__version__) < above:
        raise ImportError(
            f"{package} was generated for mcpgen-runtime{requires} but mcpgen-runtime {__version__} "
            f"is installed: pip install 'mcpgen-runtime{requires}' (or regenerate {package})"
        )
