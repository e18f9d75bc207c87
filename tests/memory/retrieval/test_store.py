"""MemoryStore: adding (derived keywords, duplicate merging, corroboration, supersession, precomputed
vectors), the index following the store, search + delivery log, and the reranker seam."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import select

from assay.memory import MemoryFileError, MemorySettings, MemoryStore
from assay.memory.retrieval.embeddings import HashingEmbedder
from assay.memory.retrieval.identity import EmbedderMismatchError, stored_identities
from assay.memory.tables import memory_deliveries

HASHING = MemorySettings(embedder="hashing")


@pytest.fixture()
def url(db_url: str) -> str:
    """A fresh store database, once on SQLite and once on PostgreSQL (tests/conftest.py)."""
    return db_url


@pytest.fixture()
def store(url: str) -> MemoryStore:
    return MemoryStore(url, settings=HASHING)


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed(self, texts):
        self.calls.append(len(texts))
        return super().embed(texts)


def test_add_derives_keywords_only_from_the_memory_text(store):
    r = store.add(
        [
            {"id": "m1", "text": "Caroline attended an LGBTQ support group", "scope": "c1"},
            {"id": "m2", "text": "회사의 매출은 작년에 크게 증가했다", "keywords": ["매출", "revenue"]},
        ]
    )
    assert r.added == ["m1", "m2"] and r.embedded == 2
    m1, m2 = store.get("m1"), store.get("m2")
    assert m1.keywords == ("caroline", "attended", "lgbtq", "support", "group") and m1.keywords_source == "derived"
    assert m2.keywords == ("매출", "revenue") and m2.keywords_source == "writer" and m2.scope is None
    assert m1.confidence == m1.reliability == 0.5 and m1.created_at is not None


def test_duplicate_text_in_scope_unions_keywords_and_corroborates(store):
    store.add([{"id": "m1", "text": "Invoice 42 was paid", "scope": "s", "keywords": ["invoice"]}])
    r = store.add(
        [
            {"id": "other", "text": "invoice 42  WAS paid", "scope": "s", "keywords": ["payment"]},
            {"id": "m9", "text": "Invoice 42 was paid", "scope": "elsewhere"},
        ]
    )
    assert r.merged == {"other": "m1"} and r.added == ["m9"]
    m1 = store.get("m1")
    assert m1.keywords == ("invoice", "payment") and m1.n_corroborations == 1
    assert m1.confidence == pytest.approx(2 / 3) and store.get("other") is None
    assert store.count() == 2


def test_readding_the_same_id_is_idempotent(store):
    rows = [{"id": "m1", "text": "alpha beta", "keywords": ["alpha"]}]
    store.add(rows)
    r = store.add(rows)
    assert r.unchanged == ["m1"] and not r.added and store.get("m1").n_corroborations == 0
    r = store.add([{"id": "m1", "text": "alpha beta", "keywords": ["beta"]}])  # same memory, new keyword
    assert store.get("m1").keywords == ("alpha", "beta") and store.get("m1").n_corroborations == 0
    assert r.updated == ["m1"] and not r.unchanged and not r.added  # counted (was in no count)


def test_duplicates_within_one_batch(store):
    r = store.add([{"text": "Same note"}, {"text": "same  note", "keywords": ["k"]}, {"id": "x", "text": "Another"}])
    assert len(r.added) == 2 and len(r.merged) == 0  # no id given: both derive the same id → one memory
    first = store.get(r.added[0])
    assert "k" in first.keywords


def test_id_reused_with_another_text_is_an_error(store):
    store.add([{"id": "m1", "text": "alpha"}])
    with pytest.raises(MemoryFileError, match="already stored with another text"):
        store.add([{"id": "m1", "text": "beta"}])
    with pytest.raises(MemoryFileError, match="repeats line 1 with another text"):
        store.add([{"id": "z", "text": "one"}, {"id": "z", "text": "two"}])
    assert store.count() == 1


def test_correction_supersedes_and_contradicts(store):
    store.add([{"id": "old", "text": "The deadline is May 3"}, {"id": "keep", "text": "The venue is Lisbon"}])
    r = store.add([{"id": "fix", "text": "The deadline is May 10", "is_correction": True, "supersedes": ["old"]}])
    assert r.superseded == ["old"]
    old = store.get("old")
    assert old.superseded_by == "fix" and old.n_contradictions == 1 and old.confidence == pytest.approx(1 / 3)
    ids = [h.memory.id for h in store.rank("When is the deadline?", 5)]
    assert "old" not in ids and ids[0] == "fix"
    store.add([{"id": "fix", "text": "The deadline is May 10", "is_correction": True, "supersedes": ["old"]}])
    assert store.get("old").n_contradictions == 1  # re-sent correction counted once
    with pytest.raises(MemoryFileError, match="unknown memory id 'nope'"):
        store.add([{"id": "fix2", "text": "x", "supersedes": ["nope"]}])


def test_corroborate_contradict_and_supersede_api(store):
    store.add([{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}])
    assert store.corroborate("a", 2).confidence == pytest.approx(3 / 4)
    assert store.contradict("a").confidence == pytest.approx(3 / 5)
    store.supersede("a", "b")
    assert store.get("a").superseded_by == "b"
    with pytest.raises(KeyError):
        store.corroborate("zzz")


def test_add_file_reports_every_bad_line(store, tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text(
        '{"id": "ok", "text": "fine"}\n{"text": ""}\nnot json\n'
        '{"text": "x", "confidence": 2}\n{"text": "y", "colour": 1}\n',
        encoding="utf-8",
    )
    with pytest.raises(MemoryFileError) as e:
        store.add_file(f)
    msg = str(e.value)
    assert (
        f"{f}:2: text:" in msg
        and f"{f}:3: <json>:" in msg
        and f"{f}:4: confidence:" in msg
        and f"{f}:5: colour: unknown field" in msg
    )
    assert store.count() == 0


def test_add_reports_field_problems_as_the_file_loader_does(store):
    """store.add(dicts) said pydantic's "Extra inputs are not permitted" / "Field required" where
    add_file says "unknown field" / "required field is missing": one wording for both now."""
    with pytest.raises(MemoryFileError) as e:
        store.add([{"text": "y", "colour": 1}, {"id": "x"}])
    msg = str(e.value)
    assert "<memories>:1: colour: unknown field" in msg and "<memories>:2: text: required field is missing" in msg
    assert store.count() == 0


def test_regression_backends_agree_on_nul_text_and_long_session_ids(store, tmp_path):
    """PostgreSQL refused a NUL in a memory's text and a 300-character --session/--scope with a
    bare DataError while SQLite stored them: both are now the same input error on both."""
    f = tmp_path / "m.jsonl"
    f.write_text('{"id": "ok", "text": "fine"}\n{"id": "nul", "text": "bad \\u0000 byte"}\n', encoding="utf-8")
    with pytest.raises(MemoryFileError, match=r"m.jsonl:2: text: contains a NUL character"):
        store.add_file(f)
    with pytest.raises(MemoryFileError, match=r"text: contains a NUL character"):
        store.add([{"id": "api", "text": "bad \x00 byte"}])  # the API path too, not only files
    with pytest.raises(MemoryFileError, match=r"keywords: 0: contains a lone surrogate"):
        store.add([{"id": "api", "text": "fine", "keywords": ["\ud800"]}])
    store.add([{"id": "a", "text": "a note about flights"}])
    for option in ("scope", "session_id"):
        with pytest.raises(ValueError, match=f"{option}: 300 characters, at most 200"):
            store.search("flights", 1, **{option: "x" * 300})
    assert store.search("flights", 1, session_id="s" * 200).hits


def test_precomputed_vectors_are_accepted_and_checked(store):
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(3, 384)).astype(np.float32)
    r = store.add([{"id": f"p{i}", "text": f"note {i}"} for i in range(3)], embeddings=vecs)
    assert r.embedded == 0
    hit = store.rank("anything", 1, ranker="dense")
    assert hit and hit[0].components["similarity"] >= 0.0
    with pytest.raises(MemoryFileError, match="dimension 5"):
        store.add([{"id": "bad", "text": "bad", "embedding": [0.1] * 5}])
    r = store.add([{"id": "e1", "text": "explicit vector", "embedding": [0.0] * 383 + [2.0]}])
    idx = store.index()
    assert r.embedded == 0 and np.isclose(np.linalg.norm(idx.vector(idx.ids.index("e1"))), 1.0)


def test_index_follows_writes_of_another_store_instance(url):
    a, b = MemoryStore(url, settings=HASHING), MemoryStore(url, settings=HASHING)
    a.add([{"id": "m1", "text": "budget review in April"}])
    assert [h.memory.id for h in b.rank("budget", 5)] == ["m1"]
    a.add([{"id": "m2", "text": "budget approved"}])
    a.add([{"id": "m3", "text": "budget approved corrected", "supersedes": ["m2"], "is_correction": True}])
    assert [h.memory.id for h in b.rank("budget approved", 5)] == ["m3", "m1"]


def test_vectors_of_another_model_are_refused_not_reencoded_on_load(url):
    MemoryStore(url, settings=HASHING, embedder=HashingEmbedder(dim=64)).add([{"id": "m1", "text": "alpha beta"}])
    s = MemoryStore(url, settings=HASHING)  # 384-d hashing: another embedder
    with pytest.raises(EmbedderMismatchError, match="hashing-64-v1.*hashing-384-v1"):
        s.rank("alpha", 1)
    s.reembed()  # on purpose
    assert s.rank("alpha", 1)[0].components["similarity"] == pytest.approx(1 / np.sqrt(2), abs=1e-6)
    assert s.index().dim == 384


def test_search_logs_every_delivery_with_provenance(store):
    store.add(
        [
            {
                "id": "m1",
                "text": "Melanie painted a lake sunrise in 2022",
                "scope": "c1",
                "layer": "episodic",
                "source_ref": "gen-v2",
            },
            {"id": "m2", "text": "Caroline went to a pride parade", "scope": "c1"},
            {"id": "m3", "text": "Remember to save memories about painting", "scope": "c1"},
        ]
    )
    res = store.search(
        "User: when did Melanie paint the sunrise?\n<memories>m2: old</memories>", 2, scope="c1", session_id="sess-1"
    )
    assert res.query == "User: when did Melanie paint the sunrise?"
    assert [h.memory.id for h in res] == ["m1", "m2"] and all(h.components is None for h in res)
    with store.engine.connect() as conn:
        rows = conn.execute(select(memory_deliveries).order_by(memory_deliveries.c.rank)).all()
    assert len(rows) == 2 and {r.search_id for r in rows} == {res.search_id}
    r = rows[0]
    assert (r.memory_id, r.rank, r.layer, r.scope, r.search_scope, r.session_id, r.source_ref) == (
        "m1",
        1,
        "episodic",
        "c1",
        "c1",
        "sess-1",
        "gen-v2",
    )
    assert r.arm == "default" and r.version == "composite-v1" and r.reranker_model is None and r.query == res.query
    assert set(r.score_components) == {"similarity", "keywords", "scope", "confidence", "recency"}
    assert r.score == pytest.approx(res.hits[0].score) and r.id == res.hits[0].delivery_id and r.created_at is not None
    explained = store.search("Melanie sunrise", 1, explain=True)
    assert set(explained.hits[0].components) == {"similarity", "keywords", "scope", "confidence", "recency"}


def test_blank_query_is_refused_before_embedding(url):
    emb = CountingEmbedder()
    s = MemoryStore(url, settings=HASHING, embedder=emb)
    s.add([{"id": "m1", "text": "alpha"}])
    emb.calls.clear()
    for bad in ("", "   ", "<memories>m1: alpha</memories>"):
        with pytest.raises(ValueError, match="blank"):
            s.search(bad, 3)
    with pytest.raises(ValueError, match="blank"):
        s.rank(" ", 3)
    assert emb.calls == []
    with pytest.raises(ValueError, match="k must be"):
        s.search("alpha", 0)
    with pytest.raises(ValueError, match="needs a scope"):
        s.search("alpha", 1, restrict_to_scope=True)


def test_empty_store_search_logs_nothing(store):
    res = store.search("anything at all", 5)
    assert res.hits == [] and len(res) == 0
    with store.engine.connect() as conn:
        assert conn.execute(select(memory_deliveries)).all() == []


class ReverseReranker:
    model = "test-reverse-v1"

    def rerank(self, query, memories):
        return [float(i) for i in range(len(memories))]  # last composite candidate first


def test_reranker_seam_orders_and_is_recorded(url):
    s = MemoryStore(url, settings=HASHING.with_(rerank_depth=3), reranker=ReverseReranker())
    s.add([{"id": f"m{i}", "text": f"budget note {i} " + "budget " * i} for i in range(5)])
    composite = [h.memory.id for h in s.rank("budget", 3)]
    res = s.search("budget", 2)
    assert [h.memory.id for h in res] == composite[::-1][:2]
    assert all(h.reranker_model == "test-reverse-v1" for h in res)
    with s.engine.connect() as conn:
        rows = conn.execute(select(memory_deliveries).order_by(memory_deliveries.c.rank)).all()
    assert {r.reranker_model for r in rows} == {"test-reverse-v1"} and "composite" in rows[0].score_components
    assert rows[0].score == 2.0


def test_unknown_reranker_name_is_a_clear_error(url):
    s = MemoryStore(url, settings=HASHING.with_(reranker="nope"))
    s.add([{"id": "m1", "text": "alpha"}])
    with pytest.raises(ValueError, match="unknown reranker 'nope'"):
        s.search("alpha", 1)


def test_bad_reranker_output_is_refused(url):
    class Broken:
        model = "broken"

        def rerank(self, query, memories):
            return [float("nan")] * len(memories)

    s = MemoryStore(url, settings=HASHING, reranker=Broken())
    s.add([{"id": "m1", "text": "alpha"}])
    with pytest.raises(ValueError, match="one finite score each"):
        s.search("alpha", 1)


def test_memory_jsonl_roundtrip_through_add_file(store, tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text(
        "\n".join(
            json.dumps(x, ensure_ascii=False)
            for x in [
                {
                    "id": "k1",
                    "text": "매출은 작년에 증가했다",
                    "scope": "kr",
                    "created_at": "2024-01-02T03:04:05+09:00",
                    "meta": {"src": 1},
                },
                {"id": "k2", "text": "비용이 줄었다", "scope": "kr"},
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    r = store.add_file(f)
    assert r.added == ["k1", "k2"]
    k1 = store.get("k1")
    assert k1.meta == {"src": 1} and k1.created_at.isoformat() == "2024-01-01T18:04:05+00:00"
    assert [h.memory.id for h in store.rank("매출", 1, scope="kr", restrict_to_scope=True)] == ["k1"]


def test_duplicate_under_an_id_stored_with_another_text_is_an_error(store):
    store.add([{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}])
    with pytest.raises(MemoryFileError, match="'b' is already stored with another text"):
        store.add([{"id": "c", "text": "gamma"}, {"id": "b", "text": "gamma"}])
    assert store.get("c") is None


def test_searching_with_another_embedder_is_refused_and_writes_nothing(url):
    """Re-embedding under another model is a migration (assay memory reembed), never a search's side effect."""
    MemoryStore(url, settings=HASHING).add(
        [{"id": "a", "text": "flights to Denver"}, {"id": "b", "text": "hotel in Paris"}]
    )
    other = MemoryStore(url, settings=HASHING, embedder=HashingEmbedder(dim=256))
    for _ in range(2):  # and again: nothing flipped by the first refusal
        with pytest.raises(EmbedderMismatchError) as e:
            other.search("Denver flights", 1)
        assert "hashing-384-v1 (--embedder hashing; 2 memories)" in str(e.value) and "hashing-256-v1" in str(e.value)
        assert "assay memory reembed" in str(e.value)
    with other.engine.connect() as conn:
        assert stored_identities(conn) == {"hashing-384-v1": 2}
        assert conn.execute(select(memory_deliveries)).first() is None
    with pytest.raises(EmbedderMismatchError, match="this add embeds with hashing-256-v1"):
        other.add([{"id": "c", "text": "train to Lyon"}])
    assert MemoryStore(url, settings=HASHING).search("Paris hotel", 1).hits[0].memory.id == "b"
