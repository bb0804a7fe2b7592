"""What generated code imports, and nothing else: the stable surface between mcpgen's output
and its runtime.

Generated packages import only from `support.client` (typed clients), `support.server`
(scaffolded servers), `support.models` (the exact-schema check every generated model
runs) and `support.tools` (a code-mode package's tool modules and index). Everything else
in `mcpgen.runtime` may move between releases; these names may not without a regeneration.
A test pins this list (tests/layout/test_layout.py).
"""
