# Entry points for people, CI and tools alike. Each target installs what it
# needs the first time (.venv from requirements.txt, node_modules from
# package-lock.json) and reuses it after.
PYTHON ?= python3
# Silence mkdocs-material's banner about its successor; it is not a build problem.
export NO_MKDOCS_2_WARNING := 1
VENV := .venv
BIN := $(VENV)/bin
PY_DEPS := $(VENV)/.installed
JS_DEPS := node_modules/.installed
BENCH_DEPS := bench/node_modules/.installed

.PHONY: serve build test lint lock bench clean

serve: $(PY_DEPS) $(JS_DEPS)  ## build and serve on http://127.0.0.1:8000 with live reload
	MACROS_ON_ERROR_FAIL=false $(BIN)/mkdocs serve --strict --dirty --dev-addr 127.0.0.1:8000

build: $(PY_DEPS) $(JS_DEPS)  ## write the static site to site/, ready for a CDN
	$(BIN)/mkdocs build --strict --clean

test: $(PY_DEPS) $(JS_DEPS)  ## the whole test suite (needs /usr/bin/chromium)
	$(BIN)/python -m pytest

lint: $(PY_DEPS)  ## the hand-typed-number lint over docs/
	$(BIN)/python -m site_build.lint docs

lock: build  ## after review, accept the numbers the site prints now: numbers.lock from the build's manifest
	$(BIN)/python -m site_build.numbers lock site

bench: $(PY_DEPS) $(JS_DEPS) $(BENCH_DEPS)  ## widget runtime benchmark; prints a table, writes bench/results/
	$(BIN)/python -m bench.runtime

clean:
	rm -rf site build $(VENV) node_modules bench/node_modules

$(PY_DEPS): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(JS_DEPS): package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# Lighthouse for the benchmark only; its own lock file, so the tests never install it.
$(BENCH_DEPS): bench/package-lock.json
	npm ci --prefix bench --no-audit --no-fund
	touch $@
