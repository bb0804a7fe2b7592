"""Exact argument checks for generated servers: JSON Schema validation by jsonschema.

Imported only by server code (a vendored client never loads it), and jsonschema is
imported on first use, so the rest of the runtime stays standard-library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = Callable[[Any], "str | None"]


def compile_validator(schema: dict[str, Any] | bool) -> Check:
    """A function returning None for a valid instance, else one line naming where and why."""
    import jsonschema

    # The schema's own $schema picks the dialect (2020-12 by default, as MCP says). No
    # retrieval is configured, so a $ref outside the document fails instead of fetching.
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def check(instance: Any) -> str | None:
        error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
        if error is None:
            return None
        where = "/".join(str(part) for part in error.absolute_path) or "(arguments)"
        return f"{where}: {error.message}"

    return check
