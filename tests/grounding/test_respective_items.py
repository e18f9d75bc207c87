""" "respectively" pairs a list of items with its numbers in order (gate-13,
:func:`assay.grounding.operands.respective_items`): "Net income and total net sales were $383.3
billion and $97.0 billion, respectively [F1, F7]" passed, each item given the nearer figure and
the sentence naming both items anyway. Each false statement beside its true counterpart."""

from __future__ import annotations

import pytest

from apple import apple
from assay.grounding import check_answer
from assay.grounding.operands import respective_items

_APPLE = apple("F1", "F5", "F7", "F8")


@pytest.mark.parametrize(
    ("false", "true"),
    [
        (
            "Net income and total net sales were $383.3 billion and $97.0 billion, respectively [F1, F7].",
            "Total net sales and net income were $383.3 billion and $97.0 billion, respectively [F1, F7].",
        ),
        (
            "Net income, operating income and total net sales were $114.3 billion, $97.0 billion and "
            "$383.3 billion, respectively [F1, F5, F7].",
            "Operating income, net income and total net sales were $114.3 billion, $97.0 billion and "
            "$383.3 billion, respectively [F1, F5, F7].",
        ),
    ],
)
def test_respectively_pairs_items_with_numbers_in_order(false, true):
    r = check_answer(false, _APPLE)
    assert r.status == "fail" and r.violations[0].kind == "label_mismatch", false
    assert check_answer(true, _APPLE).status == "pass", true


def test_items_that_are_no_list_are_not_paired():
    years = "Net income was $97.0 billion and $99.8 billion in fiscal 2023 and 2022, respectively [F7, F8]."
    assert check_answer(years, _APPLE).status == "pass"
    text = "License and subscription revenue in 2019 and 2018 was $64.8 and $35.5, respectively."
    named = [(0, 24, "license and subscription"), (25, 32, "revenue")]
    spans = [(text.index("$64.8"), text.index("$64.8") + 5), (text.index("$35.5"), text.index("$35.5") + 5)]
    assert respective_items(text, named, spans) is None  # one noun phrase, not a list of two items
    listed = "A and B were 1 and 2, respectively."
    assert respective_items(listed, [(0, 1, "a"), (6, 7, "b")], [(13, 14), (19, 20)]) == [0, 1]
    assert respective_items(listed, [(0, 1, "a")], [(13, 14), (19, 20)]) is None  # one item, two numbers
