"""2026-07-28 HTTP header mirroring of request fields: `Mcp-Name`, `Mcp-Param-*` values."""

from __future__ import annotations

import base64
import re
from typing import Any

from .jsonrpc import JSONObject, is_object

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def encode_header_value(value: Any) -> str | None:
    """Mcp-Param-* values: plain when safe ASCII, else the =?base64?...?= form."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    plain = (
        text.isascii()
        and all(0x20 <= ord(c) < 0x7F for c in text)
        and text == text.strip()
        and not (text.startswith("=?") and text.endswith("?="))
    )
    if plain:
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


def param_headers_of(tool: JSONObject) -> dict[str, str] | None:
    """{argument: header} from `x-mcp-header` on top-level properties; None if any is invalid."""
    schema = tool.get("inputSchema")
    properties = schema.get("properties") if is_object(schema) else None
    found: dict[str, str] = {}
    if not is_object(properties):
        return found
    for name, prop in properties.items():
        if not is_object(prop) or "x-mcp-header" not in prop:
            continue
        header = prop["x-mcp-header"]
        if not isinstance(header, str) or not _TOKEN.match(header):
            return None
        if prop.get("type") not in ("string", "integer", "boolean"):
            return None
        if header.lower() in (h.lower() for h in found.values()):
            return None
        found[name] = header
    return found
