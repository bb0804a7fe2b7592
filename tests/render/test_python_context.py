"""The emitter of a `{{ }}` in a `.py` template is chosen by where it stands (mcpgen/render/
pycontext.py): each context is planted in a user template and attacked with a payload."""

from __future__ import annotations

import ast
from pathlib import Path

import jinja2
import pytest

from mcpgen.render.emitters import RenderRefused
from mcpgen.render.environment import make_environment

EVIL = '"""+str(__import__("os").system("x"))+"""\'\'\'\\\r\x00\u2028\n#'


def _render(tmp_path: Path, body: str, **context: object) -> str:
    (tmp_path / "t.py.jinja").write_text(body, encoding="utf-8")
    return make_environment(tmp_path).get_template("t.py.jinja").render(**context)


@pytest.mark.parametrize(
    "body",
    [
        '"""Server {{ v }}."""\n',
        "'''Server {{ v }}.'''\n",
        "x = 'a {{ v }} b'\n",
        'x = "a {{ v }} b"\n',
        "x = 1  # about {{ v }}\n",
        '"""Server {{ v | pyrepr }}."""\n',  # the reported hole: a literal inside a docstring
        "x = {{ v | pyrepr }}\n",
        "{{ v | docstring }}\n",
    ],
)
def test_every_context_keeps_a_payload_inert(tmp_path: Path, body: str) -> None:
    src = _render(tmp_path, body, v=EVIL)
    tree = ast.parse(src)
    assert len(tree.body) == 1 and not any(isinstance(n, ast.Call) for n in ast.walk(tree)), src
    constants = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert any("__import__" in c for c in constants) or "#" in body, src


def test_a_plain_string_in_code_is_refused_at_render_time(tmp_path: Path) -> None:
    with pytest.raises(RenderRefused, match="refusing to print str"):
        _render(tmp_path, "x = {{ v }}\n", v="__import__('os').system('x')")


@pytest.mark.parametrize(
    "value",
    ["name", "._runtime", "_models.Foo", "list[_models.Foo] | None", 3, True, "_typing.Literal[-2, 0.5, -1.5]"],
)
def test_identifiers_type_expressions_and_numbers_pass_in_code(tmp_path: Path, value: object) -> None:
    assert _render(tmp_path, "x: {{ v }}\n", v=value) == f"x: {value}\n"


@pytest.mark.parametrize("value", ["f(x)", "a; b", "a\nb", "lambda: 0", "x[f()]", "Literal[-f()]", "Literal[-x]"])
def test_calls_and_statements_are_no_type_expression(tmp_path: Path, value: str) -> None:
    with pytest.raises(RenderRefused, match="as Python code"):
        _render(tmp_path, "x: {{ v }}\n", v=value)


@pytest.mark.parametrize("body", ["x = f'{{ v }}'\n", "x = rb'{{ v }}'\n", 'x = R"""{{ v }}"""\n'])
def test_no_expression_inside_an_f_raw_or_bytes_string(tmp_path: Path, body: str) -> None:
    with pytest.raises(jinja2.TemplateSyntaxError, match="has no safe emitter"):
        _render(tmp_path, body, v="x")


def _render_md(tmp_path: Path, body: str, **context: object) -> str:
    (tmp_path / "t.md.jinja").write_text(body, encoding="utf-8")
    env = make_environment(tmp_path)
    from mcpgen.render.docs import md_inline

    env.filters["md_inline"] = md_inline
    return env.get_template("t.md.jinja").render(**context)


@pytest.mark.parametrize("value", ["[x](javascript:alert(1))", "<script>", "`code`", "a\nb", "&lt;", "a | b"])
def test_markdown_refuses_a_plain_string_that_opens_markup(tmp_path: Path, value: str) -> None:
    with pytest.raises(RenderRefused, match="into Markdown"):
        _render_md(tmp_path, "# {{ v }}\n", v=value)
    assert "[" not in _render_md(tmp_path, "{{ v | md_inline }}", v=value).replace("\\[", "")


def test_markdown_passes_plain_words_numbers_and_macro_calls(tmp_path: Path) -> None:
    body = "{% macro m(x) %}*{{ x | md_inline }}*{% endmacro %}{{ w }} {{ n }} {{ m(v) }}"
    assert _render_md(tmp_path, body, w="2 tools, my_pkg", n=3, v="[a]") == "2 tools, my_pkg 3 *\\[a\\]*"


# Every code point once, and the rule the emitters hold, stated apart from their code: a control
# (C0, DEL, C1), a line or paragraph separator, the BOM and a surrogate never stand raw.
EVERY_CHARACTER = "".join(map(chr, range(0x110000)))


def _must_escape(ch: str) -> bool:
    o = ord(ch)
    return o < 0x20 or 0x7F <= o <= 0x9F or ch in "\u2028\u2029\ufeff" or 0xD800 <= o <= 0xDFFF


def test_every_character_round_trips_through_each_string_literal_and_none_stands_raw() -> None:
    from mcpgen.render.emitters import py_in_string

    for quote in ("'", '"', "'''", '"""'):
        inner = py_in_string(EVERY_CHARACTER, quote)
        assert ast.literal_eval(quote + inner + quote) == EVERY_CHARACTER, quote
        raw = {ch for ch in inner if _must_escape(ch)}
        assert raw <= ({"\n"} if len(quote) == 3 else set()), (quote, sorted(map(ord, raw))[:10])


def test_every_character_stays_on_the_comment_line_and_in_the_docstring() -> None:
    from mcpgen.render.emitters import docstring, py_in_comment

    comment = py_in_comment(EVERY_CHARACTER)
    assert not any(_must_escape(ch) for ch in comment)
    tree = ast.parse("x = 1  # " + comment + "\n")
    assert len(tree.body) == 1
    text = "a" + EVERY_CHARACTER.replace("\t", "").replace("\r", "") + "z"
    literal = docstring(text)
    assert not any(_must_escape(ch) for ch in literal if ch != "\n")
    assert ast.literal_eval(literal) == text + "\n"  # a docstring of several lines ends on its own line
