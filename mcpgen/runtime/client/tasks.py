"""The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), client side: a tool call run
as a task, behind one handle.

`ClientSession.start_tool(name, arguments)` declares the extension on that one request (2026-07-28
`_meta` capabilities: nothing else the session sends changes) and returns a `ToolTask`. When the
server runs the call as a task, the handle polls `tasks/get` (`refresh()`, `wait()`), answers its
input requests with the session's own callbacks (elicitation, sampling, roots) through
`tasks/update`, and `cancel()`s it. `wait()` also listens for the task's status notifications
(`notifications/tasks` on a `subscriptions/listen` stream, when the server agrees to send them):
each one wakes it to poll at once, so polling is then only the fallback (at a slower pace, as a
notification may be lost). When the server answers at once (a plain tool, the
immediate-result shortcut, a handshake-era server) the handle is already completed. `wait()`
returns the CallToolResult exactly as `call_tool` would; a failed or cancelled task raises
TaskFailed. The wire shapes stay here, so generated code names only ToolTask (the result shape may
still change upstream: SEP-3279).

Everything from the server is untrusted: the poll interval is clamped, the status must be one the
spec names, input rounds are bounded, and a task id is only sent back as it came.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.errors import McpError, ProtocolError, RequestTimeout, TaskFailed
from ..core.jsonrpc import JSONObject, is_int, is_object
from ..core.protocol import ERA_MODERN, EXTENSION_TASKS, META_CLIENT_CAPABILITIES
from . import server_requests
from .negotiation import stateless_meta
from .options import ProgressCallback

if TYPE_CHECKING:
    from .session import ClientSession
    from .subscriptions import Subscription

STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
# The poll interval a server may ask for is kept within these bounds (seconds).
POLL_BOUNDS = (0.05, 5.0)
# Input rounds one task may ask for: past it the server is asking forever.
MAX_TASK_INPUT_ROUNDS = 100
_DEFAULT_POLL = 0.5
# How often wait() still polls while the server sends the task's status notifications.
_POLL_WHILE_NOTIFIED = POLL_BOUNDS[1]

StatusCallback = Callable[["ToolTask"], Awaitable[None] | None]


def task_meta(client: ClientSession) -> JSONObject:
    """A stateless-era request's `_meta`, its capabilities declaring the Tasks extension."""
    meta = stateless_meta(client)
    caps = dict(meta[META_CLIENT_CAPABILITIES])
    caps["extensions"] = {**caps.get("extensions", {}), EXTENSION_TASKS: {}}
    return {**meta, META_CLIENT_CAPABILITIES: caps}


async def start_tool(
    client: ClientSession,
    name: str,
    arguments: Mapping[str, Any] | None,
    timeout: float | None,
    progress: ProgressCallback | None,
) -> ToolTask:
    """tools/call declaring the extension: a handle on the task, or on the result already there."""
    if client.era != ERA_MODERN:
        # A handshake-era connection declared its capabilities once, without tasks: a plain call.
        return ToolTask(client, name, None, result=await client.call_tool(name, arguments, timeout=timeout))
    params: JSONObject = {"name": name, "arguments": dict(arguments or {}), "_meta": task_meta(client)}
    result = await client.session.request("tools/call", params, timeout=timeout, progress=progress)
    if not is_object(result):
        raise ProtocolError("tools/call returned a non-object result")
    if not server_requests.completed(result):
        # Input gathered first (plain input_required rounds); the last round may create the task.
        result = await server_requests.complete_input_rounds(client, "tools/call", params, result, timeout, progress)
    if result.get("resultType") != "task":
        return ToolTask(client, name, None, result=result)
    return task_of(client, name, result)


def task_of(client: ClientSession, name: str, result: JSONObject) -> ToolTask:
    """The handle on the task a CreateTaskResult announces."""
    task = ToolTask(client, name, task_id_of(result))
    task.apply({**result, "status": "working"} if result.get("status") in TERMINAL else result)
    # (A task may end before its CreateTaskResult is sent, which never inlines the result: the
    # first poll fetches it.)
    return task


def task_id_of(result: JSONObject) -> str:
    task_id = result.get("taskId")
    # (printable: the id goes into every reason about the task, each one line)
    if not isinstance(task_id, str) or not 0 < len(task_id) <= 256 or not task_id.isprintable():
        raise ProtocolError("a CreateTaskResult without a usable taskId")
    return task_id


