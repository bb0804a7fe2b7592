"""2026-07-28 requests repeat key body fields in headers (MCP-Protocol-Version, Mcp-Method,
Mcp-Name, each `x-mcp-header` argument's Mcp-Param-*): they must be there and agree with the body."""

from __future__ import annotations

import base64
import binascii
import re
from typing import TYPE_CHECKING, Any

from ...core import jsonrpc
from ...core.jsonrpc import JSONObject, is_object
from ...core.protocol import HANDSHAKE_VERSIONS, META_PROTOCOL_VERSION, MODERN_VERSIONS

if TYPE_CHECKING:
    from ..server import Server

_NAME_HEADER_FOR = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    # The Tasks extension (SEP-2663 "Routing Headers"): the task's id.
    **dict.fromkeys(("tasks/get", "tasks/update", "tasks/cancel"), "taskId"),
}
# Methods whose Mcp-Name may be missing (checked only when sent): the official SDK's client, and
# so FastMCP's, sends none on tasks/* yet.
_NAME_OPTIONAL = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
# A plain (not base64-encoded) mirrored value: visible ASCII, spaces and tabs (RFC 9110).
_PLAIN_VALUE = re.compile(r"[\t -~]*")


def header_problem(server: Server, message: JSONObject, headers: dict[str, str]) -> tuple[int, str] | None:
    """(JSON-RPC error code, message) when the headers are missing or disagree with the body."""
    raw_params = message.get("params")
    params: JSONObject = raw_params if is_object(raw_params) else {}
    meta = params.get("_meta")
    version = headers.get("mcp-protocol-version")
    body_version = meta.get(META_PROTOCOL_VERSION) if is_object(meta) else None
    is_request = "id" in message
    # A missing body version is the body's own problem (-32602), reported by the server.
    if version is not None and body_version is not None and version != body_version:
        return jsonrpc.HEADER_MISMATCH, "MCP-Protocol-Version header does not match params._meta"
    # (An unsupported body version is answered first: -32022 lets the client step down.)
    if version is None and is_request and body_version in MODERN_VERSIONS:
        return jsonrpc.HEADER_MISMATCH, "Missing MCP-Protocol-Version header"
    method_header = _field(headers, "mcp-method")
    if method_header is None and is_request:
        return jsonrpc.HEADER_MISMATCH, "Missing Mcp-Method header"
    if method_header is not None and method_header != message.get("method"):
        return jsonrpc.HEADER_MISMATCH, "Mcp-Method header does not match the body"
    problem = _name_problem(message, params, headers)
    if problem is None and message.get("method") == "tools/call":
        problem = _param_problem(server, params, headers)
    if problem is not None:
        return jsonrpc.HEADER_MISMATCH, problem
    if version is not None and version not in MODERN_VERSIONS:
        return jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, f"Unsupported protocol version: {version}"
    return None


def header_error(message: JSONObject, code: int, text: str) -> JSONObject:
    """The error answer to a request `header_problem` refused."""
    data = None
    if code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
        # The client steps down to a version named here, exactly as for the body check.
        params: JSONObject = message.get("params") or {}
        meta: JSONObject = params.get("_meta") or {}
        data = {"supported": [*MODERN_VERSIONS, *HANDSHAKE_VERSIONS], "requested": meta.get(META_PROTOCOL_VERSION)}
    return jsonrpc.error_response(message.get("id"), code, text, data)


def _name_problem(message: JSONObject, params: JSONObject, headers: dict[str, str]) -> str | None:
    """Mcp-Name mirrors params.name (tools/call, prompts/get) or params.uri (resources/read)."""
    field_name = _NAME_HEADER_FOR.get(str(message.get("method")))
    if field_name is None:
        return None
    name_header = _field(headers, "mcp-name")
    body_value = params.get(field_name)
    if name_header is None:
        required = body_value is not None and "id" in message and message.get("method") not in _NAME_OPTIONAL
        return "Missing Mcp-Name header" if required else None
    if _decode_header(name_header) != body_value:
        return "Mcp-Name header does not match the body"
    return None


def _param_problem(server: Server, params: JSONObject, headers: dict[str, str]) -> str | None:
    """Each `x-mcp-header` argument of the called tool is mirrored in its Mcp-Param-* header:
    present exactly when the argument is, and equal to it once decoded."""
    name = params.get("name")
    # (The tool's `x-mcp-header` arguments, read once when it was registered.)
    mirrored = server.tool_param_headers(name) if isinstance(name, str) else None
    if not mirrored:
        return None
    raw_arguments = params.get("arguments")
    arguments: JSONObject = raw_arguments if is_object(raw_arguments) else {}
    for argument, header in mirrored.items():
        raw = _field(headers, f"mcp-param-{header.lower()}")
        value = arguments.get(argument)
        if raw is None:
            if value is not None:
                return f"Missing Mcp-Param-{header} header"
            continue
        decoded = _decode_header(raw)
        if decoded is None:
            return f"Mcp-Param-{header} header is not valid"
        if value is None or not _same_value(decoded, value):
            return f"Mcp-Param-{header} header does not match the body"
    return None


def _same_value(header: str, value: Any) -> bool:
    # Booleans as true/false, integers compared as numbers (42 and 42.0 agree), else text.
    if isinstance(value, bool):
        return header == ("true" if value else "false")
    if isinstance(value, int):
        try:
            return float(header) == value
        except ValueError:
            return False
    return isinstance(value, str) and header == value


def _field(headers: dict[str, str], name: str) -> str | None:
    """A header's value without surrounding whitespace (RFC 9110 optional whitespace)."""
    value = headers.get(name)
    return value.strip(" \t") if value is not None else None


def _decode_header(value: str) -> str | None:
    """A plain value as is, a =?base64?...?= one decoded; None if either is malformed."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (ValueError, binascii.Error):
            return None
    # Plain values are visible ASCII, spaces and tabs only (RFC 9110 field values).
    return value if _PLAIN_VALUE.fullmatch(value) is not None else None
