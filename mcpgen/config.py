"""`[tool.mcpgen]` in pyproject.toml (and the flags of `mcpgen client|server`) -> frozen targets.

```toml
[tool.mcpgen.targets.weather]
kind = "client"                      # or "server", or "docs" (reference docs)
source = "schemas/weather.json"      # or url = "...", command = [...], config = "mcp.json" + server = "NAME"
output = "src/weather_client"
headers = { Authorization = "Bearer ${TOKEN}" }   # ${VAR} expands from the environment
```

A server target's `cache-hints = { "tools/list" = { ttl-ms = 300000, scope = "public" } }` is
its scaffold's default cache hints per list method (`ToolsBase.CACHE_HINTS`; handlers.py's
Handlers overrides them).
`skills-dir = "skills"` (a folder of skill folders, relative to the package),
`task-support = { export = "optional" }` and `tool-ui = { show = "ui://app/show.html" }` (a
tool's MCP Apps page, served from `ui/app/show.html` in the package) are its
`ToolsBase.SKILLS_DIR`, `TASK_SUPPORT` and `TOOL_UI`, which handlers.py's Handlers overrides the
same way.

`formatter = "black"` at the top of [tool.mcpgen] (or in one target's table) has black format the
generated Python instead of ruff (the `black` extra).

Paths are relative to the folder holding the pyproject.toml and stay inside it: `output`,
`source`, `config`, `templates` (and `skills-dir` inside the package) hold the one rule of a
user-named path (runtime/server/paths.py: relative, `/`-separated, no `..`, `.` or empty segment,
printable, at most 500 characters, no symbolic link on the way); a path breaking it is a
one-line problem naming the key. `${VAR}` expands in headers, commands and URLs, so tokens stay
out of the file (and out of the generated code).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .catalog.model import Problem
from .options import (
    CacheHintOption,
    ClientOptions,
    DocsOptions,
    Formatter,
    GeneratorOptions,
    Layout,
    ProjectOptions,
    Runtime,
    ServerOptions,
)
from .runtime.server.apps_ui import ui_uri_problem
from .runtime.server.cache_hints import CACHEABLE, MAX_TTL_MS
from .runtime.server.paths import path_inside, relative_path_problem
from .sources.secrets import public_url, shown_command

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only (tomli is a dependency there)
    import tomli as tomllib

PYPROJECT = "pyproject.toml"
KINDS = ("client", "server", "docs")
RUNTIMES = tuple(r.value for r in Runtime)
LAYOUTS = tuple(layout.value for layout in Layout)
FORMATTERS = tuple(f.value for f in Formatter)
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Keys of one target table (kebab-case; snake_case is accepted too).
_KEYS = {
    "kind",
    "source",
    "url",
    "headers",
    "command",
    "config",
    "server",
    "output",
    "name",
    "runtime",
    "templates",
    "add-missing",
    "force",
    "connect-timeout",
    "skip-invalid",
    "strict-lists",
    "sync",
    "layout",
    "formatter",
    "cache-hints",
    "skills-dir",
    "task-support",
    "tool-ui",
    "project",
    "project-name",
    "project-version",
    "project-extras",
}


@dataclass(frozen=True)
class SourceSpec:
    """Exactly one of: files, url, command, or config + server."""

    files: tuple[Path, ...] = ()
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    command: tuple[str, ...] = ()
    config: Path | None = None
    server: str | None = None
    connect_timeout: float = 30.0
    cwd: Path | None = None  # where a command runs (the project folder for pyproject targets)
    # The command had ${VAR}s in it: never record it in generated code (it may hold a secret).
    secret_command: bool = False
    # config without one `server`: a package for many servers (these, or every one of the file).
    servers: tuple[str, ...] = ()
    # A live server's failing prompts or resources list is an error, not a warning (--strict-lists).
    strict_lists: bool = False

    @property
    def many(self) -> bool:
        return self.config is not None and self.server is None

    def describe(self) -> str:
        """The source as a person may see it: no userinfo, token parameter or secret argument."""
        if self.files:
            return ", ".join(str(f) for f in self.files)
        if self.url:
            return public_url(self.url)
        if self.config and self.many:
            return f"{self.config} (servers: {', '.join(self.servers) or 'all'})"
        if self.config:
            return f"{self.config} --server {self.server}"
        return shown_command(self.command)


@dataclass(frozen=True)
class Target:
    """One package to generate: from where, into where, and the options of its kind."""

    name: str  # the table name ("" for a plain `mcpgen client` run)
    source: SourceSpec
    output: Path
    package: str
    generator: GeneratorOptions  # ClientOptions, ServerOptions or DocsOptions: the kind of output
    templates: Path | None = None
    force: bool = False
    skip_invalid: bool = False  # leave out (with a warning) tools that cannot be generated exactly
    display: str = ""  # how to name the output folder in messages


@dataclass(frozen=True)
class Project:
    pyproject: Path
    root: Path
    targets: tuple[Target, ...] = field(default_factory=tuple)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml from `start` upward that has a [tool.mcpgen] table."""
    for folder in (start.resolve(), *start.resolve().parents):
        candidate = folder / PYPROJECT
        if candidate.is_file():
            try:
                if "mcpgen" in tomllib.loads(candidate.read_text(encoding="utf-8")).get("tool", {}):
                    return candidate
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return candidate  # report its problem rather than silently skipping it
    return None


