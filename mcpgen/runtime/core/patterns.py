"""Schema patterns (`pattern`, `patternProperties`), run in linear time or not at all.

The rule: no regular expression from a schema runs in a backtracking engine. A schema comes from
a peer (a server's result schemas) or its author (a server's input schemas), the string it is
matched against from the other side, and Python's `re` backtracks: `^(a+)+$` against 26 characters
held a call for 13.8 s, and the event loop with it (`re` holds the GIL). So every reader of a
pattern (the fast checks and the jsonschema validators of validation.py, the generator's instance
drawing and warnings) compiles it with `compile_pattern` here, into Google's RE2 (the
`google-re2` wheel, a base dependency): a match costs time linear in the text, whatever the
pattern.

JSON Schema patterns are ECMA-262 (with Unicode semantics); RE2's syntax is not, so each pattern is
translated first (`_translate`):
- `.` matches anything but the four line terminators (\\n \\r U+2028 U+2029), as in ECMA;
- `\\s`/`\\S` are ECMA's white space and line terminators (RE2's are ASCII only);
- `\\d`, `\\w`, `\\b` stay ASCII (ECMA and RE2 agree; Python's `re` does not);
- `^`/`$` mean the start/end of the text (RE2 without multi-line, as ECMA; Python's `$` also
  matches before a final newline);
- `\\uXXXX` (and surrogate pairs), `\\u{...}`, `\\xHH`, `\\cX`, `\\0` become `\\x{...}`;
- `\\p{Letter}`, `\\p{gc=Lu}`, `\\p{Script=Greek}`: long and keyed names become RE2's short ones;
- `(?<name>...)` becomes `(?P<name>...)`; `[` inside a class is a literal; `[^]` and `[]` are
  "any character" and "nothing".
What RE2 cannot run is refused, with the reason: backreferences (`\\1`, `\\k<name>`) and
lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) need backtracking; a repetition count over 1000, a
pattern too large for RE2's memory budget, escapes ECMA-262 does not have (`\\z`, `\\A`, `\\Q`...),
inline flags. A refused pattern never matches: the instance it guards is refused with a
one-line reason (fail closed), and the generator warns about it once per tool and property.

Without google-re2 installed (a platform with no wheel), every pattern is refused the same way,
naming the package: there is no bounded fallback, since no time budget can stop `re` (it holds
the GIL) short of a process per match.
"""

from __future__ import annotations

import contextvars
import functools
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .jsonrpc import is_object

# The longest pattern compiled at all (RE2's own memory budget refuses most hostile ones sooner).
MAX_PATTERN_CHARS = 10_000

# ECMA-262 WhiteSpace and LineTerminator, the members of \s, in RE2's syntax.
_SPACE_MEMBERS = r"\t\n\x{b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}"
_DOT = r"[^\n\r\x{2028}\x{2029}]"

# ECMA-262's long General_Category names (and aliases) -> the short ones RE2 knows.
_CATEGORIES = {
    "Letter": "L", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Combining_Mark": "M",
    "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Number": "N",
    "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
    "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
    "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
    "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C",
    "Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
}  # fmt: skip
_PROPERTY_KEYS = ("General_Category=", "gc=", "Script=", "sc=", "Script_Extensions=", "scx=")
_SYNTAX = set("^$\\.*+?()[]{}|/-")
_CONTROL = {"t": r"\t", "n": r"\n", "r": r"\r", "f": r"\f", "v": r"\x{b}"}


class _Refused(Exception):
    """A pattern that cannot run in linear time (the message says why, in a few words)."""


@dataclass(frozen=True)
class Pattern:
    """One schema pattern, compiled: `search(text)` (linear time), or why it cannot run."""

    source: str
    refused: str | None
    _search: Callable[[str], Any] | None = None

    def search(self, text: str) -> bool:
        """Does the pattern match somewhere in `text` (ECMA-262 `RegExp.test`)? A refused
        pattern never matches (its callers refuse the instance, naming `refused`)."""
        return self._search is not None and self._search(text) is not None


@functools.lru_cache(maxsize=2048)
def compile_pattern(source: str) -> Pattern:
    """`source`, an ECMA-262 pattern, compiled for RE2; never raises (see `Pattern.refused`)."""
    try:
        translated = _translate(source)
        return Pattern(source, None, _compile_re2(translated))
    except _Refused as exc:
        return Pattern(source, str(exc))


def _compile_re2(translated: str) -> Callable[[str], Any]:
    try:
        import re2 as untyped  # type: ignore[import-untyped]  # (google-re2 ships no type information)
    except ImportError:
        raise _Refused("google-re2 is not installed (pip install google-re2)") from None
    re2: Any = untyped  # (what it is for pyright too: members without types)
    options = re2.Options()
    options.log_errors = False  # (RE2 prints every refusal on stderr otherwise)
    try:
        compiled = re2.compile(translated, options)
    except re2.error as exc:
        raise _Refused(f"RE2 cannot run it: {_re2_reason(exc)}") from None
    search: Callable[[str], Any] = compiled.search
    return search


