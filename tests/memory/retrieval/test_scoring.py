"""Composite scoring: the scalar rules, their weights, and the vectorised index that must agree with them."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.memory.config import WEIGHTS, MemorySettings, Weights
from assay.memory.retrieval.embeddings import HashingEmbedder
from assay.memory.retrieval.index import IndexRow, MemoryIndex
from assay.memory.retrieval.scoring import (
    bm25_idf,
    composite,
    keyword_component,
    recency_component,
    reliability,
    scope_component,
    similarity_component,
)
from assay.memory.text import terms

NOW = datetime(2025, 1, 31, tzinfo=UTC)


def test_reference_weights_and_their_order_only_semantics():
    assert WEIGHTS.as_dict() == {"similarity": 0.50, "keywords": 0.15, "scope": 0.05, "confidence": 0.0, "recency": 0.0}
    with pytest.raises(ValueError, match="weight keywords"):
        Weights(keywords=-0.1)
    with pytest.raises(ValueError, match="weight similarity"):
        Weights(similarity=float("nan"))


def test_components_are_in_unit_interval():
    assert similarity_component(-0.3) == 0.0 and similarity_component(1.2) == 1.0 and similarity_component(0.4) == 0.4
    assert scope_component("a", "a") == 1.0 and scope_component("a", None) == 0.0 and scope_component(None, None) == 0.0
    assert recency_component(30, 30) == 0.5 and recency_component(-5, 30) == 1.0 and recency_component(None, 30) == 0.0
    idf = {"rare": bm25_idf(1, 100), "common": bm25_idf(90, 100)}
    assert idf["rare"] > idf["common"] > 0
    k = keyword_component({"rare", "common"}, {"rare"}, idf)
    assert 0.5 < k < 1.0
    assert keyword_component(set(), {"rare"}, idf) == 0.0


def test_reliability_moves_with_corroboration_and_contradiction():
    assert reliability(0.5, 0, 0) == 0.5
    assert reliability(0.5, 1, 0) == pytest.approx(2 / 3)  # Laplace's rule of succession
    assert reliability(0.5, 0, 1) == pytest.approx(1 / 3)
    assert reliability(0.9, 3, 0) > reliability(0.9, 0, 0) > reliability(0.9, 0, 3)
    with pytest.raises(ValueError):
        reliability(1.5, 0, 0)


def test_composite_is_the_weighted_sum():
    comps = {"similarity": 0.8, "keywords": 0.5, "scope": 1.0, "confidence": 0.9, "recency": 0.1}
    assert composite(comps, WEIGHTS) == pytest.approx(0.5 * 0.8 + 0.15 * 0.5 + 0.05 * 1.0)


def _index(texts, scopes=None, *, superseded=(), corrections=(), keywords=None):
    emb = HashingEmbedder()
    vecs = emb.embed(texts)
    idx = MemoryIndex()
    idx.upsert(
        [
            IndexRow(
                i + 1,
                f"m{i:03d}",
                t,
                (keywords or {}).get(i, sorted(terms(t))),
                (scopes or [None] * len(texts))[i],
                0.5,
                NOW - timedelta(days=i),
                i in superseded,
                i in corrections,
                vecs[i],
            )
            for i, t in enumerate(texts)
        ]
    )
    return idx, emb


def _rank(idx, emb, q, k=5, **kw):
    s = MemorySettings(embedder="hashing")
    return idx.rank(
        q,
        emb.embed([q])[0],
        k,
        weights=kw.pop("weights", s.weights),
        now=NOW.timestamp(),
        half_life_days=s.recency_half_life_days,
        **kw,
    )


def test_index_matches_scalar_rules():
    texts = [
        "invoice paid in March",
        "invoice overdue since April",
        "team offsite in Lisbon",
        "paid vacation policy",
        "Lisbon office opened",
        "the invoice for Lisbon was paid",
    ]
    idx, emb = _index(texts, ["a", "a", "b", "a", "b", "a"])
    q = "was the Lisbon invoice paid"
    got = _rank(idx, emb, q, k=6, scope="a")
    qv = emb.embed([q])[0]
    qt = terms(q)
    kw_terms = [terms(t) for t in texts]
    idf = {t: bm25_idf(sum(t in kt for kt in kw_terms), len(texts)) for t in qt}
    for r in got:
        i = r.row
        cos = float(np.dot(emb.embed([texts[i]])[0], qv))
        expect = {
            "similarity": similarity_component(cos),
            "keywords": keyword_component(qt, kw_terms[i], idf),
            "scope": scope_component("a", ["a", "a", "b", "a", "b", "a"][i]),
            "confidence": 0.5,
            "recency": recency_component(float(i), 30.0),
        }
        for name, v in expect.items():
            assert r.components[name] == pytest.approx(v, abs=1e-6), name
        assert r.score == pytest.approx(composite(expect, WEIGHTS), abs=1e-6)
    assert [r.score for r in got] == sorted((r.score for r in got), reverse=True)
    assert idx.ids[got[0].row] == "m005"


def test_ties_break_by_id_and_k_bounds():
    idx, emb = _index(["same words here"] * 5)
    got = _rank(idx, emb, "same words", k=3)
    assert [idx.ids[r.row] for r in got] == ["m000", "m001", "m002"]
    assert len(_rank(idx, emb, "same words", k=50)) == 5


def test_superseded_meta_and_scope_restriction_exclude_candidates():
    texts = [
        "invoice paid",
        "remember to save memories about invoice payments",
        "invoice paid (corrected)",
        "invoice in scope b",
        "saved this to memory: invoice paid late",
    ]
    idx, emb = _index(texts, ["a", "a", "a", "b", "a"], superseded={0}, corrections={4})
    ids = [idx.ids[r.row] for r in _rank(idx, emb, "invoice paid", k=10)]
    assert "m000" not in ids and "m001" not in ids  # superseded; meta-memory
    assert "m004" in ids  # a correction is exempt from the prefilter
    ids_all = [idx.ids[r.row] for r in _rank(idx, emb, "invoice paid", k=10, prefilter=False)]
    assert "m001" in ids_all
    only_b = [idx.ids[r.row] for r in _rank(idx, emb, "invoice paid", k=10, scope="b", restrict=True)]
    assert only_b == ["m003"]
    assert _rank(idx, emb, "invoice", k=10, scope="zzz", restrict=True) == []


def test_dense_ranker_is_similarity_alone():
    idx, emb = _index(["alpha beta", "alpha gamma delta epsilon", "zeta"])
    got = _rank(idx, emb, "alpha beta", k=3, ranker="dense")
    assert idx.ids[got[0].row] == "m000" and set(got[0].components) == {"similarity"}
    assert got[0].score == pytest.approx(1.0)


def test_query_vector_is_not_computed_without_candidates():
    idx = MemoryIndex()
    called = []
    assert idx.rank("q", lambda: called.append(1), 5, weights=WEIGHTS, now=0.0, half_life_days=30) == []
    assert called == []


def test_upsert_updates_keywords_and_flags_in_place():
    idx, emb = _index(["alpha", "beta"], keywords={0: ["alpha"], 1: ["beta"]})
    assert (
        idx.ids[_rank(idx, emb, "gamma", k=1, weights=Weights(similarity=0, keywords=1, scope=0))[0].row] == "m000"
    )  # tie → id
    idx.upsert([IndexRow(2, "m001", "beta", ["beta", "gamma"], None, 0.5, NOW, False, False, None)])
    top = _rank(idx, emb, "gamma", k=1, weights=Weights(similarity=0, keywords=1, scope=0))[0]
    assert idx.ids[top.row] == "m001" and top.components["keywords"] == 1.0
    idx.upsert([IndexRow(2, "m001", "beta", ["beta", "gamma"], None, 0.5, NOW, True, False, None)])
    assert [idx.ids[r.row] for r in _rank(idx, emb, "gamma", k=5)] == ["m000"]
    assert len(idx) == 2


def test_vector_dimension_mismatch_is_refused():
    idx, emb = _index(["alpha"])
    with pytest.raises(ValueError, match="dimension"):
        idx.upsert([IndexRow(9, "m9", "x", [], None, 0.5, None, False, False, np.ones(10, dtype=np.float32))])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(["invoice", "paid", "lisbon", "april", "team", "offsite", "매출", "증가", "budget"]),
        min_size=1,
        max_size=6,
    ).map(" ".join),
    st.integers(min_value=1, max_value=8),
)
def test_property_index_scores_equal_scalar_composite(query, k):
    texts = [
        "invoice paid april",
        "team offsite lisbon",
        "매출 증가 budget",
        "budget lisbon invoice",
        "paid team",
        "증가 april",
    ]
    idx, emb = _index(texts, ["x", "y", "x", "y", "x", "y"])
    got = _rank(idx, emb, query, k=k, scope="x")
    assert len(got) == min(k, len(texts))
    for r in got:
        assert math.isclose(r.score, composite(r.components, WEIGHTS), rel_tol=0, abs_tol=1e-12)
        assert all(0.0 <= v <= 1.0 for v in r.components.values())
