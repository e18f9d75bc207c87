"""The server's search path: queries by the query embedder, writes by the store's, the reranker checked on a timer."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from assay.memory import MemoryStore, default_settings
from assay.memory.retrieval.embeddings import MINILM_IDENTITY, HashingEmbedder
from assay.server.config import ServerSettings
from assay.server.query import query_embedder_for
from assay.server.service import MemoryService


class Counting:
    """An embedder that delegates to ``inner`` and counts the texts it embedded."""

    def __init__(self, inner):
        self.inner, self.model, self.dim, self.runtime, self.texts = inner, inner.model, inner.dim, "counting", []

    def embed(self, texts):
        self.texts.extend(texts)
        return self.inner.embed(texts)


def test_searches_embed_with_the_query_embedder_and_adds_with_the_stores(tmp_path):
    writes = Counting(HashingEmbedder())
    store = MemoryStore(
        f"sqlite:///{tmp_path / 'm.db'}",
        settings=default_settings(embedder="hashing", semantic_engagement=False),
        embedder=writes,
    )
    queries = Counting(HashingEmbedder())
    svc = MemoryService(store, query_embedder=queries)
    svc.add([{"text": "Project Falcon ships on 12 March."}, {"text": "The user's dog is called Rex."}])
    writes.texts.clear()
    res = svc.search("When does Falcon ship?", k=1)
    assert res["hits"][0]["text"] == "Project Falcon ships on 12 March."
    assert queries.texts == ["When does Falcon ship?"] and writes.texts == []
    svc.add([{"text": "Priya reviews the release notes."}])
    assert writes.texts == ["Priya reviews the release notes."] and len(queries.texts) == 1


def test_the_query_embedder_ranks_like_the_store_embedder_when_they_agree(tmp_path):
    store = MemoryStore(
        f"sqlite:///{tmp_path / 'm.db'}", settings=default_settings(embedder="hashing", semantic_engagement=False)
    )
    notes = [f"note {i} about topic {i % 7} and person {i % 5}" for i in range(60)]
    plain, viewed = MemoryService(store), MemoryService(store, query_embedder=HashingEmbedder())
    plain.add([{"text": t} for t in notes])
    for q in ("topic 3 person 2", "person 4", "note 17"):
        a = [h["memory_id"] for h in plain.search(q, k=5)["hits"]]
        b = [h["memory_id"] for h in viewed.search(q, k=5)["hits"]]
        assert a == b


def test_query_embedder_choice(tmp_path, monkeypatch, caplog):
    hashing = MemoryStore(f"sqlite:///{tmp_path / 'h.db'}", settings=default_settings(embedder="hashing"))
    s = ServerSettings(token_file=tmp_path / "t")
    assert query_embedder_for(hashing, s) is None  # not a MiniLM store: its own embedder
    with pytest.raises(ValueError, match="MiniLM store"):
        query_embedder_for(hashing, s.with_(query_embedder="onnx"))
    minilm = MemoryStore(f"sqlite:///{tmp_path / 'm.db'}", settings=default_settings(embedder="minilm"))
    assert query_embedder_for(minilm, s.with_(query_embedder="store")) is None

    import assay.memory.retrieval.onnx_embedder as onnx

    def missing(self):
        raise ModuleNotFoundError(onnx.ONNX_EXTRA_HINT)

    monkeypatch.setattr(onnx.OnnxMiniLMEmbedder, "load", missing)
    with caplog.at_level(logging.WARNING, logger="assay.server"):
        assert query_embedder_for(minilm, s) is None
    assert len(caplog.records) == 1 and "float32" in caplog.records[0].getMessage()
    with pytest.raises(ModuleNotFoundError, match="onnx"):
        query_embedder_for(minilm, s.with_(query_embedder="onnx"))
    with pytest.raises(ValueError, match="query_embedder"):
        s.with_(query_embedder="int8")


def test_the_onnx_query_embedder_carries_the_minilm_identity(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from assay.memory.retrieval.onnx_embedder import export_int8

    try:
        export_int8()  # cached after the first export; exporting needs the ml extra
    except ModuleNotFoundError as e:
        pytest.skip(str(e))
    store = MemoryStore(f"sqlite:///{tmp_path / 'm.db'}", settings=default_settings(embedder="minilm"))
    emb = query_embedder_for(store, ServerSettings(token_file=tmp_path / "t"))
    assert emb is not None and emb.model == MINILM_IDENTITY
    v = emb.embed(["When does Project Falcon ship?"])
    assert v.shape == (1, 384) and abs(float(np.linalg.norm(v[0])) - 1.0) < 1e-5


def test_the_reranker_is_asked_again_on_a_timer_not_on_every_search(tmp_path, monkeypatch):
    """The service serves the store's reranker: one timer (``MemorySettings.reranker_recheck_s``), not two."""
    store = MemoryStore(
        f"sqlite:///{tmp_path / 'm.db'}",
        settings=default_settings(embedder="hashing", semantic_engagement=False, reranker_recheck_s=3600),
    )
    asked = []
    monkeypatch.setattr(type(store), "resolve_reranker", lambda self: asked.append(1))
    now = [100.0]
    store._clock = lambda: now[0]
    svc = MemoryService(store)
    svc.add([{"text": "Project Falcon ships on 12 March."}])
    for _ in range(5):
        svc.search("Falcon", k=1)
    assert len(asked) == 1
    now[0] += 3600
    svc.search("Falcon", k=1)
    assert len(asked) == 2
