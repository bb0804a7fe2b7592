"""Benchmark: cold start of a 50-tool scaffold, and import of a 50-tool generated client.

Server, each start a fresh process, timed from spawn to the answer of its first ``tools/list``
over stdio (``initialize``, then ``notifications/initialized`` and ``tools/list``):

- ours:     ``python -m PKG`` of the package ``mcpgen server`` scaffolds from a synthetic catalog
            with varied schemas (bench/big_catalog.py's: nested objects, enums, arrays, $refs,
            oneOf, output schemas)
- ours+call: the same, timed to the answer of a first ``tools/call`` sent after ``tools/list``
            (the scaffold declares its models on that call: this shows what the deferral moved)
- fastmcp:  FastMCP 4.x serving the same 50 tools as a FastMCP user writes them: typed functions
            (pydantic models for the nested objects), ``@mcp.tool``, ``mcp.run()``
- floor:    a script that imports pydantic, builds one BaseModel and answers ``initialize`` and
            ``tools/list`` from canned JSON: the least any pydantic-based server pays

Client, each a fresh ``python -c``:

- ours:     ``import PKG`` of the client ``mcpgen client`` generates from the same catalog
- ours+tool: the same and the models of its first tool, what a first typed call to that tool
            declares (each tool's models are a module of their own, loaded on first use)
- ours+all: the same and every model of every tool (``from PKG.models import *``)
- floor:    ``from pydantic import BaseModel`` and one model, built and used

Every round runs each command once, the order flipping from round to round; reported are the
medians of each cell and of the per-round ratios (two runs seconds apart share the machine's load).
CPU seconds (user + system, of the child) are shown beside for a figure load moves less.

    python bench/cold_start.py [--tools 50] [--rounds 7] [--json]

Targets (issue 24): server <= 0.5x FastMCP and <= 1.5x the floor; client import with its first
tool's models <= 1.5x the floor. Exit status 1 when a target is missed.

Children run with bytecode caches written and read (PYTHONDONTWRITEBYTECODE removed from their
environment): a user's installed package has them, and without them every run would compile
the generated modules again.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _rows import record  # noqa: E402
from big_catalog import rich_catalog  # noqa: E402

PY = sys.executable
SERVER_PKG = "cold_server"
CLIENT_PKG = "cold_client"
HANDSHAKE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
LIST = [{"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
# The first tool call of "server ours+call": a scaffold declares its models then, not before tools/list.
CALL = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "tool_00000", "arguments": {"query": "x"}},
}

FLOOR_SERVER = '''\
"""The least a pydantic-based stdio server pays: pydantic, one model, canned answers."""
import json
import sys

from pydantic import BaseModel


class Args(BaseModel):
    query: str


Args(query="warm")
with open(sys.argv[1], encoding="utf-8") as f:
    TOOLS = f.read()
INIT = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "floor", "version": "1"}}
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    result = TOOLS if msg["method"] == "tools/list" else json.dumps(INIT)
    sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":%s}\\n' % (json.dumps(msg["id"]), result))
    sys.stdout.flush()
'''

# Every child writes and reads bytecode caches, as an installed package does (see the docstring).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
# What a first typed call to tool_00000 declares (its Args and Result models).
FIRST_TOOL_MODELS = "Tool00000Args, Tool00000Result"
FLOOR_IMPORT = "from pydantic import BaseModel\nclass Args(BaseModel):\n    query: str\nArgs(query='warm')\n"

# The FastMCP server: the shapes of big_catalog.rich_tool, written the way FastMCP users write them.
FASTMCP_HEAD = """\
from typing import Annotated, Literal, Union

from fastmcp import FastMCP
from pydantic import BaseModel, Field

mcp = FastMCP("cold")


class Point(BaseModel):
    lat: Annotated[float, Field(ge=-90, le=90)]
    lon: Annotated[float, Field(ge=-180, le=180)]


class Owner(BaseModel):
    id: int
    name: str | None = None


class Filter(BaseModel):
    after: str | None = None
    owner: Owner | None = None


class UserTarget(BaseModel):
    kind: Literal["user"]
    id: int


