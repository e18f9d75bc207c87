# Two commands for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-fast bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,postgres]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/assay eval examples/apple_fy2023_memos.jsonl --out out/demo --name demo --baseline single_pass

# The PostgreSQL leg runs in a throwaway cluster that the test run starts and removes itself
# (tests/conftest.py); without a PostgreSQL server installed it is skipped, said in one line.
test: $(STAMP)
	$(BIN)/pytest -q

test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not slow"

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
