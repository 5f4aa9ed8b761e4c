# wearbench: `make demo` and `make test` are the only commands a new user needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "wearbench needs Python >= 3.11 (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Each stamp records one install; it is redone when pyproject.toml changes.
$(VENV)/.stamp-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[report]"
	@touch $@

$(VENV)/.stamp-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	@touch $@ $(VENV)/.stamp-demo

demo: $(VENV)/.stamp-demo
	$(BIN)/wearbench demo --out demo-output

lint: $(VENV)/.stamp-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -n auto -q

bench: $(VENV)/.stamp-test
	$(BIN)/python benchmarks/synth.py
	$(BIN)/python benchmarks/build.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache .mypy_cache .ruff_cache
