#!/usr/bin/env bash
# Regenerate the bundled examples and the golden copies after an intended generator change
# (review the diff before committing). Run from anywhere; uses the repo's .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
(cd examples && ../$PY -m mcpgen.cli server weather/schemas -o weather/weather_server)
(cd examples && ../$PY -m mcpgen.cli server conformance/schemas -o conformance/conformance_server)
(cd examples && ../$PY -m mcpgen.cli client conformance/client_tools.yaml -o conformance/conformance_client)
MCPGEN_UPDATE_GOLDEN=1 $PY -m pytest -q tests/golden -k "test_golden and not mypy and not formatter" -p no:cacheprovider
