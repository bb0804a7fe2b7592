"""The docstrings of a generated client's typed methods, Google style: what the method does, then
`Args:` (every argument: its type, its description where the schema has one, its default),
`Returns:` and `Raises:`, then the wire name it calls.

The text here is plain; the descriptions in it are untrusted and reach generated source only
through the templates' docstring filter (render/environment.py).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from .icons import icon_lines
from .types import Plan, PromptPlan, ResultShape, StringParam, TemplatePlan, ToolPlan

# What every call raises (the README's list; each is importable from the generated package).
_CALL_RAISES = (
    ("RpcError", "The server answered with a JSON-RPC error (e.g. an unknown tool)."),
    ("RequestTimeout", "No answer within the call's timeout."),
    ("ConnectionClosed", "The connection ended before the answer came."),
)
_TOOL_RAISES = (
    ("InvalidArguments", "An argument does not match inputSchema (nothing was sent)."),
    ("ToolError", "The tool reported an error (`isError: true`); `.result` holds it."),
)
_OUTPUT_RAISES = (("ToolOutputError", "The result does not match outputSchema (validate_output='strict')."),)


# Every error a typed call raises and McpError, their base: each generated package exports them.
CALL_ERRORS = tuple(sorted({name for name, _ in _TOOL_RAISES + _OUTPUT_RAISES + _CALL_RAISES} | {"McpError"}))


def readable(annotation: str) -> str:
    """An annotation as a reader wants it: without client.py's private module prefixes."""
    return annotation.replace("_models.", "").replace("_typing.", "")


# A section's entry wraps at this width (its continuation lines one level deeper, as Google
# style has them), so a method's docstring stays within the formatter's 100 columns.
ENTRY_WIDTH = 84


def _section(title: str, lines: Iterable[str]) -> str:
    body = [
        "\n".join(
            # Words stay whole (a long one overflows its line): the text reads as the schema has it.
            textwrap.wrap(
                line,
                ENTRY_WIDTH,
                initial_indent="    ",
                subsequent_indent="        ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
        for line in lines
    ]
    return f"{title}:\n" + "\n".join(body) if body else ""


def _join(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def _sentence(text: str) -> str:
    return text if not text or text[-1] in ".!?" else text + "."


def _tool_arg(name: str, annotation: str, description: str, required: bool, default: str | None) -> str:
    kind = readable(annotation) + ("" if required else ", optional")
    if required:
        tail = "" if description else "Required."
    elif default is not None:
        tail = f"Left out, the server's default applies: {default}."
    else:
        tail = "Left out of the call when not given."
    return " ".join(x for x in (f"{name} ({kind}):", _sentence(description), tail) if x)


def tool_docstring(t: ToolPlan) -> str:
    args = _section("Args", (_tool_arg(p.python, p.annotation, p.description, p.required, p.default) for p in t.params))
    if t.shape is ResultShape.CONTENT:
        returns = "ToolResult: The tool's content blocks (`.text` joins the text ones)."
    else:
        unwrapped = ' (unwrapped from `{"result": ...}`)' if t.wrapped else ""
        returns = f"{readable(t.client_returns)}: structuredContent{unwrapped}, checked against outputSchema."
    raises = _TOOL_RAISES[int(not t.params) :] + (_OUTPUT_RAISES if t.result_model else ()) + _CALL_RAISES
    return _join(
        t.text,
        _section("Icons", icon_lines(t.spec.raw)),
        args,
        _section("Returns", [returns]),
        _section("Raises", (f"{name}: {why}" for name, why in raises)),
        f"MCP tool: {t.wire!r}",
    )


def _string_args(params: tuple[StringParam, ...]) -> str:
    return _section(
        "Args",
        (
            " ".join(
                x
                for x in (
                    f"{a.python} (str{'' if a.required else ', optional'}):",
                    _sentence(a.description),
                    "" if a.required else "Left out of the request when None.",
                )
                if x
            )
            for a in params
        ),
    )


def _string_method_docstring(text: str, icons: str, params: tuple[StringParam, ...], returns: str, footer: str) -> str:
    """A prompt's or a template's method: string arguments, what it returns, the call errors."""
    return _join(
        text,
        icons,
        _string_args(params),
        _section("Returns", [returns]),
        _section("Raises", (f"{name}: {why}" for name, why in _CALL_RAISES)),
        footer,
    )


def prompt_docstring(p: PromptPlan) -> str:
    returns = "PromptResult: The prompt's messages (and its description, if any)."
    return _string_method_docstring(
        p.text, _section("Icons", icon_lines(p.definition)), p.params, returns, f"MCP prompt: {p.wire!r}"
    )


def template_docstring(t: TemplatePlan) -> str:
    returns = "ResourceContents: What the server read at the expanded URI."
    footer = f"MCP resource template: {t.template!r}"
    return _string_method_docstring(t.text, _section("Icons", icon_lines(t.definition)), t.params, returns, footer)


def client_docstrings(plan: Plan) -> dict[str, str]:
    """Each typed client method's docstring, by method name (tools, prompts and templates)."""
    docs = {t.method: tool_docstring(t) for t in plan.tools}
    docs.update({p.client_method: prompt_docstring(p) for p in plan.prompts})
    docs.update({t.client_method: template_docstring(t) for t in plan.templates})
    return docs
