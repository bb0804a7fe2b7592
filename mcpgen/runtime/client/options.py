"""Every client option, declared once: its name, type, default and meaning.

A connection is configured by one frozen object: `ConnectOptions` (what every connection
takes), extended by `StdioOptions` and `HttpOptions` (what only that transport takes). A typed
client adds `ClientOptions` when connecting and keeps a `CallOptions` per view
(`with_options`). Nothing else in the runtime lists these options: functions take the object,
or keywords that are turned into it.

The keyword forms (`connect_stdio(..., timeout=5)`) are typed by the `...Kwargs` TypedDicts
below (`**overrides: Unpack[StdioKwargs]`), so that mypy rejects a misspelled or mistyped
option in user code. A TypedDict cannot be derived from a dataclass statically, so each one
mirrors its dataclass field for field; tests/runtime/test_options.py fails when they part
(a name or a type missing or different on either side).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import UnionType
from typing import Any, Literal, TypedDict, TypeVar, Union, get_args, get_origin, get_type_hints

from ..core.callbacks import ProgressCallback
from ..core.jsonrpc import JSONObject
from ..core.trace_context import TraceContextSource
from ..transports.auth_hook import AuthHook
from .drift import Drift

# -- callbacks: what the server asks of the client, and what it tells it -------------

LogCallback = Callable[[JSONObject], Awaitable[None] | None]
"""notifications/message: gets its params ({"level": ..., "logger": ..., "data": ...})."""
SamplingCallback = Callable[[JSONObject], Awaitable[JSONObject]]
"""sampling/createMessage: gets its params, returns the CreateMessageResult."""
ElicitationCallback = Callable[[JSONObject], Awaitable[JSONObject]]
"""elicitation/create: gets its params, returns the ElicitResult ({"action": ..., "content": ...})."""
RootsCallback = Callable[[], Awaitable[list[JSONObject]]]
"""roots/list: returns the roots ([{"uri": "file:///...", "name": ...}])."""
ListChangedCallback = Callable[[str], Awaitable[None] | None]
"""notifications/<kind>/list_changed: gets the kind ("tools", "prompts" or "resources")."""
DriftCallback = Callable[[Drift], Awaitable[None] | None]
"""A typed client's tools changed mid-session (tools/list_changed, re-checked): gets the Drift."""

# -- closed sets of values (checked when an options object is made) ------------------

HttpTransport = Literal["auto", "streamable", "sse"]
DriftMode = Literal["warn", "strict", "off"]
ValidateOutput = Literal["strict", "warn", "off"]

_O = TypeVar("_O", bound="_Options")


@dataclass(frozen=True, kw_only=True)
class _Options:
    """What the options dataclasses share: value checks, and building from keywords."""

    def __post_init__(self) -> None:
        for name, allowed in _choices(type(self)).items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")

    @classmethod
    def build(cls: type[_O], base: _Options | None, overrides: Mapping[str, Any], *, caller: str) -> _O:
        """`base` with `overrides` applied, as this class. `base` may be this class or one it
        extends (a ConnectOptions for connect_stdio); `caller` names the function in errors."""
        unknown = [name for name in overrides if name not in option_names(cls)]
        if unknown:
            # The wording of Python's own error, naming the function the user called.
            raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
        if base is None:
            return cls(**overrides)
        if isinstance(base, cls):
            return dataclasses.replace(base, **overrides) if overrides else base
        if not issubclass(cls, type(base)):
            raise TypeError(f"{caller}() takes options={cls.__name__}(...), not {type(base).__name__}")
        inherited = {name: getattr(base, name) for name in option_names(type(base))}
        return cls(**{**inherited, **overrides})


# Per class, worked out on first use (a class's fields never change).
_NAMES: dict[type[_Options], frozenset[str]] = {}
_CHOICES: dict[type[_Options], dict[str, tuple[object, ...]]] = {}


def option_names(cls: type[_Options]) -> frozenset[str]:
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = frozenset(f.name for f in dataclasses.fields(cls))
    return names


def _choices(cls: type[_Options]) -> dict[str, tuple[object, ...]]:
    found = _CHOICES.get(cls)
    if found is None:
        found = _CHOICES[cls] = _literal_fields(cls)
    return found