class ToolTask:
    """One tool call run as a task: its `status`, `wait()` for its result, `cancel()` it.

    `status` is "working", "input_required", "completed", "failed" or "cancelled" (as of the last
    poll); `status_message` the server's word on it (a progress report, say). `task_id` is None
    when the server answered at once (then the task is "completed" from the start)."""

    def __init__(
        self, client: ClientSession, tool: str, task_id: str | None, *, result: JSONObject | None = None
    ) -> None:
        self.client = client
        self.tool = tool
        self.task_id = task_id
        self.status = "completed" if result is not None else "working"
        self.status_message: str | None = None
        self.poll_interval = _DEFAULT_POLL
        self.ttl_ms: int | None = None
        self._result = result
        self._error: JSONObject | None = None
        self._rounds = 0

    def __repr__(self) -> str:
        return f"ToolTask({self.tool!r}, task_id={self.task_id!r}, status={self.status!r})"

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    def apply(self, task: JSONObject) -> None:
        """Take in a Task object the server sent (CreateTaskResult, tasks/get's DetailedTask)."""
        status = task.get("status")
        if status not in STATUSES:
            raise ProtocolError(f"task {self.task_id} has an unknown status {str(status)[:40]!r}")
        self.status = str(status)
        message = task.get("statusMessage")
        self.status_message = message[:2000] if isinstance(message, str) else None
        poll = task.get("pollIntervalMs")
        if is_int(poll) and poll > 0:
            self.poll_interval = min(max(poll / 1000, POLL_BOUNDS[0]), POLL_BOUNDS[1])
        ttl = task.get("ttlMs")
        self.ttl_ms = ttl if is_int(ttl) else None
        result, error = task.get("result"), task.get("error")
        if self.status == "completed":
            if not is_object(result):
                raise ProtocolError(f"task {self.task_id} completed without a result")
            result.pop("resultType", None)
            self._result = result
        elif self.status == "failed":
            self._error = error if is_object(error) else {}

    async def _ask(self, method: str, params: JSONObject) -> Any:
        params = {**params, "taskId": self.task_id, "_meta": task_meta(self.client)}
        return await self.client.session.request(method, params)

    async def refresh(self) -> str:
        """Poll the task once (tasks/get), answering its input requests if it waits for any;
        its status."""
        if self.task_id is None or self.done:
            return self.status
        task = await self._ask("tasks/get", {})
        if not is_object(task):
            raise ProtocolError("tasks/get returned a non-object result")
        self.apply(task)
        requests = task.get("inputRequests")
        if self.status == "input_required" and is_object(requests) and requests:
            await self._answer(requests)
        return self.status

    async def _answer(self, requests: JSONObject) -> None:
        self._rounds += 1
        if self._rounds > MAX_TASK_INPUT_ROUNDS:
            raise ProtocolError(f"task {self.task_id} asked for input more than {MAX_TASK_INPUT_ROUNDS} times")
        answers = {
            key: await server_requests.answer_embedded(self.client, embedded) for key, embedded in requests.items()
        }
        await self._ask("tasks/update", {"inputResponses": answers})

    async def wait(
        self, timeout: float | None = None, on_status: StatusCallback | None = None, *, notifications: bool = True
    ) -> JSONObject:
        """Poll until the task ends: its CallToolResult (as call_tool returns it). TaskFailed
        when it failed or was cancelled; RequestTimeout after `timeout` seconds (the task goes
        on: cancel() it if it should not). `on_status` hears every change of status or message.
        With `notifications`, a status notification from the server wakes it at once."""
        deadline = None if timeout is None else time.monotonic() + timeout
        seen = (self.status, self.status_message)
        woken = asyncio.Event()
        stream = await self._watch(woken) if notifications else None
        try:
            if stream is not None:
                await self.refresh()  # what changed before the stream was open is not notified
            while not self.done:
                pause = self.poll_interval if stream is None else max(self.poll_interval, _POLL_WHILE_NOTIFIED)
                if deadline is not None:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise RequestTimeout(f"task {self.task_id} did not end within {timeout:g}s")
                    pause = min(pause, remaining)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(woken.wait(), pause)
                woken.clear()
                await self.refresh()
                if on_status is not None and (self.status, self.status_message) != seen:
                    seen = (self.status, self.status_message)
                    called = on_status(self)
                    if called is not None:
                        await called
                if stream is not None and stream.closed and not self.done:
                    stream = None  # the server ended the stream: back to polling alone
        finally:
            if stream is not None:
                await stream.aclose()
        return self.result()

    async def _watch(self, woken: asyncio.Event) -> Subscription | None:
        """A listen stream for this task's status notifications, when the server agrees to send
        them (2026-07-28, a server that serves subscriptions/listen and knows the task)."""
        if self.task_id is None or self.done or self.client.era != ERA_MODERN:
            return None
        try:
            stream = await self.client.watch_tasks([self.task_id], task_meta(self.client), woken)
        except McpError:  # no subscriptions/listen there, or not for tasks: polling it is
            return None
        agreed = stream.honored.get("taskIds")
        if not isinstance(agreed, list) or self.task_id not in agreed:
            await stream.aclose()
            return None
        return stream

    def result(self) -> JSONObject:
        """The result of a completed task; TaskFailed for a failed or cancelled one."""
        if self.status == "completed" and self._result is not None:
            return self._result
        if self.status == "cancelled":
            raise TaskFailed(str(self.task_id), "cancelled", "the task was cancelled")
        if self.status == "failed":
            error = self._error or {}
            code = error.get("code")
            message = error.get("message")
            text = message[:500] if isinstance(message, str) else "the server gave no reason"
            number = code if is_int(code) else None
            raise TaskFailed(str(self.task_id), "failed", text, number, error.get("data"))
        raise RuntimeError(f"task {self.task_id} has not ended yet (status {self.status})")

    async def cancel(self) -> None:
        """Ask the server to cancel the task (tasks/cancel); the next poll shows "cancelled"."""
        if self.task_id is not None and not self.done:
            await self._ask("tasks/cancel", {})


__all__ = ["ToolTask", "start_tool", "task_id_of", "task_meta", "task_of"]
