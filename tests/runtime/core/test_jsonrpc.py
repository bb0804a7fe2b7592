"""The JSON-RPC layer alone: framing and message classification."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.runtime.client.tasks import ToolTask
from mcpgen.runtime.core import jsonrpc
from mcpgen.runtime.core.errors import TaskFailed
from mcpgen.runtime.core.validation import compile_validator
from mcpgen.runtime.server.task_owner import ANONYMOUS
from mcpgen.runtime.server.tasks import TaskRecord

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(params=["msgspec", "stdlib"], autouse=True)
def codec(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs with msgspec doing the work (a dependency on CPython) and with the stdlib
    alone (where msgspec is missing): both must read and refuse the same lines."""
    jsonrpc.decode(b"{}")  # msgspec loads on the first message
    if request.param == "msgspec":
        assert jsonrpc._fast_encode is not None and jsonrpc._fast_decode is not None
    else:
        monkeypatch.setattr(jsonrpc, "_fast_encode", None)
        monkeypatch.setattr(jsonrpc, "_fast_decode", None)
    return str(request.param)


def test_encode_is_one_compact_utf8_line() -> None:
    data = jsonrpc.encode(jsonrpc.request(1, "tools/call", {"text": "a\nb", "ü": "é\u2028"}))
    assert b"\n" not in data
    assert b" " not in data
    assert "é".encode() in data  # UTF-8, not \\u escapes
    assert jsonrpc.decode(data)["params"]["text"] == "a\nb"


def test_encode_rejects_nan() -> None:
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        jsonrpc.encode({"x": float("nan")})


def test_decode_rejects_junk() -> None:
    with pytest.raises(ValueError, match="Expecting value"):
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
        with pytest.raises(ValueError, match="Extra data|Expecting"):
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
def test_encode_writes_what_json_dumps_writes(value: object, codec: str) -> None:
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    assert jsonrpc.stdlib_encode(value) == expected
    if codec == "stdlib":
        assert jsonrpc.encode(value) == expected
    else:  # the same JSON, a float's exponent perhaps spelled another way (1e300, not 1e+300)
        assert json.loads(jsonrpc.encode(value)) == json.loads(expected)
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
        with pytest.raises(ValueError, match="contains itself, or is nested too deeply"):
            jsonrpc.encode(value)
    with pytest.raises(TypeError, match="is not JSON serializable"):
        jsonrpc.encode({"x": object()})
    assert jsonrpc.encode({"after": [1, 2]}) == b'{"after":[1,2]}'


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"t":"hi"}}}',
        b'{"a":1,"a":2}',  # the last of a repeated key, as the stdlib keeps it
        b"[-0.0,1E5,1e-400,0.1,123.456e-7,12345678901234567890.5,-0]",
        b"[18446744073709551616,-9223372036854775809," + b"9" * 4300 + b"]",
        '"\\u0000\\/\\u00e9 \u2028 é"'.encode(),
        b"\t[]\n",
        # Only the stdlib takes these; msgspec refuses them and the stdlib reads them again.
        b"[NaN,Infinity,-Infinity,1e400]",
        b'"\\ud800"',
    ],
)
def test_decode_reads_what_the_stdlib_reads(line: bytes) -> None:
    expected = json.loads(line.decode())
    value = jsonrpc.decode(line)
    assert repr(value) == repr(expected)  # (repr: NaN is not equal to itself)
    assert repr(jsonrpc.decode(line.decode())) == repr(expected)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        # The stdlib has the last word, so its reason is the one given.
        (b'{"a":"x\x01y"}', "Invalid control character at: line 1 column 8 (char 7)"),  # raw control character
        (b'{"a":"\xff"}', "'utf-8' codec can't decode byte 0xff in position 6: invalid start byte"),  # not UTF-8
        # A surrogate encoded as UTF-8.
        (b'"\xed\xa0\x80"', "'utf-8' codec can't decode byte 0xed in position 1: invalid continuation byte"),
        (b"\xef\xbb\xbf{}", "Expecting value: line 1 column 1 (char 0)"),  # a byte-order mark
        (b"01", "Extra data: line 1 column 2 (char 1)"),
        (b"[1,]", "Expecting value: line 1 column 4 (char 3)"),
        (b'{"a":1,}', "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"),
        (b"[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"),
        (b"  ", "Expecting value: line 1 column 3 (char 2)"),
        # Past the interpreter's digit limit (quadratic to convert).
        (b"9" * 4301, "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits"),
    ],
)
def test_decode_refuses_what_the_stdlib_refuses(line: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(reason)):
        jsonrpc.decode(line)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), [1.0, {"x": float("nan")}]])
