"""The four kinds of target, one object each: what a kind renders, what its manifest records,
which files its user owns, and what a run tells about it.

`pipeline.py` runs every kind the same way (read the source, generate, emit); `kind_for` is the
one place that tells the kinds apart. Like pipeline.py, this module may use every stage; it
imports them inside the methods that use them, so that quick_check.py, which needs a kind's name
and manifest options only, loads none of them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from .catalog.model import Catalog, Problem, StageError
from .config import SourceSpec, Target
from .console import console
from .options import ClientOptions, Formatter, GeneratorOptions, Layout, ProjectOptions, Runtime, ServerOptions

if TYPE_CHECKING:
    from .output.emit import Emission, Ownership, UserFile
    from .render.files import FileSet
    from .render.project import ProjectFacts

Loaded = tuple[Catalog | None, list[Problem]]


@dataclass
class Reading:
    """A target's source, read at most once (the pipeline may have read it for its fast path)."""

    spec: SourceSpec
    load: Callable[[SourceSpec], Loaded]
    loaded: Loaded | None = None

    def catalog(self, *, announce: bool = True) -> Catalog:
        """The catalog; StageError when the source has none, or a problem that refuses more than one tool."""
        if self.loaded is None:
            if announce:
                console.stage("reading", self.spec.describe())
            self.loaded = self.load(self.spec)
        catalog, problems = self.loaded
        # Problems that refuse single tools travel in catalog.refused; the plan decides on them.
        if catalog is None or not all(p.skippable for p in problems):
            raise StageError(problems or [Problem(self.spec.describe(), "no catalog")])
        return catalog


@dataclass
class Generated:
    """One target generated in memory: what to emit, and what to tell about it."""

    emission: Emission
    warnings: list[Problem] = field(default_factory=list)
    tools: int = 0  # the tools the output holds
    notes: list[str] = field(default_factory=list)  # told whatever the mode
    written_notes: list[str] = field(default_factory=list)  # told once the output is written


class Kind(Protocol):
    """What one kind of target is to the pipeline."""

    name: ClassVar[str]  # "client" | "server" | "docs", as the manifest records it
    named: ClassVar[bool]  # the output is a Python package, so it has a package name
    uses_models: ClassVar[bool]  # generating starts datamodel-code-generator (models/dcg.py)
    settled_by_manifest: ClassVar[bool]  # --check may prove it current from the manifest before generating

    def manifest_options(self, t: Target) -> dict[str, Any]:
        """The options that shape the output, as its manifest records them (and --check compares)."""
        ...

    def generate(self, t: Target, reading: Reading) -> Generated:
        """Every file of the output, formatted, in memory; raises StageError with every problem."""
        ...


def kind_for(generator: GeneratorOptions, source: SourceSpec) -> Kind:
    """The kind of a target with these options and this source."""
    if isinstance(generator, ClientOptions):
        return ManyClientKind(generator) if source.many else ClientKind(generator)
    if isinstance(generator, ServerOptions):
        return ServerKind(generator)
    return DocsKind()


def target_kind(t: Target) -> Kind:
    return kind_for(t.generator, t.source)


def target_formatter(t: Target) -> str:
    """The formatter of `t`'s Python, as its manifest names it (a docs folder holds none: its
    manifest keeps naming the default, as it always has)."""
    if isinstance(t.generator, (ClientOptions, ServerOptions)):
        return t.generator.formatter.value
    return Formatter.RUFF.value


def _templates_option(t: Target) -> dict[str, Any]:
    from .output.manifest import templates_digest

    return {"templates": templates_digest(t.templates)}


def _templates(t: Target) -> str | None:
    return str(t.templates) if t.templates else None