def _literal_fields(cls: type[_Options]) -> dict[str, tuple[object, ...]]:
    """Field name -> the values its Literal type allows (None too, if the type admits it)."""
    hints = get_type_hints(cls)
    found: dict[str, tuple[object, ...]] = {}
    for name in option_names(cls):
        hint = hints[name]
        members = get_args(hint) if get_origin(hint) in (Union, UnionType) else (hint,)
        allowed: list[object] = []
        for member in members:
            if get_origin(member) is Literal:
                allowed.extend(get_args(member))
            elif member is type(None):
                allowed.append(None)
            else:
                break  # not a closed set
        else:
            if allowed:
                found[name] = tuple(allowed)
    return found


def split_options(overrides: Mapping[str, Any], *classes: type[_Options], caller: str) -> tuple[dict[str, Any], ...]:
    """Keyword arguments sorted by the options class that declares them (the first that does)."""
    parts: tuple[dict[str, Any], ...] = tuple({} for _ in classes)
    for name, value in overrides.items():
        for part, cls in zip(parts, classes, strict=True):
            if name in option_names(cls):
                part[name] = value
                break
        else:
            raise TypeError(f"{caller}() got an unexpected keyword argument {name!r}")
    return parts


# -- the options objects ---------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ConnectOptions(_Options):
    """How to connect to an MCP server, over any transport."""

    timeout: float | None = 60.0
    """Default seconds a request may take (reset by each progress notification); None: no limit."""
    max_timeout: float | None = None
    """Hard cap on a request's seconds, progress or not; None: no cap."""
    connect_timeout: float = 30.0
    """Seconds to start the transport and agree on a protocol version."""
    protocol: str = "auto"
    """"auto" (probe 2026-07-28, fall back to the handshake), "legacy", or an exact version."""
    client_info: JSONObject | None = None
    """The clientInfo sent to the server ({"name": ..., "version": ...}); None: mcpgen's own."""
    on_log: LogCallback | None = None
    """Receives the server's log messages; None: they go to the "mcpgen.runtime.client" logger."""
    on_sampling: SamplingCallback | None = None
    """Answers sampling/createMessage; set, it also advertises the sampling capability."""
    on_elicitation: ElicitationCallback | None = None
    """Answers elicitation/create; set, it also advertises the elicitation capability."""
    url_elicitation: bool = False
    """on_elicitation also gets URL-mode requests and -32042 refusals' URLs, to show (mcpgen never opens one)."""
    mcp_apps: bool = False
    """Declare MCP Apps (io.modelcontextprotocol/ui): this client hosts tools' ui:// UIs (tool_ui)."""
    skills: bool = False
    """Declare Skills (io.modelcontextprotocol/skills): this client loads servers' skills (list_skills)."""
    cache_results: bool = True
    """Answer lists and reads from a bounded cache for the ttlMs the server gave them (2026-07-28)."""
    on_roots: RootsCallback | None = None
    """Answers roots/list; set, it also advertises the roots capability."""
    on_list_changed: ListChangedCallback | None = None
    """Told when the server's tools, prompts or resources change."""
    trace_context: TraceContextSource | None = None
    """Gives each request's traceparent/tracestate for `_meta`; None: OpenTelemetry's, when installed."""
    log_level: str | None = None
    """Ask the server for log messages at this level and above ("debug" ... "emergency")."""
    wire_log: str | None = None
    """Append every raw message to this file, one JSON object per line; None: $MCPGEN_WIRE_LOG."""


@dataclass(frozen=True, kw_only=True)
class StdioOptions(ConnectOptions):
    """How to start and talk to a stdio MCP server."""

    env: Mapping[str, str] | None = None
    """The server process's environment; None: this process's."""
    cwd: str | None = None
    """The server process's working directory; None: this process's."""
    shutdown_grace: float = 2.0
    """Seconds the server gets to exit once its stdin is closed, before it is terminated."""


@dataclass(frozen=True, kw_only=True)
class HttpOptions(ConnectOptions):
    """How to reach an MCP server over HTTP."""

    headers: Mapping[str, str] | None = None
    """Sent with every request (e.g. {"Authorization": "Bearer ..."})."""
    transport: HttpTransport = "auto"
    """"streamable", "sse" (the 2024-11-05 HTTP+SSE transport), or "auto": the first, then the second."""
    max_message_bytes: int = 16 * 1024 * 1024
    """The largest response body or SSE event accepted; a bigger one fails its call (MessageTooLarge)."""
    auth: AuthHook | None = None
    """Logs in on a 401/403 (client.auth.OAuth, BearerToken, any AuthHook); its header goes to this origin only."""


