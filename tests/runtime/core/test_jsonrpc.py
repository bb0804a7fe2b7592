"""The JSON-RPC layer alone: framing and message classification."""

from __future__ import annotations

import json

import pytest

from mcpgen.runtime.core import jsonrpc


def test_encode_is_one_compact_utf8_line() -> None:
    data = jsonrpc.encode(jsonrpc.request(1, "tools/call", {"text": "a\nb", "ü": "é\u2028"}))
    assert b"\n" not in data
    assert b" " not in data
    assert "é".encode() in data  # UTF-8, not \\u escapes
    assert jsonrpc.decode(data)["params"]["text"] == "a\nb"


def test_encode_rejects_nan() -> None:
    with pytest.raises(ValueError):
        jsonrpc.encode({"x": float("nan")})


def test_decode_rejects_junk() -> None:
    with pytest.raises(ValueError):
        jsonrpc.decode(b"Server starting on stdio...")


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, "request"),
        ({"jsonrpc": "2.0", "id": "a", "method": "ping", "params": {}}, "request"),
        ({"jsonrpc": "2.0", "method": "notifications/initialized"}, "notification"),
        ({"jsonrpc": "2.0", "id": 1, "result": {}}, "response"),
        ({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}}, "error"),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, "invalid"),  # null id is never valid
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, "invalid"),
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1, "method": 5}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1, "method": "x", "params": "s"}, "invalid"),
        ([1, 2], "invalid"),
        ("text", "invalid"),
    ],
)
def test_classify(message: object, kind: str) -> None:
    assert jsonrpc.classify(message) == kind


def test_error_response_omits_absent_data() -> None:
    assert jsonrpc.error_response(3, -32601, "nope") == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32601, "message": "nope"},
    }


def test_decode_takes_a_bare_message_directly_and_keeps_the_whole_rules_otherwise() -> None:
    assert jsonrpc.decode(b'{"id":1}') == {"id": 1}
    assert jsonrpc.decode(b' \t{"id":1} ') == {"id": 1}  # whitespace around it still parses
    for junk in (b'{"id":1} x', b'{"id":1}{}', b"", b"nul", b"[1,"):
        with pytest.raises(ValueError):
            jsonrpc.decode(junk)
    with pytest.raises(ValueError, match="nested too deeply"):
        jsonrpc.decode(b"[" * 100_000 + b"]" * 100_000)


class _Text(str):
    pass


_VALUES = [
    None,
    True,
    -0.0,
    1e300,
    2**100,
    'é\u2028"\\\n\x00',
    _Text("a str subclass"),
    (1, "tuple"),
    {"a": [1, {"b": None}], "": {}},
    {7: "int key", 2.5: "float key", True: "bool key", None: "null key"},
]


@pytest.mark.parametrize("value", _VALUES)
def test_encode_writes_what_json_dumps_writes(value: object) -> None:
    assert jsonrpc.encode(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    spaced = jsonrpc.json_encoder(separators=(", ", ": "), allow_nan=True)
    assert spaced(value) == json.dumps(value, ensure_ascii=False)
    assert spaced([float("nan")]) == "[NaN]"


def test_encode_refuses_what_is_no_json_and_stays_usable() -> None:
    looped: list[object] = []
    looped.append(looped)
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    for value in (looped, {"x": deep}):
        # ValueError, as for NaN: the server answers "Result is not valid JSON" instead of failing
        # the request's task with a RecursionError and leaving the client waiting.
        with pytest.raises(ValueError):
            jsonrpc.encode(value)
    with pytest.raises(TypeError):
        jsonrpc.encode({"x": object()})
    assert jsonrpc.encode({"after": [1, 2]}) == b'{"after":[1,2]}'