def test_encode_refuses_infinities_msgspec_would_write_as_null(value: object) -> None:
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        jsonrpc.encode(value)
    assert jsonrpc.encode({"x": None, "y": [None]}) == b'{"x":null,"y":[null]}'


def test_without_msgspec_the_stdlib_does_it_all(tmp_path: Path) -> None:
    # A vendored runtime, or PyPy: msgspec cannot be imported, and nothing notices.
    (tmp_path / "msgspec").mkdir()
    (tmp_path / "msgspec" / "__init__.py").write_text("raise ImportError('not installed here')\n")
    script = (
        "from mcpgen.runtime.core import jsonrpc\n"
        "assert jsonrpc.decode(b'[1e300]') == [1e300]\n"
        "print(jsonrpc.encode([1e300]).decode())\n"
        "assert jsonrpc._fast_loaded and jsonrpc._fast_decode is None\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[1e+300]\n"  # the stdlib's spelling


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=20,
)


# derandomize: the same examples on every run.
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(value=_json_values)
def test_both_codecs_agree_with_the_stdlib_on_any_json(value: object) -> None:
    try:
        stdlib = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:  # (a lone surrogate: no UTF-8 for it)
        return
    # With each codec (the fixture): the same JSON written, the same values read.
    assert repr(json.loads(jsonrpc.encode(value))) == repr(json.loads(stdlib))
    assert repr(jsonrpc.decode(stdlib)) == repr(json.loads(stdlib))


def test_error_codes_are_the_specs() -> None:
    # JSON-RPC 2.0 section 5.1, and MCP's own (schema.ts): peers match on the numbers.
    assert (
        jsonrpc.PARSE_ERROR,
        jsonrpc.INVALID_REQUEST,
        jsonrpc.METHOD_NOT_FOUND,
        jsonrpc.INVALID_PARAMS,
        jsonrpc.INTERNAL_ERROR,
    ) == (-32700, -32600, -32601, -32602, -32603)
    assert (
        jsonrpc.RESOURCE_NOT_FOUND,
        jsonrpc.URL_ELICITATION_REQUIRED,
        jsonrpc.HEADER_MISMATCH,
        jsonrpc.MISSING_CLIENT_CAPABILITY,
        jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
    ) == (-32002, -32042, -32020, -32021, -32022)


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ({"jsonrpc": "2.0", "id": 1}, "invalid"),  # neither a method, a result nor an error
        ({"jsonrpc": "2.0", "result": {}}, "invalid"),  # a response without an id
        ({"jsonrpc": "2.0", "error": {"code": 1, "message": "x"}}, "invalid"),  # an error without an id
        ({"jsonrpc": "2.0", "id": 1, "error": "boom"}, "invalid"),  # an error that is not an object
        ({"jsonrpc": "2.0", "id": 1, "result": None}, "response"),  # a null result is a result
        ({"jsonrpc": "2.0", "id": 0, "method": "x", "params": [1]}, "request"),  # by-position params
        ({"jsonrpc": "2.0", "id": 1, "method": "x", "params": None}, "request"),
        ({"jsonrpc": "2.0", "method": "x", "params": [1]}, "notification"),
        ({"jsonrpc": "2.0", "method": "x", "params": 3}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "x"}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1, "method": "x", "result": {}}, "request"),  # a method makes it a request
        ({"id": 1, "method": "x"}, "invalid"),  # no jsonrpc member
        (None, "invalid"),
    ],
)
def test_classify_every_shape(message: object, kind: str) -> None:
    assert jsonrpc.classify(message) == kind


def test_ids_are_strings_or_integers_never_booleans_null_or_floats() -> None:
    assert [jsonrpc.is_valid_id(v) for v in (0, -1, 2**70, "", "a")] == [True] * 5
    assert [jsonrpc.is_valid_id(v) for v in (True, False, None, 1.0, [1], {})] == [False] * 6


def test_message_builders_leave_out_what_is_absent_and_keep_what_is_falsy() -> None:
    assert jsonrpc.request(1, "m", None) == {"jsonrpc": "2.0", "id": 1, "method": "m"}
    assert jsonrpc.request("a", "m", {}) == {"jsonrpc": "2.0", "id": "a", "method": "m", "params": {}}
    assert jsonrpc.notification("n", None) == {"jsonrpc": "2.0", "method": "n"}
    assert jsonrpc.notification("n", {"x": 1}) == {"jsonrpc": "2.0", "method": "n", "params": {"x": 1}}
    assert jsonrpc.response(7, None) == {"jsonrpc": "2.0", "id": 7, "result": None}
    for data in (0, False, "", {"why": "x"}):
        assert jsonrpc.error_response(None, -32600, "bad", data) == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": "bad", "data": data},
        }


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": None, "b": [None, 1]}, '{"a":null,"b":[null,1]}'),
        ({"a": float("nan")}, '{"a":NaN}'),  # not null: the text copy says what the value is
        ([float("inf"), float("-inf")], "[Infinity,-Infinity]"),
        ({"s": "null", "é": [1.5, True]}, '{"s":"null","é":[1.5,true]}'),
        ({}, "{}"),
    ],
)
def test_dumps_writes_a_structured_results_text_copy_as_json_dumps_does(value: object, text: str) -> None:
    assert jsonrpc.dumps(value) == text
    assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_a_value_that_contains_itself_is_a_value_error() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        jsonrpc.encode({"x": loop})
    with pytest.raises(ValueError, match="contains itself"):
        jsonrpc.dumps(loop)


