"""A catalog whose every printed field carries markup, a script and a javascript: URL: what the
reference-docs tests (tests/render/test_docs.py, tests/docs/) render and then inspect."""

from __future__ import annotations

from typing import Any

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
JS_URL = "javascript:alert(1)"
HOSTILE = f"{SCRIPT} {IMG} {JS_URL} [click]({JS_URL}) <a href='{JS_URL}'>x</a>"
# The one icon URL the docs may link (http/https, nothing that breaks out of a link).
ICON_OK = "https://icons.example/ok.png"
# Icons every item lists: a script URL, a data: URL, URLs that would end a link or an attribute
# if written as one, a relative reference, and the one good URL.
ICONS = [
    {"src": JS_URL, "mimeType": SCRIPT},
    {"src": "data:image/svg+xml;base64," + "PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+" * 20},
    {"src": f"https://icons.example/a){SCRIPT}", "sizes": [IMG]},
    {"src": f'https://icons.example/"{IMG}', "theme": SCRIPT},
    {"src": "//icons.example/no-scheme.png"},
    {"src": ICON_OK, "mimeType": "image/png", "sizes": ["48x48"]},
]


def hostile_document() -> dict[str, Any]:
    """Every field the docs print carries markup, a script and a javascript: URL."""
    return {
        "initialize": {
            "protocolVersion": "2025-11-25",
            "serverInfo": {
                "name": f"srv{IMG}",
                "title": f"T{SCRIPT}",
                "version": IMG,
                "description": HOSTILE,
                "icons": ICONS,
            },
            "instructions": f"# Heading\n{HOSTILE}\n===\n```\n> quote",
        },
        "tools": [
            {
                "name": f"tool{IMG}",
                "title": HOSTILE,
                "description": f"{HOSTILE}\n\n## not a heading",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        f"arg{IMG}": {
                            "type": "string",
                            "description": HOSTILE,
                            "enum": [SCRIPT, JS_URL],
                            "default": IMG,
                        },
                        JS_URL: {"type": "string", "examples": [f"```{SCRIPT}"]},
                    },
                    "required": [f"arg{IMG}", JS_URL],
                },
                "outputSchema": {"type": "object", "properties": {"x": {"type": "string", "description": SCRIPT}}},
                "annotations": {"readOnlyHint": True},
                "icons": ICONS,
            }
        ],
        "prompts": [
            {
                "name": f"prompt{SCRIPT}",
                "description": HOSTILE,
                "arguments": [{"name": f"a{IMG}", "description": HOSTILE, "required": True}],
                "icons": ICONS,
            }
        ],
        "resources": [{"uri": JS_URL, "name": f"r{IMG}", "description": HOSTILE, "mimeType": IMG, "icons": ICONS}],
        "resourceTemplates": [
            {"uriTemplate": JS_URL + "/{id}", "name": f"t{SCRIPT}", "description": HOSTILE, "icons": ICONS},
            {"uriTemplate": JS_URL + "{?q}", "name": "rich", "description": HOSTILE},
        ],
    }