def _re2_reason(exc: Exception) -> str:
    text = exc.args[0] if exc.args else ""
    reason = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return reason[:100] or "pattern too large"


def pattern_problem(source: str) -> str | None:
    """Why `source` cannot run in linear time, or None when it can."""
    return compile_pattern(source).refused


# -- ECMA-262 -> RE2 ----------------------------------------------------------------------------


def _translate(source: str) -> str:
    if len(source) > MAX_PATTERN_CHARS:
        raise _Refused(f"longer than {MAX_PATTERN_CHARS} characters")
    out: list[str] = []
    i, in_class = 0, False
    while i < len(source):
        c = source[i]
        if c == "\\":
            text, i = _escape(source, i + 1, in_class)
            out.append(text)
            continue
        i += 1
        if in_class:
            if c == "]":
                in_class = False
            out.append(r"\[" if c == "[" else c)
        elif c == "[":
            text, i, in_class = _class_start(source, i)
            out.append(text)
        elif c == ".":
            out.append(_DOT)
        elif c == "(" and source.startswith("?", i):
            text, i = _group(source, i)
            out.append(text)
        else:
            out.append(c)
    if in_class:
        raise _Refused("a character class is not closed")
    return "".join(out)


def _class_start(source: str, i: int) -> tuple[str, int, bool]:
    """`[` just read at i-1: the class's opening (and the whole of `[]` / `[^]`)."""
    if source.startswith("]", i):
        return r"[^\x{0}-\x{10ffff}]", i + 1, False  # ECMA's empty class matches nothing
    if source.startswith("^]", i):
        return r"[\x{0}-\x{10ffff}]", i + 2, False  # and its negation anything
    if source.startswith("^", i):
        return "[^", i + 1, True
    return "[", i, True


def _group(source: str, i: int) -> tuple[str, int]:
    """`(?` at i-1: a non-capturing or named group; lookaround and inline flags are refused."""
    rest = source[i:]
    if rest.startswith(("?=", "?!", "?<=", "?<!")):
        raise _Refused("lookaround needs a backtracking engine")
    if rest.startswith("?:"):
        return "(?:", i + 2
    if rest.startswith("?<"):
        return "(?P<", i + 2
    raise _Refused("inline flags are no ECMA-262 syntax")


def _escape(source: str, i: int, in_class: bool) -> tuple[str, int]:
    """The escape whose letter is at i (after the backslash): its RE2 text and the next index."""
    if i >= len(source):
        raise _Refused("it ends with a lone backslash")
    e = source[i]
    i += 1
    if e in "dDwW" or (e == "B" and not in_class):
        return "\\" + e, i
    if e == "b":
        return (r"\x{8}" if in_class else r"\b"), i  # backspace in a class, a word boundary outside
    if e == "s":
        return (_SPACE_MEMBERS if in_class else f"[{_SPACE_MEMBERS}]"), i
    if e == "S":
        if in_class:
            raise _Refused(r"\S inside a character class")
        return f"[^{_SPACE_MEMBERS}]", i
    if e in _CONTROL:
        return _CONTROL[e], i
    if e == "0" and not source[i : i + 1].isdigit():
        return r"\x{0}", i
    if e.isdigit() or (e == "k" and source.startswith("<", i)):
        raise _Refused("a backreference needs a backtracking engine")
    if e == "c" and source[i : i + 1].isascii() and source[i : i + 1].isalpha():
        return f"\\x{{{ord(source[i]) % 32:x}}}", i + 1
    if e == "x" and _is_hex(source[i : i + 2], 2):
        return f"\\x{{{source[i : i + 2]}}}", i + 2
    if e == "u":
        return _unicode_escape(source, i)
    if e in "pP":
        return _property(source, i, e)
    if e in _SYNTAX:
        return "\\" + e, i
    raise _Refused(f"\\{e} is no ECMA-262 escape")


def _is_hex(text: str, size: int) -> bool:
    return len(text) == size and all(ch in "0123456789abcdefABCDEF" for ch in text)


def _unicode_escape(source: str, i: int) -> tuple[str, int]:
    """`\\u` read: `\\uXXXX` (a surrogate pair as one code point) or `\\u{X...}`."""
    if source.startswith("{", i):
        end = source.find("}", i)
        digits = source[i + 1 : end] if end > 0 else ""
        if not digits or not _is_hex(digits, len(digits)) or int(digits, 16) > 0x10FFFF:
            raise _Refused(r"a malformed \u{...} escape")
        return f"\\x{{{digits}}}", end + 1
    if not _is_hex(source[i : i + 4], 4):
        raise _Refused(r"a malformed \u escape")
    point = int(source[i : i + 4], 16)
    i += 4
    if 0xD800 <= point < 0xDC00 and source.startswith("\\u", i) and _is_hex(source[i + 2 : i + 6], 4):
        low = int(source[i + 2 : i + 6], 16)
        if 0xDC00 <= low < 0xE000:
            return f"\\x{{{0x10000 + ((point - 0xD800) << 10) + (low - 0xDC00):x}}}", i + 6
    if 0xD800 <= point < 0xE000:
        raise _Refused("a lone surrogate")
    return f"\\x{{{point:x}}}", i


