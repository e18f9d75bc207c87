"""Backfill: give historical deliveries, labelled lexically only, their semantic second chance.

Candidates are the searches whose deliveries were labelled by the ``"lexical"`` procedure
(engagement ran without the semantic chance) and whose response was recorded. For each, the
lexically non-engaged deliveries are re-scored — cosine of memory and response embeddings ≥
``semantic_threshold`` → engaged — with ``engaged_method="semantic-backfill"``; lexical
positives keep ``"lexical"``; every delivery of the search moves to the procedure
``"lexical+semantic-backfill"`` so the search's labels stay comparable. Idempotent: a
backfilled search is no longer a candidate, so a second run finds nothing. Whole searches only:
``limit`` caps the deliveries re-scored, never splitting a search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import select, update

from assay.memory.feedback.deliveries import write_with_retry
from assay.memory.feedback.engagement import memory_rows
from assay.memory.models import StoreView, now_utc
from assay.memory.tables import memory_deliveries, memory_responses

__all__ = ["BackfillReport", "backfill", "BACKFILL_METHOD", "BACKFILL_PROCEDURE"]

BACKFILL_METHOD = "semantic-backfill"
BACKFILL_PROCEDURE = "lexical+semantic-backfill"


@dataclass
class BackfillReport:
    """``searches`` and ``rescored`` deliveries processed (or, with ``dry_run``, that would be),
    ``newly_engaged`` among them, ``no_response`` lexical-only searches without a recorded
    response (cannot be re-scored), ``remaining`` candidate searches left by ``limit``."""

    dry_run: bool
    searches: int = 0
    rescored: int = 0
    newly_engaged: int = 0
    no_response: int = 0
    remaining: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (counts only)."""
        return dict(self.__dict__)


def backfill(store: StoreView, *, dry_run: bool = False, limit: int | None = None) -> BackfillReport:
    """Semantically re-score lexical-only engagement labels (see the module docstring).

    ``limit``: at most this many deliveries re-scored (whole searches). Needs the embedder.
    Raises ``ValueError`` for ``limit < 0``.
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    d = memory_deliveries.c
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(d.id, d.search_id, d.memory_id, d.engaged, d.created_at)
            .where(d.engagement_procedure == "lexical")
            .order_by(d.created_at, d.search_id, d.rank)
        ).all()
        sids = list(dict.fromkeys(r.search_id for r in rows))
        responses = (
            {
                r.search_id: r.response
                for r in conn.execute(
                    select(memory_responses.c.search_id, memory_responses.c.response).where(
                        memory_responses.c.search_id.in_(sids)
                    )
                )
            }
            if sids
            else {}
        )
    report = BackfillReport(dry_run=dry_run)
    by_search: dict[str, list[Any]] = {}
    for r in rows:
        by_search.setdefault(r.search_id, []).append(r)
    chosen: list[str] = []
    for sid, group in by_search.items():
        if sid not in responses:
            report.no_response += 1
            continue
        n_neg = sum(1 for r in group if not r.engaged)
        if limit is not None and report.rescored + n_neg > limit:
            report.remaining += 1
            continue
        chosen.append(sid)
        report.rescored += n_neg
    report.searches = len(chosen)
    if not chosen:
        return report
    s = store.settings
    negatives = [r for sid in chosen for r in by_search[sid] if not r.engaged]
    mems = memory_rows(store, list({r.memory_id for r in negatives}), vectors=True)
    resp_vecs = dict(zip(chosen, store.embedder.embed([responses[sid] for sid in chosen]), strict=True))
    updates: list[tuple[str, bool, float]] = []
    for r in negatives:
        m = mems.get(r.memory_id)
        if m is None or "vector" not in m:
            continue
        cos = float(np.clip(np.dot(m["vector"], resp_vecs[r.search_id]), -1.0, 1.0))
        updates.append((r.id, cos >= s.semantic_threshold, cos))
    report.newly_engaged = sum(1 for _, e, _ in updates if e)
    if dry_run:
        return report
    model = store.embedder.model

    def write(conn: Any) -> None:
        now = now_utc()
        for did, engaged, cos in updates:
            conn.execute(
                update(memory_deliveries)
                .where(memory_deliveries.c.id == did)
                .values(
                    engaged=engaged,
                    engaged_score=cos,
                    engaged_method=BACKFILL_METHOD,
                    engaged_model=model,
                    engaged_at=now,
                )
            )
        for i in range(0, len(chosen), 500):
            conn.execute(
                update(memory_deliveries)
                .where(
                    memory_deliveries.c.search_id.in_(chosen[i : i + 500]),
                    memory_deliveries.c.engagement_procedure == "lexical",
                )
                .values(engagement_procedure=BACKFILL_PROCEDURE)
            )

    write_with_retry(store.engine, write)
    return report
