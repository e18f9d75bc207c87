"""The reranker seam: how a second-stage ranker plugs into search and evaluation.

A reranker is any object with

- ``model: str`` — recorded as ``reranker_model`` with every delivery it orders, so labels
  and statistics are grouped by it;
- ``rerank(query: str, memories: Sequence[Memory]) -> Sequence[float]`` — one finite score
  per memory, higher is better (a cross-encoder's logit, a student model's probability).

Search hands it the composite top ``MemorySettings.rerank_depth`` (50) and delivers its top k
(:mod:`assay.memory.retrieval.search`); ``assay memory evaluate --ranker reranker --reranker NAME``
measures it against the same relevance labels as the other rankers. Training data for a
reranker comes from the delivery log through ``assay memory export-labels``.

Optional: ``rerank_pool(query, hits, k) -> hits`` — when present, search hands it the composite
hits themselves and delivers what it returns (floors, a blend with the composite, a fallback
to composite order on failure: :mod:`assay.memory.learning.rerankers`).

Rerankers are found by name: :data:`BUILTIN_RERANKERS` (``name → "module:factory"``: ``auto``
= the cross-encoder that :mod:`assay.memory.learning.rerankers` resolves from ``ASSAY_RERANKER_*``) and then the ``assay.memory.rerankers`` entry-point group of installed packages;
the factory is called with no arguments. Or pass an object: ``MemoryStore(url, reranker=obj)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

__all__ = ["Reranker", "BUILTIN_RERANKERS", "ENTRY_POINT_GROUP", "load_reranker", "available_rerankers"]

#: Rerankers shipped with assay: name → ``"module:factory"`` (read-only).
BUILTIN_RERANKERS: Mapping[str, str] = MappingProxyType({"auto": "assay.memory.learning.rerankers:auto_reranker"})

#: Entry-point group through which other packages register rerankers.
ENTRY_POINT_GROUP = "assay.memory.rerankers"


@runtime_checkable
class Reranker(Protocol):
    """A second-stage ranker (see the module docstring)."""

    model: str

    def rerank(self, query: str, memories: Sequence[Any]) -> Sequence[float]: ...


def available_rerankers() -> list[str]:
    """Names of the rerankers that :func:`load_reranker` can build, sorted."""
    return sorted(set(BUILTIN_RERANKERS) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def load_reranker(name: str) -> Reranker:
    """Build the reranker registered as ``name``. ``ValueError`` naming the known ones when unknown,
    or when the factory's object lacks ``model``/``rerank``."""
    target = BUILTIN_RERANKERS.get(name)
    if target is not None:
        mod, _, attr = target.partition(":")
        factory = getattr(importlib.import_module(mod), attr)
    else:
        eps = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
        if not eps:
            known = ", ".join(available_rerankers()) or "none is installed"
            raise ValueError(f"unknown reranker {name!r} (known: {known})")
        factory = eps[0].load()
    obj = factory()
    if not isinstance(obj, Reranker):
        raise ValueError(f"reranker {name!r}: the factory returned {type(obj).__name__}, which lacks model / rerank()")
    return obj
