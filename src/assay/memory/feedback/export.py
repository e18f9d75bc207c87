"""Export the delivery log's labels as JSONL: the training and evaluation data for a reranker.

One line per delivery that has a grade or an engagement label, oldest first (then by search
and rank)::

    {"query_id": search_id, "query": the cleaned context window, "memory_id", "memory_text",
     "grade": 0-3 | null, "hard_negative": bool | null, "engaged": bool | null,
     "engaged_method": "lexical" | "semantic" | "semantic-backfill" | null, "scope",
     "engagement_procedure", "engaged_score", "rank", "score", "score_components",
     "reranker_model", "generation_version", "session_id", "arm", "version", "delivery_id"}

The first nine keys are the label contract; the rest are provenance a reranker trainer can use
(e.g. to train only on ``engagement_procedure == "lexical+semantic"``, or to de-bias by rank).
The file holds ids and texts: it is a local artefact (like ``*.local.json``), not an aggregate.
``memory_text`` is null when the memory is no longer stored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sqlalchemy import or_, select

from assay.atomic import atomic_write_text
from assay.memory.models import StoreView
from assay.memory.tables import memories, memory_deliveries

__all__ = ["export_labels", "label_records"]


def label_records(store: StoreView) -> list[dict[str, Any]]:
    """The labelled deliveries as dicts (see the module docstring), oldest first."""
    d, m = memory_deliveries.c, memories.c
    stmt = (
        select(
            d.search_id,
            d.query,
            d.memory_id,
            m.text,
            d.grade,
            d.hard_negative,
            d.engaged,
            d.engaged_method,
            d.scope,
            d.engagement_procedure,
            d.engaged_score,
            d.rank,
            d.score,
            d.score_components,
            d.reranker_model,
            d.source_ref,
            d.session_id,
            d.arm,
            d.version,
            d.id,
        )
        .select_from(memory_deliveries.outerjoin(memories, m.id == d.memory_id))
        .where(or_(d.grade.is_not(None), d.engaged.is_not(None)))
        .order_by(d.created_at, d.search_id, d.rank)
    )
    with store.engine.connect() as conn:
        rows = conn.execute(stmt).all()
    return [
        {
            "query_id": r.search_id,
            "query": r.query,
            "memory_id": r.memory_id,
            "memory_text": r.text,
            "grade": r.grade,
            "hard_negative": None if r.hard_negative is None else bool(r.hard_negative),
            "engaged": None if r.engaged is None else bool(r.engaged),
            "engaged_method": r.engaged_method,
            "scope": r.scope,
            "engagement_procedure": r.engagement_procedure,
            "engaged_score": r.engaged_score,
            "rank": r.rank,
            "score": r.score,
            "score_components": r.score_components,
            "reranker_model": r.reranker_model,
            "generation_version": r.source_ref,
            "session_id": r.session_id,
            "arm": r.arm,
            "version": r.version,
            "delivery_id": r.id,
        }
        for r in rows
    ]


def export_labels(store: StoreView, out: str | os.PathLike[str]) -> int:
    """Write :func:`label_records` to ``out`` as JSONL, atomically (parent folder must exist);
    returns the line count."""
    recs = label_records(store)
    text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in recs)
    atomic_write_text(Path(out), text)
    return len(recs)
