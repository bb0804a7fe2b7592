"""The jinja2 environment: every `{{ }}` of a `.py` template goes through the emitter of the
Python context it stands in (`pycontext.PythonContext`, emitters.py), and those of the HTML
docs through autoescaping (docs/threat-model.md, "Untrusted text")."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from .. import __version__
from ..runtime.version import __version__ as runtime_version
from . import emitters
from .mdcontext import MarkdownContext
from .pycontext import PythonContext


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
        extensions=[PythonContext, MarkdownContext],
    )
    env.filters["pyrepr"] = emitters.pyrepr
    env.filters["docstring"] = emitters.docstring
    env.filters.update(PythonContext.FILTERS)
    env.filters.update(MarkdownContext.FILTERS)
    env.globals["mcpgen_version"] = __version__
    env.globals["runtime_requires"] = runtime_requires()
    return env


def runtime_requires() -> str:
    """The mcpgen-runtime releases that run what this generator writes, as a pip specifier: the
    runtime's minor version says which generated code it runs (0.2.x runs code written for 0.2)."""
    major, minor = (int(part) for part in runtime_version.split(".")[:2])
    return f">={major}.{minor},<{major}.{minor + 1}"


def render(env: jinja2.Environment, template: str, **context: Any) -> str:
    return env.get_template(template).render(**context)
