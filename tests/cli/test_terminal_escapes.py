"""Nothing a server says reaches the terminal as an escape sequence (mcpgen.console.terminal_text,
the one sanitiser of `echo`, the console's lines and the CLI's error path).

Every command that prints a source's text (its results on stdout, its errors and warnings on
stderr) runs over a catalog whose names, descriptions and refusals carry CSI, OSC, C1, CR, BEL
and bidi controls; `auth status` over a planted token store whose issuer and scope carry them.
No byte of the output is such a control (tab and line feed aside).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.runtime.client.auth.store import FileTokenStore
from mcpgen.runtime.client.auth.tokens import Login, Tokens

ESCAPES = "\x1b]0;PWNED\x07 \x1b[2J\x1b[31m \x9b31m \x9d0;x\x9c \r\x08 \u202eevil \x00"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _tool(name: str) -> dict[str, object]:
    return {
        "name": name,
        "description": f"about {ESCAPES}",
        "inputSchema": {"type": "object", "properties": {f"p{ESCAPES}": {"type": "string"}}},
    }


def _run(args: list[str], cwd: Path, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen.cli", *args],
        cwd=cwd,
        capture_output=True,
        timeout=300,
        env={**os.environ, **env},
    )
    return (done.stdout + done.stderr).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("escapes")
    good = [_tool(f"t{ESCAPES}"), _tool("plain")]
    bad = {"name": f"bad{ESCAPES}", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/nope"}}}}
    (root / "good.json").write_text(json.dumps(good), encoding="utf-8")
    (root / "bad.json").write_text(json.dumps([*good, bad]), encoding="utf-8")
    (root / "other.json").write_text(json.dumps([_tool(f"u{ESCAPES}")]), encoding="utf-8")
    return root


COMMANDS = [
    ["inspect", "good.json"],
    ["inspect", "bad.json"],
    ["lint", "good.json"],
    ["diff", "good.json", "other.json"],
    ["diff", "good.json", "other.json", "--json"],
    ["client", "bad.json", "-o", "c1"],
    ["client", "bad.json", "--skip-invalid", "-o", "c2", "-v"],
    ["server", "bad.json", "-o", "s1"],
    ["docs", "bad.json", "-o", "d1"],
    ["snapshot", "bad.json", "-o", "snap.json"],
    ["client", "missing" + ESCAPES.replace("\x00", "") + ".json", "-o", "c3"],  # click's own error, with the path
]


@pytest.mark.slow
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(x[:12] for x in a[:2]))
def test_no_command_prints_a_control(folder: Path, args: list[str]) -> None:
    out = _run(args, folder)
    assert out.strip(), args
    assert not UNSAFE.findall(out), (args, UNSAFE.findall(out)[:5], out[:500])


def test_auth_status_prints_no_control(tmp_path: Path) -> None:
    env = {"MCPGEN_CONFIG_DIR": str(tmp_path), "MCPGEN_TOKEN_STORE": "file"}
    saved = os.environ.copy()
    os.environ.update(env)
    try:
        FileTokenStore().save(
            Login(
                resource=f"https://mcp.example.com/{ESCAPES}",
                issuer=f"https://as.example.com/{ESCAPES}",
                tokens=Tokens(access_token="x", token_type="Bearer"),
                scope=f"read {ESCAPES}",
            )
        )
    finally:
        os.environ.clear()
        os.environ.update(saved)
    out = _run(["auth", "status"], tmp_path, **env)
    assert "as.example.com" in out and "\\u001b" in out, out
    assert not UNSAFE.findall(out), out
