"""The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), server side.

A tool whose definition says `execution.taskSupport` "optional" or "required" runs as a task for
a client that declares the extension in the request's `_meta` capabilities: `tools/call` answers
a CreateTaskResult at once and the handler goes on in the background; `tasks/get` polls it (the
result or the error inlined once it ends), `tasks/update` answers the input requests it parked
on, `tasks/cancel` stops it. Without the extension an "optional" tool answers as a plain call and
a "required" one is refused with -32021.

Tasks exist in the 2026-07-28 era only (`tasks_refusal`, the one place that says so): SEP-2663 is
wire-incompatible with 2025-11-25's in-core tasks (`params.task`, `tasks/result`, `tasks/list`),
and the official Python SDK, its TypeScript ext-tasks package and fastmcp-tasks all leave the
extension undefined on a handshake-era connection. There a task-supporting tool is a plain call
("required" ones refused), `tasks/*` is -32601, and initialize does not declare the extension.

Where a task lives: its record in the store (`store/`: memory, or Redis shared by every worker),
written only by the worker running it, plus an inbox any worker appends answers and
cancellations to, which the running worker drains. So any worker answers tasks/get, and a task
whose worker died is reported failed (its heartbeat stops), never left "working" forever.
Bounds: tasks stored at once (`max_tasks`), running on this worker (`max_running`), the result
size (`max_result_bytes`), inbox messages (store/base.py), and every record expires `ttl` after
its last write. Everything read back from the store is checked before use (untrusted).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..core import jsonrpc
from ..core.errors import RpcError
from ..core.jsonrpc import JSONObject, is_array, is_int, is_object
from ..core.protocol import ERA_MODERN, EXTENSION_TASKS
from .store.base import MAX_TASK_BYTES, MAX_TASK_MESSAGE_BYTES, Store
from .store.memory import MemoryStore
from .task_owner import ANONYMOUS, may_reach, task_owner, valid_owner

if TYPE_CHECKING:
    from .context import RequestContext

log = logging.getLogger("mcpgen.runtime.server.tasks")

TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
TASK_SUPPORT_VALUES = ("optional", "required")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
_STATUSES = frozenset({"working", "input_required", *TERMINAL})
# Task ids are minted here (token_urlsafe): anything else a client sends is simply unknown. The
# alphabet is header-safe, as Mcp-Name carries the id over HTTP.
_TASK_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
# How often the running worker reads its tasks' inboxes.
_INBOX_POLL = 0.1
# Status notifications (sent on subscriptions/listen streams whose filter named the task).
NOTIFY_TASKS = "notifications/tasks"
# A notification inlines the result, error or input requests up to this size; past it, it
# carries the task's envelope (its status) and the client's tasks/get fetches the rest. So a
# listen stream, which holds at most one pending notification per task, stays small.
NOTIFY_INLINE_BYTES = 64 * 1024
# Task ids one subscriptions/listen may ask notifications for (the rest are not agreed).
MAX_LISTENED_TASKS = 64

RunTool = Callable[[JSONObject, "RequestContext"], Awaitable[JSONObject]]
Publish = Callable[[str, JSONObject], Awaitable[None]]


@dataclass(frozen=True)
class TaskLimits:
    """How long tasks are kept and how many: the bounds of the Tasks extension."""

    ttl: float = 3600.0  # seconds a task stays readable after its last change
    poll_interval_ms: int = 500  # what CreateTaskResult suggests to pollers
    max_tasks: int = 10_000  # stored at once (cluster-wide with a shared store)
    max_running: int = 100  # running on this worker at once
    max_result_bytes: int = 4 * 1024 * 1024  # a bigger result fails the task
    heartbeat: float = 2.0  # the running worker rewrites the record this often
    lease: float = 15.0  # no heartbeat for this long: the worker is gone, the task failed

    def __post_init__(self) -> None:
        if self.ttl <= 0 or self.poll_interval_ms < 1 or self.max_tasks < 1 or self.max_running < 1:
            raise ValueError("task limits must be positive")
        if not 0 < self.heartbeat < self.lease:
            raise ValueError("the task heartbeat must be shorter than the lease")
        if self.max_result_bytes > MAX_TASK_BYTES - 64 * 1024:
            raise ValueError(f"max_result_bytes is at most {MAX_TASK_BYTES - 64 * 1024}")


def task_support(definition: Mapping[str, Any]) -> str | None:
    """ "optional" or "required" when the tool may run as a task; None for a plain tool."""
    execution = definition.get("execution")
    value = execution.get("taskSupport") if is_object(execution) else None
    return value if value in TASK_SUPPORT_VALUES else None


def with_task_support(definition: JSONObject, value: object) -> JSONObject:
    """The definition as advertised when handlers.py's TASK_SUPPORT names the tool (`value`
    "optional" or "required"); a bad value stops the server at start, in one line."""
    if value is None:
        return definition
    if value not in TASK_SUPPORT_VALUES:
        raise ValueError(f"TASK_SUPPORT[{definition.get('name')!r}] must be 'optional' or 'required', not {value!r}")
    execution = definition.get("execution")
    return {**definition, "execution": {**(execution if is_object(execution) else {}), "taskSupport": value}}


def declares_tasks(capabilities: Mapping[str, Any]) -> bool:
    """Whether the client's capabilities include the Tasks extension."""
    extensions = capabilities.get("extensions")
    return is_object(extensions) and is_object(extensions.get(EXTENSION_TASKS))


