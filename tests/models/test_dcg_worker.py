"""The datamodel-code-generator helper process: same models as in-process, errors as values,
and a worker that died is replaced by an in-process run."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from mcpgen.models.dcg import DcgWorker
from mcpgen.models.dcg import run_in_process as _run_dcg

# The document's shape (models/document.py): each model under $defs, the root's properties refer to them.
DOC: dict[str, Any] = {
    "$defs": {"EchoArgs": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}},
    "type": "object",
    "properties": {"EchoArgs": {"$ref": "#/$defs/EchoArgs"}},
}


def test_worker_output_is_the_in_process_output() -> None:
    with DcgWorker(_run_dcg) as worker:
        assert worker._proc is not None, "Linux has fork: the worker should run"
        pid = worker._proc.pid
        assert pid != os.getpid()
        got = worker.run(DOC, {})
    assert got == _run_dcg(DOC, {})
    assert "class EchoArgs" in got


def _boom(doc: dict[str, Any], aliases: dict[str, str]) -> str:
    raise ValueError("schema says no")


def test_a_failure_in_the_worker_comes_back_as_one_exception() -> None:
    with DcgWorker(_boom) as worker, pytest.raises(RuntimeError, match="schema says no"):
        worker.run(DOC, {})


def test_a_dead_worker_is_replaced_by_an_in_process_run() -> None:
    with DcgWorker(_run_dcg) as worker:
        assert worker._proc is not None
        os.kill(worker._proc.pid, signal.SIGKILL)
        worker._proc.join(timeout=10)
        assert "class EchoArgs" in worker.run(DOC, {})


def test_close_without_run_stops_the_worker() -> None:
    worker = DcgWorker(_run_dcg)
    proc = worker._proc
    worker.close()
    assert proc is None or not proc.is_alive()


def _entry(args: list[str], tmp_path: Any) -> Any:
    import subprocess
    import sys

    code = f"import sys; sys.argv = ['mcpgen', *{args!r}]; from mcpgen.entry import main; main()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_the_mcpgen_command_generates_with_its_prestarted_worker(tmp_path: Any) -> None:
    import json

    src = tmp_path / "tools.json"
    src.write_text(
        json.dumps([{"name": "echo", "inputSchema": {"type": "object", "properties": {"m": {"type": "string"}}}}])
    )
    done = _entry(["client", str(src), "-o", str(tmp_path / "echo_client")], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "class EchoArgs" in (tmp_path / "echo_client" / "_models" / "echo.py").read_text()
    # The same through the in-process path (no entry, no prestart): byte-identical package.
    from mcpgen.cli import main

    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(["client", str(src), "-o", str(tmp_path / "echo_client2"), "--name", "echo_client"])
    assert ei.value.code == 0
    for name in ("client.py", "models.py", "_catalog.py", "__init__.py", "_models/_shared.py", "_models/echo.py"):
        assert (tmp_path / "echo_client" / name).read_bytes() == (tmp_path / "echo_client2" / name).read_bytes()


def test_a_failing_mcpgen_command_exits_2_at_once_with_one_line(tmp_path: Any) -> None:
    done = _entry(["client", str(tmp_path / "missing.json"), "-o", str(tmp_path / "out")], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
