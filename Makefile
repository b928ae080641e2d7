# The two commands of the README: `make demo` and `make test`. Both build .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
WHEEL_CHECK := $(PY) tests/wheel_check.py --data ../shared/data
export HF_HUB_OFFLINE ?= 1
export HF_EVALUATE_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export GRADIO_ANALYTICS_ENABLED ?= False
export TOKENIZERS_PARALLELISM ?= false

.PHONY: install test test-fast wheel-check demo spaces screenshots benchmarks clean

$(STAMP): setup.cfg pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[models,test]'
	touch $(STAMP)

install: $(STAMP)

# The wheel check, then the full suite, real-model and slow tests included (this is what CI runs).
test: $(STAMP)
	$(WHEEL_CHECK)
	bash tests/ensure_chromium.sh
	$(PY) -m pytest -q -p no:cacheprovider

# Tiny models only.
test-fast: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m "not real_model and not slow and not browser"

# Build the wheel, install it into a fresh environment outside the checkout and use it from an empty folder.
wheel-check: $(STAMP)
	$(WHEEL_CHECK)

demo: $(STAMP)
	$(PY) -m gecscore.demo --data ../shared/data

spaces: $(STAMP)
	$(PY) -m gecscore.spaces_build --out build/spaces --constraints constraints.txt

# Refresh the committed spaces/<name>/screenshot.png (the browser tests otherwise write build/screenshots/).
screenshots: $(STAMP)
	bash tests/ensure_chromium.sh
	GECSCORE_SCREENSHOTS=$(CURDIR)/spaces $(PY) -m pytest -q -p no:cacheprovider tests/test_spaces.py \
		-k test_browser_renders_the_example

benchmarks: $(STAMP)
	set -e; for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f; done

clean:
	rm -rf build .pytest_cache
