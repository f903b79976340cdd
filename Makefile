# corpus_pipeline: every target that needs the virtual environment creates it first, so on a fresh
# machine `make demo` and `make test` each work as the first command.

PYTHON      ?= python3
VENV        ?= .venv
PY          := $(VENV)/bin/python
# CPU build by default (installed before the extras, so `torch>=2.4` in [train] adds nothing).
# A GPU user picks a CUDA build, e.g.
#   make setup TORCH_SPEC="torch==2.13.0 --index-url https://download.pytorch.org/whl/cu128"
TORCH_SPEC  ?= torch==2.13.0
# Your own data (every language kept, no mix targets, no training); `make demo` uses configs/demo.yaml.
CONFIG      ?= configs/default.yaml
DEMO_CONFIG ?= configs/demo.yaml
DATA_ROOT   ?= data
RUN_ID      ?= first
RUN_DIR     := $(DATA_ROOT)/runs/$(RUN_ID)
RUNNER      ?= spark
# make package: where the packed env's python link points on the cluster nodes (e.g. /usr); empty keeps
# this machine's interpreter prefix.
PYTHON_PREFIX ?=
# make test: pytest workers (pytest-xdist), each with its own local[2] SparkSession and loopback S3.
# Two on this 2-core machine: 701 s against 1,232 s in one process (much of the suite waits on JVM
# starts and child processes).
TEST_WORKERS ?= 2
# Extra arguments for a stage, e.g. make langid ARGS="--set langid.min_score=0.7"
ARGS        ?=
CLI          = $(VENV)/bin/corpus-pipeline
STAGE_FLAGS  = --config $(CONFIG) --set data_root=$(DATA_ROOT) --set run_id=$(RUN_ID) --runner $(RUNNER) $(ARGS)

export PYSPARK_PYTHON := $(abspath $(PY))
export PYSPARK_DRIVER_PYTHON := $(abspath $(PY))
# Spark talks to itself on loopback only (it would otherwise pick the first non-loopback interface).
export SPARK_LOCAL_IP ?= 127.0.0.1

.DEFAULT_GOAL := help
.PHONY: help setup test test-fast demo lint bench demo-site gates eval-extraction eval-langid eval-pii package clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'
	@$(PYTHON) corpus_pipeline/engine/registry.py --help-lines

# Each step says what it does: the two installs take minutes with nothing else on the screen.
$(VENV)/.installed: pyproject.toml
	@echo "setup 1/4: creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	@echo "setup 2/4: upgrading pip"
	$(PY) -m pip install --quiet --upgrade pip
	@echo "setup 3/4: installing $(TORCH_SPEC) (the largest download)"
	$(PY) -m pip install --quiet $(TORCH_SPEC)
	@echo "setup 4/4: installing the project and its extras (train, embed, dev): the longest step"
	$(PY) -m pip install --quiet -e '.[train,embed,dev]'
	touch $@
	@echo "setup: done; $(VENV)/bin/corpus-pipeline --help, or make demo"

setup: $(VENV)/.installed ## create .venv and install everything (torch first, then the project)

test: $(VENV)/.installed browser-for-tests ## the whole suite, as CI runs it (unit, Spark local[2], real data); its 25 slowest
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=25

# The inner loop: no JVM, no child runs of the CLI, no real-data runs (tests/conftest.py: --fast).
test-fast: $(VENV)/.installed ## unit and single-process tests, no JVM (about 5 minutes on 2 cores)
	$(PY) -m pytest -q --fast $(ARGS)

# The demo's own config and run directory (data/runs/demo), unless CONFIG= or RUN_ID= are given.
demo: CONFIG = $(DEMO_CONFIG)
demo: RUN_ID = demo
demo: $(VENV)/.installed ## serve the demo site, crawl it, run every stage on it, train the tiny model (configs/demo.yaml)
	$(CLI) demo $(STAGE_FLAGS)

lint: $(VENV)/.installed ## ruff
	$(VENV)/bin/ruff check .

# make bench: the list, then the standard set (extract, langid); ARGS go to run_all.py (--quick,
# --reps 3, ...). make bench BENCH=dedup ARGS=--quick: one benchmark of the list, with its options.
bench: $(VENV)/.installed ## list every benchmark and its command, run the standard set (or BENCH=name; see benchmarks/)
	$(PY) benchmarks/run_all.py $(BENCH) $(ARGS)

.PHONY: bench-list
bench-list: $(VENV)/.installed ## every benchmark: name, command, what it measures, how long
	$(PY) benchmarks/run_all.py --list

demo-site: $(VENV)/.installed ## serve the demo site on 127.0.0.1:8765 (Ctrl-C stops it)
	$(CLI) demo-site --port 8765

