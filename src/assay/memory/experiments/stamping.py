"""Stamping: memories written in a unit carry their arm's version and the experiment's stamp.

Precedence of a memory's ``source_ref``:

- inside a running experiment (the unit's :class:`~assay.memory.experiments.assign.Arm` is
  stamped): the **arm's version wins** — otherwise B's memories would be filed under A's version
  by a writer that sets its own. The writer's own ``source_ref`` (the entry's, else the call's
  ``source_ref``), if any, is kept in ``meta["writer_source_ref"]``; ``meta["assay_ab"]`` holds the
  stamp (``experiment``, ``round``, ``arm`` — ``A``, ``B`` or ``excluded`` — and ``unit``), which
  the insert copies onto the row's ``ab_*`` columns in the same statement.
- outside an experiment: the entry's ``source_ref`` > the call's ``source_ref`` > none; a stamp
  key a writer put in ``meta`` itself is dropped (only assignment stamps).

A memory whose text duplicates one already stored is merged into that one (it corroborates it)
and adds no row, so it carries no stamp of its own: the stored memory keeps the arm that first
wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from assay.memory.experiments.assign import Arm
from assay.memory.models import MemoryIn
from assay.memory.retrieval.store import MemoryStore
from assay.memory.retrieval.writes import AB_STAMP_KEY, AddResult

__all__ = ["stamp", "write_memories", "WRITER_SOURCE_REF"]

#: ``meta`` key keeping the writer's own ``source_ref`` when the arm's version replaced it.
WRITER_SOURCE_REF = "writer_source_ref"


def stamp(
    items: Iterable[MemoryIn | Mapping[str, Any]], arm: Arm, *, source_ref: str | None = None
) -> list[MemoryIn | dict[str, Any]]:
    """``items`` with ``source_ref`` and ``meta`` set by the precedence above (pure; the items are
    not changed). A mapping whose ``meta`` is not a mapping is passed on unchanged, for
    :meth:`~assay.memory.retrieval.store.MemoryStore.add` to report."""
    out: list[MemoryIn | dict[str, Any]] = []
    for item in items:
        if isinstance(item, MemoryIn):
            ref, meta = _refs(item.source_ref, item.meta, arm, source_ref)
            out.append(item.model_copy(update={"source_ref": ref, "meta": meta}))
            continue
        d = dict(item)
        raw_meta = d.get("meta") or {}
        if not isinstance(raw_meta, Mapping):
            out.append(d)
            continue
        ref, meta = _refs(d.get("source_ref"), raw_meta, arm, source_ref)
        d["source_ref"], d["meta"] = ref, meta
        out.append(d)
    return out


def write_memories(
    store: MemoryStore,
    items: Iterable[MemoryIn | Mapping[str, Any]],
    arm: Arm,
    *,
    source_ref: str | None = None,
    embeddings: np.ndarray | None = None,
    embedding_model: str | None = None,
) -> AddResult:
    """Add ``items`` to ``store`` in one transaction (:meth:`MemoryStore.add`), stamped for
    ``arm`` (:func:`stamp`): the memories and their stamps are written together or not at all."""
    return store.add(stamp(items, arm, source_ref=source_ref), embeddings=embeddings, embedding_model=embedding_model)


def _refs(entry_ref: Any, meta: Mapping[str, Any], arm: Arm, call_ref: str | None) -> tuple[Any, dict[str, Any]]:
    writer_ref = entry_ref if entry_ref is not None else call_ref
    new_meta = {k: v for k, v in meta.items() if k != AB_STAMP_KEY}
    if not arm.stamped:
        return writer_ref, new_meta
    if writer_ref is not None:
        new_meta[WRITER_SOURCE_REF] = writer_ref
    new_meta[AB_STAMP_KEY] = {"experiment": arm.experiment, "round": arm.round, "arm": arm.stamp_arm, "unit": arm.unit}
    return arm.version, new_meta
