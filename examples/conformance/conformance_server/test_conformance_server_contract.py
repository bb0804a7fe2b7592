"""Contract tests for this server. mcpgen wrote this file once and will never overwrite it.

Run `pytest` in this folder. Every tool is called in memory, in both protocol eras, with
arguments drawn from its inputSchema (its result must match its outputSchema, or be a
ToolError) and with arguments its schema refuses (the isError must name the field). A handler
that still raises NotImplementedError shows up as an expected failure (xfail) until you write it.
"""

from __future__ import annotations

import pytest

try:
    from mcpgen.testing.contract import ContractCase, check_contract, contract_cases
except ImportError:  # a vendored server without mcpgen installed: nothing to run these with
    pytest.skip("the contract tests need mcpgen installed", allow_module_level=True)

from ._generated import build_server
from ._generated.tables import TOOLS_JSON
from .handlers import Handlers

# protocol_error_job fails with a JSON-RPC error on purpose: the tasks-* conformance scenarios
# need a task that fails at the protocol level (handlers.py).
FAILS_ON_PURPOSE = {"protocol_error_job"}


@pytest.mark.parametrize(
    "case", [c for c in contract_cases(TOOLS_JSON) if not (c.valid and c.tool["name"] in FAILS_ON_PURPOSE)], ids=str
)
def test_tool_contract(case: ContractCase) -> None:
    check_contract(lambda: build_server(Handlers()), case)
