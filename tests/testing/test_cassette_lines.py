"""A cassette is JSON lines split at `\\n` only: results holding U+2028, U+2029 or NEL (which
str.splitlines() also splits at) replay as recorded, and a line nested deeper than the reader
allows is one line of reason with exit 2, never a RecursionError."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kit_support import load

from mcpgen.catalog.snapshot import snapshot_document
from mcpgen.testing.cassette import MAX_NESTING, CassetteWriter, Redactor, load_cassette

SEPARATORS = "a\u2028b\u2029c\x85d\r\ne\x0bf\x0cg\x1ch"


def _params(message: str) -> dict[str, object]:
    return {"name": "echo", "arguments": {"message": message}}


def test_results_with_line_separators_replay_as_recorded(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    writer = CassetteWriter(cassette, load("everything"), Redactor.build([], []), redacted_headers=[])
    result = {"content": [{"type": "text", "text": f"Echo: {SEPARATORS}"}]}
    writer.exchange("tools/call", _params(SEPARATORS), result=result)
    writer.close()
    raw = cassette.read_text(encoding="utf-8")
    assert not any(ch in raw for ch in "\u2028\u2029\x85") and raw.count("\n") == 2
    loaded, problems = load_cassette(cassette)
    assert loaded is not None, problems
    (exchange,) = loaded.exchanges
    assert exchange.result == result and exchange.params == _params(SEPARATORS)


def test_a_cassette_written_with_raw_separators_still_reads(tmp_path: Path) -> None:
    header = {"mcpgen_cassette": 1, "catalog": snapshot_document(load("everything")), "redacted": {}}
    line = {"method": "tools/call", "params": _params(SEPARATORS), "result": {"content": []}}
    cassette = tmp_path / "c.jsonl"
    cassette.write_text(json.dumps(header) + "\n" + json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    loaded, problems = load_cassette(cassette)
    assert loaded is not None, problems
    assert loaded.exchanges[0].params == _params(SEPARATORS)


def test_a_deeply_nested_line_is_one_line_of_reason_and_exit_2(tmp_path: Path) -> None:
    header = {"mcpgen_cassette": 1, "catalog": snapshot_document(load("everything")), "redacted": {}}
    cassette = tmp_path / "c.jsonl"
    for depth in (MAX_NESTING + 5, 100_000):  # past the limit, and past the parser's recursion
        deep = '{"method": "tools/call", "params": ' + "[" * depth + "]" * depth + "}"
        cassette.write_text(json.dumps(header) + "\n" + deep + "\n", encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "mcpgen.cli", "mock", "--replay", str(cassette)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and f"line 2: nested deeper than {MAX_NESTING} levels" in lines[0], done.stderr
        assert "RecursionError" not in done.stderr