@dataclass(frozen=True)
class ClientKind:
    """A typed client package (client.py, or code mode's module per tool) from one server's catalog."""

    options: ClientOptions
    name: ClassVar[str] = "client"
    named: ClassVar[bool] = True
    uses_models: ClassVar[bool] = True
    settled_by_manifest: ClassVar[bool] = True

    def manifest_options(self, t: Target) -> dict[str, Any]:
        # The package name does not shape a flat client: its imports are relative.
        opts = {**_templates_option(t), "runtime": self.options.runtime.value}
        if self.options.layout is not Layout.FLAT:
            # A code-mode package names itself in its SKILL.md and docstrings.
            opts["layout"] = self.options.layout.value
            opts["name"] = t.package
        if not self.options.sync:
            opts["sync"] = False  # recorded only when not the default, so existing manifests stand
        return {**opts, **_project_option(self.options.project)}

    def generate(self, t: Target, reading: Reading) -> Generated:
        from .generate import generate_client
        from .output.emit import Ownership

        catalog = reading.catalog()
        if catalog.source_config is not None:
            # connect() finds the config relative to the package, wherever the project is checked out.
            config, server = catalog.source_config
            catalog = replace(catalog, source_config=(_relative_to(Path(config), t.output), server))
        project = _resolved_project(self.options.project, t, catalog)
        fs = generate_client(
            catalog, self.options, templates=_templates(t), skip_invalid=t.skip_invalid, package=t.package
        )
        generated = _package(
            self.name, self.manifest_options(t), catalog, fs, Ownership.PACKAGE, self.options.formatter
        )
        if project is None:
            return generated
        live = catalog.source_command is not None or catalog.source_url is not None or catalog.source_config is not None
        facts = _facts(self.name, t, catalog, http=catalog.source_url is not None, live=live)
        return _as_project(generated, project, facts, self.options.runtime)


@dataclass(frozen=True)
class ManyClientKind(ClientKind):
    """One client package for several servers of an mcpServers file (render/many.py): its
    connect() reads the config again, so nothing of it but the server names enters the package."""

    settled_by_manifest: ClassVar[bool] = False  # its servers are live: asked each time

    def generate(self, t: Target, reading: Reading) -> Generated:
        from .catalog.snapshot import catalog_digest
        from .generate import generate_many
        from .output.emit import Emission, Ownership
        from .render.project import ProjectFacts, resolve
        from .sources.servers_config import load_server, server_names

        config = t.source.config
        assert config is not None
        if self.options.runtime is not Runtime.IMPORT:
            raise StageError([Problem("--runtime", "a package for many servers imports the installed mcpgen")])
        if self.options.layout is not Layout.FLAT:
            layout = self.options.layout.value
            raise StageError([Problem("--layout", f"{layout} takes one server: give --server NAME")])
        names, problems = server_names(config, t.source.servers)
        if problems:
            raise StageError(problems)
        catalogs: dict[str, Catalog] = {}
        for name in names:
            # The package's connect() reads the config again (CONFIG_FILE): no server names its own.
            catalog, found = load_server(
                config, name, connect_timeout=t.source.connect_timeout, strict_lists=t.source.strict_lists
            )
            if catalog is None or not all(p.skippable for p in found):
                raise StageError([Problem(f"server {name!r}", str(p)) for p in found] or [Problem(name, "no catalog")])
            catalogs[name] = replace(catalog, source_config=None)
        fs, many = generate_many(
            catalogs,
            self.options,
            config_file=_relative_to(config, t.output),
            templates=_templates(t),
            skip_invalid=t.skip_invalid,
        )
        digest = hashlib.sha256("".join(f"{n}\0{catalog_digest(c)}\0" for n, c in catalogs.items()).encode())
        # The servers and their name collisions are part of what shapes the package.
        opts = {**self.manifest_options(t), "servers": names, "collisions": list(many.collisions)}
        generated = Generated(
            Emission(
                self.name, opts, digest.hexdigest(), fs.files, Ownership.PACKAGE, formatter=self.options.formatter.value
            ),
            warnings=list(fs.warnings),
            tools=len(many.tools),
            notes=[f"name collision: {c}" for c in many.collisions],
        )
        project = self.options.project
        if project is None:
            return generated
        project, problems = resolve(project, t.package, None)  # many servers: no one server's version
        if problems:
            raise StageError(problems)
        return _as_project(generated, project, ProjectFacts(self.name, t.package, "", False, True), Runtime.IMPORT)


