"""The server's query path: which embedder embeds the search queries, and the store as searches see it.

:func:`query_embedder_for` picks the int8 ONNX MiniLM for a MiniLM store
(``ServerSettings.query_embedder``; the same weights identity, so its vectors are compared with
the stored float32 ones); :class:`QueryView` is the store with that embedder and the reranker
the service resolved, what :func:`assay.memory.retrieval.search.search` reads. Adds never go
through the view: memories are embedded by the store's own (float32) embedder.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from assay.embedding import Embedder
from assay.memory import MemoryStore
from assay.memory.retrieval.embeddings import MINILM_IDENTITY, canonical_identity
from assay.server.config import ServerSettings

__all__ = ["QueryView", "query_embedder_for"]

log = logging.getLogger("assay.server")


def query_embedder_for(store: MemoryStore, settings: ServerSettings) -> Embedder | None:
    """The embedder for the server's queries, or ``None`` (the store's own embeds them).

    ``settings.query_embedder``: ``"store"`` → ``None``; ``"auto"`` → the int8 ONNX MiniLM
    (loaded now: exported into its cache folder the first time) when the store's embedder is
    the packaged MiniLM and the ``onnx`` extra is installed, else ``None`` with one warning
    line naming the reason; ``"onnx"`` → the same, raising ``ModuleNotFoundError`` (extra
    missing) or ``ValueError`` (a store of another embedder) instead of falling back. Reads
    ``store.settings.embedder`` only: the store's float32 model is not loaded here."""
    if settings.query_embedder == "store":
        return None
    if store.settings.embedder != "minilm":
        if settings.query_embedder == "onnx":
            raise ValueError(f"query_embedder onnx needs a MiniLM store, not one of {store.settings.embedder}")
        return None
    try:
        from assay.memory.retrieval.onnx_embedder import OnnxMiniLMEmbedder

        emb = OnnxMiniLMEmbedder(threads=1).load()
    except ModuleNotFoundError as e:
        if settings.query_embedder == "onnx":
            raise
        log.warning("queries embedded by the store's float32 MiniLM (PyTorch): %s", str(e).splitlines()[0])
        return None
    if canonical_identity(emb.model) != canonical_identity(MINILM_IDENTITY):  # never mix two models' vectors
        raise ValueError(f"ONNX query embedder identity {emb.model!r} is not the store's {MINILM_IDENTITY!r}")
    return emb


class QueryView:
    """A :class:`~assay.memory.retrieval.search.SearchSource` over ``store`` whose ``embedder`` is
    ``query_embedder`` (same weights identity, another runtime) and whose ``reranker`` is the one
    the service resolved (``reranker``); everything else is the store's."""

    def __init__(self, store: MemoryStore, query_embedder: Embedder, reranker: Any):
        self._store, self._embedder, self._reranker = store, query_embedder, reranker

    @property
    def engine(self) -> Any:
        return self._store.engine

    @property
    def settings(self) -> Any:
        return self._store.settings

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    @property
    def reranker(self) -> Any:
        return self._reranker

    @property
    def vector_path(self) -> Any:
        return self._store.vector_path

    def index(self) -> Any:
        return self._store.index()

    def get_many(self, ids: Sequence[str]) -> Any:
        return self._store.get_many(ids)

    def indexed_memories(self, ids: Sequence[str]) -> Any:
        return self._store.indexed_memories(ids)
