"""`make demo`: scaffold the bundled weather server, generate a typed client from it live, call it.

Each step runs the real `mcpgen` command line, exactly as you would type it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WEATHER = ROOT / "examples" / "weather"
OUT = ROOT / "build" / "demo"


def step(title: str, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    shown = " ".join(shlex.quote(a if a != sys.executable else "python") for a in argv)
    shown = shown.replace("python -m mcpgen.cli", "mcpgen")
    print(f"\n== {title}\n$ (cd {cwd.relative_to(ROOT)} && {shown})", flush=True)
    subprocess.run(argv, cwd=cwd, env=env, check=True)


def main() -> None:
    mcpgen = [sys.executable, "-m", "mcpgen.cli"]
    step(
        "1. (Re)generate the server skeleton from hand-written schemas: handlers.py is yours and stays as it is",
        [*mcpgen, "server", "schemas", "-o", "weather_server"],
        WEATHER,
    )
    step(
        "2. Generate a typed client from the running server (spawned over stdio)",
        [*mcpgen, "client", "-o", str(OUT / "weather_client"), "--", sys.executable, "-m", "weather_server"],
        WEATHER,
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(OUT), os.environ.get("PYTHONPATH", "")])}
    step("3. Call the server through the typed client", [sys.executable, "use_client.py"], WEATHER, env)
    print(
        f"\nThe generated client is in {OUT.relative_to(ROOT)}/weather_client;"
        " the server in examples/weather/weather_server."
    )


if __name__ == "__main__":
    main()
