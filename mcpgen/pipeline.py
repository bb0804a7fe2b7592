"""One target through every stage: load -> generate in memory -> write, check or diff.

`mcpgen client`, `mcpgen server` and `mcpgen generate` all come here, so a target from
pyproject.toml and the same flags on the command line produce the same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from .catalog.model import Catalog, Problem, StageError
from .catalog.snapshot import catalog_digest
from .config import SourceSpec, Target
from .console import console
from .models import dcg
from .options import ClientOptions, DocsOptions, Layout, Mode, Runtime, ServerOptions
from .output.compare import FileChange, compare, unified_diff
from .output.contract_file import contract_file_name, plan_contract
from .output.handlers_file import HANDLERS_FILE, plan_handlers
from .output.manifest import MANIFEST_NAME, Manifest, build_manifest, read_manifest
from .output.manifest_options import manifest_options, target_kind
from .output.ownership import (
    Tree,
    check_ownership,
    legacy_client_files,
    legacy_server,
    legacy_server_files,
    owned_files,
    refuse_dangerous,
    walk,
)
from .output.unchanged import manifest_trusted, proven_current
from .output.write import write_tree
from .wording import counted


@dataclass
class Outcome:
    """What happened to one target; the CLI turns it into output and an exit code."""

    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)
    diff: str = ""
    written: int = 0
    tools: int = 0


def load_catalog(spec: SourceSpec) -> tuple[Catalog | None, list[Problem]]:
    """The catalog of any source kind; errors are values."""
    if spec.config is not None:
        from .sources.servers_config import load_server

        return load_server(spec.config, spec.server or "", connect_timeout=spec.connect_timeout)
    if spec.url:
        from .sources.live import load_live_http

        return load_live_http(spec.url, headers=dict(spec.headers), connect_timeout=spec.connect_timeout)
    if spec.command:
        from .sources.live import load_live

        return load_live(
            spec.command[0],
            spec.command[1:],
            cwd=str(spec.cwd) if spec.cwd else None,
            connect_timeout=spec.connect_timeout,
            record_command=not spec.secret_command,
        )
    from .sources.files import load_file, load_many

    if len(spec.files) == 1 and not spec.files[0].is_dir():
        return load_file(spec.files[0])
    return load_many(list(spec.files))


def _unchanged(t: Target, catalog: Catalog | None, problems: list[Problem], old: Manifest) -> Outcome | None:
    """The outcome of a check that the manifest settles (nothing differs), or None to regenerate.

    The same source, options and generator made this output once, so they would make it again
    (generation is deterministic): no plan, models or formatting needed. A source with problems
    or refused tools goes the full way, so --check still prints its warnings.
    """
    if catalog is None or problems or catalog.refused:
        return None
    if not proven_current(t.output, old, target_kind(t), manifest_options(t), catalog_digest(catalog)):
        return None
    return Outcome(tools=len(catalog.tools))


# Catalogs read from files during one run, by source: a client and a server target of the same
# schemas read them once. Only catalogs that no generation has used go in (nothing can have
# changed them), and only for file sources (a live server is asked each time).
SettledSources = dict[SourceSpec, Catalog]


def run_target(t: Target, mode: Mode, cwd: Path, settled: SettledSources | None = None) -> Outcome:
    """Generate `t` in memory, then write it (Mode.WRITE) or compare it with disk (CHECK, DIFF).

    `settled` is shared by the targets of one run (see SettledSources)."""
    danger = refuse_dangerous(t.output, cwd)
    if danger:
        return Outcome(problems=[danger])
    if t.output.exists() and not t.output.is_dir():
        return Outcome(problems=[Problem(str(t.output), "output path exists and is not a directory")])
    old, problems = read_manifest(t.output)
    if problems:
        return Outcome(problems=problems)
    if isinstance(t.generator, DocsOptions):
        return _docs(t, mode, old)  # no models: datamodel-code-generator is not started
    loaded: tuple[Catalog | None, list[Problem]] | None = None
    if mode is not Mode.WRITE and old is not None and not t.source.many and manifest_trusted():
        # Read the source first: when the manifest proves the output current, nothing else runs.
        try:
            console.stage("reading", t.source.describe())
            cached = settled.get(t.source) if settled is not None else None
            loaded = (cached, []) if cached is not None else load_catalog(t.source)
            unchanged = _unchanged(t, *loaded, old)
        finally:
            console.done()
        if unchanged is not None:
            if settled is not None and loaded[0] is not None and t.source.files:
                settled[t.source] = loaded[0]
            return unchanged
    # datamodel-code-generator loads in a helper process while the source is read and checked.
    dcg.start()
    try:
        if t.source.many and isinstance(t.generator, ClientOptions):
            return _many_clients(t, t.generator, mode, old)
        if loaded is None:
            console.stage("reading", t.source.describe())
            loaded = load_catalog(t.source)
        catalog, problems = loaded
        # Problems that refuse single tools travel in catalog.refused; the plan decides on them.
        if catalog is None or not all(p.skippable for p in problems):
            return Outcome(problems=problems or [Problem(t.source.describe(), "no catalog")])
        try:
            if isinstance(t.generator, ClientOptions):
                return _client(t, t.generator, catalog, mode, old)
            return _server(t, t.generator, catalog, mode, old)
        except StageError as exc:
            return Outcome(problems=exc.problems)
    finally:
        console.done()
        dcg.stop()


def _compared(
    t: Target, mode: Mode, files: dict[str, str], manifest: Manifest, old: Manifest | None, outcome: Outcome
) -> Outcome:
    outcome.changes = compare(t.output, files, manifest, old)
    if mode is Mode.DIFF:
        outcome.diff = unified_diff(t.output, outcome.changes, files, manifest, t.display or str(t.output))
    return outcome


def _templates(t: Target) -> str | None:
    return str(t.templates) if t.templates else None


def _client(t: Target, options: ClientOptions, catalog: Catalog, mode: Mode, old: Manifest | None) -> Outcome:
    from .generate import generate_client

    if catalog.source_config is not None:
        # connect() finds the config relative to the package, wherever the project is checked out.
        config, server = catalog.source_config
        catalog = replace(catalog, source_config=(_relative_to(Path(config), t.output), server))
    fs = generate_client(catalog, options, templates=_templates(t), skip_invalid=t.skip_invalid, package=t.package)
    manifest = build_manifest("client", manifest_options(t), catalog_digest(catalog), fs.files, renames=fs.renames)
    outcome = Outcome(warnings=list(fs.warnings), tools=_generated_count(catalog, fs.warnings))
    if mode is not Mode.WRITE:
        return _compared(t, mode, fs.files, manifest, old, outcome)
    tree = walk(t.output)
    owned = owned_files(t.output, tree, old, set()) if old else legacy_client_files(t.output, tree, set(fs.files))
    problems = _write(t, tree, fs.files, manifest, owned, set(), expected_others=False)
    if problems:
        return Outcome(problems=problems)
    outcome.messages = renames_line(fs.renames)
    outcome.written = len(fs.files)
    return outcome


def _relative_to(path: Path, folder: Path) -> str:
    """`path` as a POSIX path relative to `folder` (both may be relative to the working directory)."""
    import os

    return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()


def _many_clients(t: Target, options: ClientOptions, mode: Mode, old: Manifest | None) -> Outcome:
    """One package for several servers of an mcpServers file (render/many.py)."""
    from .generate import generate_many
    from .sources.servers_config import load_server, server_names

    config = t.source.config
    assert config is not None
    if options.runtime is not Runtime.IMPORT:
        return Outcome(problems=[Problem("--runtime", "a package for many servers imports the installed mcpgen")])
    if options.layout is not Layout.FLAT:
        return Outcome(problems=[Problem("--layout", f"{options.layout.value} takes one server: give --server NAME")])
    names, problems = server_names(config, t.source.servers)
    if problems:
        return Outcome(problems=problems)
    catalogs: dict[str, Catalog] = {}
    for name in names:
        # The package's connect() reads the config again (CONFIG_FILE): no server names its own.
        catalog, found = load_server(config, name, connect_timeout=t.source.connect_timeout)
        if catalog is None or not all(p.skippable for p in found):
            return Outcome(
                problems=[Problem(f"server {name!r}", str(p)) for p in found] or [Problem(name, "no catalog")]
            )
        catalogs[name] = replace(catalog, source_config=None)
    relative = _relative_to(config, t.output)
    try:
        fs, many = generate_many(
            catalogs, options, config_file=relative, templates=_templates(t), skip_invalid=t.skip_invalid
        )
    except StageError as exc:
        return Outcome(problems=exc.problems)
    digest = hashlib.sha256("".join(f"{n}\0{catalog_digest(c)}\0" for n, c in catalogs.items()).encode()).hexdigest()
    opts = {**manifest_options(t), "servers": names, "collisions": list(many.collisions)}
    manifest = build_manifest("client", opts, digest, fs.files)
    outcome = Outcome(
        warnings=list(fs.warnings),
        tools=len(many.tools),
        messages=[f"name collision: {c}" for c in many.collisions],
    )
    if mode is not Mode.WRITE:
        return _compared(t, mode, fs.files, manifest, old, outcome)
    tree = walk(t.output)
    owned = owned_files(t.output, tree, old, set()) if old else legacy_client_files(t.output, tree, set(fs.files))
    problems = _write(t, tree, fs.files, manifest, owned, set(), expected_others=False)
    if problems:
        return Outcome(problems=problems)
    outcome.written = len(fs.files)
    return outcome


def _write(
    t: Target,
    tree: Tree,
    files: dict[str, str],
    manifest: Manifest,
    owned: set[str],
    user_files: set[str],
    *,
    expected_others: bool,
) -> list[Problem]:
    """The one ownership rule (output/ownership.py), then the whole tree written at once (write.py)."""
    display = t.display or str(t.output)
    everything = {**files, MANIFEST_NAME: manifest.to_text()}
    console.stage("writing", f"{counted(len(files), 'file')} to {display}")
    if MANIFEST_NAME in tree.files and tree.files[MANIFEST_NAME] == "file":
        owned = owned | {MANIFEST_NAME}
    problems = check_ownership(
        display, tree, set(everything), owned, user_files, expected_others=expected_others, force=t.force
    )
    if problems:
        return problems
    try:
        # Stale: mcpgen's files that it no longer generates. Nothing else is ever dropped.
        write_tree(t.output, everything, tree, owned - set(everything) - user_files)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        where = f" ({exc.filename})" if exc.filename else ""
        return [Problem(display, f"cannot write the output: {reason}{where}; the folder is as it was")]
    return []


def _server(t: Target, options: ServerOptions, catalog: Catalog, mode: Mode, old: Manifest | None) -> Outcome:
    from .generate import generate_server

    result = generate_server(catalog, options, t.package, templates=_templates(t), skip_invalid=t.skip_invalid)
    files = result.files.files
    contract_name = contract_file_name(t.package)
    manifest = build_manifest(
        "server",
        manifest_options(t),
        catalog_digest(catalog),
        files,
        (HANDLERS_FILE, contract_name),
        result.files.renames,
    )
    outcome = Outcome(warnings=list(result.files.warnings), tools=_generated_count(catalog, result.files.warnings))
    if mode is not Mode.WRITE:
        # handlers.py is the user's: never part of the comparison.
        return _compared(t, mode, files, manifest, old, outcome)
    tree = walk(t.output)
    users = {HANDLERS_FILE, contract_name}
    legacy = old is None and legacy_server(t.output, tree)
    if old is not None:
        owned = owned_files(t.output, tree, old, users)
    else:
        owned = legacy_server_files(t.output, tree, set(files), users)
    extra, messages, problems = plan_handlers(result, t.output, tree, add_missing=options.add_missing)
    if problems:
        return Outcome(problems=problems)
    # The contract tests run on mcpgen's testing kit: a vendored package, made to need no
    # installed mcpgen, gets none.
    contract = plan_contract(result.contract, contract_name, tree) if options.runtime is Runtime.IMPORT else {}
    if contract:
        extra.update(contract)
        messages.append(f"wrote {t.output / contract_name}: run pytest there for the tools' contract tests")
    # Once mcpgen made the package, the user's modules beside it are its normal state.
    problems = _write(t, tree, {**files, **extra}, manifest, owned, users, expected_others=old is not None or legacy)
    if problems:
        return Outcome(problems=problems)
    outcome.messages = messages + renames_line(result.files.renames)
    outcome.written = len(files) + len(extra)
    return outcome


def _docs(t: Target, mode: Mode, old: Manifest | None) -> Outcome:
    """The reference docs folder: every file in it is generated (the user's files beside them
    are left alone, as in a client folder, and need --force)."""
    from .plan.build import build_plan
    from .render.docs import render_docs

    catalog, problems = load_catalog(t.source)
    if catalog is None or not all(p.skippable for p in problems):
        return Outcome(problems=problems or [Problem(t.source.describe(), "no catalog")])
    try:
        plan = build_plan(catalog, skip_invalid=t.skip_invalid)
    except StageError as exc:
        return Outcome(problems=exc.problems)
    fs = render_docs(plan, catalog, _templates(t))
    manifest = build_manifest("docs", manifest_options(t), catalog_digest(catalog), fs.files)
    outcome = Outcome(warnings=list(plan.warnings), tools=len(plan.tools))
    if mode is not Mode.WRITE:
        return _compared(t, mode, fs.files, manifest, old, outcome)
    tree = walk(t.output)
    owned = owned_files(t.output, tree, old, set())
    problems = _write(t, tree, fs.files, manifest, owned, set(), expected_others=False)
    if problems:
        return Outcome(problems=problems)
    outcome.written = len(fs.files)
    return outcome


# The summary line names this many renames, then says how many more the manifest lists.
RENAMES_SHOWN = 6


def _shown_name(name: str) -> str:
    """A wire name for a terminal: as it is when plain, else its repr (no control characters), clipped."""
    text = name if name and name.isprintable() and name.strip() == name else repr(name)
    return text if len(text) <= 40 else text[:39] + "…"


def renames_line(renames: Sequence[tuple[str, str]]) -> list[str]:
    """`renamed 3 names: get-x -> get_x_2, class -> class_, ...` (nothing when nothing was renamed)."""
    if not renames:
        return []
    shown = ", ".join(f"{_shown_name(wire)} -> {python}" for wire, python in renames[:RENAMES_SHOWN])
    more = len(renames) - RENAMES_SHOWN
    tail = f", and {more} more (listed in {MANIFEST_NAME})" if more > 0 else ""
    noun = "name" if len(renames) == 1 else "names"
    return [f"renamed {len(renames)} {noun}: {shown}{tail}"]


def _generated_count(catalog: Catalog, warnings: list[Problem]) -> int:
    """Tools that made it into the output (--skip-invalid leaves some out, with a warning each)."""
    skipped = {p.tool for p in warnings if p.tool is not None}
    return sum(1 for t in catalog.tools if t.name not in skipped)
