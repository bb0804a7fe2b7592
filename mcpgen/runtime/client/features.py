"""Prompts, resources and completion: typed results and the methods every generated client mixes in."""

from __future__ import annotations

import base64
import re
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, Union
from urllib.parse import quote

from ..core.jsonrpc import is_array, is_object
from ..core.results import ContentBlock, TextContent, parse_block, str_or_empty, str_or_none

if TYPE_CHECKING:
    import asyncio

    from .apps import AppUi
    from .options import CallOptions
    from .session import ClientSession
    from .subscriptions import Subscription

_T = TypeVar("_T")


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if is_object(v)] if is_array(value) else []


@dataclass
class PromptArgument:
    name: str
    description: str | None = None
    required: bool = False


@dataclass
class Prompt:
    """One entry of prompts/list."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list[PromptArgument])
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Prompt:
        args = [
            PromptArgument(str_or_empty(a.get("name")), str_or_none(a.get("description")), a.get("required") is True)
            for a in _dicts(raw.get("arguments"))
        ]
        return cls(
            str_or_empty(raw.get("name")), str_or_none(raw.get("title")), str_or_none(raw.get("description")), args, raw
        )


@dataclass
class PromptMessage:
    role: str  # "user" or "assistant"
    content: ContentBlock
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)


@dataclass
class PromptResult:
    """What prompts/get returns: messages with typed content blocks."""

    messages: list[PromptMessage]
    description: str | None = None
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @property
    def text(self) -> str:
        """The text blocks of all messages joined by newlines."""
        return "\n".join(m.content.text for m in self.messages if isinstance(m.content, TextContent))

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> PromptResult:
        messages = [
            PromptMessage(str_or_empty(m.get("role")), parse_block(m.get("content")), m)
            for m in _dicts(raw.get("messages"))
        ]
        return cls(messages, str_or_none(raw.get("description")), raw)


@dataclass
class Resource:
    """One entry of resources/list."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Resource:
        return cls(
            str_or_empty(raw.get("uri")),
            str_or_empty(raw.get("name")),
            str_or_none(raw.get("title")),
            str_or_none(raw.get("description")),
            str_or_none(raw.get("mimeType")),
            raw,
        )


@dataclass
class ResourceTemplate:
    """One entry of resources/templates/list."""

    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> ResourceTemplate:
        return cls(
            str_or_empty(raw.get("uriTemplate")),
            str_or_empty(raw.get("name")),
            str_or_none(raw.get("title")),
            str_or_none(raw.get("description")),
            str_or_none(raw.get("mimeType")),
            raw,
        )


@dataclass
class TextResourceContents:
    uri: str
    text: str
    mime_type: str | None = None
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)


@dataclass
class BlobResourceContents:
    uri: str
    blob: str  # base64, as sent
    mime_type: str | None = None
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @property
    def data(self) -> bytes:
        """The decoded bytes (ValueError if the server sent invalid base64)."""
        return base64.b64decode(self.blob, validate=True)


ResourceContent = Union[TextResourceContents, BlobResourceContents]


@dataclass
class ResourceContents:
    """What resources/read returns: text and/or blob contents."""

    contents: list[ResourceContent]
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @property
    def text(self) -> str:
        """The text contents joined by newlines."""
        return "\n".join(c.text for c in self.contents if isinstance(c, TextResourceContents))

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> ResourceContents:
        out: list[ResourceContent] = []
        for c in _dicts(raw.get("contents")):
            if isinstance(c.get("blob"), str):
                out.append(
                    BlobResourceContents(str_or_empty(c.get("uri")), c["blob"], str_or_none(c.get("mimeType")), c)
                )
            else:
                out.append(
                    TextResourceContents(
                        str_or_empty(c.get("uri")), str_or_empty(c.get("text")), str_or_none(c.get("mimeType")), c
                    )
                )
        return cls(out, raw)


