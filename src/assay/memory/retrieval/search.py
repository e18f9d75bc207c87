"""Search: rank memories for a recent-context window, log each delivered memory, and the reranker seam.

:func:`search` cleans the context window (:func:`~assay.memory.text.clean_context`), ranks
with the composite scorer (or hands the composite top ``rerank_depth`` to the configured
reranker), and logs every returned memory to ``memory_deliveries`` under one new
``search_id``: delivery id, memory id, the cleaned window, rank, score, ``score_components``,
``reranker_model``, the memory's layer, scope and generation version, the search's scope,
session id, arm and ranker version, timestamp. :func:`rank_hits` ranks without logging. The
dense candidates come from the store's vector path (:mod:`assay.memory.retrieval.vectors`: numpy in
process, or a top-k in PostgreSQL with pgvector); everything after them is this one code path.

Reranker seam: a reranker is any :class:`~assay.memory.models.Reranker` — ``model: str`` and
``rerank(query, memories) -> scores`` (one finite float per memory, higher is better) — which
the store serves; which one is decided above retrieval (:mod:`assay.memory.learning.resolution`).
With one configured, the final order is the reranker's (ties by composite rank), the delivery's
``score`` is the reranker's score, ``score_components`` keeps the composite's components plus
``"composite"`` (its score), and ``reranker_model`` names the model. Without one (the
default), ``reranker_model`` is null.

Search reads a store through :class:`SearchSource` (settings, embedder, engine, reranker, vector
path, index, memories by id): it never imports the store module, which calls it. The hits'
memories come from ``indexed_memories`` (the store serves recently delivered ones from memory).
"""

from __future__ import annotations

import hashlib
import math
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

import numpy as np

from assay.memory.config import RANKER_VERSION
from assay.memory.feedback.deliveries import log_deliveries
from assay.memory.models import Memory, Reranker, SearchHit, StoreView, now_utc
from assay.memory.retrieval.ann import ann_source
from assay.memory.retrieval.index import MemoryIndex
from assay.memory.retrieval.scripts import trained_on
from assay.memory.retrieval.vectors import VectorPath
from assay.memory.text import clean_context

__all__ = ["search", "rank_hits", "check_k", "SearchResult", "SearchSource", "MAX_ID_CHARS"]


class SearchSource(StoreView, Protocol):
    """What search reads of a store (a :class:`~assay.memory.retrieval.store.MemoryStore` is one):
    :class:`~assay.memory.models.StoreView`'s engine, settings and embedder, plus the served
    ``reranker`` (or ``None``), the ``vector_path``, the in-process ``index()`` brought up to date
    and ``get_many(ids) -> {id: Memory}`` (read now), ``indexed_memories(ids)`` (the same, as of the
    index's revision or later: a store may serve them from a cache its index keeps valid)."""

    @property
    def reranker(self) -> Reranker | None: ...

    @property
    def vector_path(self) -> VectorPath: ...

    def index(self) -> MemoryIndex: ...

    def get_many(self, ids: Sequence[str]) -> dict[str, Memory]: ...

    def indexed_memories(self, ids: Sequence[str]) -> dict[str, Memory]: ...


@dataclass(frozen=True)
class SearchResult:
    """The memories one search delivered: ``search_id`` (give it to grading and engagement),
    the cleaned ``query`` that was logged and embedded, and the ``hits`` best first."""

    search_id: str
    query: str
    hits: list[SearchHit]

    def __iter__(self) -> Iterator[SearchHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)


#: Longest scope or session id a delivery records (``VARCHAR(200)`` in ``memory_deliveries``,
#: the same bound as a memory's ``id`` and ``scope`` in its JSONL): checked here so that SQLite,
#: which does not enforce VARCHAR widths, and PostgreSQL, which does, behave alike.
MAX_ID_CHARS = 200