# One target per stage of the registry (corpus_pipeline/engine/registry.py, readable without the
# venv): `make langid` reads the previous stage's directory of RUN_DIR and writes its own.
# INPUT=... overrides what a stage reads (crawl: a seeds file, also SEEDS=; extract: WARC files).
STAGES      := $(shell $(PYTHON) corpus_pipeline/engine/registry.py)
STAGE_INPUT  = $(or $(INPUT),$(if $(filter crawl,$@),$(SEEDS)))
.PHONY: $(STAGES)
$(STAGES): $(VENV)/.installed
	$(CLI) $@ --run-dir $(RUN_DIR) $(if $(STAGE_INPUT),--input $(STAGE_INPUT)) $(STAGE_FLAGS)

gates: $(VENV)/.installed ## corpus-level quality gates over $(RUN_DIR) (exit 1 when one fails)
	$(CLI) gates $(RUN_DIR) --config $(CONFIG)

.PHONY: report browser-for-tests
report: $(VENV)/.installed ## HTML report of $(RUN_DIR) -> $(RUN_DIR)/report/index.html (PREVIOUS=runs/<id>: drift)
	$(CLI) report $(RUN_DIR) --config $(CONFIG) $(if $(PREVIOUS),--previous $(PREVIOUS)) $(ARGS)

# The report's browser test needs chromium: installed with apt-get when absent and run as root
# (CI); otherwise, or if apt fails, a message and the test skips. Instant when chromium is there.
browser-for-tests: ## install chromium for the report's browser test (root and apt-get only)
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium for the report's browser test"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	      || echo "chromium could not be installed: the report's browser test will skip"; \
	  else echo "chromium absent (installing it needs root and apt-get): the report's browser test will skip"; fi; }

.PHONY: pipeline nightly train
NIGHTLY_CONFIG ?= configs/nightly.yaml
# Training: PRESET picks configs/train_$(PRESET).yaml; NPROC=8 runs torchrun (one process runs the CLI
# alone: a refusal then reads as one line, not a torchrun traceback). TRAIN_OUT: not the pipeline's
# $(RUN_DIR)/train_$(PRESET), so `make train` after `make demo` trains a model of its own.
PRESET      ?= tiny
NPROC       ?= 1
TRAIN_OUT   ?= $(RUN_DIR)/model_$(PRESET)

pipeline: $(VENV)/.installed ## every stage into $(RUN_DIR): INPUT=a.warc.gz,dir/ (default $(DATA_ROOT)/crawl) or SEEDS=file to crawl
	$(CLI) run $(STAGE_FLAGS) $(if $(SEEDS),--set pipeline.seeds=$(SEEDS),--set 'pipeline.inputs=[$(or $(INPUT),$(DATA_ROOT)/crawl)]')

nightly: $(VENV)/.installed ## new files in $(DATA_ROOT)/incoming -> gates -> $(DATA_ROOT)/corpus/CURRENT (exit codes: README)
	$(CLI) nightly --config $(NIGHTLY_CONFIG) --set data_root=$(DATA_ROOT) --runner $(RUNNER) $(ARGS)

train: $(VENV)/.installed ## GPT on the shards $(RUN_DIR) published -> TRAIN_OUT (PRESET=tiny|gpt-124m|..., NPROC=GPUs, RESUME=1)
	$(if $(filter 1,$(NPROC)),$(CLI),$(VENV)/bin/torchrun --standalone --nproc_per_node=$(NPROC) -m corpus_pipeline.cli) \
	  train --shards $(RUN_DIR) --config configs/train_$(PRESET).yaml --out $(TRAIN_OUT) $(if $(RESUME),--resume) $(ARGS)

eval-extraction: $(VENV)/.installed ## extraction P/R/F1 on ../shared/data/web
	$(CLI) eval extraction --warc ../shared/data/web/pages.warc.gz --gold ../shared/data/web/gold.jsonl --config $(CONFIG)

eval-langid: $(VENV)/.installed ## language-ID accuracy on ../shared/data/langid/sentences
	$(CLI) eval langid --sentences ../shared/data/langid/sentences --config $(CONFIG)

eval-dedup: $(VENV)/.installed ## duplicate-detection P/R/F1 per method on ../shared/data/dedup with planted copies
	$(CLI) eval dedup --docs ../shared/data/dedup/web_docs.jsonl --plant 1 --config $(CONFIG)

eval-pii: $(VENV)/.installed ## PII precision/recall on ../shared/data/pii
	$(CLI) eval pii --gold ../shared/data/pii/presidio_synth_dev.json --config $(CONFIG)

package: $(VENV)/.installed ## dist/: the wheel and corpus_pipeline_env.tar.gz for spark-submit --archives (README)
	rm -f dist/corpus_pipeline-*.whl
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir dist .
	cluster/pack_env.sh $(PY) dist/corpus_pipeline-*.whl dist/corpus_pipeline_env.tar.gz $(PYTHON_PREFIX)

clean: ## remove $(DATA_ROOT): every run and crawl, and any file you put there; and caches (not .venv)
	rm -rf $(DATA_ROOT) .pytest_cache .ruff_cache spark-warehouse