@dataclass
class Completion:
    """What completion/complete returns."""

    values: list[str]
    total: int | None = None
    has_more: bool = False
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Completion:
        c = raw.get("completion")
        c = c if is_object(c) else {}
        listed: list[Any] = c.get("values") or []
        values = [v for v in listed if isinstance(v, str)]
        total = c.get("total")
        return cls(values, total if isinstance(total, int) else None, c.get("hasMore") is True, raw)


# A level-1 `{var}`; a plain string keeps module import free of calls (re caches the compiled form).
_VARIABLE = r"\{([A-Za-z0-9_]+)\}"


def expand_uri_template(template: str, values: Mapping[str, str]) -> str:
    """RFC 6570 level-1 expansion: every value percent-encoded (only A-Z a-z 0-9 - . _ ~ stay),
    so a value can never add a path segment, a query or a fragment."""

    def one(match: re.Match[str]) -> str:
        value = values[match.group(1)]
        if value in (".", ".."):
            # unreserved, so not encoded, yet a dot segment would move the path when normalised
            raise ValueError(f"{match.group(1)}={value!r} is not allowed in a URI template")
        return quote(value, safe="")

    return re.sub(_VARIABLE, one, template)


class ResourceUpdates:
    """`async for uri in updates`: the uri of each notifications/resources/updated.

    Listening starts when `resource_updates()` is called (so nothing sent right after a
    subscribe is missed) and stops at `aclose()` or the end of `async with`.
    """

    def __init__(self, session: ClientSession) -> None:
        self._session = session
        self._queue: asyncio.Queue[str] = session.listen_resource_updates()

    def __aiter__(self) -> ResourceUpdates:
        return self

    async def __anext__(self) -> str:
        return await self._queue.get()

    async def aclose(self) -> None:
        self._session.stop_listening(self._queue)

    async def __aenter__(self) -> ResourceUpdates:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class SyncResourceUpdates:
    """`for uri in updates`: the sync Client's ResourceUpdates (blocks until the next update)."""

    def __init__(self, inner: ResourceUpdates, runner: _Runner) -> None:
        self._inner = inner
        self._runner = runner

    def __iter__(self) -> SyncResourceUpdates:
        return self

    def __next__(self) -> str:
        return self._runner.run(self._inner.__anext__())

    def next(self, timeout: float | None = None) -> str:
        """The next updated uri; TimeoutError after `timeout` seconds."""
        import asyncio

        return self._runner.run(asyncio.wait_for(self._inner.__anext__(), timeout))

    def close(self) -> None:
        self._runner.run(self._inner.aclose())

    def __enter__(self) -> SyncResourceUpdates:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncFeatures:
    """Prompts, resources and completion for AsyncClient."""

    _session: ClientSession
    _per_call: CallOptions

    async def list_prompts(self) -> list[Prompt]:
        """Every prompt the server offers (all pages)."""
        return [Prompt.from_raw(p) for p in await self._session.list_prompts() if is_object(p)]

    async def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None) -> PromptResult:
        """Untyped escape hatch: any prompt by wire name."""
        return PromptResult.from_raw(await self._session.get_prompt(name, arguments, timeout=self._per_call.timeout))

    async def list_resources(self) -> list[Resource]:
        """Every resource the server lists (all pages)."""
        return [Resource.from_raw(r) for r in await self._session.list_resources() if is_object(r)]

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """Every resource template the server lists (all pages)."""
        return [ResourceTemplate.from_raw(t) for t in await self._session.list_resource_templates() if is_object(t)]

    async def read_resource(self, uri: str) -> ResourceContents:
        """Read any resource by URI."""
        return ResourceContents.from_raw(await self._session.read_resource(uri, timeout=self._per_call.timeout))

    async def tool_ui(self, name: str) -> AppUi | None:
        """The MCP Apps UI of the tool with wire name `name` (its ui:// HTML and `_meta.ui`, for
        a host to render sandboxed); None for a tool without one."""
        return await self._session.tool_ui(name)

    async def complete(
        self, ref: Mapping[str, Any], argument: Mapping[str, str], context: Mapping[str, Any] | None = None
    ) -> Completion:
        """completion/complete: `ref` is {"type": "ref/prompt", "name": ...} or
        {"type": "ref/resource", "uri": ...}; `argument` is {"name": ..., "value": ...}."""
        raw = await self._session.complete(dict(ref), dict(argument), dict(context) if context is not None else None)
        return Completion.from_raw(raw)

    async def subscribe_resource(self, uri: str) -> None:
        """Updates of `uri` arrive through `resource_updates()`, in either era (resources/subscribe
        up to 2025-11-25, a subscriptions/listen stream in 2026-07-28)."""
        await self._session.subscribe_resource(uri)

    async def unsubscribe_resource(self, uri: str) -> None:
        await self._session.unsubscribe_resource(uri)

    def resource_updates(self) -> ResourceUpdates:
        """Start listening for notifications/resources/updated (call before subscribing)."""
        return ResourceUpdates(self._session)

    async def listen(
        self,
        *,
        tools_list_changed: bool = False,
        prompts_list_changed: bool = False,
        resources_list_changed: bool = False,
        resource_uris: Sequence[str] = (),
    ) -> Subscription:
        """subscriptions/listen (2026-07-28): `async with await client.listen(...) as changes:`
        then `async for event in changes` (event.kind, event.uri)."""
        return await self._session.listen(
            tools_list_changed=tools_list_changed,
            prompts_list_changed=prompts_list_changed,
            resources_list_changed=resources_list_changed,
            resource_uris=resource_uris,
        )