@dataclass(frozen=True)
class ServerKind:
    """A server scaffold: `_generated/` rewritten every time, handlers.py and the contract test
    file written once and then the user's."""

    options: ServerOptions
    name: ClassVar[str] = "server"
    named: ClassVar[bool] = True
    uses_models: ClassVar[bool] = True
    settled_by_manifest: ClassVar[bool] = True

    def manifest_options(self, t: Target) -> dict[str, Any]:
        # The cache hints shape _generated/base.py: a change must regenerate (pipeline.py's
        # proven_current compares these), so they are recorded, where there are any.
        hints = {h.method: {"ttl-ms": h.ttl_ms, "scope": h.scope} for h in self.options.cache_hints}
        opts = {**_templates_option(t), "runtime": self.options.runtime.value, "name": t.package}
        extensions: dict[str, Any] = {"skills-dir": self.options.skills_dir} if self.options.skills_dir else {}
        extensions |= {"task-support": dict(self.options.task_support)} if self.options.task_support else {}
        extensions |= {"tool-ui": dict(self.options.tool_ui)} if self.options.tool_ui else {}
        return {
            **opts,
            **({"cache-hints": hints} if hints else {}),
            **extensions,
            **_project_option(self.options.project),
        }

    def generate(self, t: Target, reading: Reading) -> Generated:
        from .generate import generate_server
        from .output.emit import Ownership, Stubs, UserFile
        from .render.files import HANDLERS_FILE, contract_file_name

        catalog = reading.catalog()
        project = _resolved_project(self.options.project, t, catalog)
        options = replace(self.options, project=project)  # the scaffold reports the project's version
        result = generate_server(catalog, options, t.package, templates=_templates(t), skip_invalid=t.skip_invalid)
        stubs = Stubs(result.stubs, result.methods, add_missing=self.options.add_missing)
        # The contract tests run on mcpgen's testing kit: a vendored package, made to need no
        # installed mcpgen, gets none (the name stays the user's all the same).
        contract = result.contract if self.options.runtime is Runtime.IMPORT else None
        users = (
            UserFile(HANDLERS_FILE, result.handlers, "fill in the handlers", stubs),
            UserFile(contract_file_name(t.package), contract, "run pytest there for the tools' contract tests"),
        )
        formatter = self.options.formatter
        generated = _package(
            self.name, self.manifest_options(t), catalog, result.files, Ownership.SCAFFOLD, formatter, users
        )
        if project is None:
            return generated
        facts = _facts(self.name, t, catalog, contract_test=contract_file_name(t.package) if contract else None)
        return _as_project(generated, project, facts, self.options.runtime)


@dataclass(frozen=True)
class DocsKind:
    """A reference docs folder (index.html, reference.md, llms.txt): every file in it generated;
    the plan is all it needs (no models, so datamodel-code-generator is not started)."""

    name: ClassVar[str] = "docs"
    named: ClassVar[bool] = False  # no Python in it: no runtime, no package name
    uses_models: ClassVar[bool] = False
    settled_by_manifest: ClassVar[bool] = False

    def manifest_options(self, t: Target) -> dict[str, Any]:
        return _templates_option(t)

    def generate(self, t: Target, reading: Reading) -> Generated:
        from .catalog.snapshot import catalog_digest
        from .output.emit import Emission, Ownership
        from .plan.build import build_plan
        from .render.docs import render_docs

        catalog = reading.catalog(announce=False)
        plan = build_plan(catalog, skip_invalid=t.skip_invalid)
        fs = render_docs(plan, catalog, _templates(t))
        emission = Emission(self.name, self.manifest_options(t), catalog_digest(catalog), fs.files, Ownership.DOCS)
        return Generated(emission, warnings=list(plan.warnings), tools=len(plan.tools))


def _package(
    name: str,
    options: dict[str, Any],
    catalog: Catalog,
    fs: FileSet,
    ownership: Ownership,
    formatter: Formatter,
    users: Sequence[UserFile] = (),
) -> Generated:
    """A package of one catalog: its files, renames and warnings as rendering left them."""
    from .catalog.snapshot import catalog_digest
    from .output.emit import Emission

    digest = catalog_digest(catalog)
    emission = Emission(name, options, digest, fs.files, ownership, fs.renames, users, formatter.value)
    return Generated(
        emission,
        warnings=list(fs.warnings),
        tools=_generated_count(catalog, fs.warnings),
        written_notes=renames_line(fs.renames),
    )


