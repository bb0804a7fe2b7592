"""What a generated package imports first: the check that the installed runtime runs it."""

from ..version import require_runtime

__all__ = ["require_runtime"]
