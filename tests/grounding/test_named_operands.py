"""The items a sentence names for a derivation are its operands' (gate-17; group D of a helper's hunt
for non-year false accepts): "Revenue and net income combined were $211.3 billion [F5, F7]" passed on
operating income + net income, and "Net income was $17.3 billion below revenue [F5, F7]" on operating
income − net income — one named item was an operand's, so the other was not looked at
(:func:`assay.grounding.label_rule.label_veto`). And a Korean comparison's base is the item "보다" is
written onto, its subject the item before it: "순이익은 영업이익보다 173억 달러 많았다 [F5, F7]" (net
income was $17.3 billion more than operating income) passed on operating income − net income
(:mod:`assay.grounding.comparison`). Each false sentence beside its true one."""

from __future__ import annotations

import pytest

from apple import apple
from assay.grounding import check_answer

_APPLE = apple()


@pytest.mark.parametrize(
    ("false", "true"),
    [
        (
            "Revenue and net income combined were $211.3 billion [F5, F7].",
            "Operating income and net income combined were $211.3 billion [F5, F7].",
        ),
        (
            "Net income was $17.3 billion below revenue [F5, F7].",
            "Net income was $17.3 billion below operating income [F5, F7].",
        ),
        ("순이익은 영업이익보다 173억 달러 많았다 [F5, F7].", "순이익은 영업이익보다 173억 달러 적었다 [F5, F7]."),
        ("영업이익은 순이익보다 173억 달러 적었다 [F5, F7].", "영업이익은 순이익보다 173억 달러 많았다 [F5, F7]."),
    ],
)
def test_the_items_named_for_a_derivation_are_its_operands(false, true):
    got = check_answer(false, _APPLE)
    assert got.status == "fail" and [v.kind for v in got.violations] == ["label_mismatch"], (false, got.violations)
    assert check_answer(true, _APPLE).status == "pass", true


@pytest.mark.parametrize(
    "answer",
    [
        "2023년 매출은 2022년보다 2.8% 적었다 [F1, F2].",  # one item: the periods decide
        "Net income was 25.3% of total net sales [F1, F7].",
        "Operating income exceeded net income by $17.3 billion [F5, F7].",
    ],
)
def test_derivations_named_by_their_operands_pass(answer):
    got = check_answer(answer, _APPLE)
    assert got.status == "pass", (answer, got.violations)
