"""Run every benchmark in bench/ (``*_roundtrip.py``, ``*_pair.py`` and ``*_bench.py``), one after another.

    python bench/run_all.py [ARGS...]    # ARGS are passed to every script that takes them (e.g. --n 200)

An option a script does not list in its --help is left out for that script (and said so).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def accepted(script: Path, args: list[str]) -> tuple[list[str], list[str]]:
    """The ARGS this script takes (an option and its value), and the options it does not."""
    help_text = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True).stdout
    known = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", help_text))
    keep: list[str] = []
    dropped: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        has_value = "=" not in arg and i + 1 < len(args) and not args[i + 1].startswith("-")
        group = args[i : i + 2] if arg.startswith("-") and has_value else [arg]
        name = arg.split("=", 1)[0]
        if not arg.startswith("-") or name in known:
            keep += group
        else:
            dropped.append(name)
        i += len(group)
    return keep, dropped


def main() -> int:
    scripts = sorted({*HERE.glob("*_bench.py"), *HERE.glob("*_roundtrip.py"), *HERE.glob("*_pair.py")})
    failed = []
    for script in scripts:
        if not script.exists():
            continue
        print(f"== {script.name}", flush=True)
        args, dropped = accepted(script, sys.argv[1:]) if sys.argv[1:] else ([], [])
        if dropped:
            print(f"(not passed to {script.name}: {', '.join(dropped)})", flush=True)
        if subprocess.run([sys.executable, str(script), *args]).returncode != 0:
            failed.append(script.name)
        print(flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
