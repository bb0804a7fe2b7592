"""JSON-RPC 2.0: compact one-line encoding, decoding, message shapes and error codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeGuard

if TYPE_CHECKING:  # (typing_extensions, which pydantic requires, at type-checking time only)
    from typing_extensions import TypeIs

JSONObject = dict[str, Any]
RequestId = int | str

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
# Implementation-defined server error (-32000 to -32099): too many requests in flight.
SERVER_BUSY: Final = -32000
# MCP's own codes.
RESOURCE_NOT_FOUND: Final = -32002
URL_ELICITATION_REQUIRED: Final = -32042
HEADER_MISMATCH: Final = -32020
MISSING_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022


def json_encoder(*, separators: tuple[str, str], allow_nan: bool) -> Callable[[Any], str]:
    """`json.dumps(value, ensure_ascii=False, separators=..., allow_nan=...)`, with the C encoder
    built once: JSONEncoder.encode builds a new one for every value, a fifth of the cost of
    encoding a short message. There is no cycle check (it costs a dict entry per container): a
    value that contains itself recurses to the interpreter's limit, and that, like a value
    nested too deeply to encode, is a ValueError as a value that is not JSON is."""
    encoder = json.JSONEncoder(ensure_ascii=False, separators=separators, allow_nan=allow_nan)
    item_separator, key_separator = separators
    make = getattr(json.encoder, "c_make_encoder", None)  # None where the _json accelerator is missing
    if make is None:
        return encoder.encode
    chunks_of = make(
        None,
        encoder.default,
        json.encoder.encode_basestring,
        None,
        key_separator,
        item_separator,
        False,
        False,
        allow_nan,
    )

    def encode(value: Any) -> str:
        try:
            return "".join(chunks_of(value, 0))
        except RecursionError:
            raise ValueError("a value that contains itself, or is nested too deeply to encode") from None

    return encode


_encode = json_encoder(separators=(",", ":"), allow_nan=False)
_dumps_with_nan = json_encoder(separators=(",", ":"), allow_nan=True)
_decoder = json.JSONDecoder()
# The C parser JSONDecoder.raw_decode runs (an attribute typeshed does not declare).
_scan_once: Callable[[str, int], tuple[Any, int]] = getattr(_decoder, "scan_once")  # noqa: B009


def encode(message: Any) -> bytes:
    """One message as compact UTF-8 JSON without a newline (JSON escapes any inside strings).

    msgspec writes it when installed (a dependency on CPython, four times the stdlib's speed: a
    tenth of a stdio call's cost saved on each side). The stdlib has the last word on anything
    msgspec refuses, and on any output with a `null` in it: msgspec writes NaN and infinities as
    null, which the stdlib refuses (a ValueError: the server answers "Result is not valid JSON").
    Python values JSON has no form for (bytes, datetime, sets, enums) msgspec writes in its own
    forms where the stdlib raises TypeError; results reach here as JSON, built from models or
    checked by schemas.
    """
    # (_fast_or_none's steps written out: a call less on every message.)
    if not _fast_loaded:
        _load_fast()
    if _fast_encode is not None:
        try:
            data = _fast_encode(message)
        except Exception:
            pass
        else:
            if b"null" not in data:
                return data
    return stdlib_encode(message)


def dumps(value: Any) -> str:
    """`value` as compact JSON text (a structured result's text copy): by msgspec as `encode`
    writes it, or by the stdlib, which writes NaN and infinities as json.dumps does (NaN)."""
    data = _fast_or_none(value)
    return data.decode("utf-8") if data is not None else _dumps_with_nan(value)


def _fast_or_none(value: Any) -> bytes | None:
    """msgspec's JSON for `value`; None where msgspec is missing, refuses it (a cycle, an int
    past 64 bits...) or wrote a null, which may stand for a NaN: the stdlib decides those."""
    if not _fast_loaded:
        _load_fast()
    if _fast_encode is None:
        return None
    try:
        data = _fast_encode(value)
    except Exception:
        return None
    return None if b"null" in data else data


def decode(data: bytes | str) -> Any:
    """Parse one message; raises ValueError on anything that is not JSON.

    msgspec parses it when installed; whatever msgspec refuses the stdlib parses again and has the
    last word, so both accept the same lines (a BOM, a lone surrogate escape, 1e400: only the
    stdlib takes them) and read them as the same values.
    """
    if not _fast_loaded:
        _load_fast()
    if _fast_decode is not None:
        try:
            return _fast_decode(data)
        except Exception:  # not JSON, too deep, or only the stdlib's JSON: asked again below
            pass
    return stdlib_decode(data)


def stdlib_encode(message: Any) -> bytes:
    """`encode` by the standard library alone."""
    return _encode(message).encode("utf-8")


def stdlib_decode(data: bytes | str) -> Any:
    """`decode` by the standard library alone.

    JSON nested deeper than the interpreter's recursion limit (a 2 KB line of `[[[[...`) is a
    ValueError too: the parser's RecursionError would otherwise look like a broken transport
    and end the whole session instead of costing that one message.
    """
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    try:
        try:
            # The parser itself first: a message without surrounding whitespace (all of ours)
            # needs neither of the two whitespace regexes JSONDecoder.decode runs around it.
            value, end = _scan_once(data, 0)
            if end == len(data):
                return value
        except StopIteration:
            pass
        return _decoder.decode(data)  # whitespace around it, or not JSON: the whole rules
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


_fast_loaded = False
_fast_encode: Callable[[Any], bytes] | None = None
_fast_decode: Callable[[bytes | str], Any] | None = None


def _load_fast() -> None:
    """msgspec's encoder and decoder, on the first message rather than at import: msgspec brings
    typing_extensions, decimal, uuid and datetime, a fifth of a generated client's import time."""
    global _fast_loaded, _fast_encode, _fast_decode
    _fast_loaded = True
    try:
        import msgspec.json
    except ImportError:  # (PyPy, a vendored runtime without it): the stdlib alone
        return
    _fast_encode = msgspec.json.Encoder().encode
    _fast_decode = msgspec.json.Decoder().decode


def request(request_id: RequestId, method: str, params: JSONObject | None) -> JSONObject:
    message: JSONObject = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: JSONObject | None) -> JSONObject:
    message: JSONObject = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def response(request_id: RequestId, result: Any) -> JSONObject:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: RequestId | None, code: int, message: str, data: Any = None) -> JSONObject:
    error: JSONObject = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def is_object(value: object) -> TypeIs[JSONObject]:
    """`isinstance(value, dict)`, typed as what it is wherever the runtime asks: a JSON object,
    whose keys are strings (every decoder the runtime uses, json and msgspec, makes them so) and
    whose members are JSON values (Any), rather than a dict of unknowns."""
    return isinstance(value, dict)


def is_array(value: object) -> TypeIs[list[Any]]:
    """`isinstance(value, list)`, typed as a JSON array (its items JSON values)."""
    return isinstance(value, list)


def is_int(value: object) -> TypeIs[int]:
    """A JSON integer as a decoder gives it: an `int` that is not a `bool` (bool is an int
    subclass, and `true` is never a number). Bounds are the caller's: `is_int(v) and v >= 0`."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_valid_id(value: Any) -> TypeGuard[RequestId]:
    # null is never valid for a request.
    return isinstance(value, str) or is_int(value)


def classify(message: Any) -> str:
    """'request', 'notification', 'response', 'error' or 'invalid'."""
    if not is_object(message) or message.get("jsonrpc") != "2.0":
        return "invalid"
    method = message.get("method")
    if method is not None:
        if not isinstance(method, str):
            return "invalid"
        params = message.get("params")
        if params is not None and not isinstance(params, (dict, list)):
            return "invalid"
        if "id" not in message:
            return "notification"
        return "request" if is_valid_id(message["id"]) else "invalid"
    if "result" in message and "id" in message:
        return "response"
    if is_object(message.get("error")) and "id" in message:
        return "error"
    return "invalid"
