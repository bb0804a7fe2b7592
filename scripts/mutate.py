"""Mutation testing of the modules that hold mcpgen's rules: do their tests notice a small edit?

    python scripts/mutate.py                                  # every module in TESTS
    python scripts/mutate.py mcpgen/output/ownership.py       # one (or several)
    python scripts/mutate.py mcpgen/catalog/diff.py --list    # the mutants, without running them
    python scripts/mutate.py MODULE --only 3,17 --jobs 1      # some of them
    python scripts/mutate.py MODULE --tests tests/a.py,tests/b.py  # against other tests

Per mutant (one AST edit, scripts/mutation/mutants.py) a fresh pytest process runs the module's
tests (TESTS below) with the mutant loaded in place of the module, in pytest and in every Python
subprocess it starts (scripts/mutation/sitecustomize.py). Killed: the tests fail, or run longer
than the time limit (three times the unmutated run, plus 20 s). Survived: they pass. Not run: no
process loaded the mutant (a selection that does not import the module). Mutants run in
parallel, up to the core count. Prints killed/survived per module and each survivor's line and
edit; exit status 1 when a survivor is left (0 with --list). Not part of `make test`.
See docs/mutation.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "scripts" / "mutation"
sys.path.insert(0, str(HOOK))

from mutants import Point, points  # noqa: E402

# module -> the tests that exercise it (pytest selections, from the repo root).
TESTS: dict[str, tuple[str, ...]] = {
    # The fast in-process tests first: with -x, most mutants are killed before the slow ones run.
    "mcpgen/output/ownership.py": (
        "tests/output/test_ownership_units.py",
        "tests/output/test_ownership_rule.py",
        "tests/output/test_emit.py",
        "tests/output/test_write_interrupted.py",
        "tests/security/test_output_links.py",
    ),
    "mcpgen/output/write.py": (
        "tests/output/test_write_units.py",
        "tests/output/test_write_recover.py",
        "tests/output/test_write_interrupted.py",
        "tests/security/test_output_links.py",
        "tests/output/test_emit.py",
        "tests/output/test_ownership_rule.py",
    ),
    "mcpgen/catalog/diff.py": (
        "tests/catalog/test_diff_schemas.py",
        "tests/catalog/test_diff.py",
        "tests/runtime/client/test_tool_security.py",
    ),
    "mcpgen/runtime/client/tool_security.py": (
        "tests/runtime/client/test_tool_security.py",
        "tests/catalog/test_diff.py",
    ),
    "mcpgen/runtime/core/jsonrpc.py": ("tests/runtime/core/test_jsonrpc.py",),
    "mcpgen/runtime/core/validation.py": (
        "tests/runtime/core/test_validation_units.py",
        "tests/runtime/core/test_validation_jsts.py",
        "tests/runtime/core/test_fast_check.py",
    ),
    "mcpgen/runtime/transports/guard.py": (
        "tests/runtime/transports/test_guard.py",
        "tests/security/test_client_http_limits.py",
        "tests/security/test_client_origin.py",
    ),
    "mcpgen/runtime/server/http/limits.py": ("tests/security/test_http_limits.py",),
    "mcpgen/runtime/server/auth/verify.py": ("tests/runtime/server/auth/test_verify.py",),
    "mcpgen/runtime/server/auth/resource.py": ("tests/runtime/server/auth/test_resource.py",),
    "mcpgen/runtime/client/auth/store.py": (
        "tests/runtime/client/auth/test_token_store.py",
        "tests/runtime/client/auth/test_oauth_pieces.py",
    ),
}
# --assert=plain: pytest rewrites the asserts of mcpgen (its plugin package) with an import hook of
# its own, ahead of the mutant finder; plain asserts fail the same way.
PYTEST = ("-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=", "--assert=plain")


@dataclass(frozen=True)
class Outcome:
    index: int
    point: Point
    verdict: str  # "killed", "timeout" (killed too), "survived", "not run"


def _module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _env(module: str, index: int | None, mark: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HOOK), env.get("PYTHONPATH", "")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if index is not None:
        env["MCPGEN_MUTANT"] = f"{_module_name(module)}:{index}"
        env["MCPGEN_MUTANT_MARK"] = mark
    return env


def _pytest(module: str, index: int | None, timeout: float | None) -> tuple[str, float]:
    with tempfile.TemporaryDirectory(prefix="mutant-") as mark:
        started = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, *PYTEST, *TESTS[module]],
                cwd=ROOT,
                env=_env(module, index, mark),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - started
        took = time.monotonic() - started
        if index is not None and not os.listdir(mark):
            return "not run", took
        return ("survived" if done.returncode == 0 else "killed"), took


def run_module(module: str, jobs: int, only: set[int] | None) -> list[Outcome]:
    listed = points((ROOT / module).read_text(encoding="utf-8"))
    verdict, took = _pytest(module, None, None)
    if verdict != "survived":
        raise SystemExit(f"{module}: its tests fail without any mutant; fix them first")
    limit = 3 * took + 20
    chosen = [i for i in range(len(listed)) if only is None or i in only]
    print(f"{module}: {len(chosen)} mutants, {took:.0f} s unmutated, {jobs} at once", file=sys.stderr, flush=True)

    def one(index: int) -> str:
        verdict = _pytest(module, index, limit)[0]
        # One line per mutant as it ends: a long run shows its progress, and a cut-off run its partial result.
        print(f"  #{index} {verdict}", file=sys.stderr, flush=True)
        return verdict

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        verdicts = list(pool.map(one, chosen))
    return [Outcome(i, listed[i], v) for i, v in zip(chosen, verdicts, strict=True)]


def report(module: str, outcomes: list[Outcome]) -> str:
    killed = sum(o.verdict in ("killed", "timeout") for o in outcomes)
    ran = sum(o.verdict != "not run" for o in outcomes)
    share = f"{100 * killed / ran:.0f}%" if ran else "-"
    lines = [f"{module}: {killed} of {ran} mutants killed ({share}), {ran - killed} survived"]
    lines += [f"  not run  #{o.index} line {o.point.line}: {o.point.edit}" for o in outcomes if o.verdict == "not run"]
    lines += [f"  survived #{o.index} line {o.point.line}: {o.point.edit}" for o in outcomes if o.verdict == "survived"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("modules", nargs="*", help="module paths (default: every module in the table)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants at once (default: cores)")
    parser.add_argument("--only", help="comma-separated mutant numbers")
    parser.add_argument("--list", action="store_true", help="list the mutants and run nothing")
    parser.add_argument(
        "--tests", help="comma-separated pytest selections to run instead of the module's TESTS entry (one module)"
    )
    args = parser.parse_args(argv)
    modules = args.modules or sorted(TESTS)
    unknown = [m for m in modules if m not in TESTS]
    if unknown:
        parser.error(f"no test selection for {', '.join(unknown)} (add it to TESTS in scripts/mutate.py)")
    only = {int(i) for i in args.only.split(",")} if args.only else None
    if args.tests:
        if len(modules) != 1:
            parser.error("--tests needs exactly one module")
        TESTS[modules[0]] = tuple(args.tests.split(","))
    survivors = 0
    for module in modules:
        if args.list:
            for i, p in enumerate(points((ROOT / module).read_text(encoding="utf-8"))):
                print(f"{module} #{i} line {p.line}: {p.edit}")
            continue
        outcomes = run_module(module, max(1, args.jobs), only)
        survivors += sum(o.verdict == "survived" for o in outcomes)
        print(report(module, outcomes), flush=True)
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
