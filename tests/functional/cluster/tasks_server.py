"""The generated conformance server with a short task lease (a dead worker's task is reported
failed after 2 s, not the default 15), run through its own generated `__main__`:

    python tasks_server.py --http --port 8001 --store redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "conformance"))

import conformance_server.__main__ as entry  # noqa: E402
from conformance_server.handlers import Handlers  # noqa: E402

from mcpgen.runtime.support.server import TaskLimits  # noqa: E402


class ShortLeaseHandlers(Handlers):
    TASK_LIMITS = TaskLimits(heartbeat=0.3, lease=2.0)


if __name__ == "__main__":
    entry.Handlers = ShortLeaseHandlers  # type: ignore[misc]
    entry.main()
