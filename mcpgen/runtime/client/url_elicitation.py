"""URL-mode elicitation (2025-11-25 on): a server sends the user to a URL of its own for what
must not pass through the client (a third-party login, a payment), either by asking
(`elicitation/create` with `mode: "url"`) or by refusing a request with -32042
(URLElicitationRequiredError) that lists the elicitations to complete before a retry.

The client's duties (the spec's "Safe URL Handling"): never fetch or open the URL itself, show
the full URL to the user before consent. So mcpgen only hands each one to the caller's
`on_elicitation` callback, and only when the caller said it handles them
(`url_elicitation=True`, which is also what advertises the mode): a form-only callback never
sees a URL. The URL is untrusted: it must be an absolute http(s) URL of bounded size, so that a
callback that shows or opens it is never handed `javascript:`, `file:` or a megabyte of text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..core import jsonrpc
from ..core.errors import RpcError
from ..core.jsonrpc import JSONObject, is_array, is_object

if TYPE_CHECKING:
    from .options import ConnectOptions

MAX_URL_CHARS = 8192
MAX_MESSAGE_CHARS = 4096
# A -32042 error lists what the user must do; more than this many is refused, not asked.
MAX_ELICITATIONS = 8
ACTIONS = ("accept", "decline", "cancel")


def handles_urls(options: ConnectOptions) -> bool:
    return options.url_elicitation and options.on_elicitation is not None


def url_params(params: JSONObject) -> JSONObject:
    """The URL-mode request's parameters, checked and copied (RpcError -32602 if malformed)."""
    url, message, elicitation_id = params.get("url"), params.get("message"), params.get("elicitationId")
    if not isinstance(url, str) or len(url) > MAX_URL_CHARS:
        raise RpcError(jsonrpc.INVALID_PARAMS, "a URL-mode elicitation needs a url of at most 8192 characters")
    try:
        parts = urlsplit(url)
    except ValueError:  # (a broken IPv6 host, a host NFKC would change)
        parts = None
    if parts is None or parts.scheme.lower() not in ("https", "http") or not parts.netloc or not url.isprintable():
        raise RpcError(jsonrpc.INVALID_PARAMS, "a URL-mode elicitation's url must be an absolute http(s) URL")
    if not isinstance(message, str) or not isinstance(elicitation_id, str) or not elicitation_id:
        raise RpcError(jsonrpc.INVALID_PARAMS, "a URL-mode elicitation needs a message and an elicitationId")
    return {"mode": "url", "url": url, "message": message[:MAX_MESSAGE_CHARS], "elicitationId": elicitation_id[:256]}


async def ask(options: ConnectOptions, params: JSONObject) -> JSONObject:
    """The ElicitResult of a URL-mode elicitation/create: the callback's action, no content
    (what the user does at the URL never passes through the client)."""
    if not handles_urls(options) or options.on_elicitation is None:
        raise RpcError(jsonrpc.INVALID_PARAMS, "this client did not declare URL-mode elicitation")
    result = await options.on_elicitation(url_params(params))
    action = result.get("action") if is_object(result) else None
    if action not in ACTIONS:
        raise RpcError(jsonrpc.INTERNAL_ERROR, "the elicitation callback returned no accept/decline/cancel action")
    return {"action": action}


async def satisfied(options: ConnectOptions, error: RpcError) -> bool:
    """For a -32042 refusal: ask the user about each elicitation it lists; True when every one
    was accepted (the request is then worth one retry). False when this client does not handle
    URLs, or the error lists none, or too many, or a malformed one (the error is then raised)."""
    if error.code != jsonrpc.URL_ELICITATION_REQUIRED or not handles_urls(options):
        return False
    listed = error.data.get("elicitations") if is_object(error.data) else None
    if not is_array(listed) or not 0 < len(listed) <= MAX_ELICITATIONS:
        return False
    if not all(is_object(entry) for entry in listed):
        return False
    try:
        for entry in listed:
            if (await ask(options, entry))["action"] != "accept":
                return False
    except RpcError:
        return False
    return True
