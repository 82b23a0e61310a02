# make test: create or reuse .venv, install cuzk with its dev and cluster extras, run the tests.
# make run:  the main job: a daemon proving Filecoin's 2 KiB WindowPoSt and WinningPoSt jobs at two
#            priorities, with test parameters it makes once (installs cuzk alone: no test tools, no Ray).
# make timeline: make run's job with its pipeline trace, plotted into docs/img/demo (the README's picture).
# make docs: regenerate docs/api.md and the operator guide's config reference.
VENV ?= .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
NODE_STAMP := node_modules/.installed-stamp

.PHONY: test run timeline docs clean

# pip and npm print as they go (no -q: an install from scratch takes minutes, which must not pass silently)
PIP := $(PY) -m pip install --progress-bar off --disable-pip-version-check

$(RUN_STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	@echo "make: installing cuzk into $(VENV) (once; a few minutes from scratch)"
	$(PIP) --upgrade pip
	$(PIP) -e .
	touch $(RUN_STAMP)

$(TEST_STAMP): $(RUN_STAMP)
	@echo "make: installing the test and cluster extras into $(VENV) (once)"
	$(PIP) -e '.[dev,cluster]'
	touch $(TEST_STAMP)

# snarkjs (pinned in package-lock.json) for the interoperability tests
$(NODE_STAMP): package.json package-lock.json
	@echo "make: installing snarkjs into node_modules with npm ci (once)"
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

# the suite's kernels compiled first on every core (tests/conftest.py), then the tests on every core
# (pytest-xdist; at most 4 workers: each holds its own numba kernels and daemons)
test: $(TEST_STAMP) $(NODE_STAMP)
	CUZK_TEST_PRECOMPILE=1 $(PY) -m pytest -q -n logical --maxprocesses=4 --durations=15

run: $(RUN_STAMP)
	$(PY) -m cuzk demo

timeline: $(RUN_STAMP)
	mkdir -p build
	$(PY) -m cuzk demo --trace build/demo-trace.jsonl
	$(PY) -m cuzk bench report build/demo-trace.jsonl --out docs/img/demo

docs: $(TEST_STAMP)
	$(PY) scripts/gen_docs.py

clean:
	rm -rf $(VENV) build *.egg-info node_modules
