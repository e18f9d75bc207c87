"""A memory store whose delivery log holds graded deliveries with a known right order, for the
registry and retrain tests (the label sets of :mod:`rerank_labels`, written as real log rows)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from assay.memory import MemorySettings, MemoryStore
from assay.memory.tables import memory_deliveries
from rerank_labels import label_records


def graded_store(url: str, *, n_queries: int = 24, seed: int = 0, start: datetime | None = None) -> MemoryStore:
    """A store (hashing embedder) holding the memories of ``label_records(n_queries, seed=seed)``
    and one graded delivery per record, graded at ``start`` + i microseconds."""
    store = MemoryStore(url, settings=MemorySettings(embedder="hashing"))
    add_graded(store, n_queries=n_queries, seed=seed, start=start)
    return store


def add_graded(
    store: MemoryStore,
    *,
    n_queries: int = 24,
    seed: int = 0,
    start: datetime | None = None,
    shuffle_grades: bool = False,
    prefix: str = "",
) -> int:
    """Append graded deliveries of a fresh label set (ids prefixed by ``prefix``); with
    ``shuffle_grades`` the grades are permuted across the deliveries (labels with no signal).
    Returns the number of deliveries added."""
    recs = label_records(n_queries, seed=seed, composite="none", scopes=6)
    t0 = start or datetime.now(UTC)
    store.add(
        [{"id": prefix + r["memory_id"], "text": r["memory_text"], "scope": r["scope"]} for r in recs],
    )
    grades = [r["grade"] for r in recs]
    if shuffle_grades:
        random.Random(seed).shuffle(grades)
    rows = []
    for i, (r, g) in enumerate(zip(recs, grades, strict=True)):
        when = t0 + timedelta(microseconds=i)  # in order, and never in the future of the next call
        rows.append(
            {
                "id": f"{prefix}d{i}",
                "search_id": prefix + r["query_id"],
                "memory_id": prefix + r["memory_id"],
                "query": r["query"],
                "rank": i % 4,
                "score": 0.5,
                "score_components": {},
                "reranker_model": None,
                "scope": r["scope"],
                "arm": "control",
                "version": "test",
                "created_at": when,
                "grade": g,
                "hard_negative": False,
                "graded_at": when,
            }
        )
    with store.engine.begin() as conn:
        conn.execute(insert(memory_deliveries), rows)
    return len(rows)


def shuffle_all_grades(store: MemoryStore, *, seed: int = 0) -> None:
    """Permute the grades of every graded delivery in the log (a label source gone bad: the log
    keeps its size and its grade mix, and loses its signal); each regraded row counts as a new label."""
    from sqlalchemy import select, update

    d = memory_deliveries.c
    with store.engine.begin() as conn:
        rows = conn.execute(select(d.id, d.grade).where(d.grade.is_not(None)).order_by(d.id)).all()
        grades = [g for _, g in rows]
        random.Random(seed).shuffle(grades)
        now = datetime.now(UTC)
        for (rid, _), g in zip(rows, grades, strict=True):
            conn.execute(update(memory_deliveries).where(d.id == rid).values(grade=g, graded_at=now))
