"""Answers lost at EOF: a client that writes its requests and closes stdin (`printf ... | server`)
gets every answer before the server exits."""

from __future__ import annotations

from ._stdio import INITIALIZE, INITIALIZED, answers, call, line, run_stdio


def test_requests_read_before_eof_are_all_answered() -> None:
    data = line(INITIALIZE) + line(INITIALIZED)
    data += b"".join(call(10 + i, "get-forecast", {"city": "Paris", "days": 3}) for i in range(20))
    messages, proc = run_stdio(data)
    got = answers(messages)
    assert proc.returncode == 0
    assert set(got) == {1, *range(10, 30)}, proc.stderr.decode()[-2000:]
    assert all("result" in got[i] for i in range(10, 30))


def test_a_request_without_a_trailing_newline_is_answered_too() -> None:
    data = line(INITIALIZE) + line(INITIALIZED) + call(2, "get-forecast", {"city": "Oslo", "days": 1}).rstrip(b"\n")
    messages, _ = run_stdio(data)
    assert "result" in answers(messages).get(2, {})
