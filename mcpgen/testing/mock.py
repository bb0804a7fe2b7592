"""A fake MCP server built from a catalog: the source's tools, prompts, resources and templates
advertised verbatim, arguments checked exactly as their schemas say, results drawn from each
tool's outputSchema (deterministic under a seed) unless an override scripts something else.

`mock_server(catalog)` returns a `runtime.server.Server`, so it serves over stdio, Streamable
HTTP or in memory (`AsyncClient.connect_memory(mock_server(...))`) like any generated server.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
from dataclasses import dataclass
from typing import Any

from ..catalog.instances import InstanceGenerator, Unsatisfiable
from ..catalog.model import Catalog, ToolSpec
from ..runtime.core.errors import RpcError
from ..runtime.core.validation import compile_validator
from ..runtime.server.features import template_pattern
from ..runtime.server.server import RequestContext, Server, error_result
from .overrides import Behaviour, Overrides

log = logging.getLogger("mcpgen.testing.mock")

# The exit status of a scripted crash (EX_SOFTWARE), so a test can tell it from a real failure.
CRASH_STATUS = 70


@dataclass(frozen=True)
class MockOptions:
    """seed: the same seed and the same calls give the same results. in_process: a scripted
    crash ends the connection instead of the whole process (the process is the test runner)."""

    seed: int = 0
    overrides: Overrides | None = None
    in_process: bool = True


def mock_server(catalog: Catalog, options: MockOptions | None = None) -> Server:
    opts = options or MockOptions()
    info = catalog.server_info or {}
    server = Server(
        str(info.get("name") or "mcpgen-mock"),
        str(info.get("version") or "0"),
        title=info.get("title") if isinstance(info.get("title"), str) else None,
        instructions=catalog.instructions,
    )
    overrides = opts.overrides or Overrides()
    for tool in catalog.tools:
        server.add_tool(tool.raw, _ToolMock(tool, opts, overrides))
    for prompt in catalog.prompts:
        server.add_prompt(prompt, _prompt(prompt))
    for resource in catalog.resources:
        server.add_resource(resource, _resource(resource))
    for template in catalog.resource_templates:
        if template_pattern(str(template.get("uriTemplate", ""))) is None:
            log.warning("resource template %r is not served (level-1 templates only)", template.get("uriTemplate"))
            continue
        server.add_resource_template(template, _template(template))
    return server


class _ToolMock:
    """One tool: check the arguments, follow the override, else draw a valid result."""

    def __init__(self, tool: ToolSpec, options: MockOptions, overrides: Overrides) -> None:
        self.tool = tool
        self.options = options
        self.overrides = overrides
        self.check = compile_validator(tool.input_schema)
        self.results = (
            InstanceGenerator(tool.output_schema, seed=f"{options.seed}/{tool.name}")
            if tool.output_schema is not None
            else None
        )

    async def __call__(self, arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        problem = self.check(arguments)
        if problem is not None:
            return error_result(f"Invalid arguments at {problem}")
        behaviour = self.overrides.next(self.tool.name)
        if behaviour.latency:
            await asyncio.sleep(behaviour.latency)
        if behaviour.fault is not None:
            await self._fault(behaviour.fault, ctx)
        if behaviour.rpc_error is not None:
            code, message, data = behaviour.rpc_error
            raise RpcError(code, message, data)
        if behaviour.error is not None:
            return error_result(behaviour.error)
        return self._result(behaviour)

    async def _fault(self, fault: str, ctx: RequestContext) -> None:
        if fault == "crash" and not self.options.in_process:
            log.error("scripted crash in tool %r", self.tool.name)
            os._exit(CRASH_STATUS)
        if fault in ("drop", "crash"):
            await ctx.drop_connection()
        # hang, and what is left of a dropped request: wait until cancelled.
        await asyncio.Event().wait()

    def _result(self, behaviour: Behaviour) -> dict[str, Any]:
        if behaviour.has_structured:
            structured = behaviour.structured
        elif self.results is not None and behaviour.content is None:
            try:
                structured = self.results.valid()
            except Unsatisfiable as exc:
                return error_result(f"mcpgen mock: cannot draw a result for {self.tool.name!r}: {exc}")
        else:
            structured = None
        if behaviour.content is not None:
            content = [dict(block) for block in behaviour.content]
        elif structured is not None:
            content = [{"type": "text", "text": json.dumps(structured, ensure_ascii=False)}]
        else:
            content = [{"type": "text", "text": f"mock result of {self.tool.name}"}]
        result: dict[str, Any] = {"content": content, "isError": False}
        if structured is not None:
            result["structuredContent"] = structured
        return result


def _prompt(definition: dict[str, Any]) -> Any:
    name = str(definition.get("name"))

    async def get(arguments: dict[str, str], ctx: RequestContext) -> dict[str, Any]:
        given = ", ".join(f"{k}={v}" for k, v in sorted(arguments.items()))
        text = f"mock prompt {name}" + (f" ({given})" if given else "")
        return {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}

    return get


def _contents(uri: str, mime: Any) -> dict[str, Any]:
    mime_type = mime if isinstance(mime, str) else "text/plain"
    if mime_type.startswith("text/") or mime_type.endswith(("json", "xml", "yaml")):
        text = "{}" if mime_type.endswith("json") else f"mock contents of {uri}"
        return {"contents": [{"uri": uri, "mimeType": mime_type, "text": text}]}
    blob = base64.b64encode(f"mock contents of {uri}".encode()).decode()
    return {"contents": [{"uri": uri, "mimeType": mime_type, "blob": blob}]}


def _resource(definition: dict[str, Any]) -> Any:
    async def read(uri: str, ctx: RequestContext) -> dict[str, Any]:
        return _contents(uri, definition.get("mimeType"))

    return read


def _template(definition: dict[str, Any]) -> Any:
    async def read(uri: str, variables: dict[str, str], ctx: RequestContext) -> dict[str, Any]:
        return _contents(uri, definition.get("mimeType"))

    return read


__all__ = ["CRASH_STATUS", "MockOptions", "mock_server"]
