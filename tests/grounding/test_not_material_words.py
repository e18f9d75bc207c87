"""A synonym inside another concept's name names that other concept (gate-18): "cost of sales",
"deferred revenue" and "sales and marketing" are no revenue. The label rule read them as revenue —
"Revenue was $214.1 billion [F2]" and "Sales were $214.1 billion [F2]" passed on a cost-of-sales fact
(a label swap a new user would make) — while completeness already knew them apart
(:data:`~assay.grounding.concepts.NOT_MATERIAL_BEFORE`, now the concepts' own)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.concepts import CONCEPTS, NOT_MATERIAL_AFTER, NOT_MATERIAL_BEFORE, concept_of, inside
from assay.grounding.labels import SnapshotVocabulary, related_to

_SNAP = Snapshot(
    facts=(
        Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        Fact(id="F2", label="Cost of sales", value=214137, unit="USD millions", period="FY2023"),
        Fact(id="F3", label="Deferred revenue", value=8061, unit="USD millions", period="FY2023"),
        Fact(id="F4", label="Sales and marketing", value=24932, unit="USD millions", period="FY2023"),
    )
)


@pytest.mark.parametrize(
    ("false", "true"),
    [
        ("Revenue was $214.1 billion [F2].", "Cost of sales was $214.1 billion [F2]."),
        ("Sales were $214.1 billion in fiscal 2023 [F2].", "Cost of sales was $214.1 billion in fiscal 2023 [F2]."),
        ("Revenue was $8.1 billion [F3].", "Deferred revenue was $8.1 billion [F3]."),
        ("Sales were $24.9 billion [F4].", "Sales and marketing was $24.9 billion [F4]."),
        ("Cost of sales was $383.3 billion [F1].", "Revenue was $383.3 billion [F1]."),
        ("Sales and marketing was $383.3 billion [F1].", "Net sales were $383.3 billion [F1]."),
    ],
)
def test_a_synonym_inside_another_concept_names_that_one(false, true):
    got = check_answer(false, _SNAP)
    assert got.status == "fail" and [v.kind for v in got.violations] == ["label_mismatch"], (false, got.violations)
    assert check_answer(true, _SNAP).status == "pass", true


def test_concepts_and_inside():
    assert concept_of("cost of sales") is None and concept_of("deferred revenue") is None
    assert concept_of("sales and marketing") is None
    assert concept_of("total net sales") == concept_of("revenue") == concept_of("revenue, net of cost of sales")
    assert inside("sales", "total net sales") and not inside("sales", "cost of sales")
    assert inside("sales", "cost of sales and sales")  # its second occurrence is sales
    assert not related_to("revenue", "cost of sales", False) and related_to("revenue", "total net sales", False)


def test_a_snapshot_item_after_such_words_is_still_named():
    """Only a concept's synonym is dropped: "costs of Online Advertising revenue" names the segment (a
    TAT-QA templated sentence whose label swap a first form of the rule let pass)."""
    vocab = SnapshotVocabulary((("Online Advertising | 2019", "2019"), ("Total revenue | 2019", "2019")))
    named = [n for _, _, n in vocab.named_spans("The change in costs of Online Advertising revenue was 1,559 million")]
    assert "online advertising" in named
    assert [n for _, _, n in vocab.named_spans("Sales and marketing was 5 million")] == []


@given(
    st.sampled_from(sorted(k for k in CONCEPTS if k.isascii() and " " not in k)),
    st.sampled_from(NOT_MATERIAL_BEFORE),
)
def test_property_a_guard_word_makes_a_synonym_no_concept(synonym, before):
    assert concept_of(f"{before} {synonym}") is None, (before, synonym)
    assert concept_of(f"{synonym} {NOT_MATERIAL_AFTER[0]}") is None
