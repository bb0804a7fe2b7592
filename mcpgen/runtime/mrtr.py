"""Stateless-era input (2026-07-28 "MRTR"): a handler that needs the client's input gets it
through an `input_required` result and a retry of the same request, not a server request.

`RequestContext.request_elicitation` (and sampling, roots) raises `InputRequired` when the
answer is not in the request's `inputResponses` yet; the server turns that into the result.
The `requestState` it hands out is signed, so a client cannot forge or alter it.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import os
import secrets

from . import jsonrpc
from .errors import RpcError
from .jsonrpc import JSONObject

@functools.lru_cache(maxsize=1)
def _key() -> bytes:
    # Several workers behind a load balancer must share the key (MCPGEN_REQUEST_STATE_KEY);
    # a single process makes its own, on first use (importing the runtime does nothing).
    return (os.environ.get("MCPGEN_REQUEST_STATE_KEY") or secrets.token_hex(32)).encode()


class InputRequired(BaseException):
    """Raised inside a handler to ask the client for input; BaseException so that a handler's
    own `except Exception` cannot swallow it (like asyncio.CancelledError)."""

    def __init__(self, requests: JSONObject) -> None:
        super().__init__(", ".join(requests))
        self.requests = requests


def _subject(method: str, params: JSONObject) -> bytes:
    # What the state is bound to: the request itself (method, target, arguments).
    target = {k: params.get(k) for k in ("name", "uri", "arguments")}
    return json.dumps([method, target], sort_keys=True, separators=(",", ":"), default=str).encode()


def sign_request_state(method: str, params: JSONObject) -> str:
    body = base64.urlsafe_b64encode(hashlib.sha256(_subject(method, params)).digest()).decode().rstrip("=")
    mac = hmac.new(_key(), body.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{body}.{mac}"


def check_request_state(method: str, params: JSONObject) -> None:
    """A retry's requestState must be one this server signed for this same request."""
    state = params.get("requestState")
    if state is None:
        return
    if not isinstance(state, str) or not hmac.compare_digest(state, sign_request_state(method, params)):
        raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid requestState")
