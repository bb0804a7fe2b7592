"""RequestContext: what every handler is handed — who is asking (era, capabilities, auth, trace)
and the ways to talk back while working (progress, logs, client inputs, change events)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from ..core import jsonrpc, trace_context
from ..core.errors import InputRequired, McpError, RpcError
from ..core.jsonrpc import JSONObject, RequestId, is_array, is_object
from ..core.protocol import ERA_MODERN, LIST_KINDS, LOG_LEVELS
from ..core.session import Session
from .auth.info import AuthInfo, current_auth
from .subscriptions import SubscriptionHub
from .tasks import TaskRun


class RequestContext:
    """Handed to every handler: who is asking, and ways to talk back while working."""

    def __init__(
        self,
        session: Session,
        request_id: RequestId,
        params: JSONObject,
        *,
        era: str,
        protocol_version: str,
        client_capabilities: JSONObject,
        log_level: str | None,
        carried: JSONObject | None = None,
        hub: SubscriptionHub | None = None,
    ) -> None:
        self._session = session
        self._hub = hub
        self.request_id = request_id
        self.era = era
        self.protocol_version = protocol_version
        self.client_capabilities = client_capabilities
        self.log_level = log_level
        # The caller's verified access token on a protected HTTP server; None otherwise.
        self.auth: AuthInfo | None = current_auth.get()
        meta = params.get("_meta")
        self.meta: JSONObject = meta if is_object(meta) else {}
        self.trace = trace_context.trace_context_of(self.meta)  # W3C trace context, checked (or None)
        token = self.meta.get("progressToken")
        # A token is a string or an integer; anything else (NaN, 1.5, an object) means no progress.
        self.progress_token = token if token is not None and jsonrpc.is_valid_id(token) else None
        self._last_progress: float | None = None
        # Answers to input requests: earlier rounds' (carried in the signed requestState), then
        # this retry's inputResponses. Only those a handler actually used go into the next state.
        responses = params.get("inputResponses")
        if is_object(responses):
            self._responses: JSONObject = {**carried, **responses} if carried else dict(responses)
        else:
            self._responses = dict(carried) if carried else {}
        self.answered: JSONObject = {}
        self._asks = 0
        # The task this call runs as (Tasks extension, tasks.py); None for a plain call.
        self.task: TaskRun | None = None

    async def continue_as_task(self) -> None:
        """A `task_input_first` tool's input is gathered (plain input_required rounds): the rest
        runs as a task, the client gets its CreateTaskResult now. A no-op anywhere else."""
        if self.task is not None:
            await self.task.escalate()

    async def drop_connection(self) -> None:
        """End this connection without answering anything more, as a crashing server would (for
        fault injection: the client sees the connection close)."""
        # The transport, not the session: closing the session would cancel this very handler.
        await self._session.transport.close()

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send notifications/progress if the client asked for it; progress must increase. In a
        running task it becomes the task's status message instead."""
        if self.progress_token is None and not (self.task is not None and self.task.active):
            return
        if self._last_progress is not None and progress <= self._last_progress:
            return
        self._last_progress = progress
        if self.task is not None and self.task.active:
            await self.task.progress(progress, total, message)
            return
        params: JSONObject = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._quiet_notify("notifications/progress", params)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """notifications/message, sent only at or above the level the client asked for."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}")
        threshold = self.log_level
        if threshold is None:
            # Stateless era: no logLevel in _meta means the client wants no log messages.
            if self.era == ERA_MODERN:
                return
        elif LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return
        params: JSONObject = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._quiet_notify("notifications/message", params)

    async def resource_updated(self, uri: str) -> None:
        """Tell subscribers `uri` changed (resources/subscribe or subscriptions/listen)."""
        if self._hub is not None:
            await self._hub.publish("notifications/resources/updated", {"uri": uri})

    async def list_changed(self, kind: str) -> None:
        """Tell clients the list of `kind` ("tools", "prompts" or "resources") changed."""
        if kind not in LIST_KINDS:
            raise ValueError(f"kind must be one of {LIST_KINDS}, not {kind!r}")
        if self._hub is not None:
            await self._hub.publish(f"notifications/{kind}/list_changed", {})

    async def _quiet_notify(self, method: str, params: JSONObject) -> None:
        # ValueError: something in params is not JSON (a NaN progress value); the tool goes on.
        with contextlib.suppress(McpError, ValueError):
            await self._session.notify(method, params)

    async def _ask_client(self, capability: str, method: str, params: JSONObject | None, key: str | None) -> Any:
        if key is None:
            self._asks += 1
            key = f"{capability}-{self._asks}"
        embedded: JSONObject = {"method": method}
        if params is not None:
            embedded["params"] = params
        return (await self.request_inputs({key: embedded}))[key]

    async def request_inputs(self, requests: Mapping[str, JSONObject]) -> dict[str, Any]:
        """Several client inputs at once: {key: {"method": ..., "params": ...}} -> {key: answer}.

        The methods are elicitation/create, sampling/createMessage and roots/list. In the
        stateless era every unanswered one goes out in a single input_required result and the
        handler runs again on the retry; in the handshake era each is a request to the client.
        """
        missing: JSONObject = {}
        for request in requests.values():
            capability = _CAPABILITY_OF.get(str(request.get("method")))
            if capability is None:
                raise ValueError(f"not a client input method: {request.get('method')!r}")
            if capability not in self.client_capabilities:
                missing[capability] = {}
        if missing:
            # Never ask for what the client did not declare (-32021 names every missing one).
            names = ", ".join(missing)
            raise RpcError(
                jsonrpc.MISSING_CLIENT_CAPABILITY,
                f"the client did not declare the {names} capability",
                {"requiredCapabilities": missing},
            )
        if self.task is not None and self.task.active:
            # A running task parks in input_required; tasks/update brings the answers.
            return await self.task.request_inputs(requests)
        if self.era != ERA_MODERN:
            return {
                key: await self._session.request(str(r["method"]), r.get("params"), timeout=None)
                for key, r in requests.items()
            }
        # No server->client requests in the stateless era: answers come with a retry of this
        # very request (inputResponses), which runs the handler again from the start.
        answers = {key: self._responses[key] for key in requests if is_object(self._responses.get(key))}
        # Kept even when some are still missing: the retry will answer only the missing ones.
        self.answered.update(answers)
        unanswered = {key: dict(r) for key, r in requests.items() if key not in answers}
        if unanswered:
            raise InputRequired(unanswered)
        return answers

    async def request_sampling(self, params: JSONObject, *, key: str | None = None) -> JSONObject:
        """sampling/createMessage; `key` names the input request in the stateless era."""
        result: JSONObject = await self._ask_client("sampling", "sampling/createMessage", params, key)
        return result

    async def request_elicitation(self, params: JSONObject, *, key: str | None = None) -> JSONObject:
        """elicitation/create; `key` names the input request in the stateless era."""
        result: JSONObject = await self._ask_client("elicitation", "elicitation/create", params, key)
        return result

    async def list_roots(self, *, key: str | None = None) -> list[JSONObject]:
        """roots/list; `key` names the input request in the stateless era."""
        result = await self._ask_client("roots", "roots/list", None, key)
        roots = result.get("roots") if is_object(result) else None
        return roots if is_array(roots) else []


# Which client capability each client input method needs.
_CAPABILITY_OF = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}

__all__ = ["RequestContext"]
