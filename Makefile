# The two commands a newcomer needs (see README):
#   make demo   set up, generate a typed client for the bundled example server, call it
#   make test   set up, run every test (what .ci/run runs)
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TASKS_PEER := .venv-fastmcp-tasks

.PHONY: setup demo lint test bench mutate coverage clean

$(STAMP): pyproject.toml runtime/pyproject.toml tests/peers/package.json tests/peers/package-lock.json
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# compat: a plain .pth to the repo, which type checkers follow (setuptools' default
	# editable finder is an import hook that mypy cannot see). Both distributions in one call:
	# mcpgen needs mcpgen-runtime, which no index has but ./runtime (runtime/pyproject.toml).
	$(BIN)/python -m pip install -q -e ./runtime -e '.[test]' --config-settings editable_mode=compat
	cd tests/peers && npm ci --no-audit --no-fund --loglevel=error
	# fastmcp-tasks 4.1.4 pins fastmcp-slim 4.1.4, the test extra fastmcp 4.2.3: the Tasks interop
	# peer gets a venv of its own (tests/runtime/interop/test_interop_fastmcp_tasks.py).
	test -x $(TASKS_PEER)/bin/python || $(PY) -m venv $(TASKS_PEER)
	$(TASKS_PEER)/bin/python -m pip install -q 'fastmcp-tasks==4.1.4'
	# inspector-cli 1.0.3 reads ../package.json relative to its build/ folder's parent.
	cp tests/peers/node_modules/@modelcontextprotocol/inspector-cli/package.json \
	   tests/peers/node_modules/@modelcontextprotocol/package.json
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	$(BIN)/python examples/demo.py

# ruff (format and a small lint rule set), mypy --strict, and pyright's strict mode over the
# runtime ([tool.pyright] in pyproject.toml: what --runtime vendor copies), before any test runs;
# pyright for the config's Python, the oldest supported and the newest it knows as stable
# (tests/layout/test_pyright_runtime.py runs the same three).
lint: setup
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/python -m mypy --strict mcpgen
	$(BIN)/python -m pyright
	$(BIN)/python -m pyright --pythonversion 3.10
	$(BIN)/python -m pyright --pythonversion 3.14

test: lint
	$(BIN)/python -m pytest -q -ra

bench: setup
	$(BIN)/python bench/run_all.py

# Mutation testing (docs/mutation.md), not part of `make test`: one module with
# MODULE=mcpgen/output/ownership.py, else every module of the table in scripts/mutate.py.
mutate: setup
	$(BIN)/python scripts/mutate.py $(MODULE)

# Line and branch coverage of the non-slow tests, Python subprocesses included (docs/coverage.md),
# not part of `make test`; a selection with TESTS=tests/runtime/server.
TESTS ?= tests
coverage: setup
	rm -rf .coverage-data && mkdir .coverage-data
	# The figures are combined and printed even when a test fails; the exit status is pytest's.
	status=0; $(BIN)/python -m coverage run -m pytest -q -m "not slow" -p no:cacheprovider $(TESTS) || status=$$?; \
	$(BIN)/python -m coverage combine -q && $(BIN)/python scripts/coverage_by_package.py; exit $$status

clean:
	rm -rf $(VENV) tests/peers/node_modules $(TASKS_PEER)
