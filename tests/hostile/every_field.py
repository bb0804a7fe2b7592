"""A catalog whose every string field is a break-out payload, and its benign twin.

`catalog(text)` builds the same document (a snapshot: serverInfo, instructions, tools, prompts,
resources, templates) with `text(i)` in every string field, `i` numbering the fields. The
hostile twin puts `payload(i)` everywhere: each payload carries every break-out sequence of
Python, Markdown, HTML and Jinja, an `os.system` call shaped to close a docstring or a string
of either quote, and ends differently by field (a quote, a backslash, a line separator...) so
that each context sees its closing delimiter next to its own. The benign twin puts
`benign(i)`: words that need the same aliasing (a space and a dash), so both twins allocate
names the same way and their syntax trees compare up to constants and identifiers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MARK = "PWNED"
EXPLOITS = [
    '"""+str(__import__("os").system("echo PWNED"))+"""',
    "'''+str(__import__('os').system('echo PWNED'))+'''",
    "\"+__import__('os').system('echo PWNED')+\"",
    "'+__import__('os').system('echo PWNED')+'",
    "\nimport os; os.system('echo PWNED')  #",
]
SEQUENCES = ['"""', "'''", "\\", "\r", "\x00", "\u2028", "\u2029", "\x85", "{{ 7*7 }}", "{% if 1 %}x{% endif %}"]
SEQUENCES += ["*/", "-->", "<script>alert(1)</script>", "`` ` ``", "[x](javascript:alert(1))", "\x1b[31m"]
ENDINGS = ['"', "'", "\\", '"""', "'''", "\r", "\u2028", "\x00", "#", "*/"]


def payload(i: int) -> str:
    return f"{MARK}{i} " + " ".join(SEQUENCES) + " " + EXPLOITS[i % len(EXPLOITS)] + ENDINGS[i % len(ENDINGS)]


def benign(i: int) -> str:
    return f"field {i}-x " + "word " * 40  # as long as a payload: names are cut alike


def catalog(text: Callable[[int], str]) -> dict[str, Any]:
    """The document, with `text(n)` in its n-th string field (every field, names included)."""
    counter = iter(range(10_000))

    def t() -> str:
        return text(next(counter))

    def prop() -> dict[str, Any]:
        value = t()
        return {
            "type": "string",
            "title": t(),
            "description": t(),
            "enum": [value, t()],
            "default": value,
            "examples": [value],
        }

    def tool() -> dict[str, Any]:
        return {
            "name": t(),
            "title": t(),
            "description": t(),
            "inputSchema": {
                "type": "object",
                "description": t(),
                "properties": {t(): prop(), t(): {"type": "integer", "description": t(), "default": 3}},
            },
            "outputSchema": {"type": "object", "properties": {t(): {"type": "string", "description": t()}}},
            "annotations": {"title": t(), "readOnlyHint": True, t(): t()},
            "_meta": {t(): t()},
            "icons": [{"src": "https://example.com/" + t(), "mimeType": t()}],
        }

    def uri() -> str:
        return "file:///" + t()

    return {
        "initialize": {
            "protocolVersion": "2025-11-25",
            "serverInfo": {
                "name": t(),
                "title": t(),
                "version": t(),
                "websiteUrl": "https://example.com/" + t(),
                "icons": [{"src": "https://example.com/" + t()}],
            },
            "instructions": t(),
        },
        "tools": [tool(), tool()],
        "prompts": [
            {
                "name": t(),
                "title": t(),
                "description": t(),
                "arguments": [{"name": t(), "description": t(), "required": True}],
                "_meta": {t(): t()},
            }
        ],
        "resources": [{"uri": uri(), "name": t(), "title": t(), "description": t(), "mimeType": t()}],
        "resourceTemplates": [
            # A template's own braces are its variables: the payload's are kept out of its URI.
            {
                "uriTemplate": uri().replace("{", "(").replace("}", ")") + "/{id}",
                "name": t(),
                "title": t(),
                "description": t(),
                "mimeType": t(),
            }
        ],
    }
