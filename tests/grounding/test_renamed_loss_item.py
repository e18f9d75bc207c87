"""An answer that names as a profit the item its question names as a loss fails on figures whose
labels name neither (issue 15, f15: ``sign_word``).

Failing input (TAT-QA templated sentences, cited): asked "What was the sum of all Income tax net
operating loss carryforwards?", "The sum of all Income tax net operating income carryforwards was
622,908 thousand [T2C2, T3C2]" passed: the cells ("Domestic–state | Amount", "Foreign |
Amount") carry no sign word, so the profit word contradicted nothing.
"""

from __future__ import annotations

import pytest

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.lexicon import renamed_loss_item

SNAP = Snapshot(
    facts=(
        Fact(id="T2C2", label="Domestic–state | Amount", value=57299, unit="USD thousands", displayed_value="$57,299"),
        Fact(id="T3C2", label="Foreign | Amount", value=565609, unit="USD thousands", displayed_value="$565,609"),
    )
)
Q = "What was the sum of all Income tax net operating loss carryforwards?"


def test_the_renamed_item_fails_and_the_questions_own_passes() -> None:
    false = "The sum of all Income tax net operating income carryforwards was 622,908 thousand [T2C2, T3C2]."
    true = "The sum of all Income tax net operating loss carryforwards was 622,908 thousand [T2C2, T3C2]."
    r = check_answer(false, SNAP, question=Q)
    assert r.status == "fail" and "named a profit" in r.violations[0].reason
    assert check_answer(true, SNAP, question=Q).status == "pass"
    assert check_answer(false, SNAP).status == "pass"  # no question: nothing says it is a loss


@pytest.mark.parametrize(
    "sentence, question",
    [
        ("Cash provided by operations is indicated by the net income of $5,070 million", "Which lost the least?"),
        ("Net income was $5 million", "What was the net loss in 2019?"),  # a paired item may be either
        ("Operating income was $5 million", None),
    ],
)
def test_nothing_renamed(sentence: str, question: str | None) -> None:
    assert renamed_loss_item(sentence, question) is None
