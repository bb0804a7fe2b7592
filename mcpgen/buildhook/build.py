"""The targets of a project, generated for its build exactly as `mcpgen generate` writes them.

A build must be reproducible from what the source tree holds, so a target whose source is a live
server (a command, a URL, an mcpServers config) is refused unless the hook's table allows it:
a snapshot (`mcpgen snapshot`) or a schema file is what a build generates from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Target, load_project

HOOK_TABLE = "[tool.hatch.build.hooks.mcpgen]"
ALLOW_LIVE = "allow-live"
TARGETS = "targets"
_KEYS = {ALLOW_LIVE, TARGETS, "dependencies", "require-runtime-dependencies", "require-runtime-features"}


class BuildRefused(Exception):
    """Why the build stops, in one line (the backend shows it, the build exits non-zero)."""


@dataclass(frozen=True)
class HookOptions:
    allow_live: bool = False  # generate from a live server during the build (not reproducible)
    targets: tuple[str, ...] = ()  # only these targets (default: every one)


def hook_options(table: Mapping[str, Any]) -> HookOptions:
    """The hook table's own keys (hatchling's common ones, such as `dependencies`, pass through)."""
    unknown = sorted(str(k) for k in table if k not in _KEYS and k != "enable-by-default")
    if unknown:
        raise BuildRefused(f"{HOOK_TABLE}: unknown option {unknown[0]!r} (known: {ALLOW_LIVE}, {TARGETS})")
    allow = table.get(ALLOW_LIVE, False)
    if not isinstance(allow, bool):
        raise BuildRefused(f"{HOOK_TABLE}: {ALLOW_LIVE!r} must be true or false")
    names = table.get(TARGETS, [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise BuildRefused(f"{HOOK_TABLE}: {TARGETS!r} must be a list of target names")
    return HookOptions(allow_live=allow, targets=tuple(names))


def build_targets(root: Path, options: HookOptions) -> list[Target]:
    """The project's targets the build generates, or BuildRefused naming the first reason not to."""
    project, problems = load_project(root)
    if project is None or problems:
        raise BuildRefused(str(problems[0]) if problems else f"{root}: no [tool.mcpgen] table")
    known = {t.name: t for t in project.targets}
    missing = [n for n in options.targets if n not in known]
    if missing:
        raise BuildRefused(f"{HOOK_TABLE}: no target named {missing[0]!r} (known: {', '.join(sorted(known))})")
    chosen = [known[n] for n in options.targets] if options.targets else list(project.targets)
    for t in chosen:
        if not t.source.files and not options.allow_live:
            raise BuildRefused(
                f"target {t.name}: a build generates from files, not a live server ({t.source.describe()}); "
                f"commit a snapshot (mcpgen snapshot) or set {ALLOW_LIVE} = true in {HOOK_TABLE}"
            )
    return chosen


def generate_for_build(root: Path, options: HookOptions) -> list[str]:
    """Write every chosen target (the bytes and manifest `mcpgen generate` writes); returns their
    output folders relative to `root` (POSIX), for the backend to include in the wheel."""
    from ..options import Mode
    from ..pipeline import SettledSources, run_target

    targets = build_targets(root, options)
    settled: SettledSources = {}
    for t in targets:
        outcome = run_target(t, Mode.WRITE, root, settled)
        if outcome.problems:
            raise BuildRefused(f"target {t.name}: {outcome.problems[0]}" + _more(outcome.problems))
    return [_relative(t.output, root) for t in targets]


def _more(problems: Sequence[object]) -> str:
    return f" (and {len(problems) - 1} more: run mcpgen generate)" if len(problems) > 1 else ""


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise BuildRefused(f"{path}: a build writes its targets inside the project ({root})") from None
