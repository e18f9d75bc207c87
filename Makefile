# Two commands for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-fast bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/assay eval examples/apple_fy2023_memos.jsonl --out out/demo --name demo --baseline single_pass

test: $(STAMP)
	$(BIN)/pytest -q

test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not slow"

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
