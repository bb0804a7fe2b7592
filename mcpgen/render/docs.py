"""Plan -> the reference docs of a server: `index.html`, `reference.md` and `llms.txt`.

`docs_view.py` decides what each entry shows; the templates under `templates/docs/` lay it out.
The HTML is one self-contained file: its stylesheet and its search script are inlined, and a
Content-Security-Policy allows exactly those two (by hash) and nothing else: no external
script, style, font, image or connection, and no script that escaping might have let through.
Untrusted text reaches the HTML only through autoescaping, and the Markdown files only through
the `md_*` filters here, which keep it from becoming a heading, a link or raw HTML (an icon's
http(s) URL is the one link, and only where plan/icons.py allows it).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence

from ..catalog.model import Catalog
from ..plan.icons import Icon, link_of
from ..plan.types import Plan
from .docs_view import DocsPage, build_docs
from .environment import make_environment, render
from .files import FileSet
from .mdcontext import MdText

FILES = ("index.html", "reference.md", "llms.txt")

# CommonMark's backslash escapes, for the characters that start markup inside a line.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>|#!~])")
# Inside a block of text: what could open a link, an image or raw HTML (an entity decodes to text only).
_MD_BLOCK = re.compile(r"([\\\[\]<>])")
# A line that Markdown would read as a heading, a setext underline, a fence or a quote.
_MD_LINE_START = re.compile(r"^(\s*)(#|=+\s*$|-{2,}\s*$|```|~~~|>)")


def md_inline(text: object) -> MdText:
    """Untrusted text as one line of Markdown (a table cell, a list item, a link's text)."""
    return MdText(_MD_INLINE.sub(r"\\\1", " ".join(str(text or "").split())))


def md_block(text: object) -> MdText:
    """Untrusted text as Markdown paragraphs: line breaks kept, no heading, link or HTML possible."""
    lines = str(text or "").strip().replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out = []
    for line in lines:
        escaped = _MD_BLOCK.sub(r"\\\1", line.rstrip())
        out.append(_MD_LINE_START.sub(r"\1\\\2", escaped))
    return MdText("\n".join(out))


def md_code(text: object, *, cell: bool = False) -> MdText:
    """Untrusted text as an inline code span: shown exactly, never markup. In a table `cell`, a
    `|` is escaped (GFM splits cells before it reads code spans)."""
    body = " ".join(str(text or "").split())
    if cell:
        body = body.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return MdText(f"{ticks}{pad}{body}{pad}{ticks}")


def md_icons(icons: Sequence[Icon]) -> MdText:
    """Icons on one line: each src a link where plan/icons.py allows one (http/https), else a
    code span (text only: a `javascript:` or `data:` URL is never a link), then its details."""
    shown: list[str] = []
    for icon in icons:
        text = md_code(icon.shown)
        link = link_of(icon.link) if icon.link is not None else None
        item = f"[{text}]({link})" if link is not None else text
        shown.append(item + (f" ({md_inline(', '.join(icon.details))})" if icon.details else ""))
    return MdText("; ".join(shown))


def md_fence(text: str, language: str = "") -> MdText:
    """A fenced code block that no backtick run inside `text` can close early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return MdText(f"{fence}{language}\n{text}\n{fence}")


def csp_hash(text: str) -> str:
    """The CSP source expression that allows exactly this inline script or style."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(script: str, style: str) -> str:
    return "; ".join(
        (
            "default-src 'none'",
            f"script-src {csp_hash(script)}",
            f"style-src {csp_hash(style)}",
            "img-src 'none'",
            "font-src 'none'",
            "connect-src 'none'",
            "media-src 'none'",
            "object-src 'none'",
            "frame-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        )
    )


def render_docs(plan: Plan, catalog: Catalog, templates: str | None = None) -> FileSet:
    """The three files of the docs folder (nothing in them is Python: the formatter never sees them)."""
    page: DocsPage = build_docs(plan, catalog)
    env = make_environment(templates, autoescape_html=True)
    env.filters["md_inline"] = md_inline
    env.filters["md_block"] = md_block
    env.filters["md_fence"] = md_fence
    env.filters["md_code"] = md_code
    env.filters["md_icons"] = md_icons
    style = render(env, "docs/style.css.jinja")
    script = render(env, "docs/search.js.jinja")
    fs = FileSet()
    for name in FILES:
        text = render(
            env,
            f"docs/{name}.jinja",
            page=page,
            style=style,
            script=script,
            csp=content_security_policy(script, style),
        )
        fs.add(name, _tidy(text, markdown=not name.endswith(".html")), format=False)
    return fs


# Controls a docs file never holds: NUL (which tools read as the end of the text) and every other
# C0 and C1 control but tab, line feed and carriage return (ESC would drive a terminal `cat`ing
# reference.md). One rule for every docs file, applied to the whole rendered text.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _tidy(text: str, *, markdown: bool) -> str:
    """Lone surrogates (a JSON source may hold them) become U+FFFD, so the file can be UTF-8;
    the controls above are stripped; in Markdown, runs of blank lines that the templates'
    optional parts leave become one."""
    text = _CONTROLS.sub("", text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))
    return re.sub(r"\n{3,}", "\n\n", text) if markdown else text
