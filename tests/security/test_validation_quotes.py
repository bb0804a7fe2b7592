"""Validation errors quote a bounded prefix of what the client sent, never the whole value."""

from __future__ import annotations

import pydantic

from mcpgen.runtime.server.adapter import _bad_arguments

from ._stdio import INITIALIZE, INITIALIZED, answers, call, line, run_stdio

BIG = "k" * (1024 * 1024)


class Args(pydantic.BaseModel):
    counts: dict[str, int]
    tags: list[str]


def test_pydantic_errors_with_a_huge_key_or_value_are_clipped() -> None:
    for bad in ({"counts": {BIG: "x"}, "tags": []}, {"counts": {}, "tags": [["x"] * 100_000]}):
        try:
            Args.model_validate(bad)
        except pydantic.ValidationError as exc:
            text = _bad_arguments(exc)["content"][0]["text"]
            assert len(text) <= 1000
        else:
            raise AssertionError("should not validate")


def test_generated_server_never_echoes_a_huge_argument() -> None:
    data = line(INITIALIZE) + line(INITIALIZED)
    data += call(2, "get-forecast", {"city": "Paris", "days": BIG})
    data += call(3, "get-forecast", {"city": "Paris", "days": 1, BIG: 1})
    messages, _ = run_stdio(data)
    got = answers(messages)
    for request_id in (2, 3):
        assert len(str(got[request_id])) < 2_000
