"""Retrieval evaluation: recall@k, nDCG@k and MRR of a ranker against labelled queries.

A queries file is JSON Lines, one query a line::

    {"id": str, "query": str, "relevant": [memory ids], "scope": str | null, "category": str | int | null,
     "answer": any (optional, ignored here), "meta": {...} (optional)}

Each query is ranked over the memories in the store — within its scope when it has one (the
search is restricted to that scope) — by one of the rankers:

- ``composite``: the composite score (:mod:`assay.memory.retrieval.scoring`), as :func:`search` ranks;
- ``dense``: cosine similarity of the embeddings alone;
- ``bm25``: Okapi BM25 by ``bm25s`` with its defaults (Lucene variant, k1 = 1.5, b = 0.75,
  ``bm25s.tokenize``: lowercase, English stopwords, no stemming; a Hangul, CJK or kana word is
  then split into overlapping character bigrams, :func:`assay.memory.text.tokens`, the
  segmentation-free indexing of Lucene's ``CJKBigramFilter``) over the candidate memories'
  texts;
- ``reranker``: the store's reranker over the composite top ``rerank_depth``.

Candidates are the same for every ranker (superseded and, prefilter on, meta-memories
excluded). Relevant ids absent from the store are dropped; a query left with none is skipped
and counted in ``n_skipped``. Nothing is logged. Metrics (binary relevance, R = relevant set):
recall@k = |top-k ∩ R| / |R|; nDCG@k = Σ_{i≤k, d_i ∈ R} 1/log2(i+1) ÷ Σ_{i ≤ min(k,|R|)}
1/log2(i+1) (Järvelin & Kekäläinen, TOIS 2002); MRR = mean of 1/(rank of the first relevant
within k), 0 when none (Voorhees, TREC-8 QA, 1999).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.memory.models import load_jsonl
from assay.memory.retrieval.embeddings import embed_texts
from assay.memory.retrieval.search import SearchSource, check_k, rank_hits
from assay.memory.text import has_cjk, strip_josa, tokens

__all__ = ["Query", "load_queries", "evaluate_retrieval", "recall_at", "ndcg_at", "reciprocal_rank", "RANKERS"]

#: Rankers :func:`evaluate_retrieval` knows.
RANKERS = ("composite", "dense", "bm25", "reranker")


class Query(BaseModel):
    """One labelled query (see the module docstring); ``category`` is kept as a string."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    query: str
    relevant: tuple[str, ...]
    scope: str | None = None
    category: str | None = None
    answer: Any = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id", "query")
    @classmethod
    def _nonblank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must be a non-empty string")
        return v

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v


def load_queries(path: str | Path) -> list[Query]:
    """The queries of a JSONL file; :class:`~assay.memory.models.MemoryFileError` for every bad line or repeated id."""
    return [q for _, q in load_jsonl(path, Query, what="query", unique_id=True)]


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """|top-k ∩ relevant| / |relevant| (``ValueError`` for an empty relevant set)."""
    if not relevant:
        raise ValueError("recall needs at least one relevant id")
    return len(set(ranked[:k]) & relevant) / len(relevant)


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Binary-relevance nDCG@k in [0, 1] (``ValueError`` for an empty relevant set)."""
    if not relevant:
        raise ValueError("nDCG needs at least one relevant id")
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal


def reciprocal_rank(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """1 / rank of the first relevant id within the top k, 0 when none."""
    for i, d in enumerate(ranked[:k], start=1):
        if d in relevant:
            return 1.0 / i
    return 0.0


def evaluate_retrieval(
    store: SearchSource,
    queries: Sequence[Query],
    *,
    k: int = 10,
    ranker: str = "composite",
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Rank every query and aggregate: ``{"recall@5", "recall@{k}", "ndcg@{k}", "mrr", "n",
    "n_skipped", "per_category": {category: {same keys}}, "ranker", "k", "skipped": {reason: n}}``.

    Means over the evaluated queries (``None`` when none). Raises ``ValueError`` for an
    unknown ranker or ``k`` outside ``[1, settings.max_k]``; ``ModuleNotFoundError`` naming the
    extra when ``bm25s`` or the embedder's packages are missing. ``on_progress(done, total)``:
    called after each ranked query.
    """
    if ranker not in RANKERS:
        raise ValueError(f"unknown ranker {ranker!r}: expected one of {', '.join(RANKERS)}")
    check_k(k, store.settings.max_k)
    depth = max(k, min(5, store.settings.max_k))
    stored = set(store.get_many([m for q in queries for m in q.relevant]))
    todo: list[tuple[Query, set[str]]] = []
    skipped: defaultdict[str, int] = defaultdict(int)
    for q in queries:
        rel = set(q.relevant) & stored
        if not q.relevant:
            skipped["no relevant ids"] += 1
        elif not rel:
            skipped["no relevant memory in the store"] += 1
        else:
            todo.append((q, rel))
    rank = _ranker(store, ranker, [q for q, _ in todo])
    per_query: list[tuple[str, dict[str, float]]] = []
    for i, (q, rel) in enumerate(todo):
        ids = rank(i, q, depth)
        if on_progress is not None:
            on_progress(i + 1, len(todo))
        per_query.append(
            (
                q.category or "(none)",
                {
                    "recall@5": recall_at(ids, rel, 5),
                    f"recall@{k}": recall_at(ids, rel, k),
                    f"ndcg@{k}": ndcg_at(ids, rel, k),
                    "mrr": reciprocal_rank(ids, rel, k),
                },
            )
        )
    keys = ["recall@5", f"recall@{k}", f"ndcg@{k}", "mrr"]
    out: dict[str, Any] = _means([m for _, m in per_query], keys)
    out.update(n=len(per_query), n_skipped=sum(skipped.values()), ranker=ranker, k=k, skipped=dict(skipped))
    cats: dict[str, list[dict[str, float]]] = defaultdict(list)
    for c, m in per_query:
        cats[c].append(m)
    out["per_category"] = {c: {**_means(ms, keys), "n": len(ms)} for c, ms in sorted(cats.items())}
    return out


