"""Real-data figures on LoCoMo: retrieval (BM25, dense, composite) and engagement precision/recall.

Run as a script::

    python benchmarks/bench_memory_locomo.py [--data ../shared/data/locomo] [--k 10] [--json out.json]

Imports the shared LoCoMo conversations (``assay.importers.locomo``: session observations →
memories, QA → queries whose relevant memories are those whose source dia_ids meet the
evidence), adds the memories to a fresh SQLite store with the packaged all-MiniLM-L6-v2, and in
one run measures:

- Retrieval, search restricted to each question's conversation: recall@5, recall@10,
  nDCG@10, MRR for ``bm25`` (bm25s defaults), ``dense`` (MiniLM cosine) and ``composite``
  (the default weights) over categories 1–4; category 5 (adversarial) separately. Goal
  (issue #8): composite recall@10 ≥ the better of BM25 and dense — the script exits 1 when
  it is not.
- Engagement, categories 1–4: each question is searched (composite top-10, deliveries
  logged), the QA answer is the response and the question the prompt; each delivery's
  ``engaged`` is compared with "the memory is relevant to the QA": precision and recall for
  lexical alone and for lexical + semantic (MiniLM cosine ≥ 0.55), through
  :func:`assay.memory.feedback.engagement.engage`.

Needs the ``ml`` extra and ``../shared/data/locomo``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from _common import shared_data_or_exit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="LoCoMo folder (default ../shared/data/locomo)")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    data = args.data or shared_data_or_exit("locomo")

    from sqlalchemy import select

    from assay.importers.locomo import import_locomo
    from assay.memory import MemorySettings, MemoryStore
    from assay.memory.feedback.engagement import engage
    from assay.memory.retrieval.embeddings import MiniLMEmbedder
    from assay.memory.retrieval.evaluate import Query, evaluate_retrieval
    from assay.memory.tables import memory_deliveries

    try:
        minilm = MiniLMEmbedder().load()
    except ModuleNotFoundError as e:
        print(f"SKIP: {e}")
        return 1 if os.environ.get("CI") == "true" else 0
    t_start = time.perf_counter()
    imp = import_locomo(data)
    queries = [Query.model_validate(q) for q in imp.queries]
    main_q = [q for q in queries if q.category in ("1", "2", "3", "4")]
    adv_q = [q for q in queries if q.category == "5"]
    print(
        f"LoCoMo: {imp.conversations} conversations, {len(imp.memories)} memories, {len(queries)} queries "
        f"({len(main_q)} in categories 1-4, {len(adv_q)} adversarial); left out: {imp.skipped}"
    )
    out: dict = {
        "data": {
            "conversations": imp.conversations,
            "memories": len(imp.memories),
            "queries": len(queries),
            "queries_1_4": len(main_q),
            "queries_5": len(adv_q),
            "skipped": imp.skipped,
        },
        "retrieval": {},
        "engagement": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(
            f"sqlite:///{Path(tmp) / 'locomo.db'}", settings=MemorySettings(embedder="minilm"), embedder=minilm
        )
        t0 = time.perf_counter()
        store.add(imp.memories)
        print(f"added {len(imp.memories)} memories with MiniLM in {time.perf_counter() - t0:.1f} s")
        k = args.k
        keys = ["recall@5", f"recall@{k}", f"ndcg@{k}", "mrr"]
        print(f"\nretrieval, search within each conversation (k={k})")
        print(f"{'ranker':10} {'set':6} {'n':>5} " + " ".join(f"{x:>10}" for x in keys))
        for name, qs in (("1-4", main_q), ("5", adv_q)):
            for ranker in ("bm25", "dense", "composite"):
                r = evaluate_retrieval(store, qs, k=k, ranker=ranker)
                out["retrieval"].setdefault(name, {})[ranker] = r
                print(f"{ranker:10} {name:6} {r['n']:>5} " + " ".join(f"{r[x]:>10.3f}" for x in keys))
        print("\ncategories 1-4, recall@10 per category:")
        for ranker in ("bm25", "dense", "composite"):
            pc = out["retrieval"]["1-4"][ranker]["per_category"]
            print(f"  {ranker:10} " + "  ".join(f"cat {c}: {m[f'recall@{k}']:.3f} (n={m['n']})" for c, m in pc.items()))

        # engagement: deliveries = composite top-10 per question; response = the QA answer
        searches = []
        for q in main_q:
            if q.answer is None or not str(q.answer).strip():
                continue
            res = store.search(q.query, k, scope=q.scope, restrict_to_scope=True)
            searches.append((q, res))
        for procedure, semantic in (("lexical", False), ("lexical+semantic", True)):
            tp = fp = fn = tn = 0
            by_method: dict[str, int] = {}
            for q, res in searches:
                engage(store, res.search_id, str(q.answer), prompt=q.query, semantic=semantic)
                with store.engine.connect() as conn:
                    rows = conn.execute(
                        select(
                            memory_deliveries.c.memory_id,
                            memory_deliveries.c.engaged,
                            memory_deliveries.c.engaged_method,
                        ).where(memory_deliveries.c.search_id == res.search_id)
                    ).all()
                rel = set(q.relevant)
                for r in rows:
                    truth = r.memory_id in rel
                    tp += r.engaged and truth
                    fp += r.engaged and not truth
                    fn += (not r.engaged) and truth
                    tn += (not r.engaged) and not truth
                    if r.engaged:
                        by_method[r.engaged_method] = by_method.get(r.engaged_method, 0) + 1
            prec = tp / (tp + fp) if tp + fp else None
            rec = tp / (tp + fn) if tp + fn else None
            out["engagement"][procedure] = {
                "precision": prec,
                "recall": rec,
                "tp": tp,
                "fp": fp,
                "fn": fn,
                "tn": tn,
                "engaged_by_method": by_method,
                "searches": len(searches),
            }
        print(
            f"\nengagement vs. relevance ({len(searches)} questions of categories 1-4, "
            f"composite top-{k} delivered, answer as response)"
        )
        for procedure, e in out["engagement"].items():
            print(
                f"  {procedure:18} precision {e['precision']:.3f}  recall {e['recall']:.3f}  "
                f"(tp {e['tp']}, fp {e['fp']}, fn {e['fn']}, tn {e['tn']}; engaged by method {e['engaged_by_method']})"
            )
    r14 = out["retrieval"]["1-4"]
    best = max(r14["bm25"][f"recall@{k}"], r14["dense"][f"recall@{k}"])
    ok = r14["composite"][f"recall@{k}"] >= best
    print(
        f"\ngoal composite recall@{k} {r14['composite'][f'recall@{k}']:.3f} ≥ best of BM25/dense {best:.3f}: "
        f"{'OK' if ok else 'MISSED'}"
        f"  (total {time.perf_counter() - t_start:.0f} s)"
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
