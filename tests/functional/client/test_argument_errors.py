"""Bad arguments, explained where they are made: a typed client call names the Python keywords
the caller typed, one line per problem, with no pydantic boilerplate or URL (and sends nothing);
a generated server answers every problem at once, by JSON pointer and wire name, one per line
(that text is read by an LLM). Both ends are generated from one schema and talk over stdio."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import InvalidArguments, connect_stdio

SEND = {
    "name": "send-message",
    "inputSchema": {
        "type": "object",
        "properties": {
            "messageType": {"type": "string", "enum": ["text", "card"]},
            "priority": {"type": "integer", "minimum": 1},
            "recipient": {
                "type": "object",
                "properties": {"displayName": {"type": "string"}},
                "required": ["displayName"],
            },
        },
        "required": ["messageType", "priority"],
        "additionalProperties": False,
    },
}


def _mcpgen(*args: str, cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("argerr")
    (root / "schemas").mkdir()
    (root / "schemas" / "send.json").write_text(json.dumps(SEND))
    _mcpgen("server", "schemas", "-o", "msg_server", cwd=root)
    _mcpgen("client", "schemas/send.json", "-o", "msg_client", cwd=root)
    return root


def _with_client(root: Path, body: Any) -> Any:
    sys.path.insert(0, str(root))
    try:
        from msg_client import AsyncClient  # type: ignore[import-not-found]

        async def main() -> Any:
            async with AsyncClient.connect_stdio(sys.executable, ["-m", "msg_server"], cwd=str(root)) as c:
                return await body(c)

        return asyncio.run(main())
    finally:
        sys.path.remove(str(root))


def _python_name_of_display_name(root: Path) -> str:
    """The nested model's Python field for the wire name "displayName" (whatever naming rule made it)."""
    sys.path.insert(0, str(root))
    try:
        import msg_client.models as models  # type: ignore[import-not-found]

        for value in (getattr(models, n) for n in dir(models)):
            for name, info in getattr(value, "model_fields", {}).items():
                wire = info.serialization_alias or info.alias or name
                if wire == "displayName":
                    return str(name)
    finally:
        sys.path.remove(str(root))
    raise AssertionError("no model holds displayName")


@pytest.mark.slow
def test_typed_call_names_python_keywords_one_line_each(packages: Path) -> None:
    async def body(c: Any) -> InvalidArguments:
        with pytest.raises(
            InvalidArguments,
            match=(
                r"^message_type: 'fax' is not one of \['text', 'card'\]\npriority: 0 is less than "
                r"the minimum of 1\nrecipient\.display_name: 3 is not of type 'string'$"
            ),
        ) as ei:
            await c.send_message(message_type="fax", priority=0, recipient={"displayName": 3})
        return ei.value

    exc = _with_client(packages, body)
    lines = str(exc).splitlines()
    nested = _python_name_of_display_name(packages)
    assert exc.problems == lines and len(lines) == 3, lines
    assert any(line.startswith("message_type: 'fax' is not one of") for line in lines), lines
    assert "priority: 0 is less than the minimum of 1" in lines
    assert any(line.startswith(f"recipient.{nested}: 3 is not of type 'string'") for line in lines), lines
    text = str(exc)
    assert "messageType" not in text and "http" not in text and "pydantic" not in text


@pytest.mark.slow
def test_server_lists_every_problem_by_pointer_and_wire_name(packages: Path) -> None:
    async def call() -> dict[str, Any]:
        async with connect_stdio(sys.executable, ["-m", "msg_server"], cwd=str(packages)) as s:
            return await s.call_tool("send-message", {"messageType": "fax", "recipient": {}, "extra": 1})

    result = asyncio.run(call())
    assert result["isError"] is True
    lines = result["content"][0]["text"].splitlines()
    assert lines[0] == "Invalid arguments for tool 'send-message':"
    assert sorted(lines[1:]) == sorted(
        [
            "/extra: not allowed here (no such property)",
            "/messageType: 'fax' is not one of ['text', 'card']",
            "/priority: required, but missing",
            "/recipient/displayName: required, but missing",
        ]
    ), lines
    assert "http" not in result["content"][0]["text"]


@pytest.mark.slow
def test_dispatch_words_problems_for_an_llm_by_wire_name(packages: Path) -> None:
    async def body(c: Any) -> Any:
        return await c.dispatch("send-message", {"messageType": "text", "priority": "high"})

    result = _with_client(packages, body)
    assert result.is_error
    assert result.text.splitlines() == [
        "Invalid arguments for tool 'send-message':",
        "/priority: 'high' is not of type 'integer'",
    ]
