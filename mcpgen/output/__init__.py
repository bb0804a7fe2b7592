"""Stage 6, output: the package in memory (`files.py`, ruff's formatter), written (`write.py`), compared
(`compare.py`), its manifest (`manifest.py`), what mcpgen may touch (`ownership.py`) and the
user's handlers.py (`handlers_file.py`)."""