def _means(rows: list[dict[str, float]], keys: list[str]) -> dict[str, float | None]:
    return {key: (round(math.fsum(r[key] for r in rows) / len(rows), 6) if rows else None) for key in keys}


def _ranker(store: SearchSource, ranker: str, queries: Sequence[Query]) -> Callable[[int, Query, int], list[str]]:
    """``rank(i, query, depth) -> [memory ids]`` for the chosen ranker."""
    if ranker == "bm25":
        bm25 = Bm25Ranker(store)
        return lambda i, q, depth: bm25.rank(q.query, depth, scope=q.scope)
    if ranker == "reranker":
        return lambda i, q, depth: [
            h.memory.id
            for h in rank_hits(
                store, q.query, depth, scope=q.scope, restrict_to_scope=q.scope is not None, ranker="reranker"
            )
        ]
    vecs = (
        embed_texts(store.embedder, [q.query for q in queries], store.settings.encode_batch_size) if queries else None
    )
    return lambda i, q, depth: [
        h.memory.id
        for h in rank_hits(
            store,
            q.query,
            depth,
            scope=q.scope,
            restrict_to_scope=q.scope is not None,
            ranker=ranker,
            query_vector=None if vecs is None else vecs[i],
        )
    ]


class Bm25Ranker:
    """BM25 (``bm25s`` defaults, see the module docstring) over a store's candidate memories, one
    index per scope, built on first use. Ties by memory id ascending."""

    def __init__(self, store: SearchSource):
        try:
            import bm25s
        except ImportError as e:
            raise ModuleNotFoundError(f"the bm25 ranker needs the 'ml' extra: pip install 'assay[ml]' ({e})") from None
        self._bm25s = bm25s
        self._store = store
        self._index = store.index()
        self._by_scope: dict[str | None, tuple[Any, np.ndarray]] = {}

    def rank(self, query: str, k: int, *, scope: str | None) -> list[str]:
        """The ids of the top ``k`` candidates (within ``scope`` when given) by BM25 score."""
        if scope not in self._by_scope:
            cand = self._index.candidates(
                scope=scope, restrict=scope is not None, prefilter=self._store.settings.prefilter
            )
            model = None
            if cand.size:
                model = self._bm25s.BM25()
                model.index(self._tokenize([self._index.texts[i] for i in cand]), show_progress=False)
            self._by_scope[scope] = (model, np.array([self._index.ids[i] for i in cand], dtype=str))
        model, ids = self._by_scope[scope]
        if model is None:
            return []
        scores = np.asarray(model.get_scores(self._tokenize([query])[0]), dtype=np.float64)
        return ids[np.lexsort((ids, -scores))[:k]].tolist()

    def _tokenize(self, texts: list[str]) -> list[list[str]]:
        """``bm25s.tokenize`` (its English rules unchanged), then every token holding Hangul, CJK
        ideographs or kana replaced by the character bigrams of the word without its Korean
        particle (:func:`~assay.memory.text.strip_josa`, :func:`~assay.memory.text.tokens`):
        those scripts glue particles onto words, so whole words rarely recur between a question
        and its evidence."""
        out = []
        for toks in self._bm25s.tokenize(texts, return_ids=False, show_progress=False):
            out.append([t for tok in toks for t in (tokens(strip_josa(tok)) if has_cjk(tok) else (tok,))])
        return out
