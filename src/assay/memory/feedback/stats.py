"""Memory statistics: engagement rate, mean grade and hard-negative share, grouped, with bootstrap CIs.

Groups are (generation version = the memory's ``source_ref``, ``reranker_model``), plus
``overall``. Engagement rates are reported per procedure (``lexical``, ``lexical+semantic``,
``lexical+semantic-backfill``) and never pooled across them, with the positives counted per
``engaged_method``. CIs are percentile bootstraps of the mean (:func:`assay.stats.summarize`)
that resample whole searches (``clusters=search_id``): deliveries of one search share a query
and a response, so they are not independent. The output holds counts and rates only — no
memory, search or session id — and is safe to share. ``vector_path`` says how the store's
vectors are scored on its database (:func:`vector_path`: numpy in process, or pgvector).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import Engine, select

from assay.memory.tables import memory_deliveries
from assay.stats import summarize

__all__ = ["memory_stats", "vector_path", "StatsSource", "NONE_LABEL"]

#: Group label for a missing generation version or reranker.
NONE_LABEL = "(none)"


class StatsSource(Protocol):
    """What the statistics read of a store: its ``engine`` and its ``vector_path`` (anything with
    ``to_dict()``, e.g. :class:`~assay.memory.retrieval.vectors.VectorPath`); a
    :class:`~assay.memory.MemoryStore` is one."""

    @property
    def engine(self) -> Engine: ...

    @property
    def vector_path(self) -> _DescribesPath: ...


class _DescribesPath(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


def memory_stats(store: StatsSource, *, seed: int = 0, n_resamples: int = 2000) -> dict[str, Any]:
    """``{"schema": 1, "kind": "memory_stats", "vector_path", "n_deliveries", "n_searches",
    "overall": G, "groups": [G]}``.

    Each ``G``: ``{"generation_version", "reranker_model", "n_deliveries", "n_searches",
    "n_graded", "grade": summary, "hard_negative_share": summary, "engagement": {procedure:
    summary + {"engaged_by_method": {method: n}}}}`` where a summary is ``{"mean", "std",
    "ci", "effective_n"}`` (``mean`` null when nothing is labelled). ``n_resamples`` per CI
    (2,000: CI endpoints stable to ~0.005 for rates); ``seed`` fixes them. ``vector_path``: see
    :func:`vector_path`. Raises :class:`assay.storage.DatabaseUnavailableError` when the server
    cannot be reached.
    """
    d = memory_deliveries.c
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(
                d.search_id,
                d.source_ref,
                d.reranker_model,
                d.grade,
                d.hard_negative,
                d.engaged,
                d.engaged_method,
                d.engagement_procedure,
            )
        ).all()
    groups: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for r in rows:
        groups[(r.source_ref or NONE_LABEL, r.reranker_model or NONE_LABEL)].append(r)
    kw = {"seed": seed, "n_resamples": n_resamples}
    return {
        "schema": 1,
        "kind": "memory_stats",
        "vector_path": vector_path(store),
        "n_deliveries": len(rows),
        "n_searches": len({r.search_id for r in rows}),
        "overall": _group(rows, "all", "all", **kw),
        "groups": [_group(g, gv, rm, **kw) for (gv, rm), g in sorted(groups.items())],
    }


def vector_path(store: StatsSource) -> dict[str, Any]:
    """``{"path": "pgvector" | "numpy", "detail": str, "pgvector": version | None, "index": "hnsw" | "none" | None}``.

    The path ``store`` (a :class:`~assay.memory.retrieval.store.MemoryStore`) chose at start-up
    (:mod:`assay.memory.retrieval.vectors`): ``pgvector`` when its dense top-k runs in PostgreSQL, with
    the extension's version and the mirror's index kind (``hnsw``; ``none`` for pgvector < 0.5);
    ``numpy`` otherwise (SQLite, PostgreSQL without pgvector — ``detail`` says why — or
    ``MemorySettings.vector_path="numpy"``, where ``pgvector``/``index`` still name the mirror
    kept in sync).
    """
    return store.vector_path.to_dict()


def _group(
    rows: Sequence[Any], generation_version: str, reranker_model: str, *, seed: int, n_resamples: int
) -> dict[str, Any]:
    graded = [r for r in rows if r.grade is not None]
    clusters = [r.search_id for r in graded]
    engagement: dict[str, Any] = {}
    by_proc: dict[str, list[Any]] = defaultdict(list)
    for r in rows:
        if r.engaged is not None:
            by_proc[r.engagement_procedure or NONE_LABEL].append(r)
    for proc, labelled in sorted(by_proc.items()):
        summary = summarize(
            [1.0 if r.engaged else 0.0 for r in labelled],
            clusters=[r.search_id for r in labelled],
            seed=seed,
            n_resamples=n_resamples,
        ).to_dict()
        summary["engaged_by_method"] = dict(sorted(Counter(r.engaged_method for r in labelled if r.engaged).items()))
        engagement[proc] = summary
    return {
        "generation_version": generation_version,
        "reranker_model": reranker_model,
        "n_deliveries": len(rows),
        "n_searches": len({r.search_id for r in rows}),
        "n_graded": len(graded),
        "grade": summarize(
            [float(r.grade) for r in graded], clusters=clusters, seed=seed, n_resamples=n_resamples
        ).to_dict(),
        "hard_negative_share": summarize(
            [1.0 if r.hard_negative else 0.0 for r in graded], clusters=clusters, seed=seed, n_resamples=n_resamples
        ).to_dict(),
        "engagement": engagement,
    }
