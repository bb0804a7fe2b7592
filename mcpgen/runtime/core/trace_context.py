"""W3C trace context in a request's `_meta`: the `traceparent` and `tracestate` keys.

MCP 2026-07-28 (basic/index.mdx, "OpenTelemetry trace context", SEP-414) reserves the
un-prefixed `_meta` keys `traceparent`, `tracestate` and `baggage` for trace context; when
present their values MUST follow W3C Trace Context (https://www.w3.org/TR/trace-context/) and
W3C Baggage. This module holds the format rule for the first two, both ways:

- a client puts them in every request's `_meta` (the caller's own `_meta` keys win), taken from
  OpenTelemetry's current context when `opentelemetry-api` is installed (the `otel` extra), or
  from the connection's `trace_context` option;
- a server reads them from a request's `_meta` into `RequestContext.trace` (and into
  OpenTelemetry's context while the handler runs, when installed).

Either way a value is untrusted: one that breaks the format is dropped (never repaired, never
echoed: a log line names the key and the length only). `traceparent` version 00 is exactly
`00-<32 hex>-<16 hex>-<2 hex>`, lower case, neither id all zeros; a later version (not `ff`)
may carry more fields after those four. `tracestate` is at most 32 comma-separated `key=value`
members, at most 512 characters, keys unique, each key and value as the W3C grammar says.
Standard library only; OpenTelemetry is imported on first use and only if installed.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

TRACEPARENT, TRACESTATE = "traceparent", "tracestate"
TRACE_KEYS = (TRACEPARENT, TRACESTATE)
MAX_TRACESTATE = 512  # characters (W3C: a vendor MAY drop a longer header)
MAX_MEMBERS = 32  # list members of tracestate (W3C)

_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[0-9a-f-]*)?")
_KEY = re.compile(r"[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13}")
_VALUE = re.compile(r"[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]")


TraceContextSource = Callable[[], Mapping[str, str]]
"""Returns the trace context of the request being sent ({"traceparent": ..., "tracestate": ...})."""


def valid_traceparent(value: Any) -> bool:
    """Does `value` follow the W3C traceparent format (see the module doc)?"""
    if not isinstance(value, str) or len(value) > 256:
        return False
    match = _TRACEPARENT.fullmatch(value)
    if match is None:
        return False
    version, trace_id, parent_id, _, rest = match.groups()
    if version == "ff" or trace_id == "0" * 32 or parent_id == "0" * 16:
        return False
    return rest is None if version == "00" else True


def valid_tracestate(value: Any) -> bool:
    """Does `value` follow the W3C tracestate format (see the module doc)?"""
    if not isinstance(value, str) or len(value) > MAX_TRACESTATE:
        return False
    members = [m.strip(" \t") for m in value.split(",")]
    members = [m for m in members if m]  # empty members are allowed, and ignored
    if len(members) > MAX_MEMBERS:
        return False
    keys: set[str] = set()
    for member in members:
        key, sep, val = member.partition("=")
        if not sep or _KEY.fullmatch(key) is None or _VALUE.fullmatch(val) is None or key in keys:
            return False
        keys.add(key)
    return True


_CHECKS: Mapping[str, Callable[[Any], bool]] = {TRACEPARENT: valid_traceparent, TRACESTATE: valid_tracestate}


@dataclass(frozen=True)
class TraceContext:
    """A request's trace context, both values checked (tracestate only with a traceparent)."""

    traceparent: str
    tracestate: str | None = None

    def as_meta(self) -> dict[str, str]:
        meta = {TRACEPARENT: self.traceparent}
        if self.tracestate is not None:
            meta[TRACESTATE] = self.tracestate
        return meta


def trace_context_of(meta: Mapping[str, Any] | None, where: str = "_meta") -> TraceContext | None:
    """The trace context in `meta` (a request's `_meta`, a carrier): None if it has no valid
    traceparent; a malformed tracestate is dropped alone (W3C: the parent still holds)."""
    if not meta:
        return None
    for key in TRACE_KEYS:
        if key in meta and not _CHECKS[key](meta[key]):
            value = meta[key]
            size = len(value) if isinstance(value, str) else type(value).__name__
            import logging  # (only here: importing a generated client loads no logging)

            logging.getLogger("mcpgen.runtime.trace").debug("dropped a malformed %s %s (%s)", where, key, size)
    parent, state = meta.get(TRACEPARENT), meta.get(TRACESTATE)
    if not isinstance(parent, str) or not valid_traceparent(parent):
        return None
    return TraceContext(parent, state if isinstance(state, str) and valid_tracestate(state) else None)


def otel_trace_context() -> TraceContext | None:
    """The current OpenTelemetry context as W3C trace context (None without opentelemetry-api,
    or with no span to propagate)."""
    inject, current = _otel("inject"), _otel("current")
    # An empty OpenTelemetry context holds no span: nothing to propagate. That test is a third of
    # fetching the current span (checked next, for a context that holds something else).
    if inject is None or not current() or not _otel("span")().get_span_context().is_valid:
        return None
    carrier: dict[str, str] = {}
    inject(carrier)
    return trace_context_of(carrier, "OpenTelemetry")


def outgoing_trace_context(source: TraceContextSource | None) -> TraceContext | None:
    """What a request carries: the explicit source's context, else OpenTelemetry's."""
    if source is not None:
        return trace_context_of(source(), "trace_context option")
    return otel_trace_context()


@contextlib.contextmanager
def otel_context(trace: TraceContext | None) -> Generator[None, None, None]:
    """`trace` as OpenTelemetry's current context inside the block (nothing without OTel or a trace)."""
    extract, attach, detach = _otel("extract"), _otel("attach"), _otel("detach")
    if trace is None or extract is None:
        yield
        return
    token = attach(extract(trace.as_meta()))
    try:
        yield
    finally:
        detach(token)


_FOUND: dict[str, Any] = {}


def _otel(name: str) -> Any:
    """opentelemetry.propagate.inject/extract, opentelemetry.context.attach/detach/get_current
    ("current") or opentelemetry.trace.get_current_span ("span"); None without opentelemetry-api. Looked up once."""
    if not _FOUND:
        try:
            from opentelemetry import context, propagate, trace  # pyright: ignore[reportMissingImports]
        except ImportError:
            _FOUND.update(dict.fromkeys(("inject", "extract", "attach", "detach", "span", "current")))
        else:
            _FOUND.update(
                inject=propagate.inject,
                extract=propagate.extract,
                attach=context.attach,
                detach=context.detach,
                span=trace.get_current_span,
                current=context.get_current,
            )
    return _FOUND.get(name)
