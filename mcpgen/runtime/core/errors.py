"""Every exception and warning the runtime raises, in one tree (the rest of the runtime imports
them from here; `mcpgen.runtime` exports each one a user may catch).

Local failures (a timeout, a closed connection) and errors the peer sent are different types,
so a caller never mistakes one for the other:

    McpError                    the base: `except McpError` catches every failure of the runtime
    ├── RpcError                the peer answered with a JSON-RPC error (.code, .message, .data);
    │                           a server handler raises one to answer with that error
    ├── RequestTimeout          no answer in time (a call or the handshake); the peer was told to cancel
    ├── ConnectionClosed        the transport is gone: the server exited, a stream ended, we closed it
    │   └── SessionExpired      the server forgot our handshake-era HTTP session (404): initialize again
    ├── ProtocolError           the peer broke the protocol, or no protocol version could be agreed
    │   ├── MessageTooLarge     an HTTP body, SSE line or SSE event over max_message_bytes
    │   ├── CrossOriginUrl      the server named a URL on another origin, where our headers must not go
    │   └── SkillVerificationError  a skill's entry or file fails its checks (digest, size, frontmatter,
    │                           bounds); .skill and .file name them, the content is never returned
    ├── HttpError               an HTTP status and no usable JSON-RPC message (.status)
    ├── InvalidArguments        (also ValueError) a typed call's arguments break the tool's schema;
    │                           nothing was sent
    ├── SchemaMismatch          (also ValueError) a value breaks its JSON Schema (the exact checks; a
    │                           generated model's validator raises it inside pydantic's ValidationError)
    ├── ToolError               a tool answered `isError: true` (client), or a handler refuses a call (server)
    ├── ToolOutputError         validate_output="strict": a tool's output does not match its outputSchema
    ├── SchemaDriftError        drift="strict": the server's tools differ from the generated ones (.drift)
    │   └── ToolChangedError    drift="strict", mid-session: a tools/list_changed re-list found this
    │                           tool changed (.tool, .change, .drift); calls to it are refused
    ├── ServersConfigError      (also ValueError) the mcpServers config a client was generated from is
    │                           missing, unreadable, or lacks the server
    ├── AuthError               an OAuth login could not be completed (the message never holds a secret)
    ├── InvalidToken            server: a bearer token is refused (the client gets 401 invalid_token)
    ├── AuthServerUnavailable   server: the authorization server could not be asked (the client gets 503)
    ├── StoreUnavailable        server: the store an HTTP server shares with its workers cannot be reached
    ├── ServerSetupError        (also ValueError) server: handlers.py's (or [tool.mcpgen]'s) SKILLS_DIR,
    │                           TOOL_UI or TASK_SUPPORT breaks a rule, so the server cannot be built
    └── TaskFailed              a task (Tasks extension) ended failed or cancelled, or its worker died
                                (.status, .code, .data)

Why not everything derives from McpError:

    UserWarning
    ├── ToolOutputWarning       validate_output="warn": the output does not match (returned unchecked)
    └── SchemaDriftWarning      drift="warn" (the default): the server's tools differ; connecting goes on
    BaseException
    └── InputRequired           server control flow, not a failure: a handler's context asks the client
                                for input (2026-07-28); the server answers with an input_required result

- Warnings are issued with `warnings.warn`, never raised: they are `UserWarning`s so that a
  warnings filter (`-W error::mcpgen.runtime.SchemaDriftWarning`, pytest's `filterwarnings`)
  selects them by category.
- `InputRequired` is a BaseException, like asyncio.CancelledError, so that a handler's own
  `except Exception` cannot swallow it; the server catches it around every handler.
- A caller's mistake gets Python's own exception, as from any library: TypeError (an unknown
  option, a handler of the wrong type), ValueError (an option value out of range, a bad store URL),
  RuntimeError (a code-mode function called outside `connect()`), LookupError (an unknown tool in a
  code-mode index), SystemExit (a server's bad command-line flag, or
  `serve_main` ending on a ServerSetupError).
- The lean HTTP client's `LeanHttpError` and `ReadTimeout` (transports/http_lean.py) stand in for
  httpx's exceptions and stay there: StreamableHttpTransport turns each (like each of httpx's)
  into ConnectionClosed, so none reaches a user.
- Private exceptions (`_Unsupported` in core/validation.py, `_StaleConnection` in
  transports/http_lean.py) never leave their module.
- `Refused` (client/llm_schemas.py) is tool_definitions' control flow: a schema an LLM API would
  refuse leaves its tool out and becomes a `refused_tools()` entry; it never reaches a user.

`tests/runtime/test_error_tree.py` holds these rules over every runtime module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

from .results import ToolResult

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..client.drift import Drift
    from .results import ContentBlock
    from .validation import SchemaProblem


class McpError(Exception):
    """Base class of every error the runtime raises (see the module docstring for the tree)."""


class RpcError(McpError):
    """A JSON-RPC error response sent by the peer (or one we send back)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class RequestTimeout(McpError):
    """No response arrived in time. Raised locally; the peer was sent a cancellation."""


class ConnectionClosed(McpError):
    """The transport is gone (the server exited, the stream closed, or we closed it)."""


class SessionExpired(ConnectionClosed):
    """The server forgot our handshake-era session (HTTP 404): initialize again."""


class ProtocolError(McpError):
    """The peer broke the protocol, or no protocol version could be agreed."""


class MessageTooLarge(ProtocolError):
    """The peer sent a message (an HTTP body, an SSE line or event) over the size limit."""


class CrossOriginUrl(ProtocolError):
    """The server named a URL on another origin, where the connection's headers must not go."""


