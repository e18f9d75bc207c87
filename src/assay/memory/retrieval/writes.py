"""Writing memories: the insert transaction (planned by :mod:`.ingest`), count adjustments, supersession.

Every write transaction starts by bumping the store revision (:func:`bump_revision`): that
``UPDATE`` of ``memory_state`` is the memories write lock, and the new revision stamps every row
the transaction writes, so an in-process index reloads only what changed. Confidence after a
corroboration or contradiction is :func:`~assay.memory.retrieval.scoring.reliability` of the
writer's prior and the counts. Every write of vectors updates pgvector's mirror inside the same
transaction (:func:`~assay.memory.retrieval.vectors.sync_vectors`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, select, update
from sqlalchemy.exc import IntegrityError

from assay.cases import InputProblem
from assay.memory.models import MemoryFileError, MemoryIn, StoreView
from assay.memory.retrieval.ingest import AddPlan, plan_add
from assay.memory.retrieval.scoring import reliability
from assay.memory.retrieval.vectors import VectorPath, sync_vectors
from assay.memory.tables import memories, memory_state

__all__ = [
    "AddResult",
    "add_memories",
    "write_plan",
    "adjust_memory",
    "supersede_memory",
    "bump_revision",
    "AB_STAMP_KEY",
    "stamp_columns",
]

#: Rows per ``INSERT`` batch: below SQLite's 999-parameter floor.
_CHUNK = 500

#: The ``meta`` key under which :mod:`assay.memory.experiments` hands a memory's experiment stamp
#: (``{"experiment", "round", "arm", "unit"}``) to the insert, which copies it onto the row's
#: ``ab_*`` columns (:func:`stamp_columns`) in the same statement: no stamp is ever written apart
#: from its memory.
AB_STAMP_KEY = "assay_ab"


@dataclass
class AddResult:
    """What :meth:`~assay.memory.retrieval.store.MemoryStore.add` did: ids ``added``; ``merged``
    (incoming id → the stored id whose text it duplicates); ``updated`` (same id and text already
    stored, new keywords or corroborations merged into it); ``unchanged`` (same id and text,
    nothing new); ids ``superseded``; how many vectors were ``embedded`` (the rest were precomputed)."""

    added: list[str] = field(default_factory=list)
    merged: dict[str, str] = field(default_factory=dict)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    embedded: int = 0


def add_memories(
    store: StoreView,
    vector_path: VectorPath,
    numbered: list[tuple[int, MemoryIn]],
    *,
    where: str,
    embeddings: np.ndarray | None,
    embedding_model: str | None,
) -> AddResult:
    """Plan (:func:`~assay.memory.retrieval.ingest.plan_add`) and write ``numbered`` ``[(line,
    memory)]`` in one transaction; planned again up to three times when a concurrent writer adds
    the same id or text between the read and the write (``IntegrityError`` after the third).

    ``embeddings``: precomputed vectors ``(len(numbered), dim)`` or ``None`` (``ValueError`` for
    another shape). Raises :class:`~assay.memory.models.MemoryFileError` with every problem found.
    """
    if embeddings is not None:
        embeddings = np.asarray(embeddings, dtype=np.float32)
        if embeddings.ndim != 2 or embeddings.shape[0] != len(numbered):
            raise ValueError(f"embeddings must have shape ({len(numbered)}, dim), got {embeddings.shape}")
    for attempt in (1, 2, 3):  # a concurrent writer may add the same id or text between read and write
        try:
            plan = plan_add(store, numbered, where=where, embeddings=embeddings, embedding_model=embedding_model)
            result = AddResult(
                added=[r["id"] for r in plan.inserts],
                merged=dict(plan.merged),
                updated=list(plan.updated),
                unchanged=list(plan.unchanged),
                embedded=plan.embedded,
            )
            if plan.inserts or plan.updates or plan.supersedes:
                strength = store.settings.confidence_prior_strength
                result.superseded = write_plan(
                    store.engine, plan, where=where, strength=strength, vector_path=vector_path
                )
            return result
        except IntegrityError:
            if attempt == 3:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def write_plan(engine: Engine, plan: AddPlan, *, where: str, strength: float, vector_path: VectorPath) -> list[str]:
    """Write ``plan`` in one transaction: inserts (stamped with the new revision, mirrored),
    keyword unions and corroborations, supersessions. Returns the ids superseded now (a correction
    re-sent is counted once). ``strength``: the confidence prior's weight
    (``MemorySettings.confidence_prior_strength``). Raises :class:`~assay.memory.models.MemoryFileError`
    for a ``supersedes`` id that is gone since planning."""
    superseded: list[str] = []
    with engine.begin() as conn:
        rev = bump_revision(conn)
        for r in plan.inserts:
            r["revision"] = rev
            r.update(stamp_columns(r.get("meta")))
        for i in range(0, len(plan.inserts), _CHUNK):
            conn.execute(memories.insert(), plan.inserts[i : i + _CHUNK])
        if plan.inserts:
            sync_vectors(vector_path, conn, memories.c.revision == rev)
        for mid, (keywords, plus) in plan.updates.items():
            row = conn.execute(select(memories).where(memories.c.id == mid)).one()
            merged_kw = list(dict.fromkeys([*row.keywords, *keywords]))
            _adjust_row(conn, row, rev, strength, plus=plus, keywords=merged_kw)
        for old, new in plan.supersedes:
            old_row = conn.execute(select(memories).where(memories.c.id == old)).first()
            if old_row is None:
                raise MemoryFileError(
                    [InputProblem(file=where, line=0, field="supersedes", problem=f"unknown memory id {old!r}")]
                )
            if old_row.superseded_by == new:
                continue  # the same correction re-sent: counted once
            _adjust_row(conn, old_row, rev, strength, minus=1, superseded_by=new)
            superseded.append(old)
    return superseded


def adjust_memory(engine: Engine, memory_id: str, *, plus: int, minus: int, strength: float) -> None:
    """Count ``plus`` corroborations and ``minus`` contradictions for one memory in one transaction.
    ``ValueError`` for a negative count, ``KeyError`` for an unknown id."""
    if plus < 0 or minus < 0:
        raise ValueError("counts must be >= 0")
    with engine.begin() as conn:
        rev = bump_revision(conn)
        row = conn.execute(select(memories).where(memories.c.id == memory_id)).first()
        if row is None:
            raise KeyError(f"unknown memory id {memory_id!r}")
        _adjust_row(conn, row, rev, strength, plus=plus, minus=minus)


def supersede_memory(engine: Engine, old_id: str, new_id: str, *, strength: float) -> None:
    """Mark ``old_id`` superseded by ``new_id`` and count a contradiction against it, in one
    transaction. ``KeyError`` when either id is not stored."""
    with engine.begin() as conn:
        rev = bump_revision(conn)
        found = {r.id: r for r in conn.execute(select(memories).where(memories.c.id.in_([old_id, new_id])))}
        for mid in (old_id, new_id):
            if mid not in found:
                raise KeyError(f"unknown memory id {mid!r}")
        _adjust_row(conn, found[old_id], rev, strength, minus=1, superseded_by=new_id)


def bump_revision(conn: Connection) -> int:
    """Take the memories write lock (first statement of the transaction) and return the new revision."""
    conn.execute(
        update(memory_state).where(memory_state.c.name == "memories").values(revision=memory_state.c.revision + 1)
    )
    return int(conn.execute(select(memory_state.c.revision).where(memory_state.c.name == "memories")).scalar_one())


def _adjust_row(
    conn: Connection,
    row: Any,
    rev: int,
    strength: float,
    *,
    plus: int = 0,
    minus: int = 0,
    keywords: list[str] | None = None,
    superseded_by: str | None = None,
) -> None:
    n_plus, n_minus = row.n_corroborations + plus, row.n_contradictions + minus
    values: dict[str, Any] = {
        "n_corroborations": n_plus,
        "n_contradictions": n_minus,
        "revision": rev,
        "confidence": reliability(row.confidence_prior, n_plus, n_minus, strength),
    }
    if keywords is not None:
        values["keywords"] = keywords
    if superseded_by is not None:
        values["superseded_by"] = superseded_by
    conn.execute(update(memories).where(memories.c.seq == row.seq).values(**values))


def stamp_columns(meta: Any) -> dict[str, Any]:
    """The ``ab_*`` column values of a memory's experiment stamp (``meta[AB_STAMP_KEY]``); all
    ``None`` when ``meta`` carries none (a memory written outside an experiment) — every row of an
    ``INSERT`` batch names the same columns."""
    ab = meta.get(AB_STAMP_KEY) if isinstance(meta, dict) else None
    if not isinstance(ab, dict):
        return {"ab_experiment": None, "ab_round": None, "ab_arm": None, "ab_unit": None}
    return {
        "ab_experiment": str(ab["experiment"]),
        "ab_round": int(ab["round"]),
        "ab_arm": str(ab["arm"]),
        "ab_unit": str(ab["unit"]),
    }
