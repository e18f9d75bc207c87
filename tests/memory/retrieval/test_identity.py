"""Issue 16 item 3: a store is never re-embedded by a search; an embedder is its weights, not its runtime."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from sqlalchemy import select

from assay.embedding import runtime_label
from assay.memory import MemorySettings, MemoryStore
from assay.memory.retrieval.embeddings import (
    MINILM_IDENTITY,
    HashingEmbedder,
    ProgressEmbedder,
    canonical_identity,
    embedder_name,
)
from assay.memory.retrieval.identity import EmbedderMismatchError, stored_identities
from assay.memory.tables import memories, memory_deliveries

HASHING = MemorySettings(embedder="hashing")


class Runtime:
    """Another runtime of some weights: the same ``model`` (identity), its own ``runtime`` label."""

    def __init__(self, model: str, runtime: str, dim: int = 16):
        self.model, self.runtime, self.dim = model, runtime, dim
        self._h = HashingEmbedder(dim)
        self.calls = 0

    def embed(self, texts):
        self.calls += len(texts)
        return self._h.embed(texts)


@pytest.fixture()
def url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'id.db'}"


def test_minilm_identity_names_the_packaged_weights_file():
    from assay.memory.retrieval.embeddings import minilm_model_dir

    try:
        folder = minilm_model_dir()
    except ModuleNotFoundError as e:
        pytest.skip(str(e))
    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    assert MINILM_IDENTITY == f"sentence-transformers/all-MiniLM-L6-v2@{digest[:12]}"
    assert canonical_identity("all-MiniLM-L6-v2") == MINILM_IDENTITY  # what earlier versions stored
    assert embedder_name(MINILM_IDENTITY) == "minilm" and embedder_name("hashing-384-v1") == "hashing"


def test_another_runtime_of_the_same_weights_searches_without_reembedding(url):
    torch_like = Runtime("acme/encoder@abc", "torch fp32")
    MemoryStore(url, settings=HASHING, embedder=torch_like).add([{"id": "a", "text": "flights to Denver"}])
    onnx_like = Runtime("acme/encoder@abc", "onnxruntime int8")
    store = MemoryStore(url, settings=HASHING, embedder=onnx_like)
    assert store.search("Denver", 1).hits[0].memory.id == "a"
    assert onnx_like.calls == 1  # the query only: the stored vector was kept
    assert runtime_label(onnx_like) == "onnxruntime int8" and runtime_label(object()) == "unspecified"  # type: ignore[arg-type]


def test_a_legacy_minilm_row_is_the_same_embedder(url):
    old = Runtime("all-MiniLM-L6-v2", "torch fp32")  # the name stored before identities had a revision
    MemoryStore(url, settings=HASHING, embedder=old).add([{"id": "a", "text": "hotel in Paris"}])
    new = Runtime(MINILM_IDENTITY, "onnxruntime int8")
    store = MemoryStore(url, settings=HASHING, embedder=new)
    assert store.rank("Paris", 1)[0].memory.id == "a" and new.calls == 1
    store.add([{"id": "b", "text": "train to Lyon"}])  # adds too: one embedder
    with store.engine.connect() as conn:
        assert stored_identities(conn) == {MINILM_IDENTITY: 2}


def test_search_and_add_with_another_embedder_are_refused_and_write_nothing(url):
    MemoryStore(url, settings=HASHING).add([{"id": "a", "text": "flights to Denver"}])
    other = MemoryStore(url, settings=HASHING, embedder=HashingEmbedder(dim=64))
    with other.engine.connect() as conn:
        before = conn.execute(select(memories.c.embedding, memories.c.embedding_model)).all()
    with pytest.raises(EmbedderMismatchError) as e:
        other.search("Denver", 1)
    msg = str(e.value)
    assert "hashing-384-v1 (--embedder hashing; 1 memory)" in msg and "embeds with hashing-64-v1" in msg
    assert "\n" not in msg and isinstance(e.value, ValueError)  # one line, exit 2 in the CLI
    with pytest.raises(EmbedderMismatchError, match="this add embeds with hashing-64-v1"):
        other.add([{"id": "b", "text": "train to Lyon"}])
    with other.engine.connect() as conn:
        after = conn.execute(select(memories.c.embedding, memories.c.embedding_model)).all()
        assert conn.execute(select(memory_deliveries)).first() is None
    assert [(bytes(np.asarray(v).tobytes()), m) for v, m in before] == [
        (bytes(np.asarray(v).tobytes()), m) for v, m in after
    ]


def test_reembed_converts_on_purpose_in_one_step_with_progress(url):
    MemoryStore(url, settings=HASHING).add([{"id": f"m{i}", "text": f"note {i} about budgets"} for i in range(130)])
    target = MemoryStore(url, settings=HASHING.with_(encode_batch_size=50), embedder=HashingEmbedder(dim=64))
    seen: list[tuple[int, int]] = []
    rep = target.reembed(on_progress=lambda done, total: seen.append((done, total)))
    assert rep.reembedded == 130 and rep.before == {"hashing-384-v1": 130} and rep.identity == "hashing-64-v1"
    assert seen == [(50, 130), (100, 130), (130, 130)]
    assert target.rank("note 7 budgets", 1)[0].memory.id == "m7" and target.index().dim == 64
    assert target.reembed().reembedded == 0  # nothing left to convert
    assert target.reembed(force=True).reembedded == 130
    with pytest.raises(EmbedderMismatchError):  # the old embedder is now the other one
        MemoryStore(url, settings=HASHING).rank("note", 1)


def test_progress_embedder_is_the_same_embedder_in_slices():
    inner = HashingEmbedder(32)
    got: list[int] = []
    pe = ProgressEmbedder(inner, got.append, batch=3)
    texts = [f"text {i}" for i in range(7)]
    np.testing.assert_array_equal(pe.embed(texts), inner.embed(texts))
    assert got == [3, 3, 1] and pe.model == inner.model and pe.dim == 32