def _property(source: str, i: int, letter: str) -> tuple[str, int]:
    """`\\p` or `\\P` read: `{Name}` with ECMA's names made RE2's."""
    end = source.find("}", i)
    if not source.startswith("{", i) or end < 0:
        raise _Refused(f"\\{letter} without {{name}}")
    name = source[i + 1 : end]
    for key in _PROPERTY_KEYS:
        if name.startswith(key):
            name = name[len(key) :]
            break
    name = _CATEGORIES.get(name, name)
    if not name.replace("_", "").isalnum():
        raise _Refused(f"unknown property \\{letter}{{{name[:40]}}}")
    return f"\\{letter}{{{name}}}", end + 1


# -- jsonschema's keywords, through compile_pattern -------------------------------------------------


def refused_message(source: str, why: str) -> str:
    return f"pattern {source[:100]!r} cannot be checked ({why})"


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Any:
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped, unused-ignore]

    if not isinstance(instance, str) or not isinstance(pattern, str):
        return
    compiled = compile_pattern(pattern)
    if compiled.refused is not None:
        yield ValidationError(refused_message(pattern, compiled.refused))
    elif not compiled.search(instance):
        yield ValidationError(f"{instance[:100]!r} does not match {pattern[:100]!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped, unused-ignore]

    if not is_object(instance) or not is_object(patterns):
        return
    for pattern, subschema in patterns.items():
        compiled = compile_pattern(pattern)
        if compiled.refused is not None:
            if instance:  # which keys it names is unknown: refused, not guessed
                yield ValidationError(refused_message(pattern, compiled.refused))
            continue
        for key, value in instance.items():
            if compiled.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Any:
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped, unused-ignore]

    if not is_object(instance):
        return
    known = schema.get("properties", {})
    patterns = [compile_pattern(p) for p in schema.get("patternProperties", {}) if isinstance(p, str)]
    extras = [k for k in instance if k not in known and not any(p.search(k) for p in patterns)]
    if is_object(additional):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif additional is False and extras:
        shown = ", ".join(repr(e[:100]) for e in extras[:5])
        yield ValidationError(
            f"Additional properties are not allowed ({shown} {'was' if len(extras) == 1 else 'were'} unexpected)"
        )


@functools.cache
def linear_validator(cls: Any) -> Any:
    """jsonschema's validator class `cls` with its pattern keywords matched by `compile_pattern`."""
    from jsonschema import validators  # type: ignore[import-untyped, unused-ignore]

    keywords: dict[str, Callable[..., Any]] = {"pattern": _pattern, "patternProperties": _pattern_properties}
    if "additionalProperties" in cls.VALIDATORS:
        keywords["additionalProperties"] = _additional_properties
    unevaluated = cls.VALIDATORS.get("unevaluatedProperties")
    if unevaluated is not None:
        _divert_helpers()
        keywords["unevaluatedProperties"] = functools.partial(_linear_helpers, unevaluated)
    return validators.extend(cls, keywords)  # type: ignore[no-untyped-call, unused-ignore]


# unevaluatedProperties asks jsonschema's helpers which keys patternProperties evaluated, through
# $ref and every applicator, and they call `re.search` on each pattern. Rather than a copy of
# that walk, those helper modules see a stand-in for `re` that, only while this module's
# keyword runs (a context variable: per task and thread), matches through compile_pattern.
_LINEAR = contextvars.ContextVar("mcpgen_linear_patterns", default=False)


class _LinearRe:
    """`re` for jsonschema's helper modules: itself, but for `search` while _LINEAR is set."""

    def __init__(self, real: types.ModuleType) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def search(self, pattern: Any, string: Any, flags: int = 0) -> Any:
        if _LINEAR.get() and isinstance(pattern, str) and isinstance(string, str) and not flags:
            return compile_pattern(pattern).search(string) or None  # (a refused pattern names no key)
        return self._real.search(pattern, string, flags)


@functools.cache
def _divert_helpers() -> None:
    import jsonschema._legacy_keywords  # type: ignore[import-untyped, unused-ignore]
    import jsonschema._utils  # type: ignore[import-untyped, unused-ignore]

    for module in (jsonschema._utils, jsonschema._legacy_keywords):
        real = getattr(module, "re", None)
        if isinstance(real, types.ModuleType):
            module.re = _LinearRe(real)  # type: ignore[attr-defined, unused-ignore]


def _linear_helpers(keyword: Any, validator: Any, value: Any, instance: Any, schema: Any) -> Any:
    token = _LINEAR.set(True)
    try:
        errors = list(keyword(validator, value, instance, schema))  # (all of them while set)
    finally:
        _LINEAR.reset(token)
    yield from errors
