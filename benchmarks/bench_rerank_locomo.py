"""Real-data figures of the student reranker: LoCoMo (train 6 conversations, hold out 2) and Cranfield transfer.

Run as a script (≈ 15–25 min on 2 loaded cores; the bounded options say how to shorten it)::

    python benchmarks/bench_rerank_locomo.py [--data ../shared/data] [--engagement-max-pairs 2000]
        [--cranfield-queries 180] [--threads 2] [--json out.json] [--student-out DIR]

LoCoMo (``../shared/data/locomo``, 8 shared conversations), in one run:

1. Memories (session observations) go into a fresh SQLite store embedded with the packaged
   all-MiniLM-L6-v2. Every question of categories 1–4 is searched within its conversation
   (composite top 10, deliveries logged); the deliveries are graded through the delivery log
   (``apply_grades``): the question's relevant memories grade 3, the other delivered ones
   grade 0; engagement is labelled from the QA answer as the response (lexical + semantic).
2. ``export_labels`` → labels.jsonl; :func:`assay.memory.learning.deploy.train_and_deploy` with
   ``split_by="scope"``, ``holdout=0.25`` (2 of 8 conversations held out, seeded), min gap 2,
   engagement weak labels on the train side: the incumbent is the composite (nothing deployed).
3. Held-out pairwise agreement of the incumbent and the student (as served: int8 on CPU,
   blended with the composite at 0.5; the student alone; both again in fp32 — the agreement
   change of int8); recall@10 / nDCG@10 of the held-out conversations' questions before
   (composite) and after (student re-ranking the composite's 50-candidate pool) — the rejected
   candidate is evaluated too when the gate says no.

Cranfield (``../shared/data/ir_cranfield``, 1,400 aeronautics abstracts, graded qrels):
nDCG@10 (linear gains = the qrels grade 1–4, unjudged = 0; Järvelin & Kekäläinen 2002) of BM25
top-100 (bm25s defaults: Lucene BM25, k1 1.5, b 0.75, lowercase, English stopwords, no
stemming; title + text) vs the same 100 re-ranked by the student alone and blended with BM25
(min-max, 0.5) — what transfer from chat memories to aeronautics abstracts costs; a seeded
random order of the same 100 is the floor of reference.

Exit 0 after printing (these are reported figures, not targets); 1 under CI=true without data.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

from _common import SHARED_DATA, shared_data_or_exit


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None, help="shared data folder (default ../shared/data)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--engagement-max-pairs", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    ap.add_argument("--cranfield-queries", type=int, default=None, help="only the first N Cranfield queries")
    ap.add_argument(
        "--student-out", type=Path, default=None, help="keep the trained student here (default: a temp folder)"
    )
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    data = args.data or SHARED_DATA
    locomo = data / "locomo" if args.data else shared_data_or_exit("locomo")
    cran = data / "ir_cranfield"
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    out: dict = {}
    t_all = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        student_dir = args.student_out or tmpd / "student"
        served = locomo_figures(locomo, tmpd, student_dir, args, out)
        if cran.exists():
            cranfield_figures(cran, served, args, out)
        else:
            print(f"SKIP Cranfield: {cran} not found")
    print(f"\ntotal {time.perf_counter() - t_all:.0f} s; load average at end: {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


def locomo_figures(locomo: Path, tmpd: Path, student_dir: Path, args, out: dict) -> Path:
    from assay.importers.locomo import import_locomo
    from assay.memory import MemorySettings, MemoryStore
    from assay.memory.config import RerankerSettings
    from assay.memory.feedback.engagement import engage
    from assay.memory.feedback.export import export_labels
    from assay.memory.feedback.grades import apply_grades
    from assay.memory.learning.deploy import train_and_deploy
    from assay.memory.learning.pairs import build_dataset, load_labels
    from assay.memory.learning.resolution import configured_reranker
    from assay.memory.learning.train import TrainConfig
    from assay.memory.retrieval.embeddings import MiniLMEmbedder
    from assay.memory.retrieval.evaluate import Query, evaluate_retrieval

    minilm = MiniLMEmbedder(threads=args.threads).load()
    imp = import_locomo(locomo)
    queries = [Query.model_validate(q) for q in imp.queries if str(q["category"]) in ("1", "2", "3", "4")]
    url = f"sqlite:///{tmpd / 'locomo.db'}"
    store = MemoryStore(url, settings=MemorySettings(embedder="minilm"), embedder=minilm)
    t0 = time.perf_counter()
    store.add(imp.memories)
    print(
        f"LoCoMo: {imp.conversations} conversations, {len(imp.memories)} memories, "
        f"{len(queries)} questions (categories 1-4); "
        f"embedded in {time.perf_counter() - t0:.0f} s"
    )
    t0 = time.perf_counter()
    for q in queries:
        res = store.search(q.query, args.k, scope=q.scope, restrict_to_scope=True)
        rel = set(q.relevant)
        apply_grades(
            store, res.search_id, ", ".join(f"{h.memory.id}:{3 if h.memory.id in rel else 0}" for h in res.hits)
        )
        if q.answer is not None and str(q.answer).strip():
            engage(store, res.search_id, str(q.answer), prompt=q.query)
    labels = tmpd / "labels.jsonl"
    n_labels = export_labels(store, labels)
    print(
        f"searched, graded and engagement-labelled in {time.perf_counter() - t0:.0f} s: {n_labels} labelled deliveries"
    )

    settings = RerankerSettings(gpu=False, threads=args.threads)
    config = TrainConfig(seed=args.seed, epochs=args.epochs, max_length=args.max_length, threads=args.threads)
    cand_dir = tmpd / "candidate"
    t0 = time.perf_counter()
    rep = train_and_deploy(
        labels,
        student_dir,
        config=config,
        settings=settings,
        split_by="scope",
        holdout=0.25,
        engagement=True,
        engagement_max_pairs=args.engagement_max_pairs,
        keep_candidate=cand_dir,
    )
    d, ds, tr = rep.decision, rep.dataset, rep.training
    print(
        f"\ntrain+gate in {time.perf_counter() - t0:.0f} s: {ds['train_pairs']} grade pairs + "
        f"{ds['weak_pairs']} weak pairs from "
        f"{ds['train_groups']} conversations; {d.n_pairs} held-out pairs from {ds['heldout_groups']} conversations "
        f"({ds['heldout_queries']} questions)"
    )
    print(
        f"training: {tr['steps']} steps, {tr['seconds']:.0f} s, {tr['pairs_per_s']:.1f} pairs/s, "
        f"loss {tr['epoch_mean_loss']}"
    )
    ci = d.margin_ci or [float("nan")] * 2
    print(
        f"held-out pairwise agreement: incumbent {d.incumbent} {d.incumbent_agreement:.3f}; student as served "
        f"{d.candidate_agreement:.3f} (alone {rep.candidate_raw_agreement:.3f}); margin {d.margin:+.3f} "
        f"[95% CI {ci[0]:+.3f}, {ci[1]:+.3f}]; decision: {'DEPLOYED' if d.deployed else 'not deployed'}"
        f"{' (auto_promote_safe)' if d.auto_promote_safe else ''}"
    )
    out["locomo"] = {
        "labels": n_labels,
        "gate": d.to_dict(),
        "candidate_raw_agreement": rep.candidate_raw_agreement,
        "dataset": ds,
        "training": tr,
    }

    # held-out conversations = the scopes of the held-out pairs (the same seeded split)
    recs = load_labels(labels)
    ds2 = build_dataset(recs, split_by="scope", holdout=0.25, seed=args.seed)
    scope_of = {r.query_id: r.scope for r in recs}
    held_scopes = {scope_of[p.query_id] for p in ds2.heldout}
    hq = [q for q in queries if q.scope in held_scopes]
    served = student_dir if d.deployed else cand_dir
    from assay.memory.learning.deploy import pairwise_agreement, system_scores

    r32 = configured_reranker(RerankerSettings(student_dir=str(served), gpu=False, int8=False, threads=args.threads))
    s32, raw32 = system_scores(ds2.heldout, r32.score_pairs, 0.5)
    a32, a32_raw = pairwise_agreement(ds2.heldout, s32), pairwise_agreement(ds2.heldout, raw32)
    print(
        f"agreement change of int8 (served, the default on CPU) vs fp32 on the same held-out pairs: blended "
        f"{d.candidate_agreement - a32:+.3f} (fp32 {a32:.3f}), "
        f"alone {rep.candidate_raw_agreement - a32_raw:+.3f} (fp32 {a32_raw:.3f})"
    )
    out["locomo"]["fp32_agreement"] = {"served": round(a32, 6), "alone": round(a32_raw, 6)}
    k = args.k
    rows = {}
    rows["composite (before)"] = evaluate_retrieval(store, hq, k=k, ranker="composite")
    for label, w in (("student blend 0.5 (after)", 0.5), ("student alone", 1.0)):
        rr = configured_reranker(
            RerankerSettings(student_dir=str(served), gpu=False, blend_weight=w, threads=args.threads)
        )
        s2 = MemoryStore(url, settings=MemorySettings(embedder="minilm"), embedder=minilm, reranker=rr)
        t0 = time.perf_counter()
        rows[label] = evaluate_retrieval(s2, hq, k=k, ranker="reranker")
        rows[label]["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"\nheld-out conversations ({len(held_scopes)}), {len(hq)} questions of categories 1-4, k={k}:")
    keys = ["recall@5", f"recall@{k}", f"ndcg@{k}", "mrr"]
    print(f"  {'ranker':28} " + " ".join(f"{x:>10}" for x in keys))
    for name, r in rows.items():
        print(f"  {name:28} " + " ".join(f"{r[x]:>10.3f}" for x in keys))
    out["locomo"]["heldout_retrieval"] = {n: {x: r[x] for x in [*keys, "n"]} for n, r in rows.items()}
    return served


def cranfield_figures(cran: Path, student: Path, args, out: dict) -> None:
    import bm25s
    import numpy as np

    from assay.memory.config import RerankerSettings
    from assay.memory.learning.rerankers import blend_scores
    from assay.memory.learning.resolution import configured_reranker

    docs = [json.loads(x) for x in (cran / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    queries = [json.loads(x) for x in (cran / "queries.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    qrels: dict[str, dict[str, int]] = {}
    for line in (cran / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, did, _rel, grade = line.split("\t")
        if int(grade) > 0:
            qrels.setdefault(qid, {})[did] = int(grade)
    queries = [q for q in queries if q["query_id"] in qrels][: args.cranfield_queries]
    texts = [f"{d['title']} {d['text']}".strip() for d in docs]
    ids = np.array([d["doc_id"] for d in docs])
    model = bm25s.BM25()
    model.index(bm25s.tokenize(texts, stopwords="english", show_progress=False), show_progress=False)
    rr = configured_reranker(RerankerSettings(student_dir=str(student), gpu=False, threads=args.threads))
    assert rr is not None
    res = {"bm25": [], "student alone": [], "student+bm25 blend 0.5": [], "random order (reference)": []}
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for q in queries:
        scores = np.asarray(
            model.get_scores(bm25s.tokenize([q["text"]], stopwords="english", return_ids=False, show_progress=False)[0])
        )
        top = np.lexsort((ids, -scores))[:100]
        bm = [float(scores[i]) for i in top]
        st = rr.score_pairs([(q["text"], texts[i]) for i in top])
        rel = qrels[q["query_id"]]
        for name, s in (
            ("bm25", bm),
            ("student alone", st),
            ("student+bm25 blend 0.5", blend_scores(st, bm, 0.5)),
            ("random order (reference)", rng.random(len(top)).tolist()),
        ):
            order = sorted(range(len(top)), key=lambda j: (-s[j], j))
            res[name].append(
                _ndcg([rel.get(str(ids[top[j]]), 0) for j in order], sorted(rel.values(), reverse=True), 10)
            )
    secs = time.perf_counter() - t0
    print(
        f"\nCranfield: {len(queries)} queries with graded qrels, BM25 top-100 re-ranked ({secs:.0f} s, "
        f"{len(queries) * 100 / secs:.0f} pairs/s)"
    )
    out["cranfield"] = {"n": len(queries)}
    for name, v in res.items():
        m = float(np.mean(v))
        out["cranfield"][name] = round(m, 4)
        print(f"  nDCG@10 {name:24} {m:.4f}")
    print(
        f"  transfer cost (student alone − BM25): {out['cranfield']['student alone'] - out['cranfield']['bm25']:+.4f}"
    )


def _ndcg(gains: list[int], ideal: list[int], k: int) -> float:
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k]))
    return dcg / idcg if idcg > 0 else 0.0


if __name__ == "__main__":
    sys.exit(main())
