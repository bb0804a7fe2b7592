"""Protocol core, no I/O: JSON-RPC framing, protocol constants, errors, the JSON-RPC peer (session),
results and content blocks, exact JSON Schema checks."""
