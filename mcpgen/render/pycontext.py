"""Which emitter a `{{ }}` of a `.py` template gets, decided by where it stands in the file.

`PythonContext` reads the literal text of each `.py` template as Python (code, a `#` comment,
or a string literal and its kind) and wraps every expression in the emitter of that context:
`py_code` in code (which refuses a plain string that is not an identifier or a type
expression), `py_in_string` (told the literal's quote) inside a string literal, `py_in_comment`
inside a comment. An expression inside an f-string, a raw or a bytes literal has no safe
emitter and fails the template's compilation. The template's author chooses nothing here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from jinja2 import TemplateSyntaxError
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

from . import emitters

CODE, COMMENT, STRING = "code", "comment", "string"
_PREFIX_CHARS = frozenset("rRbBfFuU")


@dataclass
class _Lexer:
    """Just enough of Python's tokenizer to know, at any point, if we are in code, a comment
    or a string (with its quote, whether triple, and its prefix)."""

    state: str = CODE
    quote: str = ""
    prefix: str = ""
    tail: str = ""  # the last code characters, for a string's prefix

    def feed(self, text: str) -> None:
        i = 0
        while i < len(text):
            ch = text[i]
            if self.state == CODE:
                if ch == "#":
                    self.state = COMMENT
                elif ch in "'\"":
                    self.quote = ch * 3 if text.startswith(ch * 3, i) else ch
                    self.prefix = self._prefix()
                    self.state = STRING
                    i += len(self.quote)
                    continue
                self.tail = (self.tail + ch)[-4:]
            elif self.state == COMMENT:
                if ch in "\r\n":
                    self.state, self.tail = CODE, ""
            elif ch == "\\":
                i += 2
                continue
            elif text.startswith(self.quote, i):
                self.state, self.tail = CODE, ""
                i += len(self.quote)
                continue
            elif ch == "\n" and len(self.quote) == 1:
                self.state, self.tail = CODE, ""
            i += 1

    def _prefix(self) -> str:
        letters = ""
        for ch in reversed(self.tail):
            if ch not in _PREFIX_CHARS:
                if ch.isalnum() or ch == "_":
                    return ""  # the end of a name, not a prefix
                break
            letters = ch + letters
        return letters.lower()

    def emitter(self) -> tuple[str, str | None] | None:
        """The filter for an expression here and its argument, or None: no safe emitter."""
        if self.state == CODE:
            return "_py_code", None
        if self.state == COMMENT:
            return "_py_in_comment", None
        if set(self.prefix) & set("rbf"):
            return None
        return "_py_in_string", self.quote


class PythonContext(Extension):
    """Wraps every expression of a `.py` template in its context's emitter (see the module doc)."""

    FILTERS = {
        "_py_code": emitters.py_code,
        "_py_in_string": emitters.py_in_string,
        "_py_in_comment": emitters.py_in_comment,
    }

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        if not (stream.name or "").endswith(".py.jinja"):
            yield from stream
            return
        lexer = _Lexer()
        tokens = iter(stream)
        for token in tokens:
            if token.type == "data":
                lexer.feed(token.value)
            if token.type != "variable_begin":
                yield token
                continue
            emitter = lexer.emitter()
            if emitter is None:
                raise TemplateSyntaxError(
                    f"an expression inside a {lexer.prefix}-string has no safe emitter", token.lineno, stream.name
                )
            name, argument = emitter
            yield token
            yield Token(token.lineno, "lparen", "(")
            for inner in tokens:
                if inner.type == "variable_end":
                    yield Token(inner.lineno, "rparen", ")")
                    yield Token(inner.lineno, "pipe", "|")
                    yield Token(inner.lineno, "name", name)
                    if argument is not None:
                        yield Token(inner.lineno, "lparen", "(")
                        yield Token(inner.lineno, "string", argument)
                        yield Token(inner.lineno, "rparen", ")")
                    yield inner
                    break
                yield inner
