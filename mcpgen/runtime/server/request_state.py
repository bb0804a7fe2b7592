"""Stateless-era input (2026-07-28 "MRTR"): a handler that needs the client's input gets it
through an `input_required` result and a retry of the same request, not a server request.

`RequestContext.request_elicitation` (and sampling, roots, `request_inputs`) raises
`InputRequired` when the answer is not in the request's `inputResponses` yet; the server turns
that into the result. A retry carries only the answers to the latest round, so the answers of
earlier rounds ride in the `requestState` the server hands out: signed (a client cannot forge
or alter it), bound to the request (method, target, arguments) and short-lived.

Replay is accepted on purpose, and safe: a state is not a credential. It carries only answers
the client itself sent in earlier rounds (readable by it: signed, not encrypted), for this very
request. Presenting it again, within its hour, re-runs that request with those same answers,
which the client could do anyway by sending the request again and answering the same way; the
MAC only stops a client from putting words in another round's mouth (altered answers, another
tool or other arguments). The state holds nothing but those answers, so a replay discloses
nothing either. A handler treats an answer like any client input: a retry or a replay may run it
twice, so side effects it confirms must be idempotent. Making states single-use would need state
shared by every worker, which the stateless era exists to avoid.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json
import os
import secrets
import time

from ..core import jsonrpc
from ..core.errors import RpcError
from ..core.jsonrpc import JSONObject, is_object

# How long an issued requestState stays good, and the most a client may send back.
STATE_TTL_SECONDS = 3600
_MAX_STATE_CHARS = 256 * 1024


KEY_VARIABLE = "MCPGEN_REQUEST_STATE_KEY"


@functools.lru_cache(maxsize=1)
def _key() -> bytes:
    # Several workers behind a load balancer must share the key (MCPGEN_REQUEST_STATE_KEY);
    # a single process makes its own, on first use (importing the runtime does nothing).
    return (os.environ.get(KEY_VARIABLE) or secrets.token_hex(32)).encode()


def share_key_with_children() -> None:
    """Before forking workers: one key for all of them (the configured one, or one made here),
    so that a retry may land on any worker. The environment carries it to every child, a
    restarted one included; nothing is written anywhere else."""
    if not os.environ.get(KEY_VARIABLE):
        os.environ[KEY_VARIABLE] = secrets.token_hex(32)
    _key.cache_clear()


def _subject(method: str, params: JSONObject) -> str:
    # What the state is bound to: the request itself (method, target, arguments).
    target = {k: params.get(k) for k in ("name", "uri", "arguments")}
    raw = json.dumps([method, target], sort_keys=True, separators=(",", ":"), default=str).encode()
    return base64.urlsafe_b64encode(hashlib.sha256(raw).digest()).decode().rstrip("=")


def _mac(body: str) -> str:
    return hmac.new(_key(), body.encode(), hashlib.sha256).hexdigest()[:32]


def issue_request_state(method: str, params: JSONObject, answers: JSONObject) -> str:
    """A signed state carrying the answers given so far, for the retry of this very request."""
    payload = {"s": _subject(method, params), "t": int(time.time()), "a": answers}
    raw = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    body = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return f"{body}.{_mac(body)}"


def open_request_state(method: str, params: JSONObject) -> JSONObject:
    """The answers a retry's requestState carries ({} on a first try). A state this server did
    not sign, signed for another request, or expired is refused with -32602."""
    state = params.get("requestState")
    if state is None:
        return {}
    if not isinstance(state, str) or len(state) > _MAX_STATE_CHARS or "." not in state:
        raise _invalid()
    body, mac = state.rsplit(".", 1)
    # compare_digest raises TypeError on non-ASCII text: such a MAC is simply not ours.
    if not state.isascii() or not hmac.compare_digest(mac, _mac(body)):
        raise _invalid()
    try:
        payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, binascii.Error):
        raise _invalid() from None
    if not is_object(payload) or payload.get("s") != _subject(method, params):
        raise _invalid()
    issued = payload.get("t")
    # A minute of leeway: another worker's clock may run slightly ahead of this one's.
    if not isinstance(issued, int) or not -60 <= time.time() - issued <= STATE_TTL_SECONDS:
        raise RpcError(jsonrpc.INVALID_PARAMS, "Expired requestState: start the request again")
    answers = payload.get("a")
    return answers if is_object(answers) else {}


def _invalid() -> RpcError:
    return RpcError(jsonrpc.INVALID_PARAMS, "Invalid requestState")