def tasks_refusal(context: RequestContext, method: str) -> RpcError | None:
    """None when this request (`method`) speaks the Tasks extension: a 2026-07-28 request that
    declares it. Otherwise the error it gets where it needs the extension: -32021 naming the
    capability; in the handshake era, where the extension is not defined, -32601 for tasks/*
    and -32021 naming the era for a tool that runs only as a task."""
    if context.era == ERA_MODERN:
        if declares_tasks(context.client_capabilities):
            return None
        return missing_tasks_capability(_NEEDING.get(method, method))
    era = "the Tasks extension is served in protocol version 2026-07-28 only: this connection speaks"
    era = f"{era} {context.protocol_version or 'the handshake era'}"
    if method == "tools/call":
        return RpcError(jsonrpc.MISSING_CLIENT_CAPABILITY, f"this tool runs only as a task; {era}")
    return RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method} ({era})")


# What needs the extension, in a 2026-07-28 refusal's words ("... needs the client capability").
_NEEDING = {"tools/call": "this tool runs only as a task: it", "subscriptions/listen": "task status notifications"}


def missing_tasks_capability(what: str) -> RpcError:
    return RpcError(
        jsonrpc.MISSING_CLIENT_CAPABILITY,
        f"{what} needs the client capability extensions[{EXTENSION_TASKS!r}]",
        {"requiredCapabilities": {"extensions": {EXTENSION_TASKS: {}}}},
    )


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class TaskRecord:
    """One task as the store holds it (and as tasks/get shows it)."""

    task_id: str
    status: str = "working"
    created_at: str = field(default_factory=_now_iso)
    updated_at: str = ""
    ttl_ms: int = 0
    poll_ms: int = 0
    beat: float = 0.0  # wall clock of the running worker's last write
    message: str | None = None
    input_requests: JSONObject = field(default_factory=dict[str, Any])
    result: JSONObject | None = None
    error: JSONObject | None = None
    owner: str = ANONYMOUS  # who may reach it (task_owner.py): checked on every read

    def encode(self) -> bytes:
        data = {
            "id": self.task_id,
            "owner": self.owner,
            "status": self.status,
            "created": self.created_at,
            "updated": self.updated_at or self.created_at,
            "ttl": self.ttl_ms,
            "poll": self.poll_ms,
            "beat": self.beat,
            "message": self.message,
            "inputs": self.input_requests,
            "result": self.result,
            "error": self.error,
        }
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, raw: bytes | None) -> TaskRecord | None:
        """The record, or None when `raw` is missing or not a well-formed record."""
        if raw is None or len(raw) > MAX_TASK_BYTES:
            return None
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None
        if not is_object(data) or not isinstance(data.get("status"), str) or data["status"] not in _STATUSES:
            return None
        task_id, created, updated, message = (
            data.get("id"),
            data.get("created"),
            data.get("updated"),
            data.get("message"),
        )
        if not isinstance(task_id, str) or not isinstance(created, str) or not isinstance(updated, str):
            return None
        owner = data.get("owner")
        if not valid_owner(owner):
            return None
        ttl, poll, beat = data.get("ttl"), data.get("poll"), data.get("beat")
        if (
            not (is_int(ttl) and ttl >= 0 and is_int(poll) and poll >= 0)
            or isinstance(beat, bool)
            or not isinstance(beat, (int, float))
        ):
            return None
        if not 0 <= beat < 1e12:  # a wall-clock time (NaN or infinity would keep it "working" forever)
            return None
        inputs, result, error = data.get("inputs"), data.get("result"), data.get("error")
        if not is_object(inputs) or not all(v is None or is_object(v) for v in (result, error)):
            return None
        shown = message if isinstance(message, str) else None
        return cls(
            task_id, data["status"], created, updated, ttl, poll, float(beat), shown, inputs, result, error, str(owner)
        )

    def envelope(self) -> JSONObject:
        """The Task fields every answer about this task carries."""
        task: JSONObject = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at or self.created_at,
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_ms,
        }
        if self.message is not None:
            task["statusMessage"] = self.message
        return task

    def notification(self) -> JSONObject:
        """notifications/tasks' params: the DetailedTask, or its envelope when that is too large."""
        detailed = self.detailed()
        return detailed if len(json.dumps(detailed)) <= NOTIFY_INLINE_BYTES else self.envelope()

    def detailed(self) -> JSONObject:
        """tasks/get's DetailedTask: the result, the error or the pending input requests inlined."""
        task = self.envelope()
        if self.status == "completed" and self.result is not None:
            task["result"] = self.result
        elif self.status == "failed" and self.error is not None:
            task["error"] = self.error
        elif self.status == "input_required":
            task["inputRequests"] = self.input_requests
        return task


