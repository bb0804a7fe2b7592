"""Prompts, resources, resource templates and completion, served from registered handlers.

`Server` owns one `Features` table; the methods here answer prompts/*, resources/*
and completion/complete the same way in both eras (only the not-found code differs).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from ..core import jsonrpc
from ..core.errors import RpcError
from ..core.jsonrpc import JSONObject, is_object
from ..core.protocol import ERA_MODERN, is_app_mime_type

if TYPE_CHECKING:
    from .context import RequestContext

PromptHandler = Callable[[dict[str, str], "RequestContext"], Awaitable[JSONObject]]
ResourceHandler = Callable[[str, "RequestContext"], Awaitable[JSONObject]]
TemplateHandler = Callable[[str, dict[str, str], "RequestContext"], Awaitable[JSONObject]]
CompletionHandler = Callable[[JSONObject, "RequestContext"], Awaitable[list[str]]]
SubscribeHandler = Callable[[str, bool, "RequestContext"], Awaitable[None]]

_VARIABLE = re.compile(r"\{([A-Za-z0-9_]+)\}")


def template_pattern(uri_template: str) -> re.Pattern[str] | None:
    """A matcher for an RFC 6570 level-1 template (`{var}` only); None for anything richer."""
    literals = _VARIABLE.split(uri_template)[::2]
    if any("{" in text or "}" in text for text in literals):
        return None  # operators such as {+path} or {?q}: not level 1
    parts: list[str] = []
    for i, piece in enumerate(_VARIABLE.split(uri_template)):
        # split() alternates literal text and variable names.
        parts.append(re.escape(piece) if i % 2 == 0 else f"(?P<{piece}>[^/?#]+)")
    try:
        return re.compile("".join(parts) + r"\Z")
    except re.error:  # a variable named twice
        return None


@dataclass
class _Template:
    definition: JSONObject
    pattern: re.Pattern[str]
    handler: TemplateHandler


@dataclass
class Features:
    prompts: dict[str, tuple[JSONObject, PromptHandler]] = field(
        default_factory=dict[str, tuple[JSONObject, PromptHandler]]
    )
    resources: dict[str, tuple[JSONObject, ResourceHandler]] = field(
        default_factory=dict[str, tuple[JSONObject, ResourceHandler]]
    )
    templates: list[_Template] = field(default_factory=list[_Template])
    completion: CompletionHandler | None = None
    subscribe: SubscribeHandler | None = None

    # -- registration --------------------------------------------------------------

    def add_prompt(self, definition: JSONObject, handler: PromptHandler) -> None:
        self.prompts[str(definition["name"])] = (definition, handler)

    def add_resource(self, definition: JSONObject, handler: ResourceHandler) -> None:
        self.resources[str(definition["uri"])] = (definition, handler)

    def serves_app_ui(self) -> bool:
        """Whether one of the resources is an MCP Apps page: a ui:// URI of the Apps MIME type
        (the server then declares the extension, Server.capabilities)."""
        return any(
            uri.startswith("ui://") and is_app_mime_type(definition.get("mimeType"))
            for uri, (definition, _) in self.resources.items()
        )

    def add_template(self, definition: JSONObject, handler: TemplateHandler) -> None:
        pattern = template_pattern(str(definition.get("uriTemplate", "")))
        if pattern is None:
            raise ValueError(f"unsupported URI template {definition.get('uriTemplate')!r} (level 1 only)")
        self.templates.append(_Template(definition, pattern, handler))

    def capabilities(self) -> JSONObject:
        caps: JSONObject = {}
        if self.prompts:
            caps["prompts"] = {"listChanged": True}
        if self.resources or self.templates:
            caps["resources"] = {"listChanged": True, "subscribe": self.subscribe is not None}
        if self.completion is not None:
            caps["completions"] = {}
        return caps

    def methods(self) -> dict[str, Callable[[JSONObject, RequestContext], Awaitable[Any]]]:
        """The request methods this table answers (only those with something to serve)."""
        table: dict[str, Callable[[JSONObject, RequestContext], Awaitable[Any]]] = {}
        if self.prompts:
            table["prompts/list"] = self._list_prompts
            table["prompts/get"] = self._get_prompt
        if self.resources or self.templates:
            table["resources/list"] = self._list_resources
            table["resources/templates/list"] = self._list_templates
            table["resources/read"] = self._read
            if self.subscribe is not None:
                table["resources/subscribe"] = self._subscribe
                table["resources/unsubscribe"] = self._unsubscribe
        if self.completion is not None:
            table["completion/complete"] = self._complete
        return table

    # -- methods ---------------------------------------------------------------------

    async def _list_prompts(self, params: JSONObject, ctx: RequestContext) -> JSONObject:
        return {"prompts": [definition for definition, _ in self.prompts.values()]}

    async def _get_prompt(self, params: JSONObject, ctx: RequestContext) -> JSONObject:
        name = params.get("name")
        entry = self.prompts.get(name) if isinstance(name, str) else None
        if entry is None:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown prompt: {name}")
        definition, handler = entry
        arguments: object = params.get("arguments") or {}
        if not is_object(arguments) or not all(isinstance(v, str) for v in arguments.values()):
            raise RpcError(jsonrpc.INVALID_PARAMS, "Prompt arguments must be an object of strings")
        declared: list[JSONObject] = definition.get("arguments") or []
        missing = [a["name"] for a in declared if a.get("required") and a.get("name") not in arguments]
        if missing:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Missing required prompt arguments: {', '.join(missing)}")
        return await handler(arguments, ctx)

    async def _list_resources(self, params: JSONObject, ctx: RequestContext) -> JSONObject:
        return {"resources": [definition for definition, _ in self.resources.values()]}

    async def _list_templates(self, params: JSONObject, ctx: RequestContext) -> JSONObject:
        return {"resourceTemplates": [t.definition for t in self.templates]}

    async def _read(self, params: JSONObject, ctx: RequestContext) -> JSONObject:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise RpcError(jsonrpc.INVALID_PARAMS, "resources/read needs a string uri")
        entry = self.resources.get(uri)
        if entry is not None:
            return await entry[1](uri, ctx)
        for template in self.templates:
            match = template.pattern.match(uri)
            if match is not None:
                values = {k: unquote(v) for k, v in match.groupdict().items()}
                return await template.handler(uri, values, ctx)
        raise not_found(uri, ctx)

    async def _subscribe(self, params: JSONObject, ctx: RequestContext) -> JSONObject:
        return await self._set_subscription(params, True, ctx)

    async def _unsubscribe(self, params: JSONObject, ctx: RequestContext) -> JSONObject:
        return await self._set_subscription(params, False, ctx)

    async def _set_subscription(self, params: JSONObject, on: bool, ctx: RequestContext) -> JSONObject:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise RpcError(jsonrpc.INVALID_PARAMS, "a subscription needs a string uri")
        assert self.subscribe is not None
        await self.subscribe(uri, on, ctx)
        return {}

    async def _complete(self, params: JSONObject, ctx: RequestContext) -> JSONObject:
        assert self.completion is not None
        values = [str(v) for v in await self.completion(params, ctx)]
        # At most 100 values per response; say how many there were.
        return {"completion": {"values": values[:100], "total": len(values), "hasMore": len(values) > 100}}


def not_found(uri: str, ctx: RequestContext) -> RpcError:
    # -32002 until 2025-11-25; the stateless era uses -32602 (clients accept both).
    code = jsonrpc.INVALID_PARAMS if ctx.era == ERA_MODERN else jsonrpc.RESOURCE_NOT_FOUND
    return RpcError(code, f"Resource not found: {uri}", {"uri": uri})
