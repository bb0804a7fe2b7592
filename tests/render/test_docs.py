"""The reference docs: what each entry shows, examples from schemas, and untrusted text kept inert
in the HTML (autoescape, CSP) and the Markdown (no heading, link or raw HTML from a catalog)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hostile_docs import ICON_OK, JS_URL, hostile_document
from markdown_it import MarkdownIt

from mcpgen.catalog.model import Catalog
from mcpgen.plan.build import build_plan
from mcpgen.render.docs import md_block, md_fence, md_inline, render_docs
from mcpgen.render.docs_view import build_docs
from mcpgen.render.schema_text import enum_values, example_value, object_example, type_label
from mcpgen.sources.files import catalog_from_document, load_file

REPO = Path(__file__).resolve().parents[2]
EVERYTHING = REPO / "tests/golden/inputs/everything.raw.json"
TIME = REPO / "tests/golden/inputs/time.raw.json"


def _catalog(doc: Any) -> Catalog:
    cat, problems = catalog_from_document(doc, "inline")
    assert cat is not None and not problems, problems
    return cat


def _docs(doc: Any) -> dict[str, str]:
    cat = _catalog(doc)
    return render_docs(build_plan(cat), cat).files


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each <script> and <style>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.inline: dict[str, list[str]] = {"script": [], "style": []}
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag in self.inline:
            self._open = tag
            self.inline[tag].append("")

    def handle_endtag(self, tag: str) -> None:
        self._open = None

    def handle_data(self, data: str) -> None:
        if self._open:
            self.inline[self._open][-1] += data


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "div", "header", "h1", "h2", "h3", "p", "nav", "label",
    "input", "ul", "li", "a", "code", "main", "section", "details", "summary", "article", "span", "table",
    "thead", "tbody", "tr", "th", "td", "br", "dl", "dt", "dd", "pre", "footer", "script",
}  # fmt: skip
SPEC = "https://modelcontextprotocol.io/specification/"


def test_hostile_text_never_becomes_markup_a_link_or_an_attribute() -> None:
    html = _docs(hostile_document())["index.html"]
    parsed = _parse(html)
    assert {tag for tag, _ in parsed.tags} <= ALLOWED_TAGS
    assert [tag for tag, _ in parsed.tags].count("script") == 1
    assert "img" not in {tag for tag, _ in parsed.tags}
    for tag, attrs in parsed.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        if "href" in attrs:
            assert re.fullmatch(r"#[a-z0-9-]+", attrs["href"]) or attrs["href"] in (SPEC, ICON_OK), attrs
        if "id" in attrs:
            assert re.fullmatch(r"[a-z0-9-]+", attrs["id"]), attrs
        for name, value in attrs.items():
            assert "javascript:" not in value or name == "data-search", (tag, name, value)
    # The hostile text is there, as text.
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 5
    assert "javascript:alert(1)" in html


@pytest.mark.parametrize("name", ["index.html", "reference.md"])
def test_icons_are_text_and_only_an_http_url_is_a_link(name: str) -> None:
    text = _docs(hostile_document())[name]
    html = text if name == "index.html" else _markdown_html(text)
    links = [a["href"] for t, a in _parse(html).tags if t == "a" and "href" in a and not a["href"].startswith("#")]
    # Server, tool, prompt, resource and template: each shows its one good icon as a link.
    assert links.count(ICON_OK) == 5, links
    assert "icons.example/no-scheme.png" in html and "data:image/svg+xml;base64," in html  # as text
    assert "PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+" * 3 not in html  # cut short
    assert "48x48" in html


def test_the_page_allows_only_its_own_script_and_style_by_hash() -> None:
    html = _docs(hostile_document())["index.html"]
    parsed = _parse(html)
    metas = [a for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert len(metas) == 1
    policy = dict(d.strip().split(" ", 1) for d in metas[0]["content"].split(";"))
    assert policy["default-src"] == "'none'"
    for kind, directive in (("script", "script-src"), ("style", "style-src")):
        (text,) = parsed.inline[kind]
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert policy[directive] == f"'sha256-{digest}'"
    for directive in ("img-src", "font-src", "connect-src", "base-uri", "form-action"):
        assert policy[directive] == "'none'"
    # The CSP comes before anything it governs.
    assert html.index("Content-Security-Policy") < html.index("<style>")


def _markdown_html(text: str) -> str:
    """CommonMark + GFM tables, raw HTML on, every link scheme accepted: the most permissive
    viewer, so only the docs' own escaping keeps markup out."""
    md = MarkdownIt("commonmark").enable("table")
    md.validateLink = lambda url: True
    return str(md.render(text))


MARKDOWN_TAGS = {"blockquote", "h1", "h2", "h3", "p", "a", "code", "pre", "em", "ul", "li"}
MARKDOWN_TAGS |= {"table", "thead", "tbody", "tr", "th", "td"}