def _answers_of(raw: bytes) -> tuple[bool, JSONObject]:
    """(cancel?, answers) of one inbox message; a garbled one means neither."""
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False, {}
    if not is_object(data):
        return False, {}
    answers = data.get("answers")
    return data.get("cancel") is True, answers if is_object(answers) else {}


class TaskRun:
    """A task this worker runs: the handler's job, its record, the inputs it waits for.

    The handler's RequestContext points here (`context.task`): once the task exists, its input
    requests park the task in input_required instead of going to the client."""

    def __init__(self, manager: TaskManager, task_id: str, owner: str) -> None:
        self.manager = manager
        self.record = TaskRecord(
            task_id, ttl_ms=int(manager.limits.ttl * 1000), poll_ms=manager.limits.poll_interval_ms, owner=owner
        )
        self.escalated = asyncio.Event()
        self.job: asyncio.Task[JSONObject | None] | None = None
        self._pending: JSONObject = {}
        self._answers: JSONObject = {}
        self._answered = asyncio.Event()
        # What the last status notification said (status, pending input keys): sent on change.
        self._announced: tuple[str, tuple[str, ...]] = (self.record.status, ())

    @property
    def active(self) -> bool:
        return self.escalated.is_set()

    async def escalate(self) -> None:
        """Create the task (durably: a tasks/get right after the answer finds it)."""
        if self.active:
            return
        record = self.record
        record.beat = time.time()
        if not await self.manager.store.create_task(
            record.task_id, record.encode(), self.manager.limits.ttl, self.manager.limits.max_tasks
        ):
            raise RpcError(jsonrpc.INTERNAL_ERROR, f"too many tasks (at most {self.manager.limits.max_tasks})")
        self.manager.register(self)  # before the handler can finish (and unregister it)
        self.escalated.set()

    async def save(self, status: str | None = None) -> None:
        if status is not None:
            self.record.status = status
        self.record.updated_at = _now_iso()
        self.record.beat = time.time()
        await self.manager.store.save_task(self.record.task_id, self.record.encode(), self.manager.limits.ttl)
        now = (self.record.status, tuple(self.record.input_requests))
        if now != self._announced:
            self._announced = now
            await self.manager.announce(self.record)

    async def request_inputs(self, requests: Mapping[str, JSONObject]) -> dict[str, Any]:
        """Park the task in input_required until tasks/update answered every one of `requests`."""
        self._pending.update({key: dict(request) for key, request in requests.items() if key not in self._answers})
        while any(key not in self._answers for key in requests):
            self.record.input_requests = dict(self._pending)
            await self.save("input_required")
            self._answered.clear()
            await self._answered.wait()
        return {key: self._answers.pop(key) for key in requests}

    async def deliver(self, raw: bytes) -> None:
        """Apply one inbox message: answers to pending input requests, or a cancellation."""
        cancel, answers = _answers_of(raw)
        if cancel:
            if self.job is not None:
                self.job.cancel()
            return
        used = {key: value for key, value in answers.items() if key in self._pending and is_object(value)}
        if not used:
            return
        for key in used:
            del self._pending[key]
        self._answers.update(used)
        self.record.input_requests = dict(self._pending)
        if not self._pending:
            await self.save("working")
        else:
            await self.save()
        self._answered.set()

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """A progress report becomes the task's status message (what tasks/get shows)."""
        shown = f"{progress:g}/{total:g}" if total is not None else f"{progress:g}"
        self.record.message = f"{shown} {message}" if message else shown
        with contextlib.suppress(Exception):
            await self.save()

    async def finish(self, result: JSONObject | None, error: JSONObject | None, status: str) -> None:
        if result is not None and len(json.dumps(result)) > self.manager.limits.max_result_bytes:
            limit = self.manager.limits.max_result_bytes
            result, status = None, "failed"
            error = {"code": jsonrpc.INTERNAL_ERROR, "message": f"the task's result is larger than {limit} bytes"}
        self.record.result, self.record.error = result, error
        self.record.input_requests = {}
        await self.save(status)


