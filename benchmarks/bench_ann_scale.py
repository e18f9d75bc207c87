"""Benchmark: ranking alone with the in-process HNSW index vs the exact numpy path (issue 19, item 4).

Run as a script::

    python benchmarks/bench_ann_scale.py [--n 100000] [--queries 200] [--k 10] [--million]

Builds a :class:`~assay.memory.retrieval.index.MemoryIndex` of ``n`` synthetic clustered 384-d
unit vectors (500 centres + noise, the same generator as ``bench_memory_search.py``; keywords
and scopes as there) directly (no database: ranking alone, no embedding, no delivery write),
then ranks ``--queries`` query vectors (a centre plus noise) with the composite scorer twice in
the same run: exact (``dense_pool=None``, one matrix–vector product) and approximate
(``ann_source``: the graph's top ``max(k, 16)`` at the beam ``ann_ef_search`` — a scoped query's
first at ``ann_ef_probe`` — re-scored exactly, the index's pooled ranking:
:mod:`assay.memory.retrieval.pooled`), for three kinds of query: plain (no keyword hit, no
scope), scoped (the query's scope holds 1/50 of the rows) and keyword (a keyword of 1/997 of
the rows, plus the scope). A scope above ``SCOPE_SCAN`` rows gets its own graph: the scoped
queries use ``--scopes`` of the 50 scopes (default 5: scopes are assigned independently of the
vectors, so which scope a query names does not change its statistics, and 5 graphs build in a
tenth of the time of 50). Prints the graphs' build time and memory (hnswlib's own estimate:
``index_file_size``), the p50/p95 of both paths and their ratio, and recall@k of the
approximate composite top-k against the exact one. ``--million`` runs n = 1,000,000 (the global graph's
build: ≈ 50 min on 2 threads of a loaded host); ``--graph PATH`` loads the global graph from PATH (and the per-scope
ones from ``PATH.sNN``) when present, else saves them after the build. Targets (issue 19):
approximate p50 ≤ 2 ms and recall@10 ≥ 0.99 for every kind; exits 1 when one is missed.

Beside the wall-clock p50 it prints the approximate path's CPU p50 (``time.thread_time``: the
query thread's own CPU time, which leaves out the time it waited for a core) and the host's
load average: on a shared host of 2 cores at load 4 the wall clock is the CPU time plus the
queue, so the two together say which of them missed a target. The two paths are timed in
separate loops (every exact query of a kind, then every approximate one), as a server answers
searches back to back: an exact scan streams all the vectors (1.5 GB at 1,000,000) through the
caches, and an approximate query timed right after each one measured a cold cache instead (at
1,000,000, load 1.4: p50 1.77 / 2.09 / 3.98 ms for plain / scoped / keyword).
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
sys.path[:0] = [str(REPO / "src"), str(REPO / "benchmarks")]

from assay.memory.config import default_settings  # noqa: E402
from assay.memory.retrieval.ann import ann_source  # noqa: E402
from assay.memory.retrieval.index import IndexRow, MemoryIndex  # noqa: E402
from assay.memory.retrieval.pooled import SCOPE_SCAN  # noqa: E402


def build(n: int, seed: int = 5) -> tuple[MemoryIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(500, 384)).astype(np.float32)
    index = MemoryIndex()
    step = 50_000
    for s in range(0, n, step):
        m = min(step, n - s)
        v = centres[rng.integers(0, 500, size=m)] + 0.6 * rng.normal(size=(m, 384)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        index.upsert(
            [
                IndexRow(
                    s + i,
                    f"m{s + i:07d}",
                    f"item {s + i}",
                    (f"w{(s + i) % 997}",),
                    f"s{(s + i) % 50:02d}",
                    0.5,
                    None,
                    False,
                    False,
                    v[i],
                )
                for i in range(m)
            ]
        )
    q = centres[rng.integers(0, 500, size=400)] + 0.6 * rng.normal(size=(400, 384)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return index, q


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--million", action="store_true", help="n = 1,000,000")
    ap.add_argument(
        "--graph",
        type=Path,
        default=None,
        help="an hnswlib graph file for this n: loaded when present (no build timed), else saved after the build",
    )
    ap.add_argument("--threads", type=int, default=1, help="graph build threads (ann_threads)")
    ap.add_argument("--m", type=int, default=None, help="HNSW degree (ann_m; default: the setting's)")
    ap.add_argument("--ef-construction", type=int, default=None, help="HNSW build beam (default: the setting's)")
    ap.add_argument(
        "--scopes",
        type=int,
        default=5,
        help="scoped/keyword queries use this many of the 50 scopes (each gets its own graph, built once)",
    )
    ap.add_argument(
        "--ef-search", default=None, help="comma-separated HNSW search beams to measure (default: the setting's)"
    )
    a = ap.parse_args()
    n = 1_000_000 if a.million else a.n
    t0 = time.perf_counter()
    index, queries = build(n)
    print(f"index of {n:,} × 384 built in {time.perf_counter() - t0:.1f} s")
    print(f"host: {os.cpu_count()} cores, load average {' / '.join(f'{x:.1f}' for x in os.getloadavg())} (1/5/15 min)")
    hnsw = {"ann_m": a.m, "ann_ef_construction": a.ef_construction}
    s = default_settings(
        embedder="hashing", ann_threshold=1, ann_threads=a.threads, **{k: v for k, v in hnsw.items() if v}
    )
    w = s.weights
    pool = ann_source(index, s)
    assert pool is not None
    graph = index.ann
    loaded = a.graph is not None and a.graph.is_file()
    if loaded:  # the same seed builds the same vectors: a saved graph of this n stands for the build
        graph._g.load_index(str(a.graph), max_elements=n)
        graph.synced, graph._capacity = n, n
    t0 = time.perf_counter()
    graph_pool = pool(queries[0], max(a.k, s.pgvector_candidates))
    build_s = time.perf_counter() - t0
    assert graph_pool is not None
    if a.graph is not None and not loaded:
        graph._g.save_index(str(a.graph))
    how = f"loaded from {a.graph}" if loaded else f"built in {build_s:.1f} s"
    print(
        f"HNSW graph (hnswlib, M={graph._g.M}, ef_construction={graph._g.ef_construction}, "
        f"{s.ann_threads} thread): {how}, {graph._g.index_file_size() / 1e6:.0f} MB "
        f"(vectors {n * 384 * 4 / 1e6:.0f} MB)"
    )
    scopes = [f"s{j:02d}" for j in range(a.scopes)]
    built_s, built, size = 0.0, 0, 0
    for name in scopes:  # the per-scope graphs the scoped queries use, built (or loaded) before timing
        if index.candidate_count(scope=name, restrict=True) <= SCOPE_SCAN:
            continue  # a small scope is scanned, no graph
        code = index._scope_codes[name]
        path = a.graph.with_name(f"{a.graph.name}.{name}") if a.graph is not None else None
        if path is not None and path.is_file():
            sub = graph.scopes[code] = graph.new_scope_graph(code)
            sub._g.load_index(str(path))
            sub.synced, sub._capacity, sub.scope_moves = n, sub._g.get_max_elements(), index.scope_moves
        else:
            t0 = time.perf_counter()
            sub = graph.scope_graph(index, code)
            built_s, built = built_s + time.perf_counter() - t0, built + 1
            if path is not None:
                sub._g.save_index(str(path))
        size += sub._g.index_file_size()
    if graph.scopes:
        print(
            f"per-scope graphs: {len(graph.scopes)} of ~{n // 50:,} rows, {size / 1e6:.0f} MB; {built} built in "
            f"{built_s:.1f} s (M={s.ann_m}, ef_construction={s.ann_ef_construction}, {s.ann_threads} thread; "
            f"{len(scopes)} of the 50 scopes queried)"
        )
    else:
        print(f"no per-scope graph: a scope's {n // 50:,} rows are scanned (SCOPE_SCAN = {SCOPE_SCAN:,})")

    def rank(q: np.ndarray, dense_pool, text: str, scope: str | None) -> list[int]:
        return [
            r.row
            for r in index.rank(
                text,
                q,
                a.k,
                weights=w,
                scope=scope,
                now=0.0,
                half_life_days=30.0,
                dense_pool=dense_pool,
                pool_size=s.pgvector_candidates,
            )
        ]

    def p(xs: list[float], q: float) -> float:
        return float(np.percentile(xs, q))

    # plain: no keyword hit, no scope; scoped: the query's scope (1/50 of the rows) earns w_scope;
    # keyword: a keyword held by 1/997 of the rows (their keyword score 1) on top of the scope
    kinds = {
        "plain": lambda i: ("item", None),
        "scoped": lambda i: ("item", scopes[i % len(scopes)]),
        "keyword": lambda i: (f"w{(7 * i) % 997}", scopes[i % len(scopes)]),
    }
    ok = True
    beams = [int(x) for x in a.ef_search.split(",")] if a.ef_search else [s.ann_ef_search]
    runs = [(b, kind, query) for b in beams for kind, query in kinds.items()]
    for beam, kind, query in runs:
        graph.ef_search = beam
        exact_t, ann_t, ann_cpu, hits, exact = [], [], [], 0, []
        for i, q in enumerate(queries[: a.queries]):  # the exact path first, then the approximate one
            t = time.perf_counter()
            exact.append(rank(q, None, *query(i)))
            exact_t.append((time.perf_counter() - t) * 1000)
        for i, q in enumerate(queries[: a.queries]):
            text, scope = query(i)
            t, c = time.perf_counter(), time.thread_time()
            x = rank(q, pool, text, scope)
            ann_cpu.append((time.thread_time() - c) * 1000)
            ann_t.append((time.perf_counter() - t) * 1000)
            hits += len(set(exact[i]) & set(x))
        recall = hits / (a.k * a.queries)
        e50, x50 = statistics.median(exact_t), statistics.median(ann_t)
        print(
            f"ef {beam:4d} {kind:7s} composite top-{a.k}: exact p50 {e50:.2f} ms p95 {p(exact_t, 95):.2f} ms | "
            f"approx p50 {x50:.2f} ms p95 {p(ann_t, 95):.2f} ms (ratio {x50 / e50:.3f}; CPU p50 "
            f"{statistics.median(ann_cpu):.2f} ms) | recall@{a.k} vs exact {recall:.4f} over {a.queries} queries | "
            f"load {os.getloadavg()[0]:.1f}"
        )
        ok = ok and x50 <= 2.0 and recall >= 0.99
    print("targets (approx p50 <= 2 ms, recall@10 >= 0.99, every kind):", "met" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