def test_decode_reads_text_and_bytes_and_refuses_depth_past_the_limit() -> None:
    assert jsonrpc.decode('{"a":1}') == {"a": 1} == jsonrpc.decode(b' {"a":1}\n')
    assert jsonrpc.stdlib_decode(b"[1] ") == [1] and jsonrpc.stdlib_decode("2") == 2
    with pytest.raises(ValueError, match="nested too deeply"):
        jsonrpc.stdlib_decode("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="Extra data"):
        jsonrpc.stdlib_decode("[1] [2]")


@pytest.mark.parametrize("write", [jsonrpc.encode, jsonrpc.dumps], ids=["encode", "dumps"])
def test_msgspec_writes_when_installed_whichever_call_comes_first(
    write: Callable[[object], object], monkeypatch: pytest.MonkeyPatch
) -> None:
    # bytes tell the writers apart: msgspec writes base64, the stdlib has no form for them.
    monkeypatch.setattr(jsonrpc, "_fast_loaded", False)
    monkeypatch.setattr(jsonrpc, "_fast_encode", None)
    monkeypatch.setattr(jsonrpc, "_fast_decode", None)
    written = write({"b": b"x"})
    assert (written.encode() if isinstance(written, str) else written) == b'{"b":"eA=="}'
    # Where msgspec is missing, the stdlib has the last word and refuses them.
    monkeypatch.setattr(jsonrpc, "_fast_encode", None)
    with pytest.raises(TypeError, match="bytes is not JSON serializable"):
        write({"b": b"x"})


def test_keys_that_are_not_text_are_refused_not_skipped() -> None:
    with pytest.raises(TypeError, match="keys must be str"):
        jsonrpc.stdlib_encode({(1, 2): 0})
    assert jsonrpc.stdlib_encode({1: 0, None: 1}) == b'{"1":0,"null":1}'


# One rule, "a JSON integer is an int that is not a bool", held by jsonrpc.is_int and read by
# every reader of an integer field (ids, task ttl/poll on both sides, error codes, schemas).
_INTS = [(True, False), (False, False), (-1, True), (0, True), (2**63, True), (1.0, False)]
_INTS += [(float("nan"), False), ("1", False), (None, False)]


@pytest.mark.parametrize(("value", "integer"), _INTS)
def test_an_integer_is_an_int_never_a_bool_a_float_a_string_or_null(value: object, integer: bool) -> None:
    assert jsonrpc.is_int(value) is integer
    assert jsonrpc.is_valid_id(value) is (integer or isinstance(value, str))


@pytest.mark.parametrize(("value", "integer"), _INTS)
def test_every_integer_reader_takes_what_is_int_takes(value: object, integer: bool) -> None:
    record = {"id": "t", "owner": ANONYMOUS, "status": "working", "created": "c", "updated": "c", "beat": 1.0}
    record["inputs"] = {}
    for field in ("ttl", "poll"):
        raw = json.dumps({**record, "ttl": 0, "poll": 0, field: value}).encode()
        assert (TaskRecord.decode(raw) is not None) is (integer and value >= 0), (field, value)  # type: ignore[operator]
    task = ToolTask(None, "tool", "t")  # type: ignore[arg-type]
    task.apply({"status": "working", "ttlMs": value, "pollIntervalMs": value})
    assert task.ttl_ms == (value if integer else None)
    assert (task.poll_interval != ToolTask(None, "tool", "t").poll_interval) is (integer and value > 0)  # type: ignore[arg-type, operator]
    task.apply({"status": "failed", "error": {"code": value, "message": "m"}})
    with pytest.raises(TaskFailed, match="m") as failed:
        task.result()
    assert failed.value.code == (value if integer else None)
    # (a float with no fraction is a JSON Schema integer: the one reader that takes more)
    assert (compile_validator({"type": "integer"})(value) is None) is (
        integer or (type(value) is float and value == 1.0)
    )