def _project_option(project: ProjectOptions | None) -> dict[str, Any]:
    """The project options as the manifest records them (as given: a default depends on the source,
    whose digest the manifest holds anyway); nothing without --project, so existing manifests stand."""
    if project is None:
        return {}
    return {"project": {"name": project.name, "version": project.version, "extras": list(project.extras)}}


def _resolved_project(project: ProjectOptions | None, t: Target, catalog: Catalog) -> ProjectOptions | None:
    """--project's options with their defaults from the package and the source; StageError if bad."""
    from .render.project import resolve

    if project is None:
        return None
    version = catalog.server_info.get("version")
    resolved, problems = resolve(project, t.package, version if isinstance(version, str) else None)
    if problems:
        raise StageError(problems)
    return resolved


def _facts(
    kind: str, t: Target, catalog: Catalog, *, http: bool = False, live: bool = False, contract_test: str | None = None
) -> ProjectFacts:
    from .render.project import ProjectFacts, shown_name

    name = catalog.server_info.get("name")
    return ProjectFacts(kind, t.package, shown_name(name if isinstance(name, str) else None), http, live, contract_test)


def _as_project(generated: Generated, project: ProjectOptions, facts: ProjectFacts, runtime: Runtime) -> Generated:
    """The package moved under its own name in the output folder, with the project's
    pyproject.toml and README.md beside it (render/project.py); the manifest stays at the top."""
    from . import __version__
    from .output.emit import Ownership
    from .render.environment import runtime_requires
    from .render.project import PYPROJECT, README, dependencies, pyproject, readme
    from .render.vendor import package_requirements

    emission = generated.emission
    pkg = facts.package
    vendored = package_requirements(emission.files) if runtime is Runtime.VENDOR else None
    deps = dependencies(facts, project.extras, runtime_requires(), vendored)
    header = f"# Code generated by mcpgen {__version__} (--project). DO NOT EDIT."
    files = {f"{pkg}/{path}": text for path, text in emission.files.items()}
    files[PYPROJECT] = pyproject(facts, project, deps, header)
    files[README] = readme(facts, project, deps)
    users = [replace(u, path=f"{pkg}/{u.path}") for u in emission.user_files]
    # A project is a folder its user adds to (tests, CI files): files beside mcpgen's are expected.
    moved = replace(emission, files=dict(sorted(files.items())), user_files=users, ownership=Ownership.SCAFFOLD)
    return replace(generated, emission=moved)


def _relative_to(path: Path, folder: Path) -> str:
    """`path` as a POSIX path relative to `folder` (both may be relative to the working directory)."""
    import os

    return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()


def _generated_count(catalog: Catalog, warnings: list[Problem]) -> int:
    """Tools that made it into the output (--skip-invalid leaves some out, with a warning each)."""
    skipped = {p.tool for p in warnings if p.tool is not None}
    return sum(1 for t in catalog.tools if t.name not in skipped)


# The summary line names this many renames, then says how many more the manifest lists.
RENAMES_SHOWN = 6


def _shown_name(name: str) -> str:
    """A wire name for a terminal: as it is when plain, else its repr (no control characters), clipped."""
    text = name if name and name.isprintable() and name.strip() == name else repr(name)
    return text if len(text) <= 40 else text[:39] + "…"


def renames_line(renames: Sequence[tuple[str, str]]) -> list[str]:
    """`renamed 3 names: get-x -> get_x_2, class -> class_, ...` (nothing when nothing was renamed)."""
    from .output.manifest import MANIFEST_NAME

    if not renames:
        return []
    shown = ", ".join(f"{_shown_name(wire)} -> {python}" for wire, python in renames[:RENAMES_SHOWN])
    more = len(renames) - RENAMES_SHOWN
    tail = f", and {more} more (listed in {MANIFEST_NAME})" if more > 0 else ""
    noun = "name" if len(renames) == 1 else "names"
    return [f"renamed {len(renames)} {noun}: {shown}{tail}"]
