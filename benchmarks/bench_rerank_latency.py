"""Rerank latency: 20 candidates per query, p95 ≤ 120 ms on CPU (issue #9), fp32 vs int8.

Run as a script::

    python benchmarks/bench_rerank_latency.py [--student DIR] [--queries 100] [--threads 1] [--fp32]

Each timed call is :meth:`CrossEncoderReranker.rerank` of one LoCoMo question against 20
memories of its conversation (real text lengths; synthetic notes without ../shared/data), at
``max_length`` 128, one batch. The model is a deployed student folder when ``--student`` is
given, else the packaged all-MiniLM-L6-v2 loaded as a cross-encoder (untrained head: the same
architecture and cost as a student trained from it). The served configuration — int8 dynamic
quantisation of the linear layers (``RerankerSettings.int8``; ``--fp32`` to serve fp32) — is
checked against the target; the other precision is the same-run baseline. The agreement change
of int8 is reported as the share of candidate pairs whose order int8 keeps from fp32 (the
held-out agreement change of a trained student is in bench_rerank_locomo.py's notes).

Exit 1 when the served configuration's p95 misses 120 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

from _common import SHARED_DATA, report

TARGET_P95_MS = 120.0
N_CANDIDATES = 20


def pools(n: int, seed: int = 0) -> list[tuple[str, list[str]]]:
    """``n`` (question, 20 memory texts of its conversation) pools; synthetic without the data."""
    rng = random.Random(seed)
    loc = SHARED_DATA / "locomo"
    if loc.exists():
        from assay.importers.locomo import import_locomo

        imp = import_locomo(loc)
        by_scope: dict[str, list[str]] = {}
        for m in imp.memories:
            by_scope.setdefault(m["scope"], []).append(m["text"])
        qs = rng.sample(imp.queries, min(n, len(imp.queries)))
        return [(q["query"], rng.sample(by_scope[q["scope"]], N_CANDIDATES)) for q in qs]
    words = "budget offsite invoice catering lisbon april march paid team vegetarian project deadline review".split()
    return [
        (" ".join(rng.choices(words, k=10)) + "?", [" ".join(rng.choices(words, k=18)) for _ in range(N_CANDIDATES)])
        for _ in range(n)
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--student", type=Path, default=None)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a shared, loaded host)")
    ap.add_argument("--fp32", action="store_true", help="serve fp32 (int8 is then the baseline)")
    args = ap.parse_args(argv)
    import torch

    from assay.memory.config import RerankerSettings
    from assay.memory.learning.rerankers import CrossEncoderReranker, Resolution
    from assay.memory.learning.resolution import student_ready
    from assay.memory.retrieval.embeddings import minilm_model_dir

    torch.set_num_threads(args.threads)
    if args.student is not None and not student_ready(args.student):
        print(f"error: {args.student}: not a deployed student")
        return 2
    path, kind = (str(args.student), "student") if args.student else (str(minilm_model_dir()), "small")
    data = pools(args.queries)
    load0 = os.getloadavg()[0]
    name = Path(path).name if args.student else "all-MiniLM-L6-v2 (packaged; untrained head)"
    print(
        f"{len(data)} queries × {N_CANDIDATES} candidates, model {name} ({kind}), {args.threads} thread(s); "
        f"load average {load0:.2f} on {os.cpu_count()} cores"
    )
    lat: dict[bool, np.ndarray] = {}
    scores: dict[bool, list[list[float]]] = {}
    for int8 in (False, True):
        s = RerankerSettings(int8=int8, threads=args.threads, gpu=False)
        r = CrossEncoderReranker(Resolution(kind, path, "cpu", None, 0.5, "bench"), s)
        torch.manual_seed(0)  # without --student the head is untrained: the same random head for both precisions
        r.load()
        for q, c in data[:5]:
            r.rerank(q, c)  # warm-up (and the one-time load)
        ts, sc = [], []
        for q, c in data:
            t = time.perf_counter()
            sc.append(r.rerank(q, c))
            ts.append((time.perf_counter() - t) * 1000)
        lat[int8], scores[int8] = np.asarray(ts), sc
        print(f"  {'int8' if int8 else 'fp32'}: p50 {np.percentile(ts, 50):.1f} ms, p95 {np.percentile(ts, 95):.1f} ms")
    kept = []
    for a, b in zip(scores[False], scores[True], strict=True):
        a, b = np.asarray(a), np.asarray(b)
        i, j = np.triu_indices(len(a), 1)
        kept.append(np.mean(np.sign(a[i] - a[j]) == np.sign(b[i] - b[j])))
    print(
        f"  int8 keeps {np.mean(kept):.3f} of fp32's pairwise candidate orders; "
        f"load average at end {os.getloadavg()[0]:.2f}"
    )
    served = not args.fp32
    ok = report(
        f"rerank {N_CANDIDATES} candidates p95 ({'int8' if served else 'fp32'})",
        float(np.percentile(lat[served], 95)),
        "ms",
        TARGET_P95_MS,
        higher_is_better=False,
        baseline=float(np.percentile(lat[not served], 95)),
        baseline_name="int8" if args.fp32 else "fp32",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
