"""Agent memory: composite retrieval, the delivery log, grades, behavioural engagement, a student reranker.

Store memories, retrieve them for a new turn, log what was delivered, label each delivery twice —
by the agent's own grade and by whether its response used the memory — and learn a reranker
from those labels. Three rooms, imported top to bottom: learning → retrieval → feedback → the
top-level modules (:mod:`.models`, :mod:`.tables`, :mod:`.config`, :mod:`.text`):

- :mod:`.retrieval`: :class:`MemoryStore` (add — keywords derived when absent, duplicates
  merged, corrections supersede —, :meth:`~MemoryStore.search` (logs deliveries),
  :meth:`~MemoryStore.rank`), the index, the vector path, embeddings, the composite score,
  the prefilter, and retrieval evaluation (recall@k / nDCG@k / MRR).
- :mod:`.feedback`: the delivery log; grades (``"m12:3, m7:0!"``), lexical engagement with a
  semantic second chance, backfill, grouped rates with bootstrap CIs, training labels (JSONL).
- :mod:`.learning`: cross-encoder rerankers, which one serves (:mod:`.learning.resolution`),
  training pairs, pairwise training, the deploy gate, floor calibration.

This package is where the rooms are wired: :class:`MemoryStore` is the retrieval store
(:class:`assay.memory.retrieval.store.MemoryStore`) serving, unless given one, the reranker
that learning resolves from its settings (:func:`assay.memory.learning.resolution.store_reranker`).

Importing this package needs neither torch nor sentence-transformers; the MiniLM embedder
loads them on first use (``ml`` extra), a cross-encoder on first scoring.
"""

from assay.memory.config import WEIGHTS, MemorySettings, Weights, default_settings
from assay.memory.learning.resolution import store_reranker
from assay.memory.models import Memory, MemoryFileError, MemoryIn, Reranker, SearchHit, load_memories
from assay.memory.retrieval.embeddings import HashingEmbedder, MiniLMEmbedder, make_embedder
from assay.memory.retrieval.search import SearchResult
from assay.memory.retrieval.store import MemoryStore as RetrievalStore
from assay.memory.retrieval.writes import AddResult

__all__ = [
    "MemoryStore",
    "AddResult",
    "Memory",
    "MemoryIn",
    "SearchHit",
    "SearchResult",
    "MemoryFileError",
    "load_memories",
    "MemorySettings",
    "Weights",
    "WEIGHTS",
    "default_settings",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "make_embedder",
]


class MemoryStore(RetrievalStore):
    """A persistent agent memory with composite retrieval, a delivery log and a served reranker.

    Everything of :class:`assay.memory.retrieval.store.MemoryStore` (``url``, ``settings``,
    ``embedder``, ``reranker``); without a ``reranker`` it serves ``settings.reranker`` by name,
    else this host's deployed model in the reranker registry (followed without a restart:
    :mod:`assay.memory.learning.serving`), else the cross-encoder ``ASSAY_RERANKER_*`` configures
    (a deployed student first), else none — resolved on first use, torch-free when none.
    """

    def resolve_reranker(self) -> Reranker | None:
        """The reranker to serve (see the class docstring): a name, the registry, the settings."""
        if self.settings.reranker:
            return store_reranker(self.settings)
        from assay.memory.config import RerankerSettings, host_id
        from assay.memory.learning.serving import registry_reranker

        served = registry_reranker(self.engine, host_id(), RerankerSettings.from_env())
        return served if served is not None else store_reranker(self.settings)
