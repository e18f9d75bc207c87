"""Peer figure on LoCoMo: assay's memory store and mem0 (``infer=False``, same MiniLM, local vector store), one run.

Run as a script::

    pip install mem0ai      # the peer, not an assay extra (qdrant-client, grpcio, posthog; too heavy for CI)
    python benchmarks/bench_memory_mem0.py [--data ../shared/data/locomo] [--k 10] [--vector-store qdrant|faiss]
        [--threads 1] [--single 200] [--json out.json]

mem0ai 2.x pins ``protobuf<7``; where the environment has protobuf 7 (onnx's), ``pip install
--no-deps mem0ai && pip install posthog pytz qdrant-client`` keeps it — mem0's own code never
imports protobuf (measured with mem0ai 2.2.1, qdrant-client 1.20.0). ``--vector-store faiss`` also
needs ``pip install faiss-cpu``.

Imports the shared LoCoMo conversations (``assay.importers.locomo``: session observations →
memories, QA → queries whose relevant memories are those whose source dia_ids meet the
evidence) and adds the same memories to

- assay: a fresh SQLite store, the packaged all-MiniLM-L6-v2 (sentence-transformers, PyTorch
  float32, CPU), composite retrieval — as ``benchmarks/bench_memory_locomo.py``;
- mem0: ``Memory.from_config`` with the ``huggingface`` embedder on the SAME packaged MiniLM
  folder (``minilm_model_dir()``, ``local_files_only``), a local vector store on disk in a
  temporary folder — mem0's default, Qdrant's local mode (no server), or with ``--vector-store
  faiss`` mem0's FAISS store (flat inner product; mem0 filters its hits by user AFTER the
  index search) — cosine, 384-d, ``add(text, user_id=<conversation>,
  metadata={"assay_id": id}, infer=False)`` one memory a call (so no LLM is called; mem0 has
  no batch add without inference), ``MEM0_TELEMETRY=False``, the Hugging Face libraries offline
  and every non-loopback connection or name lookup refused and counted (:class:`NoNetwork`).

Then, in the same process (both embedders share torch's ``--threads``, default 1):

- add throughput (memories/s): assay's one batched ``add`` of everything, assay one call per
  memory (the first ``--single`` memories, a scratch store) and mem0 (one call per memory);
- search latency per query, p50/p95 in ms, each including its query embedding, the calls
  interleaved and their order rotated query by query: assay ``search`` (composite top-k, the
  deliveries logged), assay ``rank`` with the ``dense`` ranker (cosine only, nothing logged)
  and mem0 ``search`` (``top_k=k``, ``filters={"user_id": <conversation>}``, its default
  ``threshold=0.1``); the MiniLM query embedding alone beside them (the floor both pay), and
  each search's time less the same question's embedding call (the part that is not MiniLM);
- recall@k and nDCG@k over categories 1–4, per category too, each question searched within
  its conversation, relevant = the question's memories that are stored (the evidence mapping
  of ``assay.memory.retrieval.evaluate``); mem0's hits map back through ``metadata.assay_id``.

What of mem0 cannot run offline is printed (2.x adds BM25 — fastembed's ``Qdrant/bm25`` model
from the Hugging Face hub — and entity boosts and lemmatisation — spaCy's ``en_core_web_sm``
from spaCy's GitHub releases; without them mem0 ranks by the cosine alone, which it does here).
A check that both sides really embed with one model is printed too (cosine of their vectors
for the first 64 memories). Ratios are assay / mem0 (latency: below 1 = assay faster;
throughput and recall: above 1 = assay higher). No target: this is the peer figure of issue 19.

Exits 3 (measurement incomplete) with one line when mem0ai, the ``ml`` extra or the packaged
model is missing, or when a mem0 call failed; 0 otherwise. Needs ``../shared/data/locomo``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from _common import shared_data_or_exit
from _mem0_peer import (
    ID_KEY,
    OFFLINE_ENV,
    VECTOR_STORES,
    NoNetwork,
    mean_by_category,
    mem0_config,
    mem0_count,
    mem0_hit_ids,
    mem0_offline_gaps,
    p50_p95,
    paired_differences,
    preempt_model_downloads,
)

SIDES = ("assay search", "assay dense", "mem0")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="LoCoMo folder (default ../shared/data/locomo)")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads, shared by both (default 1)")
    parser.add_argument("--single", type=int, default=200, help="memories added one call each to assay (default 200)")
    parser.add_argument(
        "--vector-store", choices=VECTOR_STORES, default="qdrant", help="mem0's local store (default: its own default)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the aggregate figures as JSON here")
    args = parser.parse_args(argv)
    data = args.data or shared_data_or_exit("locomo")
    if importlib.util.find_spec("mem0") is None:
        print("SKIP: mem0ai is not installed (pip install mem0ai): the peer figure was not measured")
        return 3
    os.environ.update(OFFLINE_ENV)  # before mem0 and sentence-transformers are imported
    with tempfile.TemporaryDirectory() as tmp, NoNetwork() as guard:
        work = Path(tmp)
        os.environ["MEM0_DIR"] = str(work / "mem0")  # mem0 reads it at import (its ~/.mem0)
        from assay.memory.retrieval.embeddings import MiniLMEmbedder, minilm_model_dir

        try:
            minilm = MiniLMEmbedder(threads=args.threads).load()
            model_dir = minilm_model_dir()
        except ModuleNotFoundError as e:
            print(f"SKIP: {e}: the comparison was not measured")
            return 3
        out = run(args, data, work, minilm, model_dir)
        out["network_attempts_blocked"] = len(guard.attempts)
    print(f"network: {len(guard.attempts)} non-loopback connection(s) or lookup(s) refused {guard.attempts[:5]}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 3 if out["incomplete"] else 0


def run(args: argparse.Namespace, data: Path, work: Path, minilm: Any, model_dir: Path) -> dict[str, Any]:
    """The whole comparison (see the module docstring); returns the aggregate figures."""
    logging.getLogger("mem0").setLevel(logging.ERROR)  # its fallbacks are reported below, once
    from mem0 import Memory  # type: ignore[import-not-found]

    from assay.importers.locomo import import_locomo
    from assay.memory import MemorySettings, MemoryStore
    from assay.memory.retrieval.evaluate import Query, ndcg_at, recall_at

    k = args.k
    imp = import_locomo(data)
    mems = imp.memories
    main_q = [q for q in (Query.model_validate(x) for x in imp.queries) if q.category in ("1", "2", "3", "4")]
    print(
        f"LoCoMo: {imp.conversations} conversations, {len(mems)} memories, {len(main_q)} questions in "
        f"categories 1-4; torch threads {args.threads}; load average {os.getloadavg()[0]:.1f}"
    )
    gaps = preempt_model_downloads()
    settings = MemorySettings(embedder="minilm")
    store = MemoryStore(f"sqlite:///{work / 'assay.db'}", settings=settings, embedder=minilm)
    t0 = time.perf_counter()
    mem0 = Memory.from_config(mem0_config(model_dir, work, vector_store=args.vector_store))
    mem0_init_s = time.perf_counter() - t0

    # -- add ------------------------------------------------------------------------------------
    t0 = time.perf_counter()
    added = store.add(mems)
    assay_add_s = time.perf_counter() - t0
    single = mems[: max(0, min(args.single, len(mems)))]
    scratch = MemoryStore(f"sqlite:///{work / 'single.db'}", settings=settings, embedder=minilm)
    single_ms = []
    for m in single:
        t0 = time.perf_counter()
        scratch.add([m])
        single_ms.append((time.perf_counter() - t0) * 1000)
    by_uuid: dict[str, str] = {}
    mem0_add_ms: list[float] = []
    errors: list[str] = []
    for m in mems:
        t0 = time.perf_counter()
        try:
            res = mem0.add(m["text"], user_id=m["scope"], metadata={ID_KEY: m["id"]}, infer=False)
        except Exception as e:  # noqa: BLE001 - a peer failure is counted, the run goes on
            errors.append(f"add: {type(e).__name__}: {e}")
            continue
        mem0_add_ms.append((time.perf_counter() - t0) * 1000)
        by_uuid.update({str(r["id"]): m["id"] for r in res.get("results", [])})
    n_mem0 = mem0_count(mem0)
    print(
        f"added: assay {len(added.added)} (+{len(added.merged)} merged), mem0 {n_mem0} points "
        f"(mem0 with its {args.vector_store} store built in {mem0_init_s:.1f} s)"
    )

    # -- same model on both sides ---------------------------------------------------------------
    texts = [m["text"] for m in mems[:64]]
    a = minilm.embed(texts)
    b = np.asarray([mem0.embedding_model.embed(t, "add") for t in texts], dtype=np.float32)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    agreement = float((a * b).sum(axis=1).min())
    print(f"embedder check: min cosine(assay vector, mem0 vector) over {len(texts)} memories = {agreement:.6f}")

    # -- search ---------------------------------------------------------------------------------
    stored = set(store.get_many([r for q in main_q for r in q.relevant]))

    def assay_search(q: Query) -> list[str]:
        res = store.search(q.query, k, scope=q.scope, restrict_to_scope=True)
        return [h.memory.id for h in res.hits]

    def assay_dense(q: Query) -> list[str]:
        return [h.memory.id for h in store.rank(q.query, k, scope=q.scope, restrict_to_scope=True, ranker="dense")]

    def mem0_search(q: Query) -> list[str]:
        return mem0_hit_ids(mem0.search(q.query, top_k=k, filters={"user_id": q.scope}), by_uuid)

    def embed_only(q: Query) -> list[str]:
        minilm.embed([q.query])
        return []

    calls: list[tuple[str, Callable[[Query], list[str]]]] = [
        ("assay search", assay_search),
        ("assay dense", assay_dense),
        ("mem0", mem0_search),
        ("embedding", embed_only),
    ]
    for q in main_q[:5]:  # warm-up: caches, mem0's first-call fallbacks, the assay index
        for name, call in calls:
            try:
                call(q)
            except Exception as e:  # noqa: BLE001
                errors.append(f"{name} warm-up: {type(e).__name__}: {e}")
    ms: dict[str, list[float | None]] = {name: [] for name, _ in calls}  # per question, None = failed
    rec: dict[str, list[tuple[str, float]]] = {s: [] for s in SIDES}
    ndcg: dict[str, list[tuple[str, float]]] = {s: [] for s in SIDES}
    skipped = 0
    for i, q in enumerate(main_q):
        rel = set(q.relevant) & stored
        if not rel:
            skipped += 1
            continue
        for name, call in calls[i % len(calls) :] + calls[: i % len(calls)]:
            t0 = time.perf_counter()
            try:
                ids = call(q)
            except Exception as e:  # noqa: BLE001
                errors.append(f"{name}: {type(e).__name__}: {e}")
                ms[name].append(None)
                continue
            ms[name].append((time.perf_counter() - t0) * 1000)
            if name in rec:
                rec[name].append((str(q.category), recall_at(ids, rel, k)))
                ndcg[name].append((str(q.category), ndcg_at(ids, rel, k)))
    gaps += [g for g in mem0_offline_gaps(mem0) if g not in gaps]
    return report(
        k=k,
        n_memories=len(mems),
        n_questions=len(main_q) - skipped,
        add={
            "assay batch": len(mems) / assay_add_s,
            "assay one per call": len(single_ms) / (sum(single_ms) / 1000) if single_ms else None,
            "mem0 one per call": len(mem0_add_ms) / (sum(mem0_add_ms) / 1000) if mem0_add_ms else None,
            "mem0 one per call, same first memories": (
                len(single_ms) / (sum(mem0_add_ms[: len(single_ms)]) / 1000)
                if single_ms and len(mem0_add_ms) >= len(single_ms)
                else None
            ),
        },
        ms=ms,
        rec=rec,
        ndcg=ndcg,
        gaps=gaps,
        errors=errors,
        agreement=agreement,
        counts_match=n_mem0 == len(added.added) == len(mems),
        vector_store=args.vector_store,
        n_single=len(single_ms),
    )


def report(**r: Any) -> dict[str, Any]:
    """Print the table and return the JSON-ready figures (aggregates only: no memory or question id)."""
    k = r["k"]
    done = {name: [x for x in v if x is not None] for name, v in r["ms"].items()}
    lat = {name: p50_p95(v) if v else (None, None) for name, v in done.items()}
    beyond = {name: paired_differences(r["ms"][name], r["ms"]["embedding"]) for name in SIDES}
    over = {name: p50_p95(v) if v else (None, None) for name, v in beyond.items()}
    rec = {s: mean_by_category(v) for s, v in r["rec"].items()}
    ndcg = {s: mean_by_category(v) for s, v in r["ndcg"].items()}

    def ratio(x: float | None, y: float | None) -> str:
        return f"{x / y:.2f}" if x is not None and y else "—"

    def cell(x: float | None, fmt: str) -> str:
        return format(x, fmt) if x is not None else "—"

    head = f"{'':44} {'assay search':>13} {'assay dense':>12} {'mem0':>10} {'search/mem0':>12} {'dense/mem0':>11}"
    print(
        f"\nLoCoMo, {r['n_memories']} memories, {r['n_questions']} questions (categories 1-4), k={k}; "
        f"mem0 on {r['vector_store']}; load average now {os.getloadavg()[0]:.1f}"
    )
    print(head)
    add = r["add"]
    print(
        f"{'add, memories/s (each API as it adds)':44} {cell(add['assay batch'], ',.1f'):>13} {'':>12} "
        f"{cell(add['mem0 one per call'], ',.1f'):>10} {ratio(add['assay batch'], add['mem0 one per call']):>12}"
    )
    single_label = f"add, one call per memory (first {r['n_single']}), mem/s"
    print(
        f"{single_label:44} "
        f"{cell(add['assay one per call'], ',.1f'):>13} {'':>12} "
        f"{cell(add['mem0 one per call, same first memories'], ',.1f'):>10} "
        f"{ratio(add['assay one per call'], add['mem0 one per call, same first memories']):>12}"
    )
    for j, label in ((0, "p50"), (1, "p95")):
        a, d, m = lat["assay search"][j], lat["assay dense"][j], lat["mem0"][j]
        print(
            f"{f'search {label} ms, incl. query embedding':44} {cell(a, '.2f'):>13} {cell(d, '.2f'):>12} "
            f"{cell(m, '.2f'):>10} {ratio(a, m):>12} {ratio(d, m):>11}"
        )
    a, d, m = (over[s][0] for s in SIDES)
    print(
        f"{'search p50 ms minus the same query embedding':44} {cell(a, '.2f'):>13} {cell(d, '.2f'):>12} "
        f"{cell(m, '.2f'):>10} {ratio(a, m):>12} {ratio(d, m):>11}"
    )
    for name, table in ((f"recall@{k}", rec), (f"nDCG@{k}", ndcg)):
        rows = [("categories 1-4", {s: table[s]["mean"] for s in SIDES})]
        cats = sorted({c for s in SIDES for c in table[s]["per_category"]})
        rows += [
            (
                f"  category {c} (n={table['mem0']['per_category'].get(c, {}).get('n', 0)})",
                {s: table[s]["per_category"].get(c, {}).get("mean") for s in SIDES},
            )
            for c in cats
        ]
        for label, v in rows:
            a, d, m = v["assay search"], v["assay dense"], v["mem0"]
            print(
                f"{name + ' ' + label:44} {cell(a, '.3f'):>13} {cell(d, '.3f'):>12} {cell(m, '.3f'):>10} "
                f"{ratio(a, m):>12} {ratio(d, m):>11}"
            )
    e50, e95 = lat["embedding"]
    print(f"MiniLM query embedding alone (every search's floor): p50 {cell(e50, '.2f')} ms, p95 {cell(e95, '.2f')} ms")
    print("assay search = composite top-k + delivery log; assay dense = cosine rank, nothing logged; ratios assay/mem0")
    print("mem0 ran without:" + "".join(f"\n  - {g}" for g in r["gaps"]) if r["gaps"] else "mem0 ran in full")
    if r["agreement"] < 0.999:
        r["errors"].append(f"the two embedders disagree (min cosine {r['agreement']:.4f}): not the same model")
    if not r["counts_match"]:
        r["errors"].append("assay and mem0 do not hold the same number of memories")
    for e in r["errors"][:5]:
        print(f"INCOMPLETE: {e}")
    if len(r["errors"]) > 5:
        print(f"INCOMPLETE: … and {len(r['errors']) - 5} more")
    return {
        "k": k,
        "memories": r["n_memories"],
        "questions_1_4": r["n_questions"],
        "add_memories_per_s": add,
        "search_ms": {name: {"p50": p50, "p95": p95, "n": len(done[name])} for name, (p50, p95) in lat.items()},
        "search_ms_beyond_the_query_embedding": {name: {"p50": p50, "p95": p95} for name, (p50, p95) in over.items()},
        "mem0_vector_store": r["vector_store"],
        f"recall@{k}": rec,
        f"ndcg@{k}": ndcg,
        "embedder_min_cosine": r["agreement"],
        "mem0_offline_gaps": r["gaps"],
        "errors": len(r["errors"]),
        "incomplete": bool(r["errors"]),
    }


if __name__ == "__main__":
    sys.exit(main())
