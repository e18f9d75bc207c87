"""Planning an insert: resolve ids, duplicates, supersessions and vectors before the write.

:func:`plan_add` reads the store (no write) and returns what one transaction must do, or raises
:class:`~assay.memory.models.MemoryFileError` with every problem; :mod:`.writes` runs that
transaction. Rules (see :mod:`assay.memory.retrieval.store`): the duplicate key is
``(scope, dedupe_key(text))``; a repeated id with the same text is the same memory (keywords
unioned, no corroboration); a new id with a stored or earlier text is merged into the first
(keywords unioned, one corroboration); a repeated id with another text is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import Engine, select

from assay.cases import InputProblem
from assay.memory.models import MemoryFileError, MemoryIn, StoreView, now_utc
from assay.memory.retrieval.embeddings import canonical_identity, embed_texts, unit_rows
from assay.memory.retrieval.identity import check_store_embedder
from assay.memory.retrieval.scoring import reliability
from assay.memory.tables import memories
from assay.memory.text import dedupe_key, derive_keywords

__all__ = ["AddPlan", "plan_add"]

_CHUNK = 500


@dataclass
class AddPlan:
    """One insert transaction: ``inserts`` (row dicts without ``revision``), ``updates`` (stored
    id → (keywords to union, corroborations to add)), ``supersedes`` ((old id, new id)),
    and the report fields ``merged``, ``updated``, ``unchanged``, ``embedded``."""

    inserts: list[dict[str, Any]] = field(default_factory=list)
    updates: dict[str, tuple[list[str], int]] = field(default_factory=dict)
    supersedes: list[tuple[str, str]] = field(default_factory=list)
    merged: dict[str, str] = field(default_factory=dict)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    embedded: int = 0


@dataclass
class _Item:
    pos: int
    line: int
    m: MemoryIn
    id: str
    key: tuple[str, str]
    keywords: list[str]
    source: str
    plus: int = 0


def plan_add(
    store: StoreView,
    numbered: list[tuple[int, MemoryIn]],
    *,
    where: str,
    embeddings: np.ndarray | None,
    embedding_model: str | None,
) -> AddPlan:
    """What adding ``numbered`` ``[(line, memory)]`` to ``store`` takes (see the module docstring).

    ``embeddings``: precomputed vectors, one row per item (float32, any norm), or ``None``: each
    item's own ``embedding``, else encoded here with the store's embedder; ``embedding_model``
    names the precomputed vectors' model (default: the store's embedder; another identity, or a
    store holding another embedder's vectors, raises
    :class:`~assay.memory.retrieval.identity.EmbedderMismatchError`). Reads only.
    """
    problems: list[InputProblem] = []
    plan = AddPlan()
    primaries: dict[tuple[str, str], _Item] = {}
    by_id: dict[str, _Item] = {}
    followers: list[tuple[_Item, _Item]] = []  # (later item, the primary it merges into)
    for pos, (line, m) in enumerate(numbered):
        kws = list(m.keywords) or derive_keywords(m.text)
        it = _Item(
            pos, line, m, m.memory_id(), (m.scope or "", dedupe_key(m.text)), kws, "writer" if m.keywords else "derived"
        )
        first = by_id.get(it.id)
        if first is not None:
            if first.key != it.key:
                problems.append(
                    InputProblem(
                        file=where,
                        line=line,
                        field="id",
                        problem=f"id {it.id!r} repeats line {first.line} with another text",
                    )
                )
            else:
                first.keywords = list(dict.fromkeys([*first.keywords, *kws]))
            continue
        by_id[it.id] = it
        prim = primaries.get(it.key)
        if prim is None:
            primaries[it.key] = it
        else:
            prim.keywords = list(dict.fromkeys([*prim.keywords, *kws]))
            prim.plus += 1
            followers.append((it, prim))

    stored_ids, stored_keys = _stored(store.engine, list(by_id), list({k[1] for k in primaries}))
    final: dict[str, str] = {}  # primary id → the id the memory ends up under
    for key, it in primaries.items():
        if it.id in stored_ids:
            stored_key, stored_kw = stored_ids[it.id]
            if stored_key != key:
                problems.append(
                    InputProblem(
                        file=where,
                        line=it.line,
                        field="id",
                        problem=f"id {it.id!r} is already stored with another text",
                    )
                )
                continue
            final[it.id] = it.id
            new_kw = [k for k in it.keywords if k not in stored_kw]
            if new_kw or it.plus:
                plan.updates[it.id] = (new_kw, it.plus)
                plan.updated.append(it.id)
            else:
                plan.unchanged.append(it.id)
        elif key in stored_keys:
            target = stored_keys[key]
            final[it.id] = target
            plan.merged[it.id] = target
            kw, plus = plan.updates.get(target, ([], 0))
            plan.updates[target] = (list(dict.fromkeys([*kw, *it.keywords])), plus + 1 + it.plus)
        else:
            final[it.id] = it.id
    for it, prim in followers:
        if it.id in stored_ids and stored_ids[it.id][0] != it.key:
            problems.append(
                InputProblem(
                    file=where, line=it.line, field="id", problem=f"id {it.id!r} is already stored with another text"
                )
            )
        elif prim.id in final:
            plan.merged[it.id] = final[prim.id]

    known = set(final.values()) | set(stored_ids)
    for it in by_id.values():
        new_id = final.get(it.id) or plan.merged.get(it.id)
        for old in it.m.supersedes:
            if old == new_id:
                problems.append(
                    InputProblem(
                        file=where,
                        line=it.line,
                        field="supersedes",
                        problem=f"a memory cannot supersede itself ({old!r})",
                    )
                )
            elif old not in known and not _exists(store.engine, old):
                problems.append(
                    InputProblem(file=where, line=it.line, field="supersedes", problem=f"unknown memory id {old!r}")
                )
            elif new_id is not None:
                plan.supersedes.append((old, new_id))

    inserts = [it for it in primaries.values() if final.get(it.id) == it.id and it.id not in stored_ids]
    model = embedding_model or store.embedder.model
    vectors: dict[int, np.ndarray] = {}
    for it in inserts:
        v = (
            embeddings[it.pos]
            if embeddings is not None
            else (np.asarray(it.m.embedding, dtype=np.float32) if it.m.embedding else None)
        )
        if v is not None:
            if model == store.embedder.model and v.shape[0] != store.embedder.dim:
                problems.append(
                    InputProblem(
                        file=where,
                        line=it.line,
                        field="embedding",
                        problem=f"dimension {v.shape[0]}, the {model} embedder has {store.embedder.dim}",
                    )
                )
            vectors[it.pos] = v
    if problems:
        raise MemoryFileError(problems)
    if inserts:  # never mix two embedders' vectors in one store (assay.memory.retrieval.identity)
        mine = canonical_identity(store.embedder.model)
        if canonical_identity(model) != mine:
            raise ValueError(
                f"embedding_model {model!r}: precomputed vectors of another embedder than this store's ({mine}); "
                "vectors of two embedders never mix in one store"
            )
        check_store_embedder(store.engine, mine, action="add")
    if vectors:
        dims = {v.shape[0] for v in vectors.values()}
        if len(dims) > 1:
            raise MemoryFileError(
                [
                    InputProblem(
                        file=where,
                        line=0,
                        field="embedding",
                        problem=f"precomputed vectors of several dimensions {sorted(dims)}",
                    )
                ]
            )
        keys = list(vectors)
        for p, v in zip(keys, unit_rows(np.stack([vectors[p] for p in keys])), strict=True):
            vectors[p] = v
    todo = [it for it in inserts if it.pos not in vectors]
    if todo:
        fresh = embed_texts(store.embedder, [it.m.text for it in todo], store.settings.encode_batch_size)
        for it, v in zip(todo, fresh, strict=True):
            vectors[it.pos] = v
        plan.embedded = len(todo)
    now = now_utc()
    strength = store.settings.confidence_prior_strength
    for it in inserts:
        m = it.m
        v = vectors[it.pos]
        plan.inserts.append(
            {
                "id": it.id,
                "text": m.text,
                "dedupe_key": it.key[1],
                "keywords": it.keywords,
                "keywords_source": it.source,
                "scope": it.key[0],
                "layer": m.layer,
                "confidence": reliability(m.confidence, it.plus, 0, strength),
                "confidence_prior": m.confidence,
                "n_corroborations": it.plus,
                "n_contradictions": 0,
                "created_at": m.created_at or now,
                "source_ref": m.source_ref,
                "superseded_by": None,
                "is_correction": m.is_correction,
                "meta": m.meta or None,
                "embedding": v,
                "embedding_model": model if (embeddings is not None or m.embedding) else store.embedder.model,
            }
        )
    return plan


def _stored(
    engine: Engine, ids: list[str], keys: list[str]
) -> tuple[dict[str, tuple[tuple[str, str], list[str]]], dict[tuple[str, str], str]]:
    """Stored ``{id: ((scope, key), keywords)}`` among ``ids`` and ``{(scope, key): id}`` among ``keys``."""
    c = memories.c
    by_id: dict[str, tuple[tuple[str, str], list[str]]] = {}
    by_key: dict[tuple[str, str], str] = {}
    with engine.connect() as conn:
        for i in range(0, len(ids), _CHUNK):
            for r in conn.execute(select(c.id, c.scope, c.dedupe_key, c.keywords).where(c.id.in_(ids[i : i + _CHUNK]))):
                by_id[r.id] = ((r.scope, r.dedupe_key), list(r.keywords or ()))
        for i in range(0, len(keys), _CHUNK):
            for k in conn.execute(select(c.id, c.scope, c.dedupe_key).where(c.dedupe_key.in_(keys[i : i + _CHUNK]))):
                by_key[(k.scope, k.dedupe_key)] = k.id
    return by_id, by_key


def _exists(engine: Engine, memory_id: str) -> bool:
    with engine.connect() as conn:
        return conn.execute(select(memories.c.seq).where(memories.c.id == memory_id)).first() is not None
