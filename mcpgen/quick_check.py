"""`mcpgen generate --check` on an unchanged project, settled before the CLI and the generator load.

A CI step runs this on every push, and nearly always nothing changed. The manifest of each
output folder already says what made it (output/unchanged.py); what is left to learn is whether
the sources still hold the same catalogs. That takes reading them, not checking them: a catalog
whose digest equals the manifest's was checked, tool by tool, when the output was generated
(by this very mcpgen version, or the manifest would not settle anything), so the schemas'
meta-validation, the slowest part of reading, is left out. Nothing here imports click, jinja2,
pydantic, jsonschema, datamodel-code-generator or ruff, and nothing here reports a difference
or an error: any doubt (an option this path does not take, a live source, a source with a
problem, a manifest that does not settle) returns None, and the full command runs from the start
and names what differs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from .config import SourceSpec, Target

_QUIET = ("-q", "--quiet")
EXIT_INTERRUPTED = 130  # as the full command exits on Ctrl-C


def _chosen_targets(args: Sequence[str]) -> tuple[list[str], bool] | None:
    """(the --target names, quiet) of `generate --check [--target NAME]... [-q]`, or None for anything else."""
    if not args or args[0] != "generate" or "--check" not in args:
        return None
    names: list[str] = []
    quiet = False
    rest = iter(args[1:])
    for arg in rest:
        if arg == "--check":
            continue
        if arg in _QUIET:
            quiet = True
        elif arg == "--target":
            name = next(rest, None)
            if name is None or name.startswith("-"):
                return None
            names.append(name)
        elif arg.startswith("--target="):
            names.append(arg.removeprefix("--target="))
        else:
            return None  # --diff, --force, -v, --help, a typo: the full command handles them
    return names, quiet


def _source_digest(source: SourceSpec) -> str | None:
    """The digest of a file source's catalog, its schemas not meta-validated; None on any problem."""
    if not source.files:
        return None  # a live server, a URL or an mcpServers config: asked each time, in full
    from .catalog.snapshot import catalog_digest
    from .sources.files import load_file, load_many

    files = list(source.files)
    if len(files) == 1 and not files[0].is_dir():
        catalog, problems = load_file(files[0], check_schemas=False)
    else:
        catalog, problems = load_many(files, check_schemas=False)
    if catalog is None or problems or catalog.refused or catalog.failed_lists:
        return None
    return catalog_digest(catalog)


def _settled(t: Target, cwd: Path, digests: dict[SourceSpec, str | None]) -> bool:
    """The manifest proves `t`'s output current (the checks of pipeline.run_target's fast path)."""
    from .kinds import target_formatter, target_kind
    from .output.manifest import read_manifest
    from .output.ownership import refuse_dangerous
    from .output.unchanged import proven_current

    kind = target_kind(t)
    if not kind.settled_by_manifest or refuse_dangerous(t.output, cwd) is not None or not t.output.is_dir():
        return False
    old, problems = read_manifest(t.output)
    if old is None or problems:
        return False
    if t.source not in digests:  # a client and a server of the same schemas read them once
        digests[t.source] = _source_digest(t.source)
    digest = digests[t.source]
    options = kind.manifest_options(t)
    return digest is not None and proven_current(t.output, old, kind.name, options, digest, target_formatter(t))


def quick_check(args: Sequence[str]) -> int | None:
    """0 when every chosen target is proven current (each reported up to date), else None."""
    chosen = _chosen_targets(args)
    if chosen is None:
        return None
    names, quiet = chosen
    try:
        from .config import load_project
        from .output.unchanged import manifest_trusted

        if not manifest_trusted():
            return None
        cwd = Path.cwd()
        project, problems = load_project(cwd)
        if project is None or problems:
            return None
        if any(name not in {t.name for t in project.targets} for name in names):
            return None
        targets = [t for t in project.targets if not names or t.name in names]
        digests: dict[SourceSpec, str | None] = {}
        if not all(_settled(t, cwd, digests) for t in targets):
            return None
    except KeyboardInterrupt:
        print("mcpgen: error: interrupted", file=sys.stderr)  # a constant: nothing to sanitise
        return EXIT_INTERRUPTED
    except Exception:
        return None  # the full command reports it properly
    from .console import Verbosity, console

    if quiet:
        console.verbosity = Verbosity.QUIET
    for t in targets:
        label = f"{t.name}: " if t.name else ""
        console.info(f"{label}{t.display or t.output} is up to date")  # as the full command says it
    return 0