class SkillVerificationError(ProtocolError):
    """A skill's entry or one of its files fails verification (client/skills.py): `.skill` is the
    skill's SKILL.md URI, `.file` the file's URI (None for the entry itself)."""

    def __init__(self, skill: str, file: str | None, reason: str) -> None:
        self.skill = skill
        self.file = file
        where = f"the file {file!r:.200} of the skill {skill!r:.200}" if file else f"the skill {skill!r:.200}"
        super().__init__(f"{where}: {reason}" if file is None else f"{where} {reason}")


class HttpError(McpError):
    """The server answered with an HTTP status and no usable JSON-RPC message."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}" if detail else f"HTTP {status}")
        self.status = status


class InvalidArguments(McpError, ValueError):
    """A typed call's arguments break the tool's schema; nothing was sent.

    `problems` holds one line per problem, naming each value by the Python keyword you typed
    (`message_type`, `items[0].entity_type`); str() is those lines.
    """

    def __init__(self, tool: str, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.tool = tool
        self.problems = problems


class SchemaMismatch(McpError, ValueError):
    """An instance breaks its JSON Schema; `problems` lists every reason found (up to MAX_PROBLEMS).

    A ValueError, so that raised in a pydantic validator it becomes part of a ValidationError.
    """

    def __init__(self, problems: Sequence[SchemaProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("does not match the JSON Schema: " + "; ".join(str(p) for p in self.problems))


class ToolError(McpError):
    """A tool execution error (`isError: true`), on either side of the wire.

    A typed client raises `ToolError(tool, result)` when a tool reports failure (content kept,
    never validated). A server handler raises `ToolError("message")`: the client gets an error
    result whose one text block is the message.
    """

    tool: str  # "" when raised by a handler with a message
    result: ToolResult

    @overload
    def __init__(self, message: str, /) -> None: ...

    @overload
    def __init__(self, tool: str, result: ToolResult) -> None: ...

    def __init__(self, tool: str, result: ToolResult | None = None) -> None:
        if result is None:
            message = str(tool)  # `raise ToolError(exc)` worked with the old server-side class too
            self.tool, self.result = "", ToolResult.error(message)
            super().__init__(message)
            return
        self.tool = tool
        self.result = result
        super().__init__(f"tool {tool!r} failed: {result.text or 'no message'}"[:2000])

    @property
    def content(self) -> list[ContentBlock]:
        return self.result.content

    @property
    def text(self) -> str:
        return self.result.text


class ToolOutputError(McpError):
    """The tool succeeded but its output does not match its outputSchema."""

    def __init__(self, tool: str, message: str, result: ToolResult) -> None:
        self.tool = tool
        self.result = result
        super().__init__(f"tool {tool!r}: {message}")


class SchemaDriftError(McpError):
    """Raised on connect in drift="strict" mode; `.drift` names the tools."""

    def __init__(self, drift: Drift) -> None:
        super().__init__(drift.describe())
        self.drift = drift


class ToolChangedError(SchemaDriftError):
    """drift="strict": after `notifications/tools/list_changed` the server's tool `.tool` is not
    the one this client was generated from (`.change` says how); no call to it is sent."""

    def __init__(self, tool: str, change: str, drift: Drift) -> None:
        McpError.__init__(self, f"tool {tool!r} changed mid-session ({change}): not called (drift='strict')")
        self.drift = drift  # empty when the re-list itself failed (`.change` says so)
        self.tool = tool
        self.change = change


class ServersConfigError(McpError, ValueError):
    """The config file is missing, unreadable, or lacks a server the package was generated for."""


class AuthError(McpError):
    """A login could not be completed; the message says why, and never holds a secret."""


class InvalidToken(McpError):
    """The token is not acceptable; the message is safe to show the client (error_description)."""


class AuthServerUnavailable(McpError):
    """The authorization server could not be asked (down, slow, or answering nonsense)."""


class StoreUnavailable(McpError):
    """The store cannot be reached (or answered nonsense): a one-line reason, no secrets."""


class ServerSetupError(McpError, ValueError):
    """A server cannot be built as its extension settings say (a skills folder, a tool's UI page,
    a tool run as a task); the message is one line naming the setting and the rule. Raised, not
    an exit, so a program building a server in-process can catch it; `serve_main` (a generated
    server's `python -m`) turns it into that line and exit status 1."""

    def as_exit(self) -> SystemExit:
        """The one line a command ends with (status 1) when it cannot build its server."""
        return SystemExit(f"cannot start the server: {self}")


class TaskFailed(McpError):
    """A task ended without a result: `status` "failed" (the server's error: `code`, `data`; a
    task whose worker died says so) or "cancelled"."""

    def __init__(self, task_id: str, status: str, message: str, code: int | None = None, data: Any = None) -> None:
        self.task_id = task_id
        self.status = status
        self.code = code
        self.data = data
        super().__init__(f"task {task_id[:64]} {status}: {message}"[:2000])


class ToolOutputWarning(UserWarning):
    """validate_output="warn": the output does not match outputSchema (returned unchecked)."""

    def __init__(self, tool: str, message: str) -> None:
        self.tool = tool
        super().__init__(f"tool {tool!r}: {message}"[:2000])


class SchemaDriftWarning(UserWarning):
    """Issued on connect in drift="warn" mode (the default)."""


class InputRequired(BaseException):
    """Raised inside a handler to ask the client for input; BaseException so that a handler's
    own `except Exception` cannot swallow it (like asyncio.CancelledError)."""

    def __init__(self, requests: dict[str, Any]) -> None:
        super().__init__(", ".join(requests))
        self.requests = requests
