"""Training data for the student: grade pairs, the grouped seeded split, engagement weak labels,
label-file errors. No model is loaded here."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.memory.learning.pairs import (
    Item,
    LabelRecord,
    build_dataset,
    engagement_pairs,
    grade_pairs,
    items_by_query,
    load_labels,
    split_groups,
)
from assay.memory.models import MemoryFileError
from rerank_labels import label_records, write_labels


def _item(mid, grade=None, engaged=None, score=None, composite=None):
    return Item(mid, f"text {mid}", grade, engaged, score, composite)


def test_tied_labels_and_single_documents_give_no_pairs():
    assert grade_pairs("q", "query", [_item("a", 3), _item("b", 3), _item("c", 3)]) == []
    assert grade_pairs("q", "query", [_item("a", 3)]) == []
    assert grade_pairs("q", "query", []) == []
    assert grade_pairs("q", "query", [_item("a", 3), _item("b", None)]) == []


def test_min_gap_keeps_only_clearly_ordered_pairs():
    items = [_item("g3", 3), _item("g2", 2), _item("g1", 1), _item("g0", 0)]
    two = {(p.pos.memory_id, p.neg.memory_id) for p in grade_pairs("q", "x", items)}
    assert two == {("g3", "g1"), ("g3", "g0"), ("g2", "g0")}
    assert len(grade_pairs("q", "x", items, min_gap=1)) == 6
    assert len(grade_pairs("q", "x", items, min_gap=3)) == 1
    with pytest.raises(ValueError, match="min_gap"):
        grade_pairs("q", "x", items, min_gap=0)


def test_a_dataset_of_tied_queries_is_refused_not_trained():
    recs = [LabelRecord.model_validate(r | {"grade": 2}) for r in label_records(8)]
    with pytest.raises(ValueError, match="no grade pairs"):
        build_dataset(recs)


@settings(max_examples=60, deadline=None)
@given(
    groups=st.lists(st.sampled_from([f"g{i}" for i in range(12)]), min_size=2, max_size=40),
    holdout=st.floats(0.05, 0.95),
    seed=st.integers(0, 2**31),
)
def test_split_never_puts_a_group_on_both_sides(groups, holdout, seed):
    if len(set(groups)) < 2:
        with pytest.raises(ValueError, match="at least 2 groups"):
            split_groups(groups, holdout=holdout, seed=seed)
        return
    train, held = split_groups(groups, holdout=holdout, seed=seed)
    assert train and held and not (train & held) and train | held == set(groups)
    assert split_groups(list(reversed(groups)), holdout=holdout, seed=seed) == (train, held)  # order-free, seeded


@pytest.mark.parametrize("by", ["query", "scope"])
def test_grouped_split_never_leaks_a_query_or_a_scope(by):
    recs = [LabelRecord.model_validate(r) for r in label_records(30, scopes=7)]
    ds = build_dataset(recs, split_by=by, holdout=0.3, seed=3)
    tq, hq = {p.query_id for p in ds.train}, {p.query_id for p in ds.heldout}
    assert tq and hq and not (tq & hq)
    scope_of = {r.query_id: r.scope for r in recs}
    if by == "scope":
        assert not ({scope_of[q] for q in tq} & {scope_of[q] for q in hq})
        assert ds.stats["heldout_groups"] == 2 and ds.stats["train_groups"] == 5
    assert ds.stats["train_pairs"] + ds.stats["heldout_pairs"] == 30 * 4
    assert "q0" not in json.dumps(ds.stats)  # counts and a hash, never ids


def test_weak_labels_are_merged_after_the_split_and_never_reach_held_out():
    recs = [LabelRecord.model_validate(r) for r in label_records(30, engaged=True)]
    # engagement on grade-tied memories of every query, so weak pairs exist on both sides of the split
    extra = []
    for qi in range(30):
        base = {"query_id": f"q{qi}", "query": recs[qi * 4].query, "scope": recs[qi * 4].scope, "grade": 0}
        extra.append(
            LabelRecord.model_validate(
                base | {"memory_id": f"q{qi}x1", "memory_text": "an engaged one", "engaged": True, "engaged_score": 0.9}
            )
        )
        extra.append(
            LabelRecord.model_validate(
                base | {"memory_id": f"q{qi}x2", "memory_text": "an ignored one", "engaged": False}
            )
        )
    ds = build_dataset(recs + extra, split_by="scope", holdout=0.34, seed=1, engagement=True)
    held_q = {p.query_id for p in ds.heldout}
    assert ds.weak and all(p.source == "engagement" for p in ds.weak)
    assert all(p.source == "grade" for p in ds.heldout)
    assert not ({p.query_id for p in ds.weak} & held_q)
    assert not ({p.group for p in ds.weak} & {p.group for p in ds.heldout})
    assert ds.stats["weak_pairs"] == len(ds.weak) and len(ds.train) == ds.stats["train_pairs"] + len(ds.weak)
    without = build_dataset(recs + extra, split_by="scope", holdout=0.34, seed=1)
    assert [(p.query_id, p.pos.memory_id, p.neg.memory_id) for p in without.heldout] == [
        (p.query_id, p.pos.memory_id, p.neg.memory_id) for p in ds.heldout
    ]  # weak labels change nothing held out


def test_weak_pairs_skip_what_grades_decide_and_respect_caps():
    items = [
        _item("p3", 3, True, 0.9),
        _item("n0", 0, False),
        _item("p0", 0, True, 0.2),
        _item("n3", 3, False),
        _item("u", None, False),
    ]
    queries = {"q": ("query", None, items)}
    pairs = {(p.pos.memory_id, p.neg.memory_id) for p in engagement_pairs(queries, {"q": "q"}, {"q"})}
    # p3>n0 is already a grade pair; p0>n3 contradicts the grades; tied grades and ungraded negatives stay
    assert pairs == {("p3", "n3"), ("p3", "u"), ("p0", "n0"), ("p0", "u")}
    strict = {(p.pos.memory_id, p.neg.memory_id) for p in engagement_pairs(queries, {"q": "q"}, {"q"}, min_pos=0.5)}
    assert strict == {("p3", "n3"), ("p3", "u")}
    assert len(engagement_pairs(queries, {"q": "q"}, {"q"}, max_pairs=2)) == 2
    assert engagement_pairs(queries, {"q": "q"}, {"q"}, max_pairs=0) == []
    assert engagement_pairs(queries, {"q": "q"}, set()) == []  # a held-out group gives none


def test_composite_score_of_a_label():
    base = {"query_id": "q", "query": "x", "memory_id": "m", "memory_text": "t"}
    assert LabelRecord.model_validate(base | {"score": 0.4}).composite() == 0.4
    assert (
        LabelRecord.model_validate(
            base | {"score": 3.0, "reranker_model": "ce", "score_components": {"composite": 0.2}}
        ).composite()
        == 0.2
    )
    assert LabelRecord.model_validate(base | {"score": 3.0, "reranker_model": "ce"}).composite() is None
    assert LabelRecord.model_validate(base).composite() is None


def test_items_by_query_keeps_the_last_label_and_skips_missing_texts():
    base = {"query_id": "q", "query": "x", "scope": None}
    recs = [
        LabelRecord.model_validate(base | {"memory_id": "m", "memory_text": "t", "grade": 0}),
        LabelRecord.model_validate(base | {"memory_id": "m", "memory_text": "t", "grade": 3}),
        LabelRecord.model_validate(base | {"memory_id": "gone", "memory_text": None, "grade": 3}),
    ]
    q, skipped = items_by_query(recs)
    assert [i.grade for i in q["q"][2]] == [3] and sum(skipped.values()) == 2
    with pytest.raises(ValueError, match="two different queries"):
        items_by_query(
            recs
            + [LabelRecord.model_validate({"query_id": "q", "query": "other", "memory_id": "z", "memory_text": "t"})]
        )


def test_load_labels_reports_every_bad_line(tmp_path):
    f = tmp_path / "labels.jsonl"
    good = label_records(1)[0]
    f.write_text(
        "\n".join([json.dumps(good), "{not json", json.dumps(good | {"grade": 7}), json.dumps({"query": "x"})]) + "\n"
    )
    with pytest.raises(MemoryFileError) as e:
        load_labels(f)
    text = str(e.value)
    assert (
        f"{f}:2: <json>" in text and f"{f}:3: grade: " in text and f"{f}:4: query_id: required field is missing" in text
    )
    assert len(load_labels(write_labels(tmp_path / "ok.jsonl", label_records(2)))) == 8


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 900), bs=st.integers(1, 40), seed=st.integers(0, 2**31))
def test_length_batches_cover_every_pair_once(n, bs, seed):
    import math

    import numpy as np

    from assay.memory.learning.pairs import Pair
    from assay.memory.learning.train import length_batches

    pairs = [Pair(f"q{i}", "g", "q" * (i % 17), _item(f"p{i}"), _item(f"n{i}")) for i in range(n)]
    batches = length_batches(pairs, bs, np.random.default_rng(seed))
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(n)) and len(batches) == math.ceil(n / bs) and all(len(b) <= bs for b in batches)
