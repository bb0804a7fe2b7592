"""The gate of a Markdown template (`*.md.jinja`, `*.txt.jinja`: reference.md, llms.txt,
SKILL.md): every `{{ }}` goes through `md_emit`, which passes what a Markdown emitter made
(`MdText`: the `md_*` filters of docs.py), a number, or a plain string with no character that
opens markup (a code span, a link, raw HTML, an entity, a table cell, a line break), and refuses
anything else at render time. A call of a macro the template defines is left as it is: every
expression inside the macro went through the same gate.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import jinja2
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

from .emitters import RenderRefused

_MARKUP = re.compile(r"[\\`\[\]<>|#&*\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MARKDOWN_TEMPLATE = (".md.jinja", ".txt.jinja")


class MdText(str):
    """Text a Markdown emitter (docs.md_inline, md_block, md_code, md_fence) made safe for its place."""


def md_emit(value: Any) -> Any:
    if isinstance(value, (MdText, jinja2.Undefined)) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, str) and not _MARKUP.search(value):
        return value
    raise RenderRefused(
        f"refusing to print {type(value).__name__} {str(value)[:60]!r} into Markdown: pass it through an md_* filter"
    )


class MarkdownContext(Extension):
    """Appends `| _md_emit` to every expression of a Markdown template but a macro's call."""

    FILTERS = {"_md_emit": md_emit}

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        if not (stream.name or "").endswith(_MARKDOWN_TEMPLATE):
            yield from stream
            return
        macros: set[str] = set()
        tokens = iter(stream)
        previous: Token | None = None
        for token in tokens:
            if previous is not None and previous.test("name:macro") and token.type == "name":
                macros.add(token.value)
            previous = token
            if token.type != "variable_begin":
                yield token
                continue
            inner = []
            for item in tokens:
                if item.type == "variable_end":
                    break
                inner.append(item)
            yield token
            if _is_macro_call(inner, macros):
                yield from inner
            else:
                yield Token(token.lineno, "lparen", "(")
                yield from inner
                yield Token(item.lineno, "rparen", ")")
                yield Token(item.lineno, "pipe", "|")
                yield Token(item.lineno, "name", "_md_emit")
            yield item


def _is_macro_call(tokens: list[Token], macros: set[str]) -> bool:
    """`name(...)` and nothing after the closing parenthesis, `name` a macro of the template."""
    if len(tokens) < 3 or tokens[0].type != "name" or tokens[0].value not in macros or tokens[1].type != "lparen":
        return False
    depth = 0
    for i, token in enumerate(tokens[1:], start=1):
        depth += {"lparen": 1, "rparen": -1}.get(token.type, 0)
        if depth == 0:
            return i == len(tokens) - 1
    return False