def load_project(start: Path, environ: Mapping[str, str] | None = None) -> tuple[Project | None, list[Problem]]:
    path = find_pyproject(start)
    if path is None:
        return None, [Problem(str(start), f"no {PYPROJECT} with a [tool.mcpgen] table here or in any folder above")]
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(str(path), f"cannot read: {exc}")]
    except tomllib.TOMLDecodeError as exc:
        return None, [Problem(str(path), f"invalid TOML: {exc}")]
    return parse_project(doc.get("tool", {}).get("mcpgen"), path, os.environ if environ is None else environ)


def parse_project(table: Any, path: Path, environ: Mapping[str, str]) -> tuple[Project | None, list[Problem]]:
    where = f"{path} [tool.mcpgen]"
    if not isinstance(table, dict):
        return None, [Problem(where, "must be a table")]
    problems = [
        Problem(where, f"unknown key {k!r} (targets go in [tool.mcpgen.targets.NAME])")
        for k in table
        if k not in ("targets", "auth", "formatter")
    ]
    formatter = table.get("formatter", Formatter.RUFF.value)
    if formatter not in FORMATTERS:
        problems.append(Problem(where, f"'formatter' must be one of {', '.join(FORMATTERS)}"))
        formatter = Formatter.RUFF.value
    targets_raw = table.get("targets")
    if not isinstance(targets_raw, dict) or not targets_raw:
        return None, problems + [Problem(where, "no targets: add a [tool.mcpgen.targets.NAME] table")]
    targets: list[Target] = []
    for name in sorted(targets_raw):
        where_target = f"{path} [tool.mcpgen.targets.{name}]"
        target, found = parse_target(name, targets_raw[name], path.parent, environ, where_target, Formatter(formatter))
        problems += found
        if target is not None:
            targets.append(target)
    if problems:
        return None, problems
    return Project(pyproject=path, root=path.parent, targets=tuple(targets)), []


def expand(text: str, environ: Mapping[str, str], where: str, problems: list[Problem]) -> str:
    """`${VAR}` from the environment; an unset variable is a problem, not an empty string."""

    def one(m: re.Match[str]) -> str:
        if m.group(1) not in environ:
            problems.append(Problem(where, f"environment variable {m.group(1)} is not set"))
            return ""
        return environ[m.group(1)]

    return _VAR.sub(one, text)


def _unknown_option(key: str) -> str:
    """ "unknown option 'runtme' (did you mean 'runtime'?)": the close matches, as click suggests flags."""
    import difflib

    close = difflib.get_close_matches(key, sorted(_KEYS), n=3)
    if not close:
        return f"unknown option {key!r} (known: {', '.join(sorted(_KEYS))})"
    return f"unknown option {key!r} (did you mean {' or '.join(repr(c) for c in close)}?)"