def check_k(k: int, max_k: int) -> None:
    """``ValueError`` in one line unless ``1 <= k <= max_k`` (``MemorySettings.max_k``, 1,000 by
    default; ``ASSAY_MEMORY_MAX_K`` raises it). A huge ``k`` is shown by its digit count."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= max_k:
        shown = f"a {len(str(k))}-digit number" if isinstance(k, int) and len(str(k)) > 12 else repr(k)
        raise ValueError(
            f"k must be between 1 and {max_k:,} (MemorySettings.max_k; ASSAY_MEMORY_MAX_K raises it), got {shown}"
        )


def search(
    store: SearchSource,
    context_window: str,
    k: int = 5,
    *,
    scope: str | None = None,
    session_id: str | None = None,
    restrict_to_scope: bool = False,
    explain: bool = False,
    search_id: str | None = None,
) -> SearchResult:
    """Deliver the top ``k`` memories for ``context_window`` and log them under a new ``search_id``.

    ``scope``: the query's scope (scores the scope component); with ``restrict_to_scope`` only
    memories of that scope are candidates. ``session_id``: recorded with each delivery.
    ``explain``: return each hit's ``components``. Superseded memories and (prefilter on)
    meta-memories are never delivered. Raises ``ValueError`` (before anything is embedded or
    logged) for ``k`` outside ``[1, settings.max_k]`` (:func:`check_k`), a blank window
    (after cleaning; the embedder is not called), ``restrict_to_scope`` without a scope, or a
    ``scope``/``session_id`` longer than :data:`MAX_ID_CHARS` (the stored column's width).
    An empty store gives an empty result and logs nothing. ``search_id``: the caller's id (32
    characters at most; the memory server derives it from an idempotency key) instead of a new
    uuid; delivery ids then derive from it and the rank, so logging the same search twice fails
    on the delivery key (``IntegrityError``) instead of duplicating it.
    """
    if search_id is not None and not 0 < len(search_id) <= 32:
        raise ValueError(f"search_id: {len(search_id)} characters, expected 1 to 32")
    for name, value in (("scope", scope), ("session_id", session_id)):
        if value is not None and len(value) > MAX_ID_CHARS:
            raise ValueError(f"{name}: {len(value)} characters, at most {MAX_ID_CHARS}")
    s = store.settings
    check_k(k, s.max_k)
    query = clean_context(context_window, s.context_max_chars)
    if not query:
        raise ValueError("blank context window: nothing to search for (after cleaning)")
    reranker = store.reranker
    hits = rank_hits(
        store,
        query,
        k,
        scope=scope,
        restrict_to_scope=restrict_to_scope,
        ranker="reranker" if reranker is not None else "composite",
    )
    given = search_id is not None
    search_id = search_id if search_id is not None else uuid.uuid4().hex
    now = now_utc()
    rows, out = [], []
    for h in hits:
        did = hashlib.sha256(f"{search_id}:{h.rank}".encode()).hexdigest()[:32] if given else uuid.uuid4().hex
        m = h.memory
        rows.append(
            {
                "id": did,
                "search_id": search_id,
                "memory_id": m.id,
                "query": query,
                "rank": h.rank,
                "score": h.score,
                "score_components": h.components,
                "reranker_model": h.reranker_model,
                "layer": m.layer,
                "scope": m.scope,
                "search_scope": scope,
                "source_ref": m.source_ref,
                "session_id": session_id,
                "arm": s.arm,
                "version": RANKER_VERSION,
                "created_at": now,
            }
        )
        out.append(
            h.model_copy(
                update={"delivery_id": did, "search_id": search_id, "components": h.components if explain else None}
            )
        )
    log_deliveries(store.engine, rows, synchronous=s.delivery_synchronous)
    return SearchResult(search_id=search_id, query=query, hits=out)


def rank_hits(
    store: SearchSource,
    query: str,
    k: int,
    *,
    scope: str | None = None,
    restrict_to_scope: bool = False,
    ranker: str = "composite",
    now: datetime | None = None,
    depth: int | None = None,
    query_vector: np.ndarray | None = None,
) -> list[SearchHit]:
    """The top ``k`` memories for ``query`` as given (no cleaning, no logging), with components.

    ``ranker``: ``"composite"`` (for a query mostly in a script the embedder was not trained on,
    the similarity weight scaled by ``settings.untrained_script_similarity``), ``"dense"``
    (similarity alone) or ``"reranker"`` (the store's
    reranker over the composite top ``settings.rerank_depth``; ``ValueError`` when none is
    configured). ``query_vector``: the query's precomputed unit vector (default: embedded here,
    only when needed). Raises ``ValueError`` for ``k`` outside ``[1, settings.max_k]``, a blank
    query (before any embedding), or ``restrict_to_scope`` without a scope.
    """
    check_k(k, store.settings.max_k)
    if not query.strip():
        raise ValueError("blank query: nothing to search for")
    if restrict_to_scope and scope is None:
        raise ValueError("restrict_to_scope needs a scope")
    s = store.settings
    if ranker == "reranker":
        return _reranked(store, query, k, scope=scope, restrict_to_scope=restrict_to_scope, now=now)
    index = store.index()
    weights, dense_pool = s.weights, store.vector_path.dense_source(store.engine, s) or ann_source(index, s)
    if ranker == "composite" and s.untrained_script_similarity < 1.0 and not trained_on(store.embedder, query):
        weights = replace(weights, similarity=weights.similarity * s.untrained_script_similarity)
        dense_pool = None  # the similarity no longer dominates: score every candidate in process
    ts = (now or now_utc()).timestamp()
    qv: np.ndarray | Callable[[], np.ndarray] = (
        query_vector if query_vector is not None else (lambda: store.embedder.embed([query])[0])
    )
    ranked = index.rank(
        query,
        qv,
        k,
        weights=weights,
        ranker=ranker,
        scope=scope,
        restrict=restrict_to_scope,
        prefilter=s.prefilter,
        now=ts,
        half_life_days=s.recency_half_life_days,
        depth=depth,
        dense_pool=dense_pool,
        pool_size=s.pgvector_candidates,
    )
    mems = store.indexed_memories([index.ids[r.row] for r in ranked])
    return [
        SearchHit(memory=mems[index.ids[r.row]], rank=i, score=r.score, components=r.components)
        for i, r in enumerate(ranked, start=1)
        if index.ids[r.row] in mems
    ]


def _reranked(
    store: SearchSource, query: str, k: int, *, scope: str | None, restrict_to_scope: bool, now: datetime | None
) -> list[SearchHit]:
    reranker = store.reranker
    if reranker is None:
        raise ValueError(
            "ranker 'reranker' needs a reranker: set MemorySettings.reranker to a registered name "
            "(see assay.memory.learning.resolution) or pass MemoryStore(..., reranker=...)"
        )
    pool = rank_hits(
        store,
        query,
        k,
        scope=scope,
        restrict_to_scope=restrict_to_scope,
        ranker="composite",
        now=now,
        depth=store.settings.rerank_depth,
    )
    if not pool:
        return []
    rerank_pool = getattr(reranker, "rerank_pool", None)
    if rerank_pool is not None:  # floors, blend with the composite, fallback: assay.memory.learning.rerankers
        return list(rerank_pool(query, pool, k))
    scores = [float(x) for x in reranker.rerank(query, [h.memory for h in pool])]
    if len(scores) != len(pool) or not all(math.isfinite(x) for x in scores):
        raise ValueError(
            f"reranker {reranker.model!r} returned {len(scores)} scores for {len(pool)} memories "
            "(need one finite score each)"
        )
    order = sorted(range(len(pool)), key=lambda i: (-scores[i], i))[:k]
    return [
        SearchHit(
            memory=pool[i].memory,
            rank=j,
            score=scores[i],
            reranker_model=str(reranker.model),
            components={**(pool[i].components or {}), "composite": pool[i].score},
        )
        for j, i in enumerate(order, start=1)
    ]
