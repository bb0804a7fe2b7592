"""Protocol core, no I/O: JSON-RPC framing, protocol constants, errors, the JSON-RPC peer (session)
and the Transport port it calls (`transport.py`), results and content blocks, exact JSON Schema
checks. Imports nothing else of the runtime."""