class TaskManager:
    """The tasks of one server: creating them from tool calls, and tasks/get|update|cancel."""

    def __init__(self, limits: TaskLimits | None = None, publish: Publish | None = None) -> None:
        self.limits = limits or TaskLimits()
        self.store: Store = MemoryStore()
        # Where status notifications go (the server's SubscriptionHub: to every worker's streams).
        self.publish = publish
        self._running: dict[str, TaskRun] = {}
        self._watcher: asyncio.Task[None] | None = None

    def use_store(self, store: Store) -> None:
        """Keep tasks in `store` (the HTTP server's: shared by its workers)."""
        self.store = store

    async def call(
        self, run_tool: RunTool, arguments: JSONObject, context: RequestContext, support: str, input_first: bool
    ) -> JSONObject:
        """tools/call of a task-supporting tool: a CreateTaskResult, or a plain call's result."""
        refused = tasks_refusal(context, "tools/call")
        if refused is not None:
            if support != "required":
                return await run_tool(arguments, context)
            raise refused
        if len(self._running) >= self.limits.max_running:
            raise RpcError(jsonrpc.INTERNAL_ERROR, f"too many tasks running (at most {self.limits.max_running})")
        run = TaskRun(self, secrets.token_urlsafe(18), task_owner(context))
        context.task = run
        if not input_first:
            await run.escalate()
        run.job = asyncio.ensure_future(self._execute(run, run_tool, arguments, context))
        if not run.active:
            # The handler gathers input first (plain input_required rounds), then calls
            # ctx.continue_as_task(): until then this is an ordinary call.
            escalated = asyncio.ensure_future(run.escalated.wait())
            try:
                await asyncio.wait({run.job, escalated}, return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError:
                if not run.active:  # the request was cancelled before any task existed
                    run.job.cancel()
                raise
            finally:
                escalated.cancel()
            if not run.active:
                return await run.job or {}
        return {"resultType": "task", **run.record.envelope()}

    def register(self, run: TaskRun) -> None:
        """`run` now exists as a task on this worker: its inbox is watched, its heartbeat kept."""
        self._running[run.record.task_id] = run
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.ensure_future(self._watch())

    async def _execute(
        self, run: TaskRun, run_tool: RunTool, arguments: JSONObject, context: RequestContext
    ) -> JSONObject | None:
        try:
            result = await run_tool(arguments, context)
        except asyncio.CancelledError:
            if not run.active:
                raise
            await self._settle(run, None, None, "cancelled")
            return None
        except RpcError as exc:
            if not run.active:
                raise
            error: JSONObject = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            await self._settle(run, None, error, "failed")
            return None
        except BaseException:
            if not run.active:
                raise
            log.exception("task %s failed", run.record.task_id)
            await self._settle(run, None, {"code": jsonrpc.INTERNAL_ERROR, "message": "Internal error"}, "failed")
            return None
        if not run.active:
            return result
        await self._settle(run, result, None, "completed")
        return None

    async def _settle(self, run: TaskRun, result: JSONObject | None, error: JSONObject | None, status: str) -> None:
        self._running.pop(run.record.task_id, None)
        try:
            await run.finish(result, error, status)
        except Exception:  # the store is gone: tasks/get will report the lost heartbeat
            log.exception("task %s could not be saved", run.record.task_id)

    async def _watch(self) -> None:
        """Drain the inboxes of this worker's tasks and keep their heartbeats, while any runs."""
        last_beat = time.monotonic()
        while self._running:
            await asyncio.sleep(_INBOX_POLL)
            beat = time.monotonic() - last_beat >= self.limits.heartbeat
            for task_id, run in list(self._running.items()):
                try:
                    messages = await self.store.task_inbox(task_id)
                    for raw in messages:
                        await run.deliver(raw)
                    await self.store.trim_task_inbox(task_id, len(messages))
                    if beat and task_id in self._running:
                        await run.save()
                except Exception:
                    log.exception("task %s: the store could not be read", task_id)
            if beat:
                last_beat = time.monotonic()

    # -- tasks/get, tasks/update, tasks/cancel --------------------------------------

    async def _record(self, params: JSONObject, context: RequestContext, method: str) -> TaskRecord:
        refused = tasks_refusal(context, method)
        if refused is not None:
            raise refused
        task_id = params.get("taskId")
        record = await self.reachable(task_id, context)
        if record is None:
            # The same answer for a task that never was, one that expired and someone else's.
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown task: {str(task_id)[:80]!r}")
        if record.task_id in self._running:
            return record
        if record.status not in TERMINAL and time.time() - record.beat > self.limits.lease:
            # Its worker stopped writing: it died (or lost the store) with the task unfinished.
            record.status, record.input_requests = "failed", {}
            record.error = {
                "code": jsonrpc.INTERNAL_ERROR,
                "message": f"the worker running this task stopped (no heartbeat for {self.limits.lease:g} s)",
            }
            with contextlib.suppress(Exception):
                await self.store.save_task(record.task_id, record.encode(), self.limits.ttl)
            await self.announce(record)
        return record

    async def announce(self, record: TaskRecord) -> None:
        """notifications/tasks about `record` to the listen streams that asked for it (whose
        filter could name it only if its caller owns it: listen_filter)."""
        if self.publish is None:
            return
        try:
            await self.publish(NOTIFY_TASKS, record.notification())
        except Exception:  # a lost notification costs the client one poll interval
            log.warning("task %s: its status notification was not sent", record.task_id, exc_info=True)

    async def listen_filter(self, requested: object, context: RequestContext) -> JSONObject:
        """The part of a subscriptions/listen filter about tasks the server agrees to: the ids
        (at most MAX_LISTENED_TASKS) of tasks that exist and this caller owns; others are left
        out exactly as unknown ones are."""
        wanted = requested.get("taskIds") if is_object(requested) else None
        if wanted is None:
            return {}
        refused = tasks_refusal(context, "subscriptions/listen")
        if refused is not None:
            raise refused
        if not is_array(wanted):
            return {}
        agreed: list[str] = []
        for task_id in dict.fromkeys(t for t in wanted[:MAX_LISTENED_TASKS] if isinstance(t, str)):
            if await self.reachable(task_id, context) is not None:
                agreed.append(task_id)
        return {"taskIds": agreed} if agreed else {}

    async def reachable(self, task_id: object, context: RequestContext) -> TaskRecord | None:
        """The task `task_id` names if it exists and this request's caller owns it (task_owner.py);
        None otherwise, whichever the reason."""
        if not isinstance(task_id, str) or not _TASK_ID.fullmatch(task_id):
            return None
        run = self._running.get(task_id)
        record = run.record if run is not None else TaskRecord.decode(await self.store.load_task(task_id))
        if record is None or record.task_id != task_id or not may_reach(record.owner, context):
            return None
        return record

    async def get(self, params: JSONObject, context: RequestContext) -> JSONObject:
        record = await self._record(params, context, "tasks/get")
        if record.status == "input_required" and record.task_id not in self._running:
            # Answers posted on any worker but not yet applied by the running one are not pending.
            for raw in await self.store.task_inbox(record.task_id):
                for key in _answers_of(raw)[1]:
                    record.input_requests.pop(key, None)
        return record.detailed()

    async def update(self, params: JSONObject, context: RequestContext) -> JSONObject:
        record = await self._record(params, context, "tasks/update")
        responses = params.get("inputResponses")
        if not is_object(responses):
            raise RpcError(jsonrpc.INVALID_PARAMS, "tasks/update needs an inputResponses object")
        if record.status not in TERMINAL:
            await self._post(record.task_id, {"answers": responses})
        return {}

    async def cancel(self, params: JSONObject, context: RequestContext) -> JSONObject:
        record = await self._record(params, context, "tasks/cancel")
        if record.status not in TERMINAL:
            await self._post(record.task_id, {"cancel": True})
        return {}

    async def _post(self, task_id: str, message: JSONObject) -> None:
        raw = json.dumps(message, separators=(",", ":")).encode()
        if len(raw) > MAX_TASK_MESSAGE_BYTES:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"the message is larger than {MAX_TASK_MESSAGE_BYTES} bytes")
        run = self._running.get(task_id)
        if run is not None:
            await run.deliver(raw)  # this worker runs it: applied at once
        elif not await self.store.post_to_task(task_id, raw, self.limits.ttl):
            raise RpcError(jsonrpc.INVALID_PARAMS, "the task takes no more messages now (its inbox is full)")


__all__ = [
    "MAX_LISTENED_TASKS",
    "NOTIFY_TASKS",
    "TASK_METHODS",
    "TaskLimits",
    "TaskManager",
    "TaskRecord",
    "TaskRun",
    "declares_tasks",
    "tasks_refusal",
    "missing_tasks_capability",
    "task_support",
    "with_task_support",
]
