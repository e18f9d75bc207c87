"""Retrieval evaluation: metric definitions, rankers (composite, dense, BM25, reranker) and skips."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from assay.memory import MemoryFileError, MemorySettings, MemoryStore
from assay.memory.retrieval.evaluate import Query, evaluate_retrieval, load_queries, ndcg_at, recall_at, reciprocal_rank

HASHING = MemorySettings(embedder="hashing")


def test_metric_definitions():
    ranked = ["a", "x", "b", "y", "z"]
    assert recall_at(ranked, {"a", "b", "c"}, 2) == pytest.approx(1 / 3)
    assert recall_at(ranked, {"a", "b", "c"}, 5) == pytest.approx(2 / 3)
    ideal = 1 + 1 / math.log2(3)
    assert ndcg_at(ranked, {"a", "b"}, 5) == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert ndcg_at(["a", "b"], {"a", "b"}, 10) == pytest.approx(1.0)
    assert reciprocal_rank(ranked, {"b"}, 5) == pytest.approx(1 / 3) and reciprocal_rank(ranked, {"b"}, 2) == 0.0
    with pytest.raises(ValueError):
        recall_at(ranked, set(), 5)


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    s = MemoryStore(f"sqlite:///{tmp_path / 'e.db'}", settings=HASHING)
    s.add(
        [
            {"id": "a1", "text": "Alice adopted a cat named Oscar", "scope": "A"},
            {"id": "a2", "text": "Alice runs marathons in spring", "scope": "A"},
            {"id": "a3", "text": "Alice painted a sunset over the lake", "scope": "A"},
            {"id": "b1", "text": "Bob adopted a dog named Rex", "scope": "B"},
            {"id": "b2", "text": "Bob cooks pasta on Sundays", "scope": "B"},
        ]
    )
    return s


QUERIES = [
    Query(id="q1", query="What is the name of Alice's cat?", relevant=("a1",), scope="A", category="4"),
    Query(id="q2", query="What does Bob cook?", relevant=("b2",), scope="B", category="4"),
    Query(id="q3", query="What did Alice paint?", relevant=("a3", "gone"), scope="A", category="1"),
    Query(id="q4", query="Who is Carol?", relevant=("nobody",), scope="A", category="1"),
]


@pytest.mark.parametrize("ranker", ["composite", "dense", "bm25"])
def test_rankers_find_the_relevant_memory_within_scope(store, ranker):
    res = evaluate_retrieval(store, QUERIES, k=10, ranker=ranker)
    assert res["n"] == 3 and res["n_skipped"] == 1 and res["skipped"] == {"no relevant memory in the store": 1}
    assert res["recall@10"] == 1.0 and res["recall@5"] == 1.0  # 3 candidates per scope at most
    assert set(res) >= {"recall@5", "recall@10", "ndcg@10", "mrr", "n", "n_skipped", "per_category"}
    assert res["per_category"]["4"]["n"] == 2 and res["per_category"]["1"]["n"] == 1
    assert 0 < res["ndcg@10"] <= 1 and 0 < res["mrr"] <= 1


def test_top1_is_right_for_distinctive_queries(store):
    for ranker in ("composite", "bm25"):
        res = evaluate_retrieval(store, QUERIES[:2], k=1, ranker=ranker)
        assert res["recall@1"] == 1.0 and res["mrr"] == 1.0, ranker


def test_evaluation_logs_no_delivery(store):
    from sqlalchemy import func, select

    from assay.memory.tables import memory_deliveries

    evaluate_retrieval(store, QUERIES, k=3)
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(memory_deliveries)).scalar_one() == 0


def test_unknown_ranker_and_missing_reranker(store):
    with pytest.raises(ValueError, match="unknown ranker"):
        evaluate_retrieval(store, QUERIES, ranker="magic")
    with pytest.raises(ValueError, match="needs a reranker"):
        evaluate_retrieval(store, QUERIES, ranker="reranker")


def test_reranker_ranker_uses_the_seam(tmp_path):
    class ByLength:
        model = "by-length"

        def rerank(self, query, memories):
            return [-len(m.text) for m in memories]

    s = MemoryStore(f"sqlite:///{tmp_path / 'r.db'}", settings=HASHING, reranker=ByLength())
    s.add([{"id": "long", "text": "alpha " * 10}, {"id": "short", "text": "alpha beta"}])
    res = evaluate_retrieval(s, [Query(id="q", query="alpha", relevant=("short",))], k=1, ranker="reranker")
    assert res["recall@1"] == 1.0


def test_load_queries_reports_bad_lines(tmp_path):
    f = tmp_path / "q.jsonl"
    f.write_text(
        "\n".join(
            [
                json.dumps({"id": "q1", "query": "x", "relevant": ["m1"], "category": 2}),
                json.dumps({"id": "q1", "query": "y", "relevant": []}),
                json.dumps({"id": "q3", "query": " ", "relevant": ["m1"]}),
                json.dumps({"id": "q4", "relevant": ["m1"], "extra": 1}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(MemoryFileError) as e:
        load_queries(f)
    msg = str(e.value)
    assert (
        f"{f}:2: id: duplicate id 'q1'" in msg
        and f"{f}:3: query:" in msg
        and f"{f}:4: query: required" in msg
        and f"{f}:4: extra: unknown field" in msg
    )
    f.write_text(json.dumps({"id": "q1", "query": "x", "relevant": ["m1"], "category": 2}) + "\n", encoding="utf-8")
    assert load_queries(f)[0].category == "2"