class GroupTarget(BaseModel):
    kind: Literal["group"]
    name: str


class Item(BaseModel):
    sku: str
    qty: Annotated[int, Field(ge=1)]
    where: Point | None = None


class Hit(BaseModel):
    id: str
    score: float | None = None


class Hits(BaseModel):
    hits: list[Hit]
    total: Annotated[int, Field(ge=0)]
    status: Literal["ok", "partial"] | None = None


Tag = Annotated[str, Field(pattern="^[a-z][a-z0-9-]{0,31}$")]
"""

FASTMCP_EXTRA = {
    0: "filter: Filter | None = None",
    1: "target: Union[UserTarget, GroupTarget] | None = None",
    2: "items: Annotated[list[Item], Field(min_length=1)] | None = None",
    3: "labels: dict[str, str] | None = None, priority: Literal[1, 2, 3] | None = None",
    4: "value: str | float | bool | None = None, ratio: Annotated[float, Field(gt=0, le=1)] | None = None",
}


def fastmcp_source(tools: int) -> str:
    parts = [FASTMCP_HEAD]
    for i in range(tools):
        returns = "Hits" if i % 2 == 0 else "str"
        parts.append(
            f"""
@mcp.tool(name="tool_{i:05d}", description="Synthetic tool number {i}, of shape {i % 5}.")
def tool_{i:05d}(
    query: Annotated[str, Field(min_length=1, max_length=200, description="What tool {i} looks for")],
    limit: Annotated[int, Field(ge=1, le=500)] = 20,
    mode: Literal["fast", "exact", "fuzzy", "custom-{i}"] = "fast",
    tags: Annotated[list[Tag], Field(max_length=16)] | None = None,
    where: Point | None = None,
    {FASTMCP_EXTRA[i % 5]},
) -> {returns}:
    raise NotImplementedError
"""
        )
    parts.append('\nif __name__ == "__main__":\n    mcp.run(show_banner=False)\n')
    return "".join(parts)


def prepare(tmp: Path, tools: int) -> dict[str, list[str]]:
    """Write every server and client this bench starts; the commands, by cell."""
    catalog = rich_catalog(tools)
    source = tmp / "tools.json"
    source.write_text(json.dumps(catalog), encoding="utf-8")
    for kind, name in (("server", SERVER_PKG), ("client", CLIENT_PKG)):
        done = subprocess.run(
            [PY, "-m", "mcpgen.cli", kind, str(source), "-o", str(tmp / name)], capture_output=True, text=True, cwd=tmp
        )
        if done.returncode != 0:
            raise SystemExit(f"mcpgen {kind} failed:\n{done.stderr[-2000:]}")
    (tmp / "canned.json").write_text(json.dumps(catalog, separators=(",", ":")), encoding="utf-8")
    (tmp / "floor_server.py").write_text(FLOOR_SERVER, encoding="utf-8")
    (tmp / "fastmcp_server.py").write_text(fastmcp_source(tools), encoding="utf-8")
    return {
        "server ours": [PY, "-m", SERVER_PKG],
        "server ours+call": [PY, "-m", SERVER_PKG],
        "server fastmcp": [PY, "fastmcp_server.py"],
        "server floor": [PY, "floor_server.py", "canned.json"],
        "client ours": [PY, "-c", f"import {CLIENT_PKG}"],
        "client ours+tool": [PY, "-c", f"import {CLIENT_PKG}\nfrom {CLIENT_PKG}.models import {FIRST_TOOL_MODELS}"],
        "client ours+all": [PY, "-c", f"import {CLIENT_PKG}\nfrom {CLIENT_PKG}.models import *"],
        "client floor": [PY, "-c", FLOOR_IMPORT],
    }


def _send(proc: subprocess.Popen[bytes], *messages: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"the server closed stdout before answering request {request_id}")
        msg = json.loads(line)
        if msg.get("id") == request_id:
            return msg  # type: ignore[no-any-return]


def first_tools_list(cmd: list[str], cwd: Path, tools: int, call: bool = False) -> tuple[float, float]:
    """Seconds from spawn to the first tools/list answer (`call`: to the answer of a tools/call
    sent after it); the child's CPU seconds."""
    env = {**CHILD_ENV, "FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_SHOW_SERVER_BANNER": "false"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd, env=env
    )
    try:
        _send(proc, HANDSHAKE)
        _answer(proc, 1)
        _send(proc, *LIST)
        listed = _answer(proc, 2)
        if call:
            _send(proc, CALL)
            if "result" not in _answer(proc, 3):
                raise SystemExit(f"{' '.join(cmd)} refused the first tools/call")
        elapsed = time.perf_counter() - start
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    got = len(listed.get("result", {}).get("tools", []))
    if got != tools:
        raise SystemExit(f"{' '.join(cmd)} listed {got} tools, not {tools}")
    return elapsed, usage.ru_utime + usage.ru_stime


