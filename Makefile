# Entry points for people, CI and tools alike. Each target installs what it
# needs the first time (.venv from requirements.txt, node_modules from
# package-lock.json) and reuses it after.
PYTHON ?= python3
# Silence mkdocs-material's banner about its successor; it is not a build problem.
export NO_MKDOCS_2_WARNING := 1
VENV := .venv
BIN := $(VENV)/bin
# Each environment is stamped with the hash of the lock it was installed from, not compared by
# file times: a fresh clone's lock files are newer than any environment, and a worktree's .venv or
# node_modules may be a link to one installed from the same lock.
lock_hash = $(shell sha256sum $(1) | cut -c1-16)
PY_DEPS := $(VENV)/.installed-$(call lock_hash,requirements.txt)
JS_DEPS := node_modules/.installed-$(call lock_hash,package-lock.json)
BENCH_DEPS := bench/node_modules/.installed-$(call lock_hash,bench/package-lock.json)
# The suite on every core (pytest-xdist): the site is built once, by the first worker that needs it,
# and served by the controller for all; each worker keeps one browser; a worker that is free takes
# tests from a busy one's share.
TEST_WORKERS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal

.PHONY: serve build test test-fast lint lock bench clean

serve: $(PY_DEPS) $(JS_DEPS)  ## build and serve on http://127.0.0.1:8000 with live reload
	MACROS_ON_ERROR_FAIL=false $(BIN)/mkdocs serve --strict --dirty --dev-addr 127.0.0.1:8000

build: $(PY_DEPS) $(JS_DEPS)  ## write the static site to site/, ready for a CDN
	$(BIN)/mkdocs build --strict --clean

test: $(PY_DEPS) $(JS_DEPS)  ## the whole test suite (needs /usr/bin/chromium)
	$(PYTEST)

test-fast: $(PY_DEPS)  ## the estimators, the widget contract and the layout: no build, no browser, no bench
	$(PYTEST) tests/estimators tests/contract tests/test_layout.py

lint: $(PY_DEPS)  ## the hand-typed-number lint over docs/
	$(BIN)/python -m site_build.lint docs

lock: build  ## after review, accept the numbers the site prints now: numbers.lock from the build's manifest
	$(BIN)/python -m site_build.numbers lock site

bench: $(PY_DEPS) $(JS_DEPS) $(BENCH_DEPS)  ## widget runtime benchmark; prints a table, writes bench/results/
	$(BIN)/python -m bench.runtime

clean:
	rm -rf site build $(VENV) node_modules bench/node_modules

$(PY_DEPS):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed*
	touch $@

$(JS_DEPS):
	npm ci --no-audit --no-fund
	touch $@

# Lighthouse for the benchmark only; its own lock file, so the tests never install it.
$(BENCH_DEPS):
	npm ci --prefix bench --no-audit --no-fund
	touch $@
