"""The datamodel-code-generator helper process: same models as in-process, errors as values,
and a worker that died is replaced by an in-process run."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from mcpgen.dcg_worker import DcgWorker
from mcpgen.models import _run_dcg

DOC: dict[str, Any] = {
    "type": "object",
    "properties": {
        "EchoArgs": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}
    },
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
