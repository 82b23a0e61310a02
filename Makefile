# make test: create or reuse .venv, install cuzk with its dev extras, run the tests.
# make run:  the main job: a daemon on the smallest workload proving jobs of two kinds and priorities.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
NODE_STAMP := node_modules/.installed-stamp

.PHONY: test run clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# snarkjs (pinned in package-lock.json) for the interoperability tests
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

test: $(STAMP) $(NODE_STAMP)
	$(PY) -m pytest -q

run: $(STAMP)
	$(PY) -m cuzk demo

clean:
	rm -rf $(VENV) build *.egg-info node_modules
