"""Benchmark: the int8 ONNX MiniLM query embedder vs float32 on LoCoMo (issue 19, item 4).

Run as a script::

    python benchmarks/bench_ann_onnx.py [--data ../shared/data/locomo] [--k 10]

Imports LoCoMo (``assay.importers.locomo``), stores its memories with the float32 MiniLM
(sentence-transformers, torch), then in the same run:

- agreement: the cosine between the int8 ONNX and float32 embeddings of every LoCoMo query (one
  at a time, as a search embeds it, and in batches: ONNX Runtime's dynamic quantisation scales
  activations per batch) and of 1,000 memory texts (min, 1st percentile, mean) — target min ≥
  0.99 on the queries, both ways;
- retrieval: composite recall@10 over categories 1–4 (search within each conversation) with the
  query embedded by float32 and by int8 ONNX, the stored vectors being the same float32 ones
  (both embedders are ``all-MiniLM-L6-v2``) — target: int8 not lower by more than 0.005;
- latency: one-query embedding p50 for both on one thread (ratio printed).

Exits 1 when a target is missed. Needs the ``ml`` and ``onnx`` extras and ``../shared/data/locomo``;
the ONNX export is cached under ``$ASSAY_HOME/cache/onnx`` (first run: ~1 min).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "benchmarks")]

from _common import shared_data_or_exit  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--k", type=int, default=10)
    a = ap.parse_args(argv)
    data = a.data or shared_data_or_exit("locomo")
    from assay.importers.locomo import import_locomo
    from assay.memory import MemorySettings, MemoryStore
    from assay.memory.retrieval.embeddings import MiniLMEmbedder
    from assay.memory.retrieval.evaluate import Query, evaluate_retrieval
    from assay.memory.retrieval.onnx_embedder import INT8_FILE, OnnxMiniLMEmbedder

    fp32 = MiniLMEmbedder(threads=1).load()
    t0 = time.perf_counter()
    int8 = OnnxMiniLMEmbedder(threads=1).load()
    print(f"int8 ONNX model ready in {time.perf_counter() - t0:.1f} s (export cached after the first run)")
    imp = import_locomo(data)
    queries = [Query.model_validate(q) for q in imp.queries]
    main_q = [q for q in queries if q.category in ("1", "2", "3", "4")]
    qt = [q.query for q in main_q]
    mt = [m["text"] if isinstance(m, dict) else m.text for m in imp.memories[:1000]]
    q_ref = fp32.embed(qt)
    one = np.concatenate([int8.embed([t]) for t in qt])  # one query at a time, as a search embeds it
    for name, cos in (
        (f"{len(qt)} LoCoMo queries, one at a time", (q_ref * one).sum(axis=1)),
        (f"{len(qt)} LoCoMo queries, batches of {int8.batch_size}", (q_ref * int8.embed(qt)).sum(axis=1)),
        (f"{len(mt)} LoCoMo memories, batches of {int8.batch_size}", (fp32.embed(mt) * int8.embed(mt)).sum(axis=1)),
    ):
        print(
            f"cosine int8 ({OnnxMiniLMEmbedder.runtime}, {INT8_FILE}) vs float32, {name}: min {cos.min():.4f}  "
            f"p1 {np.percentile(cos, 1):.4f}  mean {cos.mean():.4f}"
        )
    q_min = float(min((q_ref * one).sum(axis=1).min(), (q_ref * int8.embed(qt)).sum(axis=1).min()))
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'locomo.db'}"
        store = MemoryStore(url, settings=MemorySettings(embedder="minilm"), embedder=fp32)
        store.add(imp.memories)
        r32 = evaluate_retrieval(store, main_q, k=a.k, ranker="composite")
        onnx_store = MemoryStore(url, settings=MemorySettings(embedder="minilm"), embedder=int8)
        r8 = evaluate_retrieval(onnx_store, main_q, k=a.k, ranker="composite")
    key = f"recall@{a.k}"
    drop = r32[key] - r8[key]
    print(
        f"composite {key}, categories 1-4 (n={r32['n']}): float32 {r32[key]:.4f}  int8 ONNX {r8[key]:.4f}  "
        f"drop {drop:+.4f}"
    )
    lat = {}
    for name, e in (("float32 torch", fp32), ("int8 onnx", int8)):
        ts = []
        for q in qt[:200]:
            t = time.perf_counter()
            e.embed([q])
            ts.append((time.perf_counter() - t) * 1000)
        lat[name] = statistics.median(ts)
        print(f"one-query embedding, {name}: p50 {lat[name]:.2f} ms")
    print(f"ratio int8/float32 p50: {lat['int8 onnx'] / lat['float32 torch']:.3f}")
    ok = q_min >= 0.99 and drop <= 0.005
    print("targets (cosine >= 0.99 on queries, recall@10 drop <= 0.005):", "met" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
