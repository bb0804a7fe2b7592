"""`--project`: a generated package as an installable distribution. The output folder holds the
package under its name, and beside it a `pyproject.toml` (hatchling) and a short README.md.

Both files are generated like every other file (listed in the manifest, rewritten by each run,
reported stale by `--check`): the dependency they state is the exact runtime requirement the
generated code checks at import (`RUNTIME_REQUIRES`), and a hand-edited copy would go stale
with the next regeneration. What a user may choose (the distribution's name, its version, more
runtime extras) is an option; the package's user-owned files (a scaffold's handlers.py) stay the
user's as ever.

The dependencies, by one rule: what the package's default path needs. Generated code imports
`mcpgen.runtime` (`mcpgen-runtime` + RUNTIME_REQUIRES), with the `http` extra when its source is
an HTTP URL (its `connect()` goes there), and the extras named by `--project-extra`; any other
optional path says what to install when it is taken (runtime/core/extras.py). A vendored
package (`--runtime vendor`) depends on what its copy states instead (render/vendor.py).

Everything from the source that reaches these files is checked first: a version only when it is
a plain PEP 440 release, a server name only as the characters of a name; TOML strings are
written escaped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..catalog.model import Problem
from ..options import ProjectOptions
from .vendor import RUNTIME_DISTRIBUTION, Requirements, runtime_extras

PYPROJECT = "pyproject.toml"
README = "README.md"
# A new distribution's first version, when neither the options nor the source give one.
DEFAULT_VERSION = "0.1.0"
# PEP 508 names and the PEP 440 versions a project writes (public releases, pre, post, dev).
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$")
_VERSION = re.compile(r"^\d{1,9}(?:\.\d{1,9}){0,5}(?:(?:a|b|rc)\d{1,9})?(?:\.post\d{1,9})?(?:\.dev\d{1,9})?$")
# What of an untrusted server name a README may say (anything else becomes a space).
_SHOWN = re.compile(r"[^A-Za-z0-9 ._-]")
BUILD_BACKEND = ("hatchling>=1.26", "hatchling.build")
REQUIRES_PYTHON = ">=3.10"


@dataclass(frozen=True)
class ProjectFacts:
    """What the files say besides the options: the kind, the package, where its client goes."""

    kind: str  # "client" | "server"
    package: str
    server: str  # the source server's name, as shown (or "")
    http_source: bool  # a client whose source is an HTTP URL: connect() goes there
    live_source: bool  # a client whose connect() knows where its server is (a command or URL)
    contract_test: str | None = None  # a scaffold's contract test file, left out of the wheel


def shown_name(name: str | None) -> str:
    """A server's name as a README and a description may show it: name characters only, clipped."""
    return " ".join(_SHOWN.sub(" ", name or "").split())[:60]


def source_version(version: str | None) -> str | None:
    """The source server's version, when it is one a pyproject may carry as it is."""
    return version if isinstance(version, str) and _VERSION.match(version) else None


def resolve(options: ProjectOptions, package: str, version: str | None) -> tuple[ProjectOptions, list[Problem]]:
    """The options with every default filled in, or the problems with the given ones."""
    name = options.name or package.replace("_", "-")
    chosen = options.version or source_version(version) or DEFAULT_VERSION
    problems = []
    if not _NAME.match(name):
        problems.append(Problem("--project-name", f"{name!r} is not a distribution name (letters, digits, . _ -)"))
    if not _VERSION.match(chosen):
        problems.append(Problem("--project-version", f"{chosen!r} is not a release version (say 1.2.0)"))
    known = runtime_extras()
    for extra in options.extras:
        if extra not in known:
            listed = ", ".join(known)
            problems.append(
                Problem("--project-extra", f"{extra!r} is not an extra of {RUNTIME_DISTRIBUTION} ({listed})")
            )
    return ProjectOptions(name, chosen, tuple(sorted(set(options.extras)))), problems


def _toml(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text)


def dependencies(
    facts: ProjectFacts, extras: tuple[str, ...], requires: str, vendored: Requirements | None
) -> list[str]:
    """The distribution's dependencies, by the rule of the module docstring."""
    wanted = sorted(set(extras) | ({"http"} if facts.http_source else set()))
    if vendored is not None:
        return [*vendored.base, *(r for e in wanted for r in vendored.extras.get(e, ()))]
    return [f"{RUNTIME_DISTRIBUTION}{'[' + ','.join(wanted) + ']' if wanted else ''}{requires}"]


def pyproject(facts: ProjectFacts, project: ProjectOptions, deps: list[str], header: str) -> str:
    what = "MCP client" if facts.kind == "client" else "MCP server"
    about = f" for {facts.server}" if facts.server else ""
    lines = [
        f"{header} Change it through mcpgen's project options (docs/how-to/shipping.md).",
        "[build-system]",
        f"requires = [{_toml(BUILD_BACKEND[0])}]",
        f"build-backend = {_toml(BUILD_BACKEND[1])}",
        "",
        "[project]",
        f"name = {_toml(project.name or facts.package)}",
        f"version = {_toml(project.version or DEFAULT_VERSION)}",
        f"description = {_toml(f'Typed {what}{about} (generated by mcpgen)')}",
        f"readme = {_toml(README)}",
        f"requires-python = {_toml(REQUIRES_PYTHON)}",
        "dependencies = [",
        *(f"    {_toml(d)}," for d in deps),
        "]",
        "",
        "[tool.hatch.build.targets.wheel]",
        f"packages = [{_toml(facts.package)}]",
    ]
    if facts.contract_test:
        lines.append(f"exclude = [{_toml(f'{facts.package}/{facts.contract_test}')}]")
    return "\n".join(lines) + "\n"


def readme(facts: ProjectFacts, project: ProjectOptions, deps: list[str]) -> str:
    name, pkg = project.name or facts.package, facts.package
    about = f" for the MCP server {facts.server}" if facts.server else ""
    requirement = "\n".join(f"- `{d}`" for d in deps)
    if facts.kind == "client":
        what = f"A typed MCP client{about}: `{pkg}.Client` and `{pkg}.AsyncClient`, one typed method per tool."
        connect = "Client.connect()" if facts.live_source else 'Client.connect_http("http://127.0.0.1:8000/mcp")'
        use = (
            f"```python\nfrom {pkg} import Client\n\n"
            f"with {connect} as client:\n    print(client.session.server_info)\n```"
        )
    else:
        what = f"An MCP server{about}: fill in `{pkg}/handlers.py` (yours; mcpgen never rewrites it)."
        use = (
            f"```text\npython -m {pkg}                       # over stdio\n"
            f"python -m {pkg} --http --port 8000   # over Streamable HTTP\n```"
        )
    return (
        f"# {name}\n\n{what} Generated by mcpgen; regenerate rather than edit the generated files.\n\n"
        f"## Install\n\n```text\npip install .\n```\n\nIt needs:\n\n{requirement}\n\n## Use\n\n{use}\n"
    )
