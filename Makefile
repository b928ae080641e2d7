# The two commands of the README: `make demo` and `make test`. Both build .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
WHEEL_CHECK := $(PY) tests/wheel_check.py --data ../shared/data
HUB_CHECK := $(PY) tests/hub_check.py
# The Hub organisation (or user) that `make hub` builds the folders for: evaluate.load("$(ORG)/<name>").
ORG ?= gecscore
export HF_HUB_OFFLINE ?= 1
export HF_EVALUATE_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export GRADIO_ANALYTICS_ENABLED ?= False
export TOKENIZERS_PARALLELISM ?= false

.PHONY: install generate test test-fast test-workers docs wheel-check hub-check dist demo hub spaces screenshots bad-input-doc benchmarks clean

EMBEDDED := packages/gecscore-impara-minilm

# gecscore and, beside it, the separate gecscore-impara-minilm (the `embedded` model; CC BY-NC-SA 4.0), both editable.
$(STAMP): setup.cfg pyproject.toml constraints.txt $(EMBEDDED)/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[models,test,embedded,zh]' -e ./$(EMBEDDED)
	touch $(STAMP)

install: $(STAMP)

# Where `make test`'s time goes (benchmarks/test_time.py): each stage's wall time and load, and pytest's junit.xml.
TIMES := build/test-time
STAGE = $(PYTHON) benchmarks/test_time.py stage --dir $(TIMES) $(1) --
# pytest workers: one per core this process may use (`make test WORKERS=1` runs the suite on one core).
WORKERS ?= $(shell $(PYTHON) -c "import os; print(len(os.sched_getaffinity(0)))")
PYTEST := $(PY) -m pytest -q -p no:cacheprovider -n $(WORKERS) --dist loadgroup --no-loadscope-reorder


# The strict documentation build; one build of the distributions, which the wheel and Hub checks then use side by
# side; then the full suite on every core, real-model and slow tests included (this is what CI runs); at the end,
# where the time went (docs/development.md).
test:
	rm -rf $(TIMES)
	$(call STAGE,install) $(MAKE) --no-print-directory install
	$(call STAGE,docs) $(MAKE) --no-print-directory docs
	$(call STAGE,build) bash -c '$(PY) -m build -q --outdir $(TIMES)/dist . && $(PY) -m build -q --outdir $(TIMES)/dist $(EMBEDDED)'
	$(PYTHON) benchmarks/test_time.py together --dir $(TIMES) "wheel-check=$(WHEEL_CHECK) --dist $(TIMES)/dist" \
		"hub-check=$(HUB_CHECK) --dist $(TIMES)/dist"
	$(call STAGE,chromium) bash tests/ensure_chromium.sh
	$(call STAGE,pytest) $(PYTEST) --junitxml=$(TIMES)/junit.xml
	$(PYTHON) benchmarks/test_time.py report --dir $(TIMES)

# The parity, sharding and bad-input files of the ERRANT-based metrics, run a second time with every ERRANT
# extraction on two worker processes (tests/conftest.py, GECSCORE_TEST_WORKERS): no number depends on the workers.
# About 8.5–12 minutes; `.ci/run` runs it after `make test`, which keeps to its 45-minute budget (docs/development.md).
ON_WORKERS := tests/test_errant_compare.py tests/test_pt_m2.py tests/test_cleme2.py tests/test_uot_errant.py \
	tests/test_error_types.py tests/test_edits.py tests/test_sharded.py tests/test_bad_input.py tests/test_workers.py
test-workers: $(STAMP)
	env GECSCORE_TEST_WORKERS=2 $(PYTEST) $(ON_WORKERS)

# The files that repeat the registry's SPECS (evaluate scripts, card option tables, the README's table of metrics,
# setup.cfg's import contracts), written from them; tests/test_generated.py fails when one is out of date.
generate: $(STAMP)
	$(PY) -m gecscore.generate

# Tiny models only.
test-fast: $(STAMP)
	$(PYTEST) -m "not real_model and not slow and not browser"

# The documentation site (docs/ and the API reference generated from the docstrings, docs/api/) in build/site/,
# built strictly: any warning (a broken link, a docstring that does not match its signature) fails the build.
# NO_MKDOCS_2_WARNING: mkdocs-material's banner about a future mkdocs 2 (no warning about this site).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --quiet

# Build the wheel, install it into a fresh environment outside the checkout and use it from an empty folder.
wheel-check: $(STAMP)
	$(WHEEL_CHECK)

# Serve fresh builds from a local package index (pypiserver) and use every Hub folder as the Hub would.
hub-check: $(STAMP)
	$(HUB_CHECK)

# The release files: sdist + wheel of gecscore and of gecscore-impara-minilm in dist/, checked as a package index would.
dist: $(STAMP)
	rm -rf dist
	$(PY) -m build --outdir dist .
	$(PY) -m build --outdir dist $(EMBEDDED)
	$(PY) -m twine check --strict dist/*

demo: $(STAMP)
	$(PY) -m gecscore.demo --data ../shared/data

# Per metric, build/hub/<name>/: the evaluate module and its Gradio Space in one Hub folder (docs/release.md).
hub: $(STAMP)
	$(PY) -m gecscore.spaces_build --org $(ORG) --out build/hub --constraints constraints.txt

spaces: hub

# Refresh the committed spaces/<name>/screenshot.png (the browser tests otherwise write build/screenshots/).
screenshots: $(STAMP)
	bash tests/ensure_chromium.sh
	GECSCORE_SCREENSHOTS=$(CURDIR)/spaces $(PY) -m pytest -q -p no:cacheprovider tests/test_spaces.py \
		tests/test_spaces_offline_models.py -k test_browser_renders_the_example

# docs/bad-input.md from the cases that tests/test_bad_input.py checks (a test fails when it is out of date).
bad-input-doc: $(STAMP)
	cd tests && ../$(PY) bad_inputs.py --write ../docs/bad-input.md

benchmarks: $(STAMP)
	set -e; for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f; done

clean:
	rm -rf build dist .pytest_cache
