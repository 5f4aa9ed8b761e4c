# wearbench: `make demo` and `make test` are the only commands a new user needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean sysdeps

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "wearbench needs Python >= 3.11 (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Each stamp records one install; it is redone when pyproject.toml changes.
$(VENV)/.stamp-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[report]"
	@touch $@

# llama-cpp-python (the [local] extra) compiles llama.cpp: portable flags, both cores; pip
# caches the built wheel, so only the first install on a machine pays the ~6 minutes.
$(VENV)/.stamp-test: pyproject.toml | $(BIN)/python
	CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install --quiet -e ".[all,dev]"
	@touch $@ $(VENV)/.stamp-demo

demo: $(VENV)/.stamp-demo
	$(BIN)/wearbench demo --out demo-output

lint: $(VENV)/.stamp-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

# Debian packages some tests need, installed here when we may (root + apt): chromium renders the
# HTML report in a test; bubblewrap (bwrap) is agent mode's sandbox (without it agent mode refuses
# to run and its tests fail).
sysdeps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium (report rendering test)"; \
	    apt-get install -y -q chromium >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } || \
	    echo "note: could not install chromium; the report rendering test will be skipped"; \
	  else echo "note: install Debian's chromium to run the report rendering test"; fi; }
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's bubblewrap (agent-mode sandbox)"; \
	    apt-get install -y -q bubblewrap >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q bubblewrap >/dev/null 2>&1; } || \
	    echo "note: could not install bubblewrap; agent mode will refuse to run and its tests fail"; \
	  else echo "note: install bubblewrap (apt-get install bubblewrap) for agent mode and its tests"; fi; }

test: lint sysdeps
	$(BIN)/python -m pytest -n auto -q

bench: $(VENV)/.stamp-test
	$(BIN)/python benchmarks/synth.py
	$(BIN)/python benchmarks/build.py
	$(BIN)/python benchmarks/eval.py
	$(BIN)/python benchmarks/apple_health.py
	$(BIN)/python benchmarks/sim.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache .mypy_cache .ruff_cache