def parse_target(
    name: str,
    raw: Any,
    root: Path,
    environ: Mapping[str, str],
    where: str,
    default_formatter: Formatter = Formatter.RUFF,
) -> tuple[Target | None, list[Problem]]:
    if not isinstance(raw, dict):
        return None, [Problem(where, "must be a table")]
    opts = {str(k).replace("_", "-"): v for k, v in raw.items()}
    problems = [Problem(where, _unknown_option(k)) for k in sorted(opts) if k not in _KEYS]

    def text(key: str) -> str | None:
        value = opts.get(key)
        if value is not None and not isinstance(value, str):
            problems.append(Problem(where, f"{key!r} must be a string"))
            return None
        return value

    def flag(key: str, default: bool = False) -> bool:
        value = opts.get(key, default)
        if not isinstance(value, bool):
            problems.append(Problem(where, f"{key!r} must be true or false"))
            return False
        return value

    kind = text("kind")
    if kind not in KINDS:
        problems.append(Problem(where, f"'kind' must be one of {', '.join(KINDS)}"))
    output = text("output")
    if not output:
        problems.append(Problem(where, "'output' is required"))
    elif not project_path(output, "output", root, where, problems):
        output = None
    runtime = text("runtime") or "import"
    if runtime not in RUNTIMES:
        problems.append(Problem(where, f"'runtime' must be one of {', '.join(RUNTIMES)}"))
    formatter = text("formatter") or default_formatter.value
    if formatter not in FORMATTERS:
        problems.append(Problem(where, f"'formatter' must be one of {', '.join(FORMATTERS)}"))
    templates = text("templates")
    if templates is not None and not project_path(templates, "templates", root, where, problems):
        templates = None
    timeout = opts.get("connect-timeout", 30.0)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        problems.append(Problem(where, "'connect-timeout' must be a positive number"))
        timeout = 30.0
    source = _parse_source(opts, root, environ, where, problems, float(timeout))
    if source is not None and flag("strict-lists"):
        source = replace(source, strict_lists=True)
    package = text("name")
    add_missing, force, skip_invalid = flag("add-missing"), flag("force"), flag("skip-invalid")
    sync = flag("sync", True)
    layout = text("layout") or Layout.FLAT.value
    if layout not in LAYOUTS:
        problems.append(Problem(where, f"'layout' must be one of {', '.join(LAYOUTS)}"))
    cache_hints = parse_cache_hints(opts.get("cache-hints", {}), where, problems)
    skills_dir = parse_skills_dir(opts.get("skills-dir"), where, problems)
    task_support = parse_task_support(opts.get("task-support", {}), where, problems)
    tool_ui = parse_tool_ui(opts.get("tool-ui", {}), where, problems)
    server_only = ("add-missing", "cache-hints", "skills-dir", "task-support", "tool-ui")
    for key, only in (("sync", "client"), ("layout", "client"), *((k, "server") for k in server_only)):
        if key in opts and kind in KINDS and kind != only:
            problems.append(Problem(where, f"{key!r} applies to {only} targets only"))
    project = _parse_project(opts, where, problems, flag)
    for key in ("runtime", "name", "formatter", "project"):
        if key in opts and kind == "docs":
            problems.append(Problem(where, f"{key!r} applies to client and server targets only"))
    if problems or kind is None or output is None or source is None:
        return None, problems
    out = root / output
    pkg, found = ("", []) if kind == "docs" else package_for(out, package, where)
    if found:
        return None, found
    generator: GeneratorOptions = (
        DocsOptions()
        if kind == "docs"
        else ClientOptions(
            runtime=Runtime(runtime), sync=sync, layout=Layout(layout), formatter=Formatter(formatter), project=project
        )
        if kind == "client"
        else ServerOptions(
            runtime=Runtime(runtime),
            add_missing=add_missing,
            formatter=Formatter(formatter),
            cache_hints=cache_hints,
            skills_dir=skills_dir,
            task_support=task_support,
            tool_ui=tool_ui,
            project=project,
        )
    )
    return (
        Target(
            name=name,
            source=source,
            output=out,
            package=pkg,
            generator=generator,
            templates=root / templates if templates else None,
            force=force,
            skip_invalid=skip_invalid,
            display=output,
        ),
        [],
    )


