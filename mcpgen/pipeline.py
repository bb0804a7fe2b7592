"""One target through every stage: read its source, generate it in memory, emit it (write,
check or diff).

`mcpgen client`, `mcpgen server`, `mcpgen docs` and `mcpgen generate` all come here, so a target
from pyproject.toml and the same flags on the command line produce the same bytes. Every kind
takes the same path; what differs between kinds is their object's (kinds.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .catalog.model import Catalog, Problem, StageError
from .config import SourceSpec, Target
from .console import console
from .kinds import Kind, Reading, target_formatter, target_kind
from .models import dcg
from .options import Mode
from .output.emit import Destination, FileChange, Folder, emit, open_folder


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

        return load_server(
            spec.config, spec.server or "", connect_timeout=spec.connect_timeout, strict_lists=spec.strict_lists
        )
    if spec.url:
        from .sources.live import load_live_http

        return load_live_http(
            spec.url, headers=dict(spec.headers), connect_timeout=spec.connect_timeout, strict_lists=spec.strict_lists
        )
    if spec.command:
        from .sources.live import load_live

        return load_live(
            spec.command[0],
            spec.command[1:],
            cwd=str(spec.cwd) if spec.cwd else None,
            connect_timeout=spec.connect_timeout,
            record_command=not spec.secret_command,
            strict_lists=spec.strict_lists,
        )
    from .sources.files import load_file, load_many

    if len(spec.files) == 1 and not spec.files[0].is_dir():
        return load_file(spec.files[0])
    return load_many(list(spec.files))


# Catalogs read from files during one run, by source: a client and a server target of the same
# schemas read them once. Only catalogs that no generation has used go in (nothing can have
# changed them), and only for file sources (a live server is asked each time).
SettledSources = dict[SourceSpec, Catalog]


def run_target(t: Target, mode: Mode, cwd: Path, settled: SettledSources | None = None) -> Outcome:
    """Generate `t` in memory, then write it (Mode.WRITE) or compare it with disk (CHECK, DIFF).

    `settled` is shared by the targets of one run (see SettledSources)."""
    folder, problems = open_folder(Destination(t.output, t.display or str(t.output), t.force), cwd)
    if folder is None:
        return Outcome(problems=problems)
    kind = target_kind(t)
    reading = Reading(t.source, load_catalog)
    if kind.settled_by_manifest and mode is not Mode.WRITE and folder.may_settle:
        # Read the source first: when the manifest proves the output current, nothing else runs.
        current = _proven_current(t, kind, folder, reading, settled)
        if current is not None:
            return Outcome(tools=len(current.tools))
    if kind.uses_models:
        # datamodel-code-generator loads in a helper process while the source is read and checked.
        dcg.start()
    try:
        generated = kind.generate(t, reading)
        result = emit(folder, generated.emission, mode)
    except StageError as exc:
        return Outcome(problems=exc.problems)
    finally:
        console.done()
        if kind.uses_models:
            dcg.stop()
    if result.problems:
        return Outcome(problems=result.problems)
    written = mode is Mode.WRITE
    return Outcome(
        warnings=generated.warnings,
        messages=generated.notes + result.messages + (generated.written_notes if written else []),
        changes=result.changes,
        diff=result.diff,
        written=result.written,
        tools=generated.tools,
    )


def _proven_current(
    t: Target, kind: Kind, folder: Folder, reading: Reading, settled: SettledSources | None
) -> Catalog | None:
    """The source's catalog when the manifest proves the output current (nothing differs), else
    None (regenerate): no plan, models or formatting needed.

    The same source, options and generator made this output once, so they would make it again
    (generation is deterministic). A source with problems, refused tools or failed lists goes the full way,
    so --check still prints its warnings."""
    from .catalog.snapshot import catalog_digest

    try:
        console.stage("reading", t.source.describe())
        cached = settled.get(t.source) if settled is not None else None
        reading.loaded = (cached, []) if cached is not None else load_catalog(t.source)
        catalog, problems = reading.loaded
        if catalog is None or problems or catalog.refused or catalog.failed_lists:
            return None
        if not folder.proven_current(kind.name, kind.manifest_options(t), catalog_digest(catalog), target_formatter(t)):
            return None
    finally:
        console.done()
    if settled is not None and t.source.files:
        settled[t.source] = catalog
    return catalog
