"""Run every benchmark in bench/ (``*_roundtrip.py`` and ``*_bench.py``), one after another.

    python bench/run_all.py [ARGS...]    # ARGS are passed to every script (e.g. --n 200)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted({*HERE.glob("*_bench.py"), *HERE.glob("*_roundtrip.py")})
    failed = []
    for script in scripts:
        if not script.exists():
            continue
        print(f"== {script.name}", flush=True)
        if subprocess.run([sys.executable, str(script), *sys.argv[1:]]).returncode != 0:
            failed.append(script.name)
        print(flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