@dataclass(frozen=True, kw_only=True)
class ClientOptions(_Options):
    """What a generated (typed) client adds when it connects."""

    drift: DriftMode = "warn"
    """Compare live tool schemas with the generated ones (on connect, on tools/list_changed): warn, raise, skip."""
    on_drift: DriftCallback | None = None
    """Gets the Drift a mid-session tools/list_changed re-check found (repin.py)."""
    validate_output: ValidateOutput = "strict"
    """Check results against outputSchema: raise ToolOutputError, warn and return raw, or skip."""


@dataclass(frozen=True, kw_only=True)
class CallOptions(_Options):
    """What a typed client's calls use (`client.with_options(...)` makes a view with others)."""

    timeout: float | None = None
    """Seconds each call may take; None: the connection's timeout."""
    progress: ProgressCallback | None = None
    """Receives (progress, total, message) for each progress notification of a call."""
    validate_output: ValidateOutput = "strict"
    """As ClientOptions.validate_output, for these calls."""


# -- the same options as keyword arguments (mirrors: see the module docstring) -------


class ConnectKwargs(TypedDict, total=False):
    """ConnectOptions as keywords."""

    timeout: float | None
    max_timeout: float | None
    connect_timeout: float
    protocol: str
    client_info: JSONObject | None
    on_log: LogCallback | None
    on_sampling: SamplingCallback | None
    on_elicitation: ElicitationCallback | None
    url_elicitation: bool
    mcp_apps: bool
    skills: bool
    cache_results: bool
    on_roots: RootsCallback | None
    on_list_changed: ListChangedCallback | None
    trace_context: TraceContextSource | None
    log_level: str | None
    wire_log: str | None


class _StdioOnlyKwargs(TypedDict, total=False):
    env: Mapping[str, str] | None
    cwd: str | None
    shutdown_grace: float


class _HttpOnlyKwargs(TypedDict, total=False):
    headers: Mapping[str, str] | None
    transport: HttpTransport
    max_message_bytes: int
    auth: AuthHook | None


class StdioKwargs(ConnectKwargs, _StdioOnlyKwargs, total=False):
    """StdioOptions as keywords."""


class HttpKwargs(ConnectKwargs, _HttpOnlyKwargs, total=False):
    """HttpOptions as keywords."""


class ClientKwargs(TypedDict, total=False):
    """ClientOptions as keywords."""

    drift: DriftMode
    on_drift: DriftCallback | None
    validate_output: ValidateOutput


class CallKwargs(TypedDict, total=False):
    """CallOptions as keywords."""

    timeout: float | None
    progress: ProgressCallback | None
    validate_output: ValidateOutput


# What a typed client's connect methods take: unions of the mirrors above, nothing of their own.


class ClientStdioKwargs(StdioKwargs, ClientKwargs, total=False):
    """AsyncClient.connect_stdio's keywords."""


class ClientHttpKwargs(HttpKwargs, ClientKwargs, total=False):
    """AsyncClient.connect_http's keywords."""


class ClientMemoryKwargs(ConnectKwargs, ClientKwargs, total=False):
    """AsyncClient.connect_memory's keywords."""


class ClientConnectKwargs(ConnectKwargs, _StdioOnlyKwargs, _HttpOnlyKwargs, ClientKwargs, total=False):
    """AsyncClient.connect's keywords: the transport's own ones only for that transport."""


__all__ = [
    "CallKwargs",
    "CallOptions",
    "ClientConnectKwargs",
    "ClientHttpKwargs",
    "ClientKwargs",
    "ClientMemoryKwargs",
    "ClientOptions",
    "ClientStdioKwargs",
    "ConnectKwargs",
    "ConnectOptions",
    "DriftCallback",
    "DriftMode",
    "AuthHook",
    "ElicitationCallback",
    "HttpKwargs",
    "HttpOptions",
    "HttpTransport",
    "ListChangedCallback",
    "LogCallback",
    "ProgressCallback",
    "RootsCallback",
    "SamplingCallback",
    "TraceContextSource",
    "StdioKwargs",
    "StdioOptions",
    "ValidateOutput",
    "split_options",
]
