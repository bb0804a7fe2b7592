"""What a handler learns about the caller of a protected server, and how a tool asks for scopes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

# The attribute `requires_scopes` puts on a handler; bind_handlers reads it into the Server.
SCOPES_ATTRIBUTE = "__mcpgen_required_scopes__"


@dataclass(frozen=True)
class AuthInfo:
    """The verified access token of the request a handler serves (`ctx.auth`).

    Every field comes from a token whose signature, issuer, audience and lifetime were checked
    (or from the authorization server's introspection answer); `claims` holds all of them.
    """

    subject: str | None
    client_id: str | None
    scopes: frozenset[str]
    issuer: str
    audience: tuple[str, ...]
    expires_at: int | None
    claims: Mapping[str, Any] = field(default_factory=dict[str, Any], repr=False)

    def has_scopes(self, *scopes: str) -> bool:
        return set(scopes) <= self.scopes


# Set by the resource-server middleware around each HTTP request; the task that serves a request
# is created inside it and so carries the value, even on a long-lived session.
current_auth: ContextVar[AuthInfo | None] = ContextVar("mcpgen_current_auth", default=None)


def requires_scopes(*scopes: str) -> Callable[[F], F]:
    """Declare the OAuth scopes a tool handler needs (on top of the server-wide ones):

        @requires_scopes("files:write")
        async def delete_file(self, args: models.DeleteFileArgs, ctx: Context) -> ToolOutput: ...

    A protected HTTP server answers a call without them with 403 `insufficient_scope` before
    the handler runs. Without auth (stdio, or HTTP with auth off) it has no effect.
    """
    for scope in scopes:
        if not is_scope_token(scope):
            raise ValueError(f"not an OAuth scope: {scope!r}")

    def mark(handler: F) -> F:
        setattr(handler, SCOPES_ATTRIBUTE, frozenset(scopes))
        return handler

    return mark


def is_scope_token(text: str) -> bool:
    """RFC 6749 section 3.3: printable ASCII without space, quote or backslash (so it can also sit
    inside a WWW-Authenticate quoted string as is)."""
    return bool(text) and all("!" <= ch <= "~" and ch not in '"\\' for ch in text)


def scopes_of(handler: object) -> frozenset[str]:
    """The scopes `requires_scopes` declared on a handler (a function or a bound method)."""
    declared: object = getattr(handler, SCOPES_ATTRIBUTE, None)
    if not isinstance(declared, frozenset):
        return frozenset()
    members = cast("frozenset[object]", declared)  # (checked just above; only its strings count)
    return frozenset(s for s in members if isinstance(s, str))
