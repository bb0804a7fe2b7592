"""`python -m mcpgen.cli`: the `mcpgen` command (scripts and tests run it this way)."""

from . import run_and_exit

run_and_exit()
