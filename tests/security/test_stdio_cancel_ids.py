"""A notifications/cancelled whose requestId is no valid id (an object, a list, null, a float)
cancels nothing and ends nothing: the session goes on answering (an unhashable id used to break
the line listener, which ended the session)."""

from __future__ import annotations

import pytest

from ._stdio import INITIALIZE, INITIALIZED, answers, call, line, run_stdio

BAD_IDS = [[1], {"id": 1}, None, 1.5, True]


@pytest.mark.slow
def test_cancelling_with_an_id_that_is_no_id_ends_nothing() -> None:
    data = line(INITIALIZE) + line(INITIALIZED)
    for bad in BAD_IDS:
        data += line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": bad}})
    data += call(2, "get-forecast", {"city": "Paris", "days": 1})
    messages, proc = run_stdio(data)
    assert "result" in answers(messages).get(2, {}), proc.stderr.decode()[-2000:]
