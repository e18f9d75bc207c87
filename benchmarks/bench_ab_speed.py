"""Benchmark: write-side experiment speed — ``assign`` in process and ``status`` over 100,000 deliveries.

Run as a script::

    python benchmarks/bench_ab_speed.py [--deliveries 100000] [--units 10000] [--db sqlite:///…]

Starts an experiment in a fresh SQLite file (or ``--db``), writes ``--units`` units' stamped
memories (2 each, through ``stamp`` + ``MemoryStore.add`` on the hashing embedder) and
``--deliveries`` labelled deliveries of them, then times:

- ``ExperimentStore.assign`` (cached config) over 20,000 unit ids — p50, p99 — next to its peer
  measured in the same run, the pure :func:`~assay.memory.experiments.assign` (the cost of the
  cache lookup is the ratio);
- ``ExperimentStore.status`` (median of 5 runs after a warm-up).

Exits 1 when a target is missed: ``assign`` p50 ≤ 0.2 ms; ``status`` ≤ 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sqlalchemy import insert

from assay.memory import MemorySettings, MemoryStore
from assay.memory.experiments import ExperimentStore, assign, stamp
from assay.memory.tables import memory_deliveries

TARGET_ASSIGN_MS = 0.2
TARGET_STATUS_S = 2.0


def _fill(url: str, n_units: int, n_deliveries: int) -> ExperimentStore:
    ab = ExperimentStore(url)
    ab.start(
        "bench",
        control_version="gen-7",
        control_rules="Be brief.",
        candidate_version="gen-7+b3",
        instruction="Record units.",
    )
    store = MemoryStore(url, settings=MemorySettings(embedder="hashing"))
    items: list = []
    ids: list[str] = []
    for u in range(n_units):
        arm = ab.assign("bench", f"unit-{u}")
        mems = [{"id": f"u{u}-m{j}", "text": f"unit {u} remembers fact {j}"} for j in range(2)]
        ids.extend(m["id"] for m in mems)
        items.extend(stamp(mems, arm))
    for i in range(0, len(items), 5000):
        store.add(items[i : i + 5000])
    rng = np.random.default_rng(0)
    now = datetime.now(UTC)
    picks = rng.integers(0, len(ids), size=n_deliveries)
    engaged = rng.random(n_deliveries) < 0.3
    rows = [
        {
            "id": uuid.uuid4().hex,
            "search_id": uuid.uuid4().hex,
            "memory_id": ids[k],
            "query": "q",
            "rank": 1,
            "score": 0.5,
            "score_components": {},
            "arm": "composite",
            "version": "composite-v1",
            "created_at": now,
            "engaged": bool(e),
            "engagement_procedure": "lexical",
            "engaged_method": "lexical",
            "grade": 2 if e else 1,
            "hard_negative": False,
        }
        for k, e in zip(picks.tolist(), engaged.tolist(), strict=True)
    ]
    with store.engine.begin() as conn:
        for i in range(0, len(rows), 1000):
            conn.execute(insert(memory_deliveries), rows[i : i + 1000])
    return ab


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=100_000)
    parser.add_argument("--units", type=int, default=10_000)
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{Path(tmp) / 'ab.db'}"
        t0 = time.perf_counter()
        ab = _fill(url, args.units, args.deliveries)
        print(
            f"# filled {args.units} units, {2 * args.units} memories, {args.deliveries} deliveries "
            f"in {time.perf_counter() - t0:.1f} s"
        )
        cfg = ab.config("bench")
        ab.assign("bench", "warm")
        cached, pure = [], []
        for i in range(20_000):
            t = time.perf_counter_ns()
            ab.assign("bench", f"p{i}")
            cached.append((time.perf_counter_ns() - t) / 1e6)
            t = time.perf_counter_ns()
            assign(cfg, f"p{i}")
            pure.append((time.perf_counter_ns() - t) / 1e6)
        p50 = statistics.median(cached)
        p99 = float(np.percentile(cached, 99))
        p50_pure = statistics.median(pure)
        print(
            f"assign (ExperimentStore, cached config): p50 {p50:.4f} ms, p99 {p99:.4f} ms; "
            f"pure assign p50 {p50_pure:.4f} ms; ratio {p50 / p50_pure:.2f}"
        )
        ab.status("bench")
        runs = []
        for _ in range(5):
            t = time.perf_counter()
            st = ab.status("bench")
            runs.append(time.perf_counter() - t)
        med = statistics.median(runs)
        n = st.arms["A"].deliveries + st.arms["B"].deliveries
        print(f"status over {n} deliveries: median {med:.3f} s (min {min(runs):.3f}, max {max(runs):.3f})")
    failed = []
    if p50 > TARGET_ASSIGN_MS:
        failed.append(f"assign p50 {p50:.4f} ms > {TARGET_ASSIGN_MS} ms")
    if med > TARGET_STATUS_S:
        failed.append(f"status {med:.3f} s > {TARGET_STATUS_S} s")
    for f in failed:
        print(f"TARGET MISSED: {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
