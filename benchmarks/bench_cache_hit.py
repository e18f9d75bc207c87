"""Benchmark: the memo cache's hit path against its miss path.

Run as a script::

    python benchmarks/bench_cache_hit.py [--facts 500] [--entries 10000] [--runs 2000] [--gate-mode auto]

Builds a SQLite cache (the default store: WAL, in a temporary folder) holding ``--entries``
memos, ``--hot`` of them written through ``get_or_create`` for snapshots of ``--facts`` facts
(the rest are realistic filler rows with their own keys and fingerprints). Each timed request
is one ``MemoCache.get_or_create`` on a random hot key with its snapshot object, so it pays
the whole hit path: the snapshot fingerprint (computed afresh every time), the primary-key
lookup among all entries, the memo's decoding, the re-gate of its answer (10 cited quantities
by default) against the snapshot, and the hit-count update (one commit). The cache's in-process
LRU (snapshot index by fingerprint, the answer's parsed claims by text) is warm, as for the
popular keys a hit path serves; the same hits without it are printed too. Then the miss path is
timed with a ``synthesize`` that sleeps 100 ms (a fast LLM call) on fresh keys.

Targets (exit 1 when missed): hit path p50 <= 1 ms and p99 <= 5 ms. Also printed: the miss/hit
ratio of medians, and the fingerprint and re-gate alone (for the breakdown).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from assay.cache import MemoCache, gate_answer, memo_cache
from assay.cache.soak import format_value
from assay.facts import Fact, Snapshot

TARGET_P50_MS = 1.0
TARGET_P99_MS = 5.0
UNITS = ("USD millions", "%", "USD/share", "ratio", "count", None, "x", "EUR billions")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=500, help="facts per snapshot (default 500)")
    parser.add_argument("--entries", type=int, default=10_000, help="entries in the cache (default 10000)")
    parser.add_argument("--hot", type=int, default=20, help="distinct snapshots requested (default 20)")
    parser.add_argument("--quantities", type=int, default=10, help="quantities stated by each memo (default 10)")
    parser.add_argument("--runs", type=int, default=2000, help="timed hit requests (default 2000)")
    parser.add_argument("--warmup", type=int, default=200, help="untimed hit requests first")
    parser.add_argument("--miss-runs", type=int, default=20, help="timed miss requests (100 ms synthesis each)")
    parser.add_argument("--gate-mode", choices=("auto", "cited", "uncited"), default="auto")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    cited = args.gate_mode != "uncited"

    with tempfile.TemporaryDirectory(prefix="assay-bench-cache-") as tmp:
        cache = MemoCache(f"sqlite:///{Path(tmp) / 'cache.db'}")
        snapshots = [_snapshot(rng, args.facts, i) for i in range(args.hot)]

        def synth(snap: Snapshot) -> str:
            return _answer(snap, args.quantities, cited)

        keys = [f"memo:ID{i:05d}:brief" for i in range(args.hot)]
        for key, snap in zip(keys, snapshots, strict=True):
            r = cache.get_or_create(key, snap, synth, ttl_s=3600, gate_mode=args.gate_mode)
            assert r.status == "miss", (r.status, r.detail)
        _fill(cache, args.entries - args.hot, rng)
        n_rows = _count(cache)

        pairs = list(zip(keys, snapshots, strict=True))

        def hit() -> None:
            key, snap = rng.choice(pairs)
            r = cache.get_or_create(key, snap, synth, ttl_s=3600, gate_mode=args.gate_mode)
            if r.status != "hit":
                raise SystemExit(f"expected a hit, got {r.status}: {r.detail}")

        hit_ms, hit_cpu_ms = _timed(hit, args.runs, args.warmup, cpu=True)
        cold = MemoCache(engine=cache.engine, index_cache_size=0)  # no in-process LRU: a process's first hit per key

        def cold_hit() -> None:
            key, snap = rng.choice(pairs)
            if cold.get_or_create(key, snap, synth, ttl_s=3600, gate_mode=args.gate_mode).status != "hit":
                raise SystemExit("expected a hit without the LRU")

        cold_ms, _ = _timed(cold_hit, max(100, args.runs // 4), 20)

        def slow_synth(snap: Snapshot) -> str:
            time.sleep(0.1)
            return synth(snap)

        counter = iter(range(10**9))

        def miss() -> None:
            key, snap = f"memo:NEW{next(counter)}:brief", rng.choice(snapshots)
            r = cache.get_or_create(key, snap, slow_synth, ttl_s=3600, gate_mode=args.gate_mode)
            if r.status != "miss":
                raise SystemExit(f"expected a miss, got {r.status}: {r.detail}")

        miss_ms, _ = _timed(miss, args.miss_runs, 1)
        fp_ms, _ = _timed(lambda: rng.choice(snapshots).fingerprint(), 500, 20)
        memo_answer = synth(snapshots[0])
        fp0 = snapshots[0].fingerprint()
        regate_ms, _ = _timed(
            lambda: gate_answer(memo_answer, snapshots[0], args.gate_mode, fingerprint=fp0, indexes=cache.indexes),
            500,
            20,
        )

    p50, p99 = _pct(hit_ms, 50), _pct(hit_ms, 99)
    ok = p50 <= TARGET_P50_MS and p99 <= TARGET_P99_MS
    print(
        f"cache: SQLite WAL, {n_rows} entries; snapshots of {args.facts} facts; "
        f"memo states {args.quantities} quantities ({'cited' if cited else 'uncited'}); gate mode {args.gate_mode}"
    )
    print(
        f"hit path   : p50 {p50:7.3f} ms   p99 {p99:7.3f} ms   (n={len(hit_ms)})   "
        f"target p50 <= {TARGET_P50_MS:g} ms, p99 <= {TARGET_P99_MS:g} ms   {'OK' if ok else 'MISSED'}"
    )
    print(
        f"  of which : fingerprint p50 {_pct(fp_ms, 50):.3f} ms; re-gate p50 {_pct(regate_ms, 50):.3f} ms; "
        f"thread CPU p50 {_pct(hit_cpu_ms, 50):.3f} ms (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
    )
    print(
        f"  no LRU   : p50 {_pct(cold_ms, 50):.3f} ms (index_cache_size=0: the snapshot index and the answer's claims "
        f"rebuilt on every hit, as on a process's first hit of a key)"
    )
    print(f"miss path  : p50 {_pct(miss_ms, 50):7.1f} ms   (synthesize sleeps 100 ms; n={len(miss_ms)})")
    print(f"ratio miss/hit (p50): {_pct(miss_ms, 50) / p50:.0f}x")
    return 0 if ok else 1


def _snapshot(rng: random.Random, n: int, salt: int) -> Snapshot:
    facts = [
        Fact(
            id=f"F{i}",
            label=f"Line item {i % 60} | segment {i % 7}",
            value=round(rng.uniform(-1e5, 1e6), rng.randint(0, 2)),
            unit=UNITS[i % len(UNITS)],
            period=f"FY{2014 + (i + salt) % 10}",
        )
        for i in range(n)
    ]
    return Snapshot(facts=tuple(facts), as_of=f"2024-01-{salt % 28 + 1:02d}")


def _answer(snap: Snapshot, k: int, cited: bool) -> str:
    """``k`` sentences stating facts spread over the snapshot (cited ``[F…]`` or not)."""
    step = max(1, len(snap.facts) // k)
    chosen = snap.facts[::step][:k]
    return " ".join(f"The figure is {format_value(f)}" + (f" [{f.id}]." if cited else ".") for f in chosen)


def _fill(cache: MemoCache, n: int, rng: random.Random) -> None:
    """``n`` filler rows: a real memo's JSON under other keys and fingerprints (one transaction)."""
    if n <= 0:
        return
    with cache.engine.begin() as conn:
        template = conn.execute(memo_cache.select().limit(1)).one()._asdict()
        rows = []
        for i in range(n):
            row = dict(template)
            row.update(
                key=f"memo:FILL{i:06d}:{rng.choice(('brief', 'full'))}", fingerprint=f"{rng.getrandbits(256):064x}"
            )
            rows.append(row)
        conn.execute(memo_cache.insert(), rows)


def _count(cache: MemoCache) -> int:
    from sqlalchemy import func, select

    with cache.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(memo_cache)).scalar_one())


def _timed(fn, runs: int, warmup: int, cpu: bool = False) -> tuple[list[float], list[float]]:
    """Wall-clock milliseconds of each run (and this thread's CPU milliseconds when ``cpu``)."""
    for _ in range(warmup):
        fn()
    wall, cpu_ms = [], []
    for _ in range(runs):
        c = time.thread_time() if cpu else 0.0
        t = time.perf_counter()
        fn()
        wall.append((time.perf_counter() - t) * 1e3)
        if cpu:
            cpu_ms.append((time.thread_time() - c) * 1e3)
    return wall, cpu_ms


def _pct(xs: list[float], p: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[p - 1] if p < 100 else max(xs)


if __name__ == "__main__":
    sys.exit(main())
