"""Each figure of a sentence is checked against the items the sentence names for it, not against
every item it names (gate-16; a helper's hunt for non-year false accepts): "Net income was $114.3
billion and operating income was $97.0 billion [F5, F7]" passed, the two values swapped, because
both items went to the first figure (a tie of distances went to the earlier one) and a sentence
naming a figure's own item anywhere was read as naming it for that figure. Now an item linked to
the figure right after it by a copula, a verb of amount or of a move, "of" or a colon is that
figure's (:func:`~assay.grounding.operands.item_owner`), a mention the sentence gives another figure
does not name the item for this one (:func:`~assay.grounding.label_rule.label_veto`), and a list of
items linked to a list of as many figures pairs them in order, as "respectively" does
(:func:`~assay.grounding.operands.listed_figures`). Each false sentence beside its true one."""

from __future__ import annotations

import pytest

from apple import apple
from assay.grounding import check_answer
from assay.grounding.operands import listed_figures

_APPLE = apple()


@pytest.mark.parametrize(
    ("false", "true"),
    [
        (
            "Net income was $114.3 billion and operating income was $97.0 billion [F5, F7].",
            "Net income was $97.0 billion and operating income was $114.3 billion [F5, F7].",
        ),
        (
            "Total net sales were $97.0 billion and net income was $383.3 billion [F1, F7].",
            "Total net sales were $383.3 billion and net income was $97.0 billion [F1, F7].",
        ),
        (
            "Total net sales were $97.0 billion [F1] and net income was $383.3 billion [F7].",
            "Total net sales were $383.3 billion [F1] and net income was $97.0 billion [F7].",
        ),
        (
            "Gross margin was $383.3 billion and total net sales were $169.1 billion [F1, F3].",
            "Gross margin was $169.1 billion and total net sales were $383.3 billion [F1, F3].",
        ),
        (  # both ways wrong before: the true order failed, the swapped one passed
            "Revenue and net income were $97.0 billion and $383.3 billion [F1, F7].",
            "Revenue and net income were $383.3 billion and $97.0 billion [F1, F7].",
        ),
        (
            "Revenue fell $2.8 billion and net income fell $11.0 billion [F1, F2, F7, F8].",
            "Revenue fell $11.0 billion and net income fell $2.8 billion [F1, F2, F7, F8].",
        ),
        (
            "Net income decreased by $11.0 billion and total net sales decreased by $2.8 billion [F1, F2, F7, F8].",
            "Net income decreased by $2.8 billion and total net sales decreased by $11.0 billion [F1, F2, F7, F8].",
        ),
    ],
)
def test_a_figure_is_checked_against_the_item_named_for_it(false, true):
    r = check_answer(false, _APPLE)
    assert r.status == "fail" and {v.kind for v in r.violations} == {"label_mismatch"}, false
    assert check_answer(true, _APPLE).status == "pass", true


@pytest.mark.parametrize(
    "true",
    [
        "Net income of $97.0 billion and operating income of $114.3 billion [F5, F7].",
        "Operating income was $114.3 billion, while net income was $97.0 billion [F5, F7].",
        "Net income and operating income were $97.0 billion and $114.3 billion, respectively [F5, F7].",
        "Total net sales, gross margin and net income were $383.3 billion, $169.1 billion and $97.0 billion "
        "[F1, F3, F7].",
        "Net income of $97.0 billion was below operating income of $114.3 billion [F5, F7].",
        "Net income was $97.0 billion, or 25.3% of total net sales [F1, F7].",
        "Total net sales fell 2.8% to $383.3 billion [F1, F2].",
        "Net income: $97.0 billion; operating income: $114.3 billion [F5, F7].",
        "Gross margin of $169.1 billion on total net sales of $383.3 billion [F1, F3].",
        "Total net sales were $383.3 billion in fiscal 2023 and $394.3 billion in fiscal 2022 [F1, F2].",
        "Operating income was $114.3 billion and $119.4 billion in fiscal 2023 and 2022 [F5, F6].",
    ],
)
def test_true_sentences_with_two_items_or_two_figures_pass(true):
    assert check_answer(true, _APPLE).status == "pass", true


def test_listed_figures_needs_as_many_items_as_figures_linked_by_a_copula():
    text = "A and B were $1 and $2."
    items, figures = [(0, 1, "a"), (6, 7, "b")], [(13, 15), (20, 22)]
    assert listed_figures(text, items, figures)
    assert not listed_figures(text, items[:1], figures)  # one item, two figures
    assert not listed_figures("A and B rose after $1 and $2.", items, [(19, 21), (26, 28)])  # no link to the figures
    assert not listed_figures("A and B were $1 or $2.", items, [(13, 15), (19, 21)])  # the figures are no list
