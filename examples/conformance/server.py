"""The conformance suite's server under test: `python examples/conformance/server.py --port N`.

Serves the mcpgen-scaffolded `conformance_server` package over Streamable HTTP at
http://127.0.0.1:N/mcp.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_server.__main__ import main  # noqa: E402

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    known, rest = parser.parse_known_args()
    main(["--http", "--port", str(known.port), *rest])
