"""What both sides of the Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) agree on:
the extension's name, the per-skill bounds, the digest format, the skill-name rule and the
SKILL.md frontmatter reader.

A skill is a folder holding SKILL.md (YAML frontmatter, then instructions) and supporting files;
a server lists each as an entry with the frontmatter and a manifest of every file's URI, SHA-256
digest and size, and the client verifies each file it reads against that manifest.

The frontmatter is read by a small YAML subset reader of our own, not a YAML library: it comes
from the server (untrusted), and a full YAML loader brings anchors and aliases (a few bytes that
expand into a huge value) and tags. What it reads: `key: value` mappings nested by indentation,
`- item` lists, `[a, b]` flow lists, plain and quoted scalars (null, booleans, integers, floats
as YAML 1.2's core schema reads them), and `|`/`>` block scalars. Anything else is a ValueError
with a one-line reason, so a skill using more YAML than this is refused rather than misread.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from .jsonrpc import is_object

EXTENSION_ID = "io.modelcontextprotocol/skills"
SKILL_MD = "SKILL.md"
# SEP-2640: hosts MUST support skills up to these bounds; servers SHOULD NOT exceed them.
MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024
# The frontmatter block of a SKILL.md (name, description, a few short fields): a bound on what
# the reader walks, far above any real one.
MAX_FRONTMATTER_CHARS = 64 * 1024
# How deep its mappings and lists nest: a few levels in any real one; the bound keeps a hostile
# block (a 64 KiB `[[[[...` or a staircase of keys) from exhausting the stack (a RecursionError,
# not the one-line refusal).
MAX_FRONTMATTER_DEPTH = 32
DIRECTORY_MIME_TYPE = "inode/directory"
DIGEST_PATTERN = re.compile(r"sha256:[0-9a-f]{64}")
# The Agent Skills naming rule: 1-64 lowercase letters, digits and hyphens, no leading, trailing
# or doubled hyphen.
NAME_PATTERN = re.compile(r"(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")

_FRONTMATTER = re.compile(r"---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_KEY = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.\-/ ]*|\"[^\"]*\"|'[^']*')[ \t]*:(?:[ \t]+|$)(.*)")
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")


def digest_of(content: bytes) -> str:
    """The manifest's digest of `content`: `sha256:` and the lowercase hex SHA-256."""
    return "sha256:" + hashlib.sha256(content).hexdigest()


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """The frontmatter of a SKILL.md as a JSON object, and the body after it. ValueError (one
    line) when it has no `---` block, more YAML than the reader takes, or no name/description."""
    if text.startswith("\ufeff"):
        text = text[1:]
    match = _FRONTMATTER.match(text)
    if match is None:
        raise ValueError("SKILL.md does not begin with a --- delimited YAML frontmatter block")
    block = match.group(1)
    if len(block) > MAX_FRONTMATTER_CHARS:
        raise ValueError(f"the frontmatter is over {MAX_FRONTMATTER_CHARS} characters")
    lines = [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    value, rest = _block(lines, 0, 0, 0)
    if rest != len(lines) or not is_object(value):
        raise ValueError("the frontmatter is not a YAML mapping")
    for key in ("name", "description"):
        if not isinstance(value.get(key), str) or not value[key]:
            raise ValueError(f"the frontmatter has no non-empty string {key!r}")
    return value, text[match.end() :]


def same_frontmatter(a: Any, b: Any) -> bool:
    """Field-by-field equality of two frontmatter objects as JSON values (1 and 1.0 alike, as
    JSON has one number type; True is no number)."""
    return json.dumps(a, sort_keys=True, allow_nan=False) == json.dumps(b, sort_keys=True, allow_nan=False)


# -- the YAML subset reader -----------------------------------------------------------


def _indent(line: str) -> int:
    if line[: len(line) - len(line.lstrip(" \t"))].count("\t"):
        raise ValueError("the frontmatter indents with a tab, which YAML forbids")
    return len(line) - len(line.lstrip(" "))


def _deeper(depth: int) -> int:
    if depth >= MAX_FRONTMATTER_DEPTH:
        raise ValueError(f"the frontmatter nests deeper than {MAX_FRONTMATTER_DEPTH} levels")
    return depth + 1


def _block(lines: list[str], at: int, indent: int, depth: int) -> tuple[Any, int]:
    """The mapping or list starting at lines[at], whose lines are indented `indent`."""
    depth = _deeper(depth)
    if lines[at].lstrip().startswith("- ") or lines[at].strip() == "-":
        return _sequence(lines, at, indent, depth)
    mapping: dict[str, Any] = {}
    while at < len(lines) and _indent(lines[at]) == indent:
        match = _KEY.fullmatch(lines[at].strip())
        if match is None:
            raise ValueError(f"the frontmatter line {lines[at].strip()!r:.60} is not `key: value`")
        key = _unquote(match.group(1).strip())
        if key in mapping:
            raise ValueError(f"the frontmatter has the key {key!r:.60} twice")
        mapping[key], at = _value(lines, at, indent, match.group(2).strip(), depth)
    if at < len(lines) and _indent(lines[at]) > indent:
        raise ValueError(f"the frontmatter line {lines[at].strip()!r:.60} is indented past its mapping")
    return mapping, at


def _sequence(lines: list[str], at: int, indent: int, depth: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    while at < len(lines) and _indent(lines[at]) == indent and lines[at].lstrip().startswith("-"):
        rest = lines[at].strip()[1:].strip()
        if _KEY.fullmatch(rest):
            raise ValueError("the frontmatter has a list of mappings, which this reader does not take")
        item, at = _value(lines, at, indent, rest, depth)
        items.append(item)
    return items, at


def _value(lines: list[str], at: int, indent: int, text: str, depth: int) -> tuple[Any, int]:
    """The value after `key:` (or `-`) on lines[at]: inline, a block scalar, or a nested block."""
    nxt = at + 1
    if text in ("|", ">", "|-", ">-", "|+", ">+"):
        body: list[str] = []
        while nxt < len(lines) and _indent(lines[nxt]) > indent:
            body.append(lines[nxt].strip())
            nxt += 1
        joined = ("\n" if text[0] == "|" else " ").join(body)
        return (joined if text.endswith("-") else joined + "\n"), nxt
    if text:
        return _scalar(text, depth), nxt
    if nxt < len(lines) and _indent(lines[nxt]) > indent:
        return _block(lines, nxt, _indent(lines[nxt]), depth)
    if nxt < len(lines) and _indent(lines[nxt]) == indent and lines[nxt].lstrip().startswith("- "):
        return _sequence(lines, nxt, indent, _deeper(depth))  # (a list may sit at its key's indentation)
    return None, nxt


def _scalar(text: str, depth: int) -> Any:
    if text.startswith(("&", "*", "!", "{", "@", "`", "%")):
        raise ValueError(f"the frontmatter value {text!r:.60} uses YAML this reader does not take")
    if text.startswith("["):
        if not text.endswith("]"):
            raise ValueError(f"the frontmatter list {text!r:.60} is not closed on its line")
        inner = text[1:-1].strip()
        depth = _deeper(depth)
        return [_scalar(part.strip(), depth) for part in inner.split(",")] if inner else []
    if text[0] in "\"'":
        return _unquote(text)
    text = re.sub(r"[ \t]+#.*$", "", text)  # a trailing comment
    if text in ("null", "Null", "NULL", "~"):
        return None
    if text in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return text.lower() == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text) and any(c.isdigit() for c in text):
        return float(text)
    return text


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            value = json.loads(text)
        except ValueError:
            raise ValueError(f"the frontmatter string {text!r:.60} has an escape this reader does not take") from None
        return str(value)
    if text[:1] in "\"'":
        raise ValueError(f"the frontmatter string {text!r:.60} is not closed on its line")
    return text
