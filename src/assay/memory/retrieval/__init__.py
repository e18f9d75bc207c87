"""Retrieval: storing memories and ranking them for a query.

:mod:`.store` (:class:`~.store.MemoryStore`: add, read, rank, search), :mod:`.ingest`
(planning an insert), :mod:`.writes` (the write transactions), :mod:`.index` (the in-process
columns scored with numpy), :mod:`.postings` (the keyword component's inverted index),
:mod:`.vectors` (numpy or pgvector dense candidates), :mod:`.embeddings`, :mod:`.scoring` (the
composite's reference rules), :mod:`.prefilter`, :mod:`.search` (ranking and logging a delivery,
through the :class:`~.search.SearchSource` Protocol) and :mod:`.evaluate` (recall/nDCG/MRR).

Retrieval may import :mod:`assay.memory.feedback` (search logs its deliveries) and the top-level
memory modules, never :mod:`assay.memory.learning`: a reranker is injected through the
:class:`~assay.memory.models.Reranker` Protocol.
"""
