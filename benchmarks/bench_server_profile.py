"""Benchmark: where the memory server's hook time goes, in process (issue 19, the ``type: "http"`` target).

Run as a script::

    python benchmarks/bench_server_profile.py [--n 10000] [--calls 200] [--profile]

Builds a SQLite store of ``n`` memories (LoCoMo observations when ``../shared/data/locomo`` is
there, numbered copies to reach ``n``; generated sentences otherwise) with *synthetic*
unit vectors filed under the MiniLM identity (clustered: 50 centres plus noise, so the
ranking works on realistic geometry without embedding 10,000 texts first), then times, over
``--calls`` prompts, each stage of the ``UserPromptSubmit`` path the way the server runs it
(:class:`assay.server.service.MemoryService` called directly, no HTTP):

- the query embedding: the store's float32 MiniLM (PyTorch) and the server's query embedder
  (:func:`assay.server.query.query_embedder_for`: int8 ONNX when the ``onnx`` extra is
  installed), side by side;
- the ranking alone (precomputed query vector, no delivery write);
- ``MemoryService.search`` (embedding + ranking + delivery-log write);
- :func:`assay.server.hooks.handle_hook` for a ``UserPromptSubmit`` event (all of the above,
  the A/B assignment and the context block).

Prints p50/p95 of each and the ratio of the hook to the float32 embedding alone.
``--profile``: cProfile of the hook calls, top 25 by cumulative time. ``--library-defaults``:
the same without the server's tuning (queries by the float32 embedder, SQLite
``synchronous=FULL``, the BLAS library's thread count) — the "before" of each figure.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src")]

from bench_server_hook import PROMPTS, texts  # noqa: E402  (the same workload as the hook benchmark)


def clustered(n: int, dim: int = 384, centres: int = 50, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centres, dim)).astype(np.float32)
    v = c[rng.integers(0, centres, n)] + 0.5 * rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def timed(f, calls: int) -> list[float]:
    out = []
    for i in range(calls):
        t = time.perf_counter()
        f(i)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument(
        "--library-defaults",
        action="store_true",
        help="serve as before this issue's tuning: float32 query embedding, synchronous=FULL, default BLAS threads",
    )
    a = ap.parse_args()

    from assay.memory import MemoryStore, default_settings
    from assay.memory.retrieval.embeddings import MINILM_IDENTITY
    from assay.memory.retrieval.search import rank_hits
    from assay.server import service as service_mod
    from assay.server.config import ServerSettings
    from assay.server.hooks import SessionMap, handle_hook
    from assay.server.query import query_embedder_for
    from assay.server.run import limit_blas_threads
    from assay.storage import make_engine

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        settings = ServerSettings(token_file=home / "server.token", project_roots=(home,))
        if not a.library_defaults:  # what `assay serve` does (ServerSettings.sqlite_synchronous, blas_threads)
            limit_blas_threads(settings.blas_threads)
        sync = None if a.library_defaults else settings.sqlite_synchronous
        engine = make_engine(f"sqlite:///{home / 'm.db'}", sqlite_synchronous=sync)
        store = MemoryStore(engine, settings=default_settings(embedder="minilm"))
        t0 = time.perf_counter()
        store.add([{"text": t} for t in texts(a.n)], embeddings=clustered(a.n), embedding_model=MINILM_IDENTITY)
        print(f"{a.n:,} memories stored in {time.perf_counter() - t0:.1f} s")
        query_embedder = None if a.library_defaults else query_embedder_for(store, settings)
        svc = service_mod.MemoryService(store, query_embedder=query_embedder)
        t0 = time.perf_counter()
        print("warm-up:", svc.warm_up(), f"in {time.perf_counter() - t0:.1f} s")
        sessions = SessionMap(settings.session_ttl_s)

        def prompt(i: int) -> str:
            return PROMPTS[i % len(PROMPTS)]

        f32 = timed(lambda i: store.embedder.embed([prompt(i)]), a.calls)
        rows = [("query embedding, float32 MiniLM (PyTorch)", f32)]
        if query_embedder is not None:
            name = f"query embedding, server ({query_embedder.runtime})"
            rows.append((name, timed(lambda i: query_embedder.embed([prompt(i)]), a.calls)))
        qv = (query_embedder or store.embedder).embed([PROMPTS[0]])[0]
        ranked = timed(lambda i: rank_hits(store, prompt(i), 5, query_vector=qv), a.calls)
        rows.append(("ranking alone (query vector given)", ranked))
        rows.append(("MemoryService.search (embed + rank + log)", timed(lambda i: svc.search(prompt(i), k=5), a.calls)))

        def hook(i: int) -> None:
            ev = {"session_id": f"s{i}", "hook_event_name": "UserPromptSubmit", "cwd": str(home), "prompt": prompt(i)}
            handle_hook(svc, settings, sessions, ev)

        rows.append(("handle_hook UserPromptSubmit (all of it)", timed(hook, a.calls)))
        if a.profile:  # a separate pass: the profiler's overhead stays out of the figures
            prof = cProfile.Profile()
            prof.enable()
            timed(hook, a.calls)
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
    base = statistics.median(f32)
    print(f"\n{a.n:,} memories, {a.calls} calls, in process")
    for name, xs in rows:
        print(
            f"{name:46} p50 {statistics.median(xs):8.2f} ms  p95 {float(np.percentile(xs, 95)):8.2f} ms  "
            f"ratio to float32 embedding p50 {statistics.median(xs) / base:.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