@pytest.mark.parametrize("name", ["reference.md", "llms.txt"])
def test_hostile_text_stays_text_in_markdown(name: str) -> None:
    text = _docs(hostile_document())[name]
    parsed = _parse(_markdown_html(text))
    assert {tag for tag, _ in parsed.tags} <= MARKDOWN_TAGS, {tag for tag, _ in parsed.tags}
    assert [tag for tag, _ in parsed.tags].count("blockquote") == (name == "llms.txt")  # its summary only
    for tag, attrs in parsed.tags:
        assert set(attrs) <= {"id", "href", "class"}, (tag, attrs)
        if "href" in attrs:
            assert re.fullmatch(r"reference\.md#[a-z0-9-]+|index\.html", attrs["href"]) or attrs["href"] == ICON_OK, (
                attrs
            )
        if "id" in attrs:
            assert re.fullmatch(r"[a-z0-9-]+", attrs["id"]), attrs
    # No heading but the docs' own: the hostile "# Heading" and "## not a heading" stay text.
    headings = re.findall(r"<h[12]>(.*?)</h[12]>", _markdown_html(text))
    assert headings and not any("eading" in h for h in headings), headings
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in _markdown_html(text)


def test_llms_txt_follows_the_format() -> None:
    """An H1, a blockquote, then H2 file lists of `- [name](url): notes` (llmstxt.org)."""
    text = _docs(json.loads(EVERYTHING.read_text()))["llms.txt"]
    lines = text.splitlines()
    assert lines[0] == "# Everything Reference Server"
    assert lines[1] == "" and lines[2].startswith("> An MCP server (mcp-servers/everything 2.0.0) with 13 tools")
    sections = [ln for ln in lines if ln.startswith("## ")]
    assert sections == ["## Tools", "## Prompts", "## Resources", "## Resource templates", "## Optional"]
    first_h2 = lines.index("## Tools")
    assert not any(ln.startswith("#") for ln in lines[3:first_h2])  # details: no heading before the lists
    items = [ln for ln in lines[first_h2:] if ln.startswith("- ")]
    assert len(items) == 13 + 4 + 7 + 2 + 1
    assert all(re.match(r"- \[[^\]]+\]\((reference\.md#[a-z0-9-]+|index\.html)\)(: .+)?$", ln) for ln in items)
    assert "- [`get-sum`](reference.md#tool-get-sum): Returns the sum of two numbers" in items


def test_every_anchor_that_llms_txt_links_exists_in_reference_md() -> None:
    files = _docs(json.loads(EVERYTHING.read_text()))
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', files["reference.md"]))
    linked = set(re.findall(r"\(reference\.md#([a-z0-9-]+)\)", files["llms.txt"]))
    assert linked and linked == anchors
    html_ids = set(re.findall(r'<article class="entry" id="([a-z0-9-]+)"', files["index.html"]))
    assert html_ids == anchors


def test_a_tool_entry_shows_arguments_example_and_the_generated_call() -> None:
    cat = _catalog(json.loads(TIME.read_text()))
    page = build_docs(build_plan(cat), cat)
    convert = next(t for t in page.tools if t.heading == "convert_time")
    assert [(r.wire, r.python, r.type, r.required) for r in convert.arguments] == [
        ("source_timezone", "source_timezone", "string", True),
        ("time", "time", "string", True),
        ("target_timezone", "target_timezone", "string", True),
    ]
    assert convert.returns.startswith("ConvertTimeResult")
    assert convert.python_call.startswith("await client.convert_time(\n")
    assert json.loads(convert.example_arguments).keys() == {"source_timezone", "time", "target_timezone"}
    assert convert.output_schema is not None


def test_python_names_enums_and_defaults_come_from_the_plan_and_schema() -> None:
    cat = _catalog(json.loads(EVERYTHING.read_text()))
    plan = build_plan(cat)
    page = build_docs(plan, cat)
    annotated = next(t for t in page.tools if t.heading == "get-annotated-message")
    rows = {r.wire: r for r in annotated.arguments}
    assert rows["messageType"].python == "message_type" == plan.tool("get-annotated-message").args[0].python
    assert rows["messageType"].enum == ('"error"', '"success"', '"debug"')
    assert rows["includeImage"].default == "false" and not rows["includeImage"].required
    assert annotated.python_call == 'await client.get_annotated_message(message_type="error")'
    assert annotated.hints == ("read-only", "idempotent", "closed world")
    # Prompts, resources and templates: the typed client's methods, or read_resource.
    args_prompt = next(p for p in page.prompts if p.heading == "args-prompt")
    assert args_prompt.python_call == 'await client.get_args_prompt(city="example")'
    resource = page.resources[0]
    assert resource.python_call == f'await client.read_resource("{resource.heading}")'
    template = next(t for t in page.templates if t.name == "Dynamic Text Resource")
    assert template.python_call == 'await client.read_dynamic_text_resource(resource_id="example")'
    assert len(page.entries) == 13 + 4 + 7 + 2


