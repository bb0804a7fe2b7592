"""A generated client's tasks (Tasks extension): `await client.start_<tool>(...)` returns a
TypedTask whose `wait()` gives what the plain `await client.<tool>(...)` would (the same model,
ToolError on `isError`), while `status`, `refresh()` and `cancel()` follow the task itself
(client/tasks.py holds the wire). The sync client's `start_<tool>` returns a SyncTypedTask: the
same, each method blocking on the client's loop thread."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar

from ..core.jsonrpc import JSONObject

if TYPE_CHECKING:
    from .tasks import StatusCallback, ToolTask
    from .typed import AsyncClientBase, LoopThread, SyncClientBase

_T = TypeVar("_T")
_A = TypeVar("_A", bound="AsyncClientBase")
_P = ParamSpec("_P")


class TypedTask(Generic[_T]):
    """A tool call run as a task, its result typed like the plain call's."""

    def __init__(self, task: ToolTask, parse: Callable[[JSONObject], _T]) -> None:
        self.task = task  # the untyped handle (its task_id, ttl_ms, poll_interval)
        self._parse = parse

    def __repr__(self) -> str:
        return f"TypedTask({self.task!r})"

    @property
    def status(self) -> str:
        """ "working", "input_required", "completed", "failed" or "cancelled", as of the last poll."""
        return self.task.status

    @property
    def status_message(self) -> str | None:
        return self.task.status_message

    @property
    def done(self) -> bool:
        return self.task.done

    async def refresh(self) -> str:
        """Poll once (answering input requests with the session's callbacks); the status."""
        return await self.task.refresh()

    async def wait(self, timeout: float | None = None, on_status: StatusCallback | None = None) -> _T:
        """The typed result once the task ends; TaskFailed if it failed or was cancelled."""
        return self._parse(await self.task.wait(timeout, on_status))

    async def cancel(self) -> None:
        await self.task.cancel()


class SyncTypedTask(Generic[_T]):
    """TypedTask for the sync client: the same methods, each run on the client's loop thread."""

    def __init__(self, inner: TypedTask[_T], runner: LoopThread) -> None:
        self.inner = inner
        self._runner = runner

    def __repr__(self) -> str:
        return f"SyncTypedTask({self.inner.task!r})"

    @property
    def status(self) -> str:
        return self.inner.status

    @property
    def status_message(self) -> str | None:
        return self.inner.status_message

    @property
    def done(self) -> bool:
        return self.inner.done

    def refresh(self) -> str:
        return self._runner.run(self.inner.refresh())

    def wait(self, timeout: float | None = None) -> _T:
        return self._runner.run(self.inner.wait(timeout))

    def cancel(self) -> None:
        self._runner.run(self.inner.cancel())


def sync_task_method(
    method: Callable[Concatenate[_A, _P], Coroutine[Any, Any, TypedTask[_T]]],
) -> Callable[Concatenate[SyncClientBase[_A], _P], SyncTypedTask[_T]]:
    """`Client.start_x = sync_task_method(AsyncClient.start_x)`: the same signature, a SyncTypedTask."""

    def call(self: SyncClientBase[_A], /, *args: _P.args, **kwargs: _P.kwargs) -> SyncTypedTask[_T]:
        runner = self.mcpgen_runner
        return SyncTypedTask(runner.run(method(self.mcpgen_inner, *args, **kwargs)), runner)

    call.__name__ = getattr(method, "__name__", "start")
    call.__doc__ = method.__doc__
    return call


__all__ = ["SyncTypedTask", "TypedTask", "sync_task_method"]