def project_path(value: str, key: str, root: Path, where: str, problems: list[Problem]) -> bool:
    """Whether `value`, the path `key` names relative to the project (`root`), holds the one rule
    of a user-named path (paths.py): lexically, and with no symbolic link on the way from `root`
    (a Problem naming the key otherwise)."""
    problem = relative_path_problem(value)
    if problem is None:
        try:
            path_inside(root, value)
        except ValueError as refused:
            problem = f"must stay inside the project: {refused}"
    if problem is not None:
        problems.append(Problem(where, f"{key!r} {problem}"))
    return problem is None


def parse_skills_dir(value: Any, where: str, problems: list[Problem]) -> str | None:
    """`skills-dir`: a path relative to the generated package (where handlers.py is), so that it
    names the same folder wherever the package is installed, by the one rule of a user-named path
    (paths.py; links on the way are refused when the server starts, where the package is)."""
    if value is None:
        return None
    problem = relative_path_problem(value)
    if problem is not None or not isinstance(value, str):  # (a problem whenever value is no str)
        problems.append(Problem(where, f"'skills-dir' {problem}"))
        return None
    return value.removesuffix("/")


def parse_task_support(value: Any, where: str, problems: list[Problem]) -> tuple[tuple[str, str], ...]:
    """`task-support`: tool wire name -> "optional" | "required" (the Tasks extension's values; a
    name the source lacks is refused when the server starts, as handlers.py's TASK_SUPPORT is)."""
    if not isinstance(value, dict):
        problems.append(Problem(where, "'task-support' must be a table of tool name -> 'optional' or 'required'"))
        return ()
    out: list[tuple[str, str]] = []
    for name in sorted(value):
        if value[name] not in ("optional", "required"):
            problems.append(Problem(where, f"task-support.{name!r} must be 'optional' or 'required'"))
        else:
            out.append((name, value[name]))
    return tuple(out)


def parse_tool_ui(value: Any, where: str, problems: list[Problem]) -> tuple[tuple[str, str], ...]:
    """`tool-ui`: tool wire name -> the ui:// URI of its MCP Apps page, under the package's `ui/`
    by the runtime's own rule (`ui_uri_problem`: the path never leaves `ui/`); whether the file
    exists, is no link, and the tool is one of the server's is checked when the server starts, as
    handlers.py's TOOL_UI is."""
    if not isinstance(value, dict):
        problems.append(Problem(where, "'tool-ui' must be a table of tool name -> 'ui://...' URI"))
        return ()
    out: list[tuple[str, str]] = []
    for name in sorted(value):
        problem = ui_uri_problem(value[name])
        if problem is not None:
            problems.append(Problem(where, f"tool-ui.{name!r:.80} {problem}"))
        else:
            out.append((name, value[name]))
    return tuple(out)


def parse_cache_hints(value: Any, where: str, problems: list[Problem]) -> tuple[CacheHintOption, ...]:
    """`cache-hints`: list method -> {ttl-ms, scope}; each method cacheable, each field checked
    as the runtime's CacheHint checks it (so a generated server never fails at import)."""
    if not isinstance(value, dict):
        problems.append(Problem(where, "'cache-hints' must be a table of list method -> { ttl-ms, scope }"))
        return ()
    out: list[CacheHintOption] = []
    for method in sorted(value):
        hint = value[method]
        here = f"cache-hints.{method!r}"
        if method not in CACHEABLE:
            problems.append(Problem(where, f"{here}: not a cacheable method (cacheable: {', '.join(CACHEABLE)})"))
            continue
        if not isinstance(hint, dict):
            problems.append(Problem(where, f"{here} must be a table: {{ ttl-ms = ..., scope = ... }}"))
            continue
        fields = {str(k).replace("_", "-"): v for k, v in hint.items()}
        unknown = sorted(set(fields) - {"ttl-ms", "scope"})
        ttl, scope = fields.get("ttl-ms", 0), fields.get("scope", "public")
        if unknown:
            problems.append(Problem(where, f"{here}: unknown key {unknown[0]!r} (known: scope, ttl-ms)"))
        elif isinstance(ttl, bool) or not isinstance(ttl, int) or not 0 <= ttl <= MAX_TTL_MS:
            problems.append(Problem(where, f"{here}: 'ttl-ms' must be an integer from 0 to {MAX_TTL_MS}"))
        elif scope not in ("public", "private"):
            problems.append(Problem(where, f"{here}: 'scope' must be 'public' or 'private'"))
        else:
            out.append(CacheHintOption(method, ttl, scope))
    return tuple(out)


