"""What a server asks of the client: ping, sampling, elicitation and roots, answered from the
session's callbacks. In the handshake era they come as requests on the wire; a 2026-07-28 server
instead answers a request with `input_required` and expects the same request again, carrying
the answers (and its `requestState`), for at most MAX_INPUT_ROUNDS rounds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core import jsonrpc
from ..core.callbacks import ProgressCallback
from ..core.errors import ProtocolError, RpcError
from ..core.jsonrpc import JSONObject, is_object
from . import url_elicitation
from .options import ConnectOptions

if TYPE_CHECKING:
    from .session import ClientSession

MAX_INPUT_ROUNDS = 8


async def answer(options: ConnectOptions, method: str, params: JSONObject) -> Any:
    """The result of a server's request, from the callback given for it (-32601 without one)."""
    if method == "ping":
        return {}
    if method == "sampling/createMessage" and options.on_sampling is not None:
        return await options.on_sampling(params)
    if method == "elicitation/create" and params.get("mode") == "url":
        return await url_elicitation.ask(options, params)
    if method == "elicitation/create" and options.on_elicitation is not None:
        return await options.on_elicitation(params)
    if method == "roots/list" and options.on_roots is not None:
        return {"roots": await options.on_roots()}
    raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")


def completed(result: JSONObject) -> bool:
    """Is this stateless-era result the complete answer (its resultType dropped), rather than a
    request for input? Checked before any input round is started: nearly every result is."""
    if result.get("resultType", "complete") != "complete":
        return False
    result.pop("resultType", None)
    return True


async def complete_input_rounds(
    client: ClientSession,
    method: str,
    params: JSONObject,
    result: JSONObject,
    timeout: float | None,
    progress: ProgressCallback | None,
) -> JSONObject:
    """Stateless-era servers ask for input by result, then expect a retry with answers."""
    for _round in range(MAX_INPUT_ROUNDS):
        if completed(result):
            return result
        kind = result.get("resultType")
        if kind == "task":
            return result  # a CreateTaskResult (Tasks extension): client/tasks.py takes it from here
        if kind != "input_required":
            raise ProtocolError(f"{method} returned an unknown resultType {kind!r}")
        answers: JSONObject = {}
        requests: JSONObject = result.get("inputRequests") or {}
        for key, embedded in requests.items():
            answers[key] = await answer_embedded(client, embedded)
        retry = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
        retry["inputResponses"] = answers
        if "requestState" in result:
            retry["requestState"] = result["requestState"]
        result = await client.session.request(method, retry, timeout=timeout, progress=progress)
        if not is_object(result):
            raise ProtocolError(f"{method} returned a non-object result")
    raise ProtocolError(f"{method} asked for input more than {MAX_INPUT_ROUNDS} times")


async def answer_embedded(client: ClientSession, embedded: Any) -> Any:
    """The answer to one input request, from the session's callbacks."""
    if not is_object(embedded):
        raise ProtocolError("an input request is not an object")
    method = embedded.get("method")
    params = embedded.get("params")
    return await answer(client.options, str(method), params if is_object(params) else {})
