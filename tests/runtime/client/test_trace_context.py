"""W3C trace context in `_meta` (MCP 2026-07-28, SEP-414): the format rule, a client sending it
(from an explicit option or OpenTelemetry's current context), a server reading it (into
RequestContext.trace and OpenTelemetry's context), and malformed values dropped on both sides."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from mcpgen.runtime import Server, connect_memory
from mcpgen.runtime.core.trace_context import TraceContext, trace_context_of, valid_traceparent, valid_tracestate
from mcpgen.runtime.server.server import RequestContext

PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
STATE = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
ERAS = ["2025-11-25", "2026-07-28"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (PARENT, True),
        ("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-ab12", True),  # a later version may add (hex) fields
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-ab12", False),  # version 00 may not
        ("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", False),  # the invalid version
        ("00-00000000000000000000000000000000-b7ad6b7169203331-01", False),  # all-zero trace id
        ("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", False),  # all-zero parent id
        ("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", False),  # upper case
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01", False),  # short parent id
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n", False),
        (42, False),
        ("0" * 10_000, False),
    ],
)
def test_the_traceparent_rule(value: Any, ok: bool) -> None:
    assert valid_traceparent(value) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (STATE, True),
        ("a=1 , ,b@vendor=x y", True),  # empty members and spaces around them are allowed
        ("a=1,a=2", False),  # keys are unique
        ("A=1", False),  # keys are lower case
        ("a=", False),
        ("a=b=c", False),
        ("a=1," * 32 + "b=2", False),  # at most 32 members
        ("a=" + "x" * 600, False),  # at most 512 characters
        ("a=caf\u00e9", False),  # printable ASCII only
        (None, False),
    ],
)
def test_the_tracestate_rule(value: Any, ok: bool) -> None:
    assert valid_tracestate(value) is ok


def _server(seen: list[RequestContext]) -> Server:
    server = Server("traced", "1.0")

    async def handler(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        seen.append(ctx)
        return {"content": [], "isError": False}

    server.add_tool({"name": "op", "inputSchema": {"type": "object"}}, handler)
    return server


@pytest.mark.parametrize("protocol", ERAS)
def test_an_explicit_trace_context_reaches_the_server_request_context(protocol: str) -> None:
    seen: list[RequestContext] = []
    given = {"traceparent": PARENT, "tracestate": STATE}

    async def main() -> None:
        async with connect_memory(_server(seen), protocol=protocol, trace_context=lambda: given) as session:
            await session.call_tool("op", {})
            given["tracestate"] = "BAD STATE"  # read per request; a malformed value is not sent
            await session.call_tool("op", {})

    asyncio.run(main())
    assert seen[0].trace == TraceContext(PARENT, STATE)
    assert seen[1].trace == TraceContext(PARENT, None) and "tracestate" not in seen[1].meta


@pytest.mark.parametrize("protocol", ERAS)
def test_a_malformed_incoming_value_is_dropped_and_never_logged(protocol: str, caplog: Any) -> None:
    seen: list[RequestContext] = []
    hostile = "00-" + "a" * 5000

    async def main() -> None:
        async with connect_memory(_server(seen), protocol=protocol) as session:
            await session.request("tools/call", {"name": "op", "arguments": {}, "_meta": {"traceparent": hostile}})

    with caplog.at_level(logging.DEBUG, logger="mcpgen.runtime.trace"):
        asyncio.run(main())
    assert seen[0].trace is None
    assert "aaaaaaaaaa" not in caplog.text and "traceparent" in caplog.text
    assert trace_context_of({"traceparent": "x", "tracestate": STATE}) is None  # no parent: no state either


@pytest.mark.parametrize("protocol", ERAS)
def test_opentelemetry_context_goes_out_and_comes_in(protocol: str) -> None:
    trace = pytest.importorskip("opentelemetry.trace")
    from opentelemetry import context

    span = trace.NonRecordingSpan(
        trace.SpanContext(0x0AF7651916CD43DD8448EB211C80319C, 0xB7AD6B7169203331, False, trace.TraceFlags(1))
    )
    seen: list[RequestContext] = []
    inside: list[Any] = []

    async def main() -> None:
        server = _server(seen)

        async def traced(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
            inside.append(trace.get_current_span().get_span_context())
            return {"content": [], "isError": False}

        server.add_tool({"name": "traced", "inputSchema": {"type": "object"}}, traced)
        async with connect_memory(server, protocol=protocol) as session:
            token = context.attach(trace.set_span_in_context(span))
            try:
                await session.call_tool("traced", {})
            finally:
                context.detach(token)
            await session.call_tool("op", {})  # no current span: nothing sent

    asyncio.run(main())
    assert inside[0].trace_id == 0x0AF7651916CD43DD8448EB211C80319C and inside[0].span_id == 0xB7AD6B7169203331
    assert seen[0].trace is None
