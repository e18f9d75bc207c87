"""Benchmark: inserting 100,000 verdicts (``VerdictStore.add_file``, one transaction) into SQLite.

Run as a script::

    python benchmarks/bench_verdicts_insert.py [--n 100000]

Writes ``n`` generated reference-domain verdicts (3–8 codes each, see
``bench_verdicts_retrieve.make_verdicts``) to a JSONL file and times ``add_file`` end to end:
reading, JSON parsing, validation against the spec, the duplicate-id check and the insert, on
one pinned core. Same-run baseline: the stdlib ``sqlite3`` ``executemany`` of the same rows,
already serialised, into a bare table of the same columns (the floor any validated insert
sits on). Exits 1 when the insert takes more than 30 s or the store does not hold ``n`` rows.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from _common import one_core, report
from bench_verdicts_retrieve import make_verdicts

TARGET_S = 30.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args(argv)
    one_core()

    from assay.verdicts import VerdictStore

    verdicts = make_verdicts(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = Path(tmp) / "verdicts.jsonl"
        jsonl.write_text("".join(json.dumps(v) + "\n" for v in verdicts), encoding="utf-8")
        store = VerdictStore(f"sqlite:///{Path(tmp) / 'assay.db'}")
        t0 = time.perf_counter()
        inserted = store.add_file(jsonl)
        ours = time.perf_counter() - t0
        held = store.count()

        rows = [(v["id"], json.dumps(v["fields"]), v["decision"], v["rationale"], v["description"]) for v in verdicts]
        con = sqlite3.connect(Path(tmp) / "raw.db")
        con.execute("PRAGMA journal_mode=WAL")
        con.execute(
            "CREATE TABLE v (seq INTEGER PRIMARY KEY, id TEXT, fields TEXT, decision TEXT, rationale TEXT, "
            "description TEXT, UNIQUE(id))"
        )
        t0 = time.perf_counter()
        with con:
            con.executemany("INSERT INTO v (id, fields, decision, rationale, description) VALUES (?, ?, ?, ?, ?)", rows)
        base = time.perf_counter() - t0
        con.close()

    print(f"inserted {inserted:,} verdicts from a {args.n:,}-line JSONL file; store holds {held:,}")
    ok = report(
        "insert 100k verdicts (add_file)",
        ours,
        "s",
        TARGET_S,
        higher_is_better=False,
        baseline=base,
        baseline_name="raw sqlite3 executemany, no validation",
    )
    print(f"throughput: {inserted / ours:,.0f} verdicts/s")
    return 0 if (ok and held == inserted == args.n) else 1


if __name__ == "__main__":
    sys.exit(main())