async def _open_updates(features: AsyncFeatures) -> ResourceUpdates:
    # The sync twin registers the queue on the loop thread, where notifications arrive.
    return features.resource_updates()


class _Runner(Protocol):
    def run(self, coro: Coroutine[Any, Any, _T]) -> _T: ...


class _SyncHost(Protocol):
    """What the sync Client gives the mixin: the async client and the loop that runs it
    (SyncClientBase's `mcpgen_` members, names no tool method can take: plan/naming.py)."""

    @property
    def mcpgen_inner(self) -> AsyncFeatures: ...

    @property
    def mcpgen_runner(self) -> _Runner: ...


class SyncFeatures:
    """The same methods for the sync Client (each runs on the client's loop thread)."""

    def list_prompts(self: _SyncHost) -> list[Prompt]:
        return self.mcpgen_runner.run(self.mcpgen_inner.list_prompts())

    def get_prompt(self: _SyncHost, name: str, arguments: Mapping[str, str] | None = None) -> PromptResult:
        return self.mcpgen_runner.run(self.mcpgen_inner.get_prompt(name, arguments))

    def list_resources(self: _SyncHost) -> list[Resource]:
        return self.mcpgen_runner.run(self.mcpgen_inner.list_resources())

    def list_resource_templates(self: _SyncHost) -> list[ResourceTemplate]:
        return self.mcpgen_runner.run(self.mcpgen_inner.list_resource_templates())

    def read_resource(self: _SyncHost, uri: str) -> ResourceContents:
        return self.mcpgen_runner.run(self.mcpgen_inner.read_resource(uri))

    def tool_ui(self: _SyncHost, name: str) -> AppUi | None:
        return self.mcpgen_runner.run(self.mcpgen_inner.tool_ui(name))

    def complete(
        self: _SyncHost,
        ref: Mapping[str, Any],
        argument: Mapping[str, str],
        context: Mapping[str, Any] | None = None,
    ) -> Completion:
        return self.mcpgen_runner.run(self.mcpgen_inner.complete(ref, argument, context))

    def subscribe_resource(self: _SyncHost, uri: str) -> None:
        self.mcpgen_runner.run(self.mcpgen_inner.subscribe_resource(uri))

    def unsubscribe_resource(self: _SyncHost, uri: str) -> None:
        self.mcpgen_runner.run(self.mcpgen_inner.unsubscribe_resource(uri))

    def resource_updates(self: _SyncHost) -> SyncResourceUpdates:
        return SyncResourceUpdates(self.mcpgen_runner.run(_open_updates(self.mcpgen_inner)), self.mcpgen_runner)
