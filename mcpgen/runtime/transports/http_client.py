"""HTTP client transports: Streamable HTTP (both eras) and the legacy HTTP+SSE (2024-11-05).

Each outgoing request is its own POST; its response (JSON or an SSE stream) is fed
back to the session as raw messages, like lines from a stdio server. Failures that
are not JSON-RPC answers (HTTP 500, an HTML page, a cut stream) fail that one
request with a local error instead of hanging it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..core import jsonrpc
from ..core.errors import ConnectionClosed, HttpError, McpError, MessageTooLarge, ProtocolError, SessionExpired
from ..core.headers import encode_header_value
from ..core.jsonrpc import JSONObject, RequestId, is_array, is_object
from ..core.protocol import META_PROTOCOL_VERSION
from . import guard, sse
from .auth_hook import AuthHook
from .content_coding import ACCEPT_ENCODING
from .guard import DEFAULT_MAX_MESSAGE_BYTES
from .http_lean import LeanPool, headers_ok, lean_target
from .wirelog import WireLog

if TYPE_CHECKING:
    import httpx

    from ..core.session import Session

log = logging.getLogger("mcpgen.runtime.http")

_ACCEPT = "application/json, text/event-stream"
_SHARDS = 8
_SHARD_CONNECTIONS = 8
_NAME_FIELD = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    # The Tasks extension's routing header (SEP-2663): the task's id.
    **dict.fromkeys(("tasks/get", "tasks/update", "tasks/cancel"), "taskId"),
}
# One request is sent at most this many times while its auth object logs in, refreshes or steps
# up its scope (the auth object bounds step-ups itself; this bounds everything else).
_AUTH_ATTEMPTS = 4
# How long a request exchanged in its caller's task waits for the standalone GET stream to open
# (handshake era, first requests only): long enough for a live server, short for one that hangs.
LISTEN_SETTLE = 2.0
# An event stream the server ends (spec, basic/transports: the server MAY close it and the client
# SHOULD reconnect after the `retry` it sent, with Last-Event-ID), a POST's answer or the
# standalone GET stream: the wait before reopening, the server's `retry` (untrusted) kept within
# these bounds; for the standalone stream doubled for every stream in a row that ended without a
# message or an event id, up to the longest. A session left open for hours keeps hearing the
# server; a server ending every stream at once costs a GET per LISTEN_RETRY_BOUNDS[1] seconds.
LISTEN_RETRY_BOUNDS = (0.25, 30.0)
_LISTEN_RETRY_DEFAULT = 1.0
_Challenge = tuple[int, str]


def listen_retry_delay(retry_ms: int | None, barren: int) -> float:
    """Seconds to wait before reopening the standalone stream: the server's `retry` (or 1 s)
    within LISTEN_RETRY_BOUNDS, doubled `barren` times (streams in a row that brought nothing)."""
    low, high = LISTEN_RETRY_BOUNDS
    base = _LISTEN_RETRY_DEFAULT if retry_ms is None else min(max(retry_ms / 1000, low), high)
    return min(base * (1 << min(barren, 16)), high)


def _describe_bad_body(body: bytes, kind: str) -> str:
    """One line saying what came instead of JSON-RPC (an error page, a cut-off body, ...)."""
    what = kind or "no content type"
    if not body.strip():
        return f"empty {what} body instead of a JSON-RPC message"
    first = body[:80].decode("utf-8", "replace").strip().splitlines()[0]
    if kind == "application/json" or body.lstrip()[:1] in (b"{", b"["):
        return f"invalid or truncated JSON ({len(body)} bytes of {what}): {first}"
    return f"{what} instead of a JSON-RPC message: {first}"


class _Response(Protocol):
    """What the exchange reads from a response: httpx's streamed one or the lean client's."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    async def aread(self) -> bytes: ...

    def aiter_raw(self) -> AsyncIterator[bytes]: ...


