"""Benchmark: memory search over 100,000 memories (384-d vectors) — latency, insert time, MiniLM throughput, RSS.

Run as a script::

    python benchmarks/bench_memory_search.py [--n 100000] [--queries 200] [--cores 2] [--blas-threads 1] [--onnx]

Builds a SQLite store in a temporary folder with ``n`` generated memories (12–20 words drawn
Zipf-like from a 20,000-word vocabulary, 50 scopes) and precomputed 384-d unit vectors
(clustered Gaussian, labelled as all-MiniLM-L6-v2 vectors so the store never re-encodes
them), on ``--cores`` pinned cores with ``--blas-threads`` numpy BLAS threads (default 1, as the
memory server runs, ``ServerSettings.blas_threads``: after every call OpenBLAS's idle workers spin
for a while, and on the shared 2-core host, with another job on the second core, a second BLAS
thread took the core from the query embedding and the scan — interleaved searches with the int8
query embedder at 10,000 memories, p50 8.03 ms with 1 thread vs 19.94 ms with 2 at load 2.8–3.5,
8.23 vs 16.65 ms at load 2.0–2.5; with the second core free the two were alike, 7.36 vs 7.25 ms).
Targets (issue #8):

- insert 100,000 precomputed ≤ 120 s (``MemoryStore.add(..., embeddings=...)``: keyword
  derivation, duplicate check, one transaction). Same-run baseline: a bare executemany of
  the same rows.
- composite top-10 p50 ≤ 30 ms excluding the query embedding (query vectors precomputed with
  the real MiniLM): ``MemoryStore.rank`` (ranking + fetching the 10 rows). ``search`` (which
  also writes the 10 deliveries in one transaction) is reported beside it. Same-run
  baseline: the bare numpy floor — one matrix–vector product and ``argpartition`` over the
  same vectors.
- p95 ≤ 60 ms including a MiniLM query embedding: ``search`` end to end with the real model
  (torch on ``--threads`` 1 by default, ``MemorySettings.embed_threads``).
- with ``--onnx`` (issue 19): search p50 ≤ 8 ms including the query embedding by the int8
  ONNX MiniLM (:class:`~assay.memory.retrieval.onnx_embedder.OnnxMiniLMEmbedder`), with its
  ratio to the search with the float32 torch MiniLM; run it with ``--n 10000``. ``rank`` (no
  delivery write), the search with its delivery write fsync'd and a breakdown are printed beside
  it (:func:`_onnx_search`). Measured on the LoCoMo questions (``--n 10000 --onnx --cores 2``,
  the shared 2-core host, another job running beside it), six runs at load 1.9–4.0, each
  alternating with the code before the delivery write's ``synchronous=NORMAL``
  (``MemorySettings.delivery_synchronous``) and the embedder's one-text path: search p50 6.27,
  16.44, 9.81, 6.88, 8.12, 6.48 ms, against 7.36, 13.58, 15.03, 6.76, 7.76, 9.43 ms before — the
  whole-run figures follow the other job's load more than the code. Interleaved in blocks of 25
  searches (the same questions, 1,200 each): p50 7.96 → 7.01 ms at load 1.5, 11.98 → 9.96 ms at
  load 2.4 (the other job busier), 8.79 → 7.00 ms (300 each) at load 3.4: the target holds
  while the second core is mostly free. Where it goes at load 1.7 (p50 of each part inside
  400 searches, 6.45 ms in all): query embedding 2.94 ms, cosine scan 1.13, the rest of the
  ranking 0.39, revision check 0.16, hit rows 0.53, delivery write 0.88 (1.44–1.54 fsync'd).
- reported: cold index load, MiniLM encoding throughput (sentences/s on a 512-memory
  sample), peak RSS.

Needs the ``ml`` extra for the MiniLM parts (exits 1 when missing under CI=true, else skips
them). Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import report

TARGET_INSERT_S = 120.0
TARGET_P50_MS = 30.0
TARGET_P95_MS = 60.0


def pin_cores(n: int) -> int:
    """Pin this process to ``n`` cores (the issue's "2 cores"); returns how many it got."""
    try:
        cores = sorted(os.sched_getaffinity(0))[:n]
        os.sched_setaffinity(0, set(cores))
        return len(cores)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def make_memories(n: int, seed: int = 5) -> tuple[list[dict], np.ndarray]:
    """``n`` memories (texts, 50 scopes) and clustered unit vectors ``(n, 384)`` float32."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i:05d}" for i in range(20_000)])
    p = 1.0 / np.arange(1, 20_001) ** 1.05
    p /= p.sum()
    sizes = rng.integers(12, 21, size=n)
    words = vocab[rng.choice(20_000, size=int(sizes.sum()), p=p)]
    centres = rng.normal(size=(500, 384)).astype(np.float32)
    vecs = centres[rng.integers(0, 500, size=n)] + 0.6 * rng.normal(size=(n, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    mems, pos = [], 0
    for i in range(n):
        text = " ".join(words[pos : pos + sizes[i]])
        pos += sizes[i]
        mems.append({"id": f"m{i:07d}", "text": f"item {i}: {text}", "scope": f"s{i % 50:02d}"})
    return mems, vecs


class PrecomputedQueries:
    """An embedder that returns query vectors computed beforehand with the real model (same name)."""

    def __init__(self, model: str, table: dict[str, np.ndarray]):
        """``table``: query text → its precomputed unit vector."""
        self.model, self.dim, self._table = model, 384, table

    def embed(self, texts):
        return np.stack([self._table[t] for t in texts])


TARGET_ONNX_P50_MS = 8.0


def _p50(xs: list[float]) -> float:
    return statistics.median(xs)


def _locomo_questions() -> list[str]:
    """The LoCoMo questions of ``../shared/data/locomo`` (the issue's "today 17.5 ms" was a LoCoMo
    search), or ``[]`` when the data is absent (1 under CI=true is the caller's)."""
    from _common import SHARED_DATA

    folder = SHARED_DATA / "locomo"
    if not folder.exists():
        return []
    from assay.importers.locomo import import_locomo

    return [q["query"] if isinstance(q, dict) else q.query for q in import_locomo(folder).queries]


def _onnx_search(url: str, settings, n: int, torch_p50: float) -> bool:
    """Issue 19: search p50 at 10,000 memories including the query embedding (int8 ONNX MiniLM).

    What the figure includes: :meth:`MemoryStore.search` — query embedding, index revision
    check, ranking, the hits' rows and the delivery log (10 rows in one transaction, committed
    under ``MemorySettings.delivery_synchronous``, ``NORMAL``: no fsync; the store's engine is
    SQLite's default ``FULL`` for every other write), as the issue's "today in process 17.5 ms"
    (``bench_memory_mem0.py``'s ``store.search``; mem0's 45 ms logs nothing).

    Two query sets: **LoCoMo questions** (real questions, 13 word pieces p50 — the issue's 17.5 ms
    baseline was a LoCoMo search; the reported target figure) and the generated queries (six of a
    memory's pseudo-words such as ``w00322`` plus a counter: 29 word pieces, since each
    pseudo-word splits into four; printed beside it). Beside them: ``rank`` (the same without
    the delivery write), ``search`` with ``delivery_synchronous="FULL"`` (the delivery write
    fsync'd, as before issue 19's last step), and where the time goes, each part timed alone,
    interleaved
    with the others: the embedding, the revision check, the ranking with a precomputed vector,
    the hit rows read cold (``get_many``) and from the store's hit cache. Every search of one
    round uses another query (``4 × --queries`` of each set; the LoCoMo ones wrap past 330).
    """
    from assay.memory import MemoryStore
    from assay.memory.retrieval.onnx_embedder import INT8_FILE, OnnxMiniLMEmbedder
    from assay.memory.retrieval.search import rank_hits

    onnx = OnnxMiniLMEmbedder(threads=1).load()
    store = MemoryStore(url, settings=settings, embedder=onnx)
    fsynced = MemoryStore(url, settings=settings.with_(delivery_synchronous="FULL"), embedder=onnx)
    texts = store.index().texts
    rng = np.random.default_rng(13)
    picks = rng.integers(0, len(texts), size=4 * n)
    generated = [" ".join(texts[j].split()[2:8]) + f" q{k}" for k, j in enumerate(picks)]
    locomo = _locomo_questions()
    if not locomo:
        print("LoCoMo questions: ../shared/data/locomo not found; the generated queries are the figure")
        if os.environ.get("CI") == "true":
            return False
    for st in (store, fsynced):
        st.index()
        for q in generated[:5]:
            st.rank(q, 10)
    keys = ("search", "rank", "fsync", "embed", "sync", "ranking", "rows_cold", "rows_cached")
    t = {(qs, k): [] for qs in ("locomo", "generated") for k in keys}

    def timed(key, fn, *args, **kw):
        t0 = time.perf_counter()
        out = fn(*args, **kw)
        t[key].append((time.perf_counter() - t0) * 1000)
        return out

    sets = [("generated", generated)] + ([("locomo", locomo)] if locomo else [])  # 1,322 questions: 4n of them
    for i in range(n):
        for name, qs in sets:
            q = [qs[(4 * i + j) % len(qs)] for j in range(4)]
            timed((name, "search"), store.search, q[0], 10)
            timed((name, "rank"), store.rank, q[1], 10)
            timed((name, "fsync"), fsynced.search, q[2], 10)
            v = timed((name, "embed"), onnx.embed, [q[3]])[0]
            timed((name, "sync"), store.index)
            hits = timed((name, "ranking"), rank_hits, store, q[3], 10, query_vector=v)
            ids = [h.memory.id for h in hits]
            timed((name, "rows_cold"), store.get_many, ids)
            timed((name, "rows_cached"), store.indexed_memories, ids)
    figure = "locomo" if locomo else "generated"
    for name, _ in sets:
        p = {k: _p50(t[(name, k)]) for k in keys}
        label = "LoCoMo questions" if name == "locomo" else "generated queries"
        print(
            f"{label} ({INT8_FILE}): search p50 {p['search']:.2f} ms (delivery write under synchronous=NORMAL); "
            f"rank, no delivery write {p['rank']:.2f} ms; search with the delivery write fsync'd "
            f"(delivery_synchronous=FULL) {p['fsync']:.2f} ms"
        )
        print(
            f"  where it goes (p50 of each part alone): query embedding {p['embed']:.2f} ms; revision check "
            f"{p['sync']:.3f} ms; ranking, no embedding {p['ranking']:.2f} ms; hit rows read "
            f"cold {p['rows_cold']:.2f} ms, from the hit cache {p['rows_cached']:.3f} ms; delivery write "
            f"~{p['search'] - p['rank']:.2f} ms (search − rank)"
        )
    return report(
        f"search top-10 p50 incl. int8 ONNX query embedding and the delivery write, {figure} queries",
        _p50(t[(figure, "search")]),
        "ms",
        TARGET_ONNX_P50_MS,
        higher_is_better=False,
        baseline=torch_p50,
        baseline_name="the same search with the float32 torch MiniLM, generated queries, p50",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads for MiniLM (MemorySettings.embed_threads; default 1: a one-query embedding gains "
        "nothing from intra-op threads, and their spin-waiting slows the numpy scoring that follows)",
    )
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="numpy's BLAS threads (threadpoolctl; at most --cores). Default 1, as the memory server runs "
        "(ServerSettings.blas_threads): after each call OpenBLAS's idle workers spin, and on a shared "
        "2-core host they took the core from the query embedding and the scan (see the docstring)",
    )
    parser.add_argument(
        "--onnx",
        action="store_true",
        help="also search with the int8 ONNX MiniLM query embedder (the 'onnx' extra; issue 19: p50 <= 8 ms "
        "at 10,000 memories including the query embedding), its p50 beside the float32 torch path's",
    )
    args = parser.parse_args(argv)
    cores = pin_cores(args.cores)
    os.environ.setdefault("OMP_NUM_THREADS", str(cores))
    blas_threads = max(1, min(args.blas_threads, cores))
    try:  # numpy's BLAS pool was sized at import (before the pin): one thread per pinned core unless limited
        from threadpoolctl import threadpool_limits

        threadpool_limits(blas_threads, user_api="blas")
    except ImportError:
        blas_threads = 0  # unknown: the library's default

    from sqlalchemy import create_engine

    from assay.memory import MemorySettings, MemoryStore
    from assay.memory.retrieval.embeddings import MiniLMEmbedder
    from assay.memory.tables import memories as memories_table

    try:
        minilm = MiniLMEmbedder(threads=args.threads).load()
    except ModuleNotFoundError as e:
        print(f"SKIP MiniLM parts: {e}")
        if os.environ.get("CI") == "true":
            return 1
        minilm = None
    model_name = "all-MiniLM-L6-v2"
    mems, vecs = make_memories(args.n)
    rng = np.random.default_rng(9)
    picks = rng.integers(0, args.n, size=args.queries)
    queries = [" ".join(mems[j]["text"].split()[2:8]) + f" q{k}" for k, j in enumerate(picks)]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        settings = MemorySettings(embedder="minilm")
        qvecs = {}
        if minilm is not None:
            qv = minilm.embed(queries)
            qvecs = dict(zip(queries, qv, strict=True))
        else:
            qvecs = dict(zip(queries, vecs[picks], strict=True))
        fast = MemoryStore(url, settings=settings, embedder=PrecomputedQueries(model_name, qvecs))

        t0 = time.perf_counter()
        r = fast.add(mems, embeddings=vecs, embedding_model=model_name)
        insert_s = time.perf_counter() - t0
        assert len(r.added) == args.n, (len(r.added), len(r.merged))

        # same-run baseline for insert: bare executemany of equivalent rows into a fresh table copy
        base_url = f"sqlite:///{Path(tmp) / 'base.db'}"
        eng = create_engine(base_url)
        memories_table.metadata.create_all(eng, tables=[memories_table])
        rows = [
            {
                "id": m["id"],
                "text": m["text"],
                "dedupe_key": f"{i:064d}",
                "keywords": [],
                "keywords_source": "derived",
                "scope": m["scope"],
                "confidence": 0.5,
                "confidence_prior": 0.5,
                "n_corroborations": 0,
                "n_contradictions": 0,
                "is_correction": False,
                "embedding": vecs[i],
                "embedding_model": model_name,
                "revision": 1,
            }
            for i, m in enumerate(mems)
        ]
        t0 = time.perf_counter()
        with eng.begin() as conn:
            conn.execute(memories_table.insert(), rows)
        base_insert_s = time.perf_counter() - t0
        del rows

        store = MemoryStore(url, settings=settings, embedder=PrecomputedQueries(model_name, qvecs))
        t0 = time.perf_counter()
        store.index()
        cold_s = time.perf_counter() - t0
        for q in queries[:10]:
            store.rank(q, 10)
        rank_ms, search_ms = [], []
        for q in queries:
            t0 = time.perf_counter()
            store.rank(q, 10)
            rank_ms.append((time.perf_counter() - t0) * 1000)
        for q in queries:
            t0 = time.perf_counter()
            store.search(q, 10)
            search_ms.append((time.perf_counter() - t0) * 1000)
        mat = store.index()._vec[: args.n]  # the same vectors, for the numpy floor
        floor_ms = []
        for q in queries:
            v = qvecs[q]
            t0 = time.perf_counter()
            s = mat @ v
            top = np.argpartition(-s, 10)[:10]
            top[np.argsort(-s[top])]
            floor_ms.append((time.perf_counter() - t0) * 1000)
        p50_rank, p50_search, p50_floor = (
            statistics.median(rank_ms),
            statistics.median(search_ms),
            statistics.median(floor_ms),
        )

        print(f"store: n={args.n:,} memories, 384-d, {cores} core(s); cold index load {cold_s:.1f} s")
        ok &= report(
            "insert 100k precomputed",
            insert_s,
            "s",
            TARGET_INSERT_S,
            higher_is_better=False,
            baseline=base_insert_s,
            baseline_name="bare executemany of the same rows",
        )
        ok &= report(
            "composite top-10 p50 (rank, no embedding)",
            p50_rank,
            "ms",
            TARGET_P50_MS,
            higher_is_better=False,
            baseline=p50_floor,
            baseline_name="numpy matvec + argpartition floor",
        )
        print(
            f"search top-10 incl. delivery logging, no embedding: p50 {p50_search:.2f} ms, "
            f"p95 {np.percentile(search_ms, 95):.2f} ms"
        )

        if minilm is not None:
            live = MemoryStore(url, settings=settings, embedder=minilm)
            live.index()
            for q in queries[:5]:
                live.search(q, 10)
            full_ms = []
            for q in queries:
                t0 = time.perf_counter()
                live.search(q, 10)
                full_ms.append((time.perf_counter() - t0) * 1000)
            embed_ms = []
            for q in queries[:50]:
                t0 = time.perf_counter()
                minilm.embed([q])
                embed_ms.append((time.perf_counter() - t0) * 1000)
            p95_full = float(np.percentile(full_ms, 95))
            print(f"search top-10 incl. float32 torch MiniLM query embedding: p50 {statistics.median(full_ms):.2f} ms")
            if args.onnx:
                ok &= _onnx_search(url, settings, args.queries, statistics.median(full_ms))
            ok &= report(
                "search top-10 p95 incl. MiniLM query embedding",
                p95_full,
                "ms",
                TARGET_P95_MS,
                higher_is_better=False,
                baseline=float(np.percentile(embed_ms, 95)),
                baseline_name="MiniLM query embedding alone, p95",
            )
            sample = [m["text"] for m in mems[:512]]
            t0 = time.perf_counter()
            minilm.embed(sample)
            tput = len(sample) / (time.perf_counter() - t0)
            print(
                f"MiniLM encoding throughput: {tput:,.0f} sentences/s "
                f"(512 memories, batch {minilm.batch_size}, {cores} core(s))"
            )
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"peak RSS: {rss_mib:,.0f} MiB (includes torch + MiniLM, the generated rows and the baseline copy); "
        f"torch threads {args.threads}; BLAS threads {blas_threads or 'default (no threadpoolctl)'}; "
        f"load average now: {os.getloadavg()[0]:.1f}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