def _parse_project(
    opts: Mapping[str, Any], where: str, problems: list[Problem], flag: Callable[[str], bool]
) -> ProjectOptions | None:
    """`project = true` and its keys (`project-name`, `project-version`, `project-extras`)."""
    given = [k for k in ("project-name", "project-version", "project-extras") if k in opts]
    if not flag("project"):
        problems += [Problem(where, f"{k!r} applies with 'project = true' only") for k in given]
        return None
    texts = [opts.get(k) for k in ("project-name", "project-version")]
    extras = opts.get("project-extras", [])
    if not all(v is None or isinstance(v, str) for v in texts):
        problems.append(Problem(where, "'project-name' and 'project-version' must be strings"))
        return None
    if not isinstance(extras, list) or not all(isinstance(e, str) for e in extras):
        problems.append(Problem(where, "'project-extras' must be a list of strings"))
        return None
    return ProjectOptions(texts[0], texts[1], tuple(extras))


def _parse_source(
    opts: Mapping[str, Any], root: Path, environ: Mapping[str, str], where: str, problems: list[Problem], timeout: float
) -> SourceSpec | None:
    given = [k for k in ("source", "url", "command", "config") if k in opts]
    if len(given) != 1:
        problems.append(Problem(where, "give exactly one of 'source', 'url', 'command', or 'config' (with 'server')"))
        return None
    headers_raw = opts.get("headers", {})
    if not isinstance(headers_raw, dict) or not all(isinstance(v, str) for v in headers_raw.values()):
        problems.append(Problem(where, "'headers' must be a table of strings"))
        headers_raw = {}
    headers = tuple((str(k), expand(v, environ, where, problems)) for k, v in sorted(headers_raw.items()))
    if headers and "url" not in opts:
        problems.append(Problem(where, "'headers' only apply to a 'url' source"))
    key = given[0]
    value = opts[key]
    if key == "source":
        files = [value] if isinstance(value, str) else value
        if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
            problems.append(Problem(where, "'source' must be a path or a list of paths"))
            return None
        if not all([project_path(f, "source", root, where, problems) for f in files]):  # (each named)
            return None
        return SourceSpec(files=tuple(root / f for f in files), connect_timeout=timeout)
    if key == "url":
        if not isinstance(value, str) or not value.startswith(("http://", "https://")):
            problems.append(Problem(where, "'url' must be an http:// or https:// URL"))
            return None
        return SourceSpec(url=expand(value, environ, where, problems), headers=headers, connect_timeout=timeout)
    if key == "command":
        argv = shlex.split(value) if isinstance(value, str) else value
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            problems.append(Problem(where, "'command' must be a list of strings (or one string)"))
            return None
        secret = any(_VAR.search(a) for a in argv)
        return SourceSpec(
            command=tuple(expand(a, environ, where, problems) for a in argv),
            connect_timeout=timeout,
            cwd=root,
            secret_command=secret,
        )
    server = opts.get("server")
    if not isinstance(value, str) or not isinstance(server, str):
        problems.append(Problem(where, "'config' must be a path and needs 'server' (a name in that file)"))
        return None
    if not project_path(value, "config", root, where, problems):
        return None
    return SourceSpec(config=root / value, server=server, connect_timeout=timeout)


def package_for(output: Path, name: str | None, where: str) -> tuple[str, list[Problem]]:
    """The package name: given, or made from the output folder's name."""
    from .plan.naming import package_name

    pkg = name or package_name(output.resolve().name)
    if not pkg.isidentifier():
        return pkg, [Problem(where, f"{pkg!r} is not a valid Python package name")]
    return pkg, []