def import_run(cmd: list[str], cwd: Path) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stderr=subprocess.PIPE, env=CHILD_ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        assert proc.stderr is not None
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr.read().decode()[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tools", type=int, default=50, help="tools in the catalog (default 50)")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds; medians are reported (default 7)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object too")
    args = ap.parse_args()

    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="mcpgen-bench-") as tmp_name:
        tmp = Path(tmp_name)
        cells = prepare(tmp, args.tools)

        def run(cell: str) -> tuple[float, float]:
            if cell.startswith("server"):
                return first_tools_list(cells[cell], tmp, args.tools, call=cell.endswith("+call"))
            return import_run(cells[cell], tmp)

        for cell in cells:  # once untimed: bytecode caches written, as on a user's machine
            run(cell)
            wall[cell], cpu[cell] = [], []
        order = list(cells)
        for round_no in range(args.rounds):
            for cell in order if round_no % 2 == 0 else order[::-1]:
                w, c = run(cell)
                wall[cell].append(w)
                cpu[cell].append(c)
            print(f"round {round_no + 1}/{args.rounds} done", file=sys.stderr, flush=True)

    print(f"cold start, {args.tools} tools: spawn to first tools/list (server), python -c import (client); "
          f"{args.rounds} interleaved rounds (medians)")  # fmt: skip
    print(f"{'cell':<22}{'wall s':>9}{'cpu s':>9}")
    for cell in wall:
        print(f"{cell:<22}{statistics.median(wall[cell]):>9.3f}{statistics.median(cpu[cell]):>9.3f}")

    def ratio(a: str, b: str, by: dict[str, list[float]]) -> float:
        return statistics.median(x / y for x, y in zip(by[a], by[b], strict=True))

    pairs: dict[str, tuple[str, str, float | None]] = {
        "server ours/fastmcp": ("server ours", "server fastmcp", 0.5),
        "server ours/floor": ("server ours", "server floor", 1.5),
        "server ours+call/floor": ("server ours+call", "server floor", None),
        "client ours+tool/floor": ("client ours+tool", "client floor", 1.5),
        "client ours/floor": ("client ours", "client floor", None),
        "client ours+all/floor": ("client ours+all", "client floor", None),
    }
    print()
    print(f"{'ratio (per-round medians)':<28}{'wall':>8}{'cpu':>8}")
    ratios: dict[str, float] = {}
    for label, (a, b, _) in pairs.items():
        ratios[label] = ratio(a, b, wall)
        print(f"{label:<28}{ratios[label]:>7.2f}x{ratio(a, b, cpu):>7.2f}x")
    print()
    met_all = True
    for label, (a, b, target) in pairs.items():
        met = None if target is None else ratios[label] <= target
        ours, peer = statistics.median(wall[a]), statistics.median(wall[b])
        record(f"{args.tools} tools: {label}", f"{ours:.3f} s", f"{peer:.3f} s", ratios[label],
               "" if target is None else f"<= {target}x", met)  # fmt: skip
        if met is not None:
            met_all &= met
            print(f"{'MET ' if met else 'MISS'} {label} <= {target}x (wall)")
    if args.json:
        print(json.dumps({"tools": args.tools, "wall": wall, "cpu": cpu, "ratios": ratios}))
    return 0 if met_all else 1


if __name__ == "__main__":
    sys.exit(main())
