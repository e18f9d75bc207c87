"""Agent memory: composite retrieval, the delivery log, grades, behavioural engagement, evaluation.

Store memories, retrieve them for a new turn, log what was delivered, and label each delivery
twice — by the agent's own grade and by whether its response used the memory:

- :class:`MemoryStore` (:mod:`.store`): add (keywords derived when absent, duplicates merged,
  corrections supersede), :meth:`~MemoryStore.search` (logs deliveries), :meth:`~MemoryStore.rank`.
- :mod:`.scoring` / :mod:`.config`: the composite score and its weights with rationale.
- :mod:`.grades`: ``"m12:3, m7:0!"`` grade fields → the deliveries of a search.
- :mod:`.engagement`: lexical engagement with a semantic second chance; :mod:`.backfill`.
- :mod:`.stats`, :mod:`.export`: grouped rates with bootstrap CIs; training labels (JSONL).
- :mod:`.evaluate`: recall@k / nDCG@k / MRR of composite, dense, BM25 or a reranker.
- :mod:`.rerank`: the seam for a second-stage reranker.

Importing this package needs neither torch nor sentence-transformers; the MiniLM embedder
loads them on first use (``ml`` extra).
"""

from assay.memory.config import WEIGHTS, MemorySettings, Weights, default_settings
from assay.memory.models import Memory, MemoryFileError, MemoryIn, SearchHit, load_memories
from assay.memory.retrieval.embeddings import HashingEmbedder, MiniLMEmbedder, make_embedder
from assay.memory.retrieval.search import SearchResult
from assay.memory.retrieval.store import AddResult, MemoryStore

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