def test_rich_templates_are_documented_too() -> None:
    cat = _catalog(hostile_document())
    page = build_docs(build_plan(cat), cat)
    assert [t.heading for t in page.templates] == [JS_URL + "/{id}", JS_URL + "{?q}"]
    assert "read_resource" in page.templates[1].python_call


def test_anchors_are_unique_and_safe_whatever_the_names() -> None:
    tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("a.b", "a-b", "A_B", "ünï", "--", "a b")]
    cat = _catalog({"tools": tools})
    anchors = [t.anchor for t in build_docs(build_plan(cat), cat).tools]
    assert len(set(anchors)) == len(anchors)
    assert all(re.fullmatch(r"tool-[a-z0-9-]+", a) for a in anchors)


def test_examples_are_built_from_the_schema_deterministically() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "$defs": {
            "Point": {"type": "object", "properties": {"x": {"type": "integer", "minimum": 3}}, "required": ["x"]}
        },
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "count": {"type": "integer", "minimum": 5},
            "ratio": {"type": "number", "exclusiveMinimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "point": {"$ref": "#/$defs/Point"},
            "mode": {"enum": ["fast", "slow"]},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
            "code": {"type": "string", "minLength": 10, "maxLength": 12},
            "given": {"type": "string", "examples": ["Paris"]},
            "elsewhere": {"$ref": "https://example.com/schema.json"},
            "optional": {"type": "string"},
        },
        "required": ["when", "count", "ratio", "tags", "point", "mode", "maybe", "code", "elsewhere"],
    }
    example = object_example(schema, schema, with_given=True)
    assert example == {
        "when": "2025-01-01T12:00:00Z",
        "count": 5,
        "ratio": 1.0,
        "tags": ["example", "example"],
        "point": {"x": 3},
        "mode": "fast",
        "maybe": True,
        "code": "examplexxx",
        "given": "Paris",
        "elsewhere": None,  # a ref out of the document is never followed
    }
    assert object_example(schema, schema, with_given=True) == example
    assert type_label(schema["properties"]["tags"], schema) == "array of string"
    assert type_label(schema["properties"]["point"], schema) == "Point"
    assert type_label(schema["properties"]["maybe"], schema) == "null | boolean"
    assert type_label({"type": ["string", "null"], "format": "email"}, schema) == "string (email) | null"
    assert enum_values({"oneOf": [{"const": 1}, {"const": "b"}]}, schema) == ("1", '"b"')


def test_self_referencing_schemas_end() -> None:
    loop: dict[str, Any] = {"$ref": "#"}
    assert example_value(loop, loop) is None  # a ref to itself: followed a bounded number of times
    nested: dict[str, Any] = {"type": "object", "properties": {"next": {"$ref": "#"}}, "required": ["next"]}
    value = example_value(nested, nested)
    depth = 0
    while isinstance(value, dict):
        value, depth = value["next"], depth + 1
    assert 1 < depth < 20
    assert type_label({"type": "array", "items": {"$ref": "#"}}, loop) == "array of schema"


def test_markdown_filters() -> None:
    assert md_inline("a|b *c* [d](e) <f> #g\nh") == r"a\|b \*c\* \[d\](e) \<f\> \#g h"
    assert md_block("# h\ntext [x](javascript:y) <b>\n===\n```\n> q") == (
        "\\# h\ntext \\[x\\](javascript:y) \\<b\\>\n\\===\n\\```\n\\> q"
    )
    assert md_fence("a ``` b", "python") == "````python\na ``` b\n````"


def test_lone_surrogates_do_not_stop_the_write() -> None:
    files = _docs({"tools": [{"name": "t", "description": "bad \ud800 half", "inputSchema": {"type": "object"}}]})
    for text in files.values():
        text.encode("utf-8")
    assert "bad \ufffd half" in files["index.html"]


def test_same_catalog_same_bytes() -> None:
    cat, problems = load_file(EVERYTHING)
    assert cat is not None and not problems
    first = render_docs(build_plan(cat), cat).files
    assert render_docs(build_plan(cat), cat).files == first


def test_every_required_argument_is_in_the_example_nested_objects_are_cut() -> None:
    props = {f"p{i}": {"type": "integer"} for i in range(30)}
    flat: dict[str, Any] = {"type": "object", "properties": props, "required": list(props)}
    assert len(object_example(flat, flat)) == 30
    nested: dict[str, Any] = {"type": "object", "properties": {"o": flat}, "required": ["o"]}
    assert len(object_example(nested, nested)["o"]) == 20
