"""The jinja2 environment. Untrusted text reaches generated source only through the
`pyrepr` and `docstring` filters defined here (docs/architecture.md, "Untrusted text")."""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from .. import __version__


def pyrepr(value: Any) -> str:
    """A Python literal for JSON-like data; refuses anything repr() would not round-trip."""
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return repr(value)
        return f"float({repr(str(value))})"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(pyrepr(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"pyrepr: unsupported type {type(value).__name__}")


_DOC_ESCAPES = {"\\": "\\\\", '"': '\\"', "\r": "\\r", "\t": "    "}


def docstring(text: str | None, indent: str = "") -> str:
    """A complete triple-quoted docstring literal; every char that could end or bend it is escaped."""
    out: list[str] = []
    for ch in (text or "").strip():
        if ch in _DOC_ESCAPES:
            out.append(_DOC_ESCAPES[ch])
        elif ch == "\n":
            out.append("\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F or ch in "\x85\u2028\u2029\ufeff" or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) > 0xFF else f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    body = "".join(out)
    lines = [ln.rstrip() for ln in body.split("\n")]
    body = ("\n" + indent).join(lines).replace("\n" + indent + "\n", "\n\n")
    return f'"""{body}"""' if "\n" not in body else f'"""{body}\n{indent}"""'


class _BasenameLoader(jinja2.BaseLoader):
    """User override dir: `DIR/client/client.py.jinja` or just `DIR/client.py.jinja`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Any]:
        for cand in (self.root / template, self.root / Path(template).name):
            if cand.is_file():
                mtime = cand.stat().st_mtime
                return (
                    cand.read_text(encoding="utf-8"),
                    str(cand),
                    lambda path=cand, when=mtime: path.stat().st_mtime == when,
                )
        raise jinja2.TemplateNotFound(template)


def shipped_templates() -> Path:
    """The templates: the `mcpgen.templates` package of an installed wheel, else the checkout's
    top-level `templates/` (a development install in setuptools' compat mode, see the Makefile,
    puts only the checkout on sys.path, so `mcpgen.templates` is not a package there)."""
    try:
        return Path(str(resources.files("mcpgen.templates")))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "templates"


def make_environment(user_dir: str | Path | None = None, *, autoescape_html: bool = False) -> jinja2.Environment:
    """The environment for every renderer; `autoescape_html` escapes every value in `*.html.jinja`
    templates (the reference docs), where untrusted text meets a browser."""
    loaders: list[jinja2.BaseLoader] = []
    if user_dir is not None:
        loaders.append(_BasenameLoader(Path(user_dir)))
    loaders.append(jinja2.FileSystemLoader(str(shipped_templates())))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        autoescape=(lambda name: bool(name) and str(name).endswith(".html.jinja")) if autoescape_html else False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["pyrepr"] = pyrepr
    env.filters["docstring"] = docstring
    env.globals["mcpgen_version"] = __version__
    return env


def render(env: jinja2.Environment, template: str, **context: Any) -> str:
    return env.get_template(template).render(**context)