class StreamableHttpTransport:
    """Streamable HTTP client transport (2025-03-26 and later; both eras).

    A request the bound session waits for is exchanged in the sending task: its POST, the
    messages of its response (notifications and server requests dispatched as they come, the
    answer last) all before `send` returns, with no task of its own and no loop turn to wake
    the caller. The session interrupts that send at the request's deadline or its own close
    (`interruptible_send`): cancelling the exchange closes its connection (or its stream).
    """

    # Cancelling a send at any wait leaves nothing half-sent that a later message could follow.
    interruptible_send = True

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        wire_log: WireLog | None = None,
        client: httpx.AsyncClient | None = None,
        timeout: float | None = 60.0,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        auth: AuthHook | None = None,
    ) -> None:
        self.url = url
        self.max_message_bytes = max_message_bytes
        self.headers = dict(headers or {})
        self.auth = auth
        self.protocol_version: str | None = None
        self.session_id: str | None = None
        self.modern = False
        self.param_headers: dict[str, dict[str, str]] = {}
        self._wire = wire_log
        self._own_client = client is None
        self._ssl: ssl.SSLContext | None = None
        # Requests in flight are spread over a few small connection pools: httpcore's pool
        # does work quadratic in its size on every request, so one pool of 32+ connections
        # spent more time choosing a connection than sending on it. Every connection is kept
        # alive (httpx's default keeps 20), so calls in flight never re-connect.
        self._client = client or self._new_pool(timeout)
        # POSTs to a plain http:// URL (no proxy, no caller-supplied client) skip httpx: see http_lean.
        target = lean_target(url) if client is None and auth is None and headers_ok(self.headers) else None
        self._lean = LeanPool(target) if target is not None else None
        self._shards = [self._client]
        self._load = [0]
        self._timeout = timeout
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._posts: dict[RequestId, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._session: Session | None = None
        self._get_task: asyncio.Task[None] | None = None
        # Set once the standalone GET stream has its answer's head (or has ended): see send().
        self._get_settled = asyncio.Event()
        self._closed = False
        self._last_error = ""

    def bind_session(self, session: Session) -> None:
        self._session = session

    # -- sending -------------------------------------------------------------------

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        if self._closed:
            raise ConnectionClosed("the HTTP connection is closed")
        if is_array(message):
            raise ProtocolError("batches are not sent over HTTP")
        data = jsonrpc.encode(message)
        if self._wire:
            self._wire.record("c2s", data)
        method = message.get("method")
        if method == "notifications/cancelled" and self.modern:
            # Stateless era: closing the request's stream is the cancellation.
            params: JSONObject = message.get("params") or {}
            cancelled = params.get("requestId")
            task = self._posts.get(cancelled) if isinstance(cancelled, (int, str)) else None
            if task is not None:
                task.cancel()
            return
        headers = self._headers_for(message)
        if method == "notifications/cancelled":
            # Handshake era: tell the server, and stop reading the request's stream (its answer,
            # if any, would be ignored): an endless or stalled stream must not outlive the call.
            params = message.get("params") or {}
            cancelled = params.get("requestId")
            task = self._posts.get(cancelled) if isinstance(cancelled, (int, str)) else None
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        if "id" in message and method is not None:
            request_id: RequestId = message["id"]
            # A listen stream stays open for as long as the client wants updates: no read timeout.
            long_lived = method == "subscriptions/listen"
            if self._session is not None and self._session.awaits(request_id):
                # Its caller waits in this task: the exchange runs here (see the class doc).
                if self._get_task is not None and not self._get_settled.is_set():
                    await self._await_listen_stream()
                await self._post_request(request_id, data, headers, long_lived)
                return
            task = asyncio.get_running_loop().create_task(self._post_request(request_id, data, headers, long_lived))
            self._posts[request_id] = task
            task.add_done_callback(functools.partial(self._post_done, request_id))
            return
        # Notifications and our responses: accepted with 202, no body.
        status = 0  # (the last attempt's; there is always one)
        try:
            for attempt in range(_AUTH_ATTEMPTS):
                async with self._client.stream(
                    "POST", self.url, follow_redirects=False, content=data, headers=await self._authorized(headers)
                ) as response:
                    await guard.read_body(response, self.max_message_bytes)
                status = response.status_code
                challenge = self._challenge_of(response)
                if challenge is None or attempt == _AUTH_ATTEMPTS - 1 or not await self._retry_after(challenge):
                    break
        except McpError as exc:
            raise ConnectionClosed(f"the server's answer to a {method or 'response'} POST: {exc}") from None
        except Exception as exc:  # httpx errors: refused, reset, timeout: the caller gets a runtime error
            raise ConnectionClosed(f"HTTP POST failed: {type(exc).__name__}: {exc}") from None
        if status == 404 and self.session_id is not None:
            raise SessionExpired("the server ended the session")
        if status >= 400:
            log.warning("the server refused a %s with HTTP %d", method or "response", status)

    async def _authorized(self, headers: dict[str, str], method: str = "POST") -> dict[str, str]:
        """headers with the auth object's Authorization, and its DPoP proof where it makes
        them per request (request_headers, auth_hook.py); sent to self.url only: same origin."""
        if self.auth is None:
            return headers
        without = {k: v for k, v in headers.items() if k.lower() not in ("authorization", "dpop")}
        per_request = getattr(self.auth, "request_headers", None)
        if per_request is not None:
            made = await per_request(self.url, method)
            return {**without, **{k.lower(): v for k, v in made.items() if k.lower() in ("authorization", "dpop")}}
        value = await self.auth.authorization(self.url)
        return {**without, "authorization": value} if value else without

    def _challenge_of(self, response: _Response) -> _Challenge | None:
        """A 401, or a 403 with a Bearer challenge, when there is an auth object to answer it."""
        if self.auth is None or response.status_code not in (401, 403):
            return None
        note_nonce = getattr(self.auth, "note_nonce", None)
        if note_nonce is not None:
            note_nonce(self.url, response.headers.get("dpop-nonce"))  # RFC 9449 §9
        header = response.headers.get("www-authenticate", "")
        if response.status_code == 403 and not header:
            return None
        return response.status_code, header

    async def _retry_after(self, challenge: _Challenge) -> bool:
        assert self.auth is not None
        return await self.auth.challenged(self.url, *challenge)

    def _post_done(self, request_id: RequestId, _task: asyncio.Task[None]) -> None:
        self._posts.pop(request_id, None)

    def _headers_for(self, message: JSONObject) -> dict[str, str]:
        headers = {
            "accept": _ACCEPT,
            "content-type": "application/json",
            **self.headers,
        }
        raw_params = message.get("params")
        params: JSONObject = raw_params if is_object(raw_params) else {}
        raw_meta = params.get("_meta")
        meta: JSONObject = raw_meta if is_object(raw_meta) else {}
        version = meta.get(META_PROTOCOL_VERSION) or self.protocol_version
        if version and message.get("method") != "initialize":
            headers["mcp-protocol-version"] = str(version)
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        method = message.get("method")
        if META_PROTOCOL_VERSION in meta and isinstance(method, str):
            headers["mcp-method"] = method
            field = _NAME_FIELD.get(method)
            if field is not None and isinstance(params.get(field), str):
                headers["mcp-name"] = encode_header_value(params[field]) or ""
            if method == "tools/call":
                arguments: JSONObject = params.get("arguments") or {}
                for arg, header in self.param_headers.get(str(params.get("name")), {}).items():
                    value = encode_header_value(arguments.get(arg))
                    if value is not None:
                        headers[f"mcp-param-{header}"] = value
        return headers

    def _new_pool(self, timeout: float | None) -> httpx.AsyncClient:
        import httpx

        if self._ssl is None:
            self._ssl = httpx.create_ssl_context()  # loading CA certificates is slow: once
        limits = httpx.Limits(max_connections=_SHARD_CONNECTIONS, max_keepalive_connections=_SHARD_CONNECTIONS)
        return httpx.AsyncClient(
            timeout=httpx.Timeout(timeout, connect=10.0),
            limits=limits,
            verify=self._ssl,
            follow_redirects=False,
            headers={"accept-encoding": ACCEPT_ENCODING},  # the codings guard.chunks decodes
        )

    def _pick_pool(self) -> int:
        shard = min(range(len(self._shards)), key=self._load.__getitem__)
        if self._load[shard] >= _SHARD_CONNECTIONS and self._own_client and len(self._shards) < _SHARDS:
            self._shards.append(self._new_pool(self._timeout))  # more calls in flight: another pool
            self._load.append(0)
            shard = len(self._shards) - 1
        return shard

    async def _post_request(
        self, request_id: RequestId, data: bytes, headers: dict[str, str], long_lived: bool = False
    ) -> None:
        if self._lean is not None:
            await self._exchange_lean(self._lean, request_id, data, headers, long_lived)
            return
        shard = self._pick_pool()
        self._load[shard] += 1
        try:
            for attempt in range(_AUTH_ATTEMPTS):
                last = attempt == _AUTH_ATTEMPTS - 1
                sent = await self._authorized(headers)
                challenge = await self._exchange(self._shards[shard], request_id, data, sent, long_lived, last)
                if challenge is None:
                    return
                try:
                    retry = await self._retry_after(challenge)
                except McpError as exc:
                    self._fail(request_id, exc)
                    return
                except Exception as exc:  # a bug or an I/O error in a custom auth object
                    self._fail(request_id, ConnectionClosed(f"the auth object failed: {type(exc).__name__}"))
                    return
                if not retry:
                    status = challenge[0]
                    self._fail(request_id, HttpError(status, "not authorized" if status == 401 else "forbidden"))
                    return
        finally:
            self._load[shard] -= 1

    async def _exchange(
        self,
        client: httpx.AsyncClient,
        request_id: RequestId,
        data: bytes,
        headers: dict[str, str],
        long_lived: bool = False,
        last_attempt: bool = True,
    ) -> _Challenge | None:
        """One POST; its answer goes to the session. A challenge the auth object may answer (and
        this is not the last attempt) is returned instead, its body read and dropped."""
        import httpx

        timeout = httpx.Timeout(None, connect=10.0) if long_lived else client.timeout
        try:
            async with client.stream(
                "POST", self.url, follow_redirects=False, content=data, headers=headers, timeout=timeout
            ) as response:
                challenge = None if last_attempt else self._challenge_of(response)
                if challenge is not None:
                    await guard.read_body(response, self.max_message_bytes)
                    return challenge
                await self._take_response(response, request_id)
        except asyncio.CancelledError:
            raise
        except McpError as exc:
            self._fail(request_id, exc)
        except Exception as exc:  # httpx errors: connection refused, reset, bad chunking
            self._fail(request_id, ConnectionClosed(f"HTTP request failed: {type(exc).__name__}: {exc}"))
        return None

    async def _exchange_lean(
        self, pool: LeanPool, request_id: RequestId, data: bytes, headers: dict[str, str], long_lived: bool
    ) -> None:
        try:
            response = await pool.post(headers, data, None if long_lived else self._timeout)
            try:
                await self._take_response(response, request_id)
            finally:
                response.aclose()
        except asyncio.CancelledError:
            raise
        except McpError as exc:
            self._fail(request_id, exc)
        except Exception as exc:  # refused, reset, malformed response, read timeout
            self._fail(request_id, ConnectionClosed(f"HTTP request failed: {type(exc).__name__}: {exc}"))

    async def _take_response(self, response: _Response, request_id: RequestId) -> None:
        if response.status_code == 404 and self.session_id is not None:
            self.session_id = None
            raise SessionExpired("the server ended the session (HTTP 404)")
        if "mcp-session-id" in response.headers and self.session_id is None:
            self.session_id = response.headers["mcp-session-id"]
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream" and response.status_code == 200:
            await self._read_stream(response, request_id)
            return
        body = await guard.read_body(response, self.max_message_bytes)
        if response.status_code == 202:
            raise ProtocolError("the server accepted a request without answering it")
        self._deliver_body(body, response.status_code, kind, request_id)

    def _deliver_body(self, body: bytes, status: int, kind: str, request_id: RequestId) -> None:
        try:
            message = jsonrpc.decode(body)
        except RecursionError:
            raise HttpError(status, "a JSON body nested too deep to parse") from None
        except (ValueError, UnicodeDecodeError):
            raise HttpError(status, _describe_bad_body(body, kind)) from None
        if is_object(message) and "error" in message and message.get("id") is None:
            message = {**message, "id": request_id}  # an error for "the request" of this POST
        if not is_object(message) or message.get("id") != request_id:
            raise HttpError(status, "the body is not a JSON-RPC answer to this request")
        if jsonrpc.classify(message) not in ("response", "error"):
            # An OAuth error body (RFC 6750: {"error": "invalid_token"}) or other JSON that is no
            # JSON-RPC answer: the call fails now with the status, instead of waiting its timeout.
            first = body[:80].decode("utf-8", "replace").strip().splitlines()[0]
            raise HttpError(status, f"a JSON body that is no JSON-RPC answer: {first}")
        self._deliver(message, body)

    async def _read_stream(self, response: _Response, request_id: RequestId) -> None:
        """Deliver every event; on a cut stream, resume with GET + Last-Event-ID if allowed."""
        answered, last_id, retry_ms = await self._consume(response, request_id)
        attempts = 0
        while not answered:
            if self.modern or last_id is None or attempts >= 5:
                raise ConnectionClosed("the server closed the response stream before answering")
            attempts += 1
            await asyncio.sleep(listen_retry_delay(retry_ms, 0))
            headers = await self._stream_headers(last_id)
            async with self._client.stream("GET", self.url, follow_redirects=False, headers=headers) as resumed:
                if resumed.status_code != 200:
                    raise HttpError(resumed.status_code, "could not resume the response stream")
                got, new_id, new_retry = await self._consume(resumed, request_id)
                answered = got
                last_id = new_id or last_id
                retry_ms = new_retry if new_retry is not None else retry_ms

    async def _stream_headers(self, last_id: str | None) -> dict[str, str]:
        """A GET's headers for an event stream of this session: the standalone one, or one resumed
        after the event `last_id` (the server may replay what came after it)."""
        headers = await self._authorized({"accept": "text/event-stream", **self.headers}, "GET")
        if self.protocol_version:
            headers["mcp-protocol-version"] = self.protocol_version
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if last_id:  # (an empty id is the spec's reset: no last event)
            headers["last-event-id"] = last_id
        return headers

    async def _consume(self, response: _Response, request_id: RequestId) -> tuple[bool, str | None, int | None]:
        last_id: str | None = None
        retry_ms: int | None = None
        answered = False
        cap = self.max_message_bytes
        async for event in sse.parse(guard.lines(guard.chunks(response), cap), cap):
            if event.id is not None:
                last_id = event.id
            if event.retry is not None:
                retry_ms = event.retry
            if event.event != "message" or not event.data.strip():
                continue
            data = event.data.encode("utf-8")
            try:
                message = jsonrpc.decode(data)
            except (ValueError, RecursionError):
                self._push(data)  # the session reports what is not JSON
                continue
            if is_object(message) and "method" not in message and message.get("id") == request_id:
                answered = True
            self._deliver(message, data)
        return answered, last_id, retry_ms

    def _push(self, data: bytes) -> None:
        if self._wire:
            self._wire.record("s2c", data)
        self._inbox.put_nowait(data)

    def _deliver(self, message: Any, data: bytes) -> None:
        """A decoded message from a POST's response: straight to the session, in stream order."""
        if self._session is None:
            self._push(data)
            return
        if self._wire:
            self._wire.record("s2c", data)
        self._session.dispatch(message)

    def _fail(self, request_id: RequestId, error: McpError) -> None:
        self._last_error = str(error)
        if self._session is not None:
            self._session.fail_request(request_id, error)

    # -- the standalone GET stream (handshake era) ------------------------------------

    def open_listen_stream(self) -> None:
        """Open the standalone GET stream (handshake era; negotiation.py calls this after every
        initialize, see why there): a 405 ends it at once, anything else is read until close."""
        if self._get_task is None and not self.modern:
            self._get_task = asyncio.get_running_loop().create_task(self._listen())
            self._get_task.add_done_callback(lambda _: self._get_settled.set())

    async def _await_listen_stream(self) -> None:
        """Wait (at most LISTEN_SETTLE seconds) for the standalone stream to be open. A server
        sends what relates to no request (an elicitation a tool asks without naming its call)
        there, and drops it while no GET is open: a request exchanged at once in its caller's
        task would otherwise reach the server first. A GET left unanswered delays only this."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._get_settled.wait(), LISTEN_SETTLE)

    async def _listen(self) -> None:
        """Read the standalone stream; reopen it when it ends, until the transport closes or the
        server refuses it (a 405: none offered; a 404: the session is gone; any other status)."""
        last_id: str | None = None
        retry_ms: int | None = None
        barren = 0  # streams in a row that brought neither a message nor an event id
        while not self._closed:
            heard = False
            try:
                headers = await self._stream_headers(last_id)
                async with self._client.stream(
                    "GET", self.url, follow_redirects=False, headers=headers, timeout=None
                ) as response:
                    self._get_settled.set()
                    if response.status_code != 200:
                        return
                    cap = self.max_message_bytes
                    async for event in sse.parse(guard.lines(guard.chunks(response), cap), cap):
                        if event.id is not None:
                            last_id, heard = event.id, True
                        if event.retry is not None:
                            retry_ms = event.retry
                        if event.event == "message" and event.data.strip():
                            heard = True
                            self._push(event.data.encode("utf-8"))
            except MessageTooLarge as exc:
                log.warning("closed the server's event stream: %s", exc)
                return
            except Exception:
                log.debug("the server's event stream failed", exc_info=True)
            barren = 0 if heard else barren + 1
            await asyncio.sleep(listen_retry_delay(retry_ms, barren))

    # -- receiving and closing -------------------------------------------------------

    async def receive(self) -> bytes | None:
        return await self._inbox.get()

    def describe_close(self) -> str:
        return self._last_error or f"the connection to {self.url} closed"

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for task in [*self._posts.values(), *([self._get_task] if self._get_task else [])]:
            task.cancel()
        if self.session_id is not None:
            with contextlib.suppress(Exception):
                async with self._client.stream(  # the answer's body is never read
                    "DELETE",
                    self.url,
                    follow_redirects=False,
                    headers=await self._authorized({**self.headers, "mcp-session-id": self.session_id}, "DELETE"),
                    timeout=5.0,
                ):
                    pass
        if self._lean is not None:
            await self._lean.aclose()
        if self._own_client:
            for shard in self._shards:
                await shard.aclose()
        self._inbox.put_nowait(None)
        if self._wire:
            self._wire.close()


class LegacySseTransport:
    """The 2024-11-05 HTTP+SSE transport: GET an event stream, POST to the endpoint it names."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        wire_log: WireLog | None = None,
        timeout: float | None = 60.0,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        import httpx

        self.url = url
        self.max_message_bytes = max_message_bytes
        self.headers = dict(headers or {})
        self.protocol_version: str | None = None
        self.modern = False
        self.param_headers: dict[str, dict[str, str]] = {}
        self._wire = wire_log
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout, connect=10.0),
            follow_redirects=False,
            headers={"accept-encoding": ACCEPT_ENCODING},  # the codings guard.chunks decodes
        )
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._endpoint: asyncio.Future[str] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False
        self._error = ""

    async def start(self, timeout: float = 10.0) -> None:
        self._endpoint = asyncio.get_running_loop().create_future()
        self._reader = asyncio.get_running_loop().create_task(self._read())
        try:
            await asyncio.wait_for(asyncio.shield(self._endpoint), timeout)
        except asyncio.TimeoutError:
            raise ConnectionClosed(f"{self.url} sent no endpoint event") from None

    async def _read(self) -> None:
        assert self._endpoint is not None
        try:
            async with self._client.stream(
                "GET",
                self.url,
                follow_redirects=False,
                headers={"accept": "text/event-stream", **self.headers},
                timeout=None,
            ) as response:
                if response.status_code != 200:
                    raise HttpError(response.status_code, "the SSE endpoint refused the connection")
                cap = self.max_message_bytes
                async for event in sse.parse(guard.lines(guard.chunks(response), cap), cap):
                    if event.event == "endpoint":
                        if not self._endpoint.done():
                            # Every message (with the user's headers) goes there: same origin only.
                            endpoint = guard.same_origin(self.url, event.data, what="endpoint")
                            self._endpoint.set_result(endpoint)
                    elif event.event == "message" and event.data.strip():
                        data = event.data.encode("utf-8")
                        if self._wire:
                            self._wire.record("s2c", data)
                        self._inbox.put_nowait(data)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._error = str(exc)
            if not self._endpoint.done():
                self._endpoint.set_exception(
                    exc
                    if isinstance(exc, McpError)
                    else ConnectionClosed(f"cannot open the SSE stream at {self.url}: {exc}")
                )
        finally:
            self._inbox.put_nowait(None)

    async def send(self, message: JSONObject | list[JSONObject]) -> None:
        if self._closed or self._endpoint is None:
            raise ConnectionClosed("the SSE connection is closed")
        data = jsonrpc.encode(message)
        if self._wire:
            self._wire.record("c2s", data)
        endpoint = await self._endpoint
        try:
            async with self._client.stream(
                "POST",
                endpoint,
                follow_redirects=False,
                content=data,
                headers={"content-type": "application/json", **self.headers},
            ) as response:
                body = await guard.read_body(response, self.max_message_bytes)
        except McpError as exc:
            raise ConnectionClosed(f"POST to {endpoint}: {exc}") from None
        except Exception as exc:
            raise ConnectionClosed(f"POST to {endpoint} failed: {exc}") from None
        if response.status_code >= 400:
            raise HttpError(response.status_code, body[:120].decode("utf-8", "replace"))

    async def receive(self) -> bytes | None:
        return await self._inbox.get()

    def describe_close(self) -> str:
        return self._error or f"the SSE stream from {self.url} ended"

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        await self._client.aclose()
        if self._wire:
            self._wire.close()
