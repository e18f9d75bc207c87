"""Benchmark: the memory store's pgvector path vs its numpy path, on one PostgreSQL database (issue 10, item 3).

Run as a script::

    python benchmarks/bench_memory_pgvector.py [--n 100000] [--queries 200] [--k 10]

Starts a throwaway PostgreSQL 16 + pgvector (the build bundled by the PyPI package
``pgserver``; ``shared_buffers`` and ``maintenance_work_mem`` 1 GB, fsync off: a read
benchmark), writes ``n`` generated memories with precomputed 384-d unit vectors (clustered
Gaussian, 500 centres — ``bench_memory_search.make_memories``; synthetic, so recall on real
sentence embeddings may differ) through ``MemoryStore.add``, and ranks the same ``--queries``
query vectors (a centre plus noise, like the memories) with three stores on that database:

- ``pgvector``: the default — dense candidates from the HNSW index (``vector_cosine_ops``,
  ``ef_search`` = ``MemorySettings.pgvector_candidates``, 200 by default), composite in process;
- ``pgvector exact``: the index bypassed (``pgvector_exact``): a full scan and sort in PostgreSQL;
- ``numpy``: ``vector_path="numpy"``, the same-run baseline (one matrix–vector product in process).

Printed: load time (rows + mirror + HNSW build), backfill time (mirror dropped, rebuilt from
``real[]`` at the next start-up), start-up catch-up time; p50/p95 of dense and composite top-k
(``rank_hits`` with the query vector given: ranking + fetching k rows, no embedding) per path
and the ratio pgvector/numpy; recall@k of the approximate path against the exact top-k, for
the store and for the bare SQL top-k at several ``ef_search``; the plan's scan node. No target
is set by the issue: exits 0 unless the pgvector path is not the one the store chose (or, under
CI=true, pgserver is missing).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "benchmarks")]

from bench_memory_search import PrecomputedQueries, make_memories  # noqa: E402
from pg_cluster import pgserver_bin_dir, start_cluster  # noqa: E402

SERVER_SETTINGS = {
    "shared_buffers": "1GB",
    "maintenance_work_mem": "1GB",
    "max_connections": "60",
    "fsync": "off",
    "full_page_writes": "off",
}


def queries(n: int, n_memories: int, seed: int = 21) -> np.ndarray:
    """``n`` query unit vectors drawn like the memories (one of the 500 centres + 0.6 × noise)."""
    rng = np.random.default_rng(5)  # make_memories' generator, replayed up to its centres
    sizes = rng.integers(12, 21, size=n_memories)
    w = 1.0 / np.arange(1, 20_001) ** 1.05
    rng.choice(20_000, size=int(sizes.sum()), p=w / w.sum())
    centres = rng.normal(size=(500, 384)).astype(np.float32)
    q_rng = np.random.default_rng(seed)
    q = centres[q_rng.integers(0, 500, size=n)] + 0.6 * q_rng.normal(size=(n, 384)).astype(np.float32)
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def timed(store, qv: np.ndarray, k: int, ranker: str) -> tuple[list[float], list[list[str]]]:
    """Per-query milliseconds of ``rank_hits`` and the ids it returned."""
    from assay.memory.retrieval.search import rank_hits

    ms, ids = [], []
    for i, v in enumerate(qv):
        t0 = time.perf_counter()
        hits = rank_hits(store, f"w{i:05d} w{(7 * i) % 20000:05d}", k, ranker=ranker, query_vector=v)
        ms.append((time.perf_counter() - t0) * 1000)
        ids.append([h.memory.id for h in hits])
    return ms, ids


def recall(got: list[list], exact: list[list], k: int) -> float:
    return float(np.mean([len(set(g[:k]) & set(e[:k])) / k for g, e in zip(got, exact, strict=True)]))


def p(ms: list[float], q: float) -> float:
    return float(np.percentile(ms, q))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args(argv)
    bin_dir = pgserver_bin_dir()
    if bin_dir is None:
        print("SKIP: the pgvector path needs the PyPI package pgserver (pip install 'assay[dev]')")
        return 1 if os.environ.get("CI") == "true" else 0

    from sqlalchemy import text

    from assay.memory import MemorySettings, MemoryStore

    cluster = start_cluster(bin_dir)
    cluster.settings.update(SERVER_SETTINGS)
    cluster.stop()
    cluster.start()
    try:
        url = cluster.create_database("bench")
        mems, vecs = make_memories(args.n)
        qv = queries(args.queries, args.n)
        emb = PrecomputedQueries("synthetic-384", {})
        base = MemorySettings(embedder="hashing")
        t0 = time.perf_counter()
        writer = MemoryStore(url, settings=base, embedder=emb)
        writer.add(mems, embeddings=vecs)
        load_s = time.perf_counter() - t0
        del mems, vecs
        with writer.engine.begin() as conn:
            conn.execute(text("DROP TABLE memory_vectors"))
        t0 = time.perf_counter()
        pg = MemoryStore(url, settings=base, embedder=emb)
        backfill_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        exact = MemoryStore(url, settings=base.with_(pgvector_exact=True), embedder=emb)
        restart_s = time.perf_counter() - t0
        npy = MemoryStore(url, settings=base.with_(vector_path="numpy"), embedder=emb)
        vp = pg.vector_path
        print(
            f"PostgreSQL {cluster.version} + pgvector {vp.version} (pgserver), {args.n:,} memories × 384-d, "
            f"{os.cpu_count()} cores, server {', '.join(f'{k}={v}' for k, v in SERVER_SETTINGS.items())}"
        )
        print(f"store path: {vp.path} — {vp.detail}")
        if vp.path != "pgvector":
            print("FAIL: the store did not choose the pgvector path")
            return 1
        print(
            f"load {args.n:,} memories through MemoryStore.add (rows, mirror, HNSW build): {load_s:.1f} s; "
            f"backfill (mirror dropped → rebuilt from real[] + HNSW build at start-up): {backfill_s:.1f} s; "
            f"next start-up (catch-up anti-join): {restart_s:.2f} s"
        )
        t0 = time.perf_counter()
        for s in (pg, exact, npy):
            s.index()
        print(f"in-process index load (3 stores): {time.perf_counter() - t0:.1f} s")
        print("plan of the SQL top-k: " + vp.mirror.explain(pg.engine, qv[0], 100).splitlines()[1].strip())
        for s in (pg, exact, npy):  # warm-up: caches, the server's buffers, BLAS
            timed(s, qv[:20], args.k, "dense")

        results = {}
        for ranker in ("dense", "composite"):
            for name, s in (("numpy", npy), ("pgvector", pg), ("pgvector exact", exact)):
                results[(ranker, name)] = timed(s, qv, args.k, ranker)
            ms_np, ids_np = results[(ranker, "numpy")]
            for name in ("pgvector", "pgvector exact"):
                ms, ids = results[(ranker, name)]
                print(
                    f"{ranker} top-{args.k} [{name}]: p50 {statistics.median(ms):.2f} ms, p95 {p(ms, 95):.2f} ms; "
                    f"same-run baseline [numpy path] p50 {statistics.median(ms_np):.2f} ms, p95 {p(ms_np, 95):.2f} ms; "
                    f"ratio p50 {statistics.median(ms) / statistics.median(ms_np):.2f}, "
                    f"p95 {p(ms, 95) / p(ms_np, 95):.2f}; "
                    f"recall@{args.k} vs numpy {recall(ids, ids_np, args.k):.4f}"
                )

        exact_keys = [vp.mirror.top_k(pg.engine, v, args.k, exact=True)[0].tolist() for v in qv]
        for ef in (40, 100, 200, 400):
            ms, got = [], []
            for v in qv:
                t0 = time.perf_counter()
                got.append(vp.mirror.top_k(pg.engine, v, args.k, ef_search=ef)[0].tolist())
                ms.append((time.perf_counter() - t0) * 1000)
            print(
                f"bare SQL top-{args.k}, HNSW ef_search={ef}: recall@{args.k} {recall(got, exact_keys, args.k):.4f}, "
                f"p50 {statistics.median(ms):.2f} ms, p95 {p(ms, 95):.2f} ms"
            )
        ms = []
        for v in qv:
            t0 = time.perf_counter()
            vp.mirror.top_k(pg.engine, v, args.k, exact=True)
            ms.append((time.perf_counter() - t0) * 1000)
        print(f"bare SQL top-{args.k}, exact scan: p50 {statistics.median(ms):.2f} ms, p95 {p(ms, 95):.2f} ms")
    finally:
        cluster.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
