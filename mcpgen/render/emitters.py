"""The one gate between untrusted text and generated files (docs/threat-model.md, "Untrusted text").

A value reaches a generated `.py` file only as `PyCode`: the output of an emitter here (`pyrepr`
for a literal, `docstring` for a whole docstring, `py_in_string`/`py_in_comment` for text inside
a template's own string or comment), a block the renderer built itself (imports, model sources,
stubs: `code()`), an identifier, or a type expression (names, attributes, subscripts, `|`,
constants; never a call). Which emitter applies is decided by where the `{{ }}` stands in the
template, not by the template's author: `PythonContext` (in environment.py) reads each `.py`
template's text as Python, and appends the emitter of the context it finds to every expression
(`py_in_string` inside a string literal, `py_in_comment` inside a comment, `py_code` in code).
`py_code` refuses anything else, so a forgotten filter is a render-time error, not a hole.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from typing import Any

import jinja2


class PyCode(str):
    """Text that an emitter made safe for the place of a Python file it is rendered into."""


class RenderRefused(ValueError):
    """A template asked to print a value no emitter made safe for its context."""


def code(text: str) -> PyCode:
    """A block of Python the generator itself built (import lines, model sources, a rendered stub)."""
    return PyCode(text)


def pyrepr(value: Any) -> PyCode:
    """A Python literal for JSON-like data; refuses anything repr() would not round-trip."""
    return PyCode(_literal(value))


def _literal(value: Any) -> str:
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return repr(value)
        return f"float({repr(str(value))})"
    if isinstance(value, str):
        return repr(value)  # escapes every non-printable character, U+2028/U+2029/U+0085 included
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_literal(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"pyrepr: unsupported type {type(value).__name__}")


# The characters that must not stand raw in a Python string or comment: controls (NUL makes the
# file unparsable, CR and the others end or bend a line), line separators, BOM, surrogates.
_UNSAFE = "\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff"


def _escape(ch: str) -> str:
    return f"\\u{ord(ch):04x}" if ord(ch) > 0xFF else f"\\x{ord(ch):02x}"


@functools.cache
def _special(table_keys: str) -> re.Pattern[str]:
    """One character of `table_keys` or of _UNSAFE (the texts of a big catalog are mostly plain:
    one regex pass over each instead of a test per character)."""
    return re.compile("[" + re.escape(table_keys) + _UNSAFE + "]")


def _escaped(text: str, table: dict[str, str]) -> str:
    """`text` with the characters of `table` replaced by their entry and every other unsafe
    character by its escape sequence."""

    def replace(found: re.Match[str]) -> str:
        ch = found[0]
        return table[ch] if ch in table else _escape(ch)

    return _special("".join(sorted(table))).sub(replace, text)


def py_in_string(value: Any, quote: str = "'") -> PyCode:
    """Any value as text inside a string literal of a template delimited by `quote` (one or
    three of the same quote character): the backslash, that quote character and every unsafe
    character escaped; a line break kept raw only in a triple-quoted literal."""
    table = {"\\": "\\\\", quote[0]: "\\" + quote[0], "\n": "\n" if len(quote) == 3 else "\\n", "\t": "\\t"}
    return PyCode(_escaped(str(value), table))


def py_in_comment(value: Any) -> PyCode:
    """Any value as text inside a `#` comment: one line, every unsafe character escaped."""
    return PyCode(_escaped(str(value), {"\n": " ", "\\": "\\x5c"}))


_DOC_ESCAPES = {"\\": "\\\\", '"': '\\"', "\r": "\\r", "\t": "    ", "\n": "\n"}


def docstring(text: str | None, indent: str = "") -> PyCode:
    """A complete triple-quoted docstring literal; every char that could end or bend it is escaped."""
    body = _escaped((text or "").strip(), _DOC_ESCAPES)
    lines = [ln.rstrip() for ln in body.split("\n")]
    body = ("\n" + indent).join(lines).replace("\n" + indent + "\n", "\n\n")
    return PyCode(f'"""{body}"""' if "\n" not in body else f'"""{body}\n{indent}"""')


_DOTTED = re.compile(r"\.*[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
# What a type expression made by the models stage (ast.unparse of DCG's annotations) may hold.
_TYPE_NODES = (ast.Expression, ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Load)


def _type_expression(text: str) -> bool:
    if "\n" in text or "\r" in text:
        return False
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            continue
        if isinstance(node, ast.BitOr):
            continue
        # A negative number in a Literal (`Literal[-2]`): a minus sign on a numeric constant only.
        if isinstance(node, ast.USub) or (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in (int, float)
        ):
            continue
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (str, int, float))):
            continue
        if not isinstance(node, _TYPE_NODES):
            return False
    return True


def py_code(value: Any) -> PyCode:
    """A value printed in code context: only what cannot change the file's shape passes."""
    if isinstance(value, PyCode):
        return value
    if isinstance(value, jinja2.Undefined):
        return PyCode(str(value))  # an inline `if` without `else` ("" when false); strict ones raise
    if isinstance(value, bool) or isinstance(value, int):
        return PyCode(repr(value))
    if isinstance(value, str) and (value == "" or _DOTTED.fullmatch(value) or _type_expression(value)):
        return PyCode(value)
    raise RenderRefused(
        f"refusing to print {type(value).__name__} {str(value)[:60]!r} as Python code:"
        " pass it through an emitter (pyrepr, docstring) or build it as code in mcpgen/render/"
    )
