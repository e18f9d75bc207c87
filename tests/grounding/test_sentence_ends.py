"""Sentence ends (issue 15, a new user's false accepts of gate-12, each with its true counterpart;
:func:`assay.claims.split_sentences`, :data:`assay.claims.patterns.SENTENCE_END_EXTRA`): an
ellipsis, a CJK full stop with no space after it, a closing quote or bracket after the period, or
no space at all read two sentences as one, so the change word of the first ("Sales moved…")
licensed a difference stated as a level in the second, or its direction word ("Net sales fell…")
reached the second's number; an ellipsis inside a sentence cut a loss word off its number ("Apple's
net loss was... $97.0 billion" passed on a profit).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apple import apple
from assay.claims import split_sentences
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

_SALES = apple("F1", "F2")
_LEVEL = "Total net sales were $11,043 million [F1, F2]."


def _parts(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


_ENDS = ["…", "...", "。", "！", "？", '."', ".”", ".'", ".)", "!)", "?”", ".", "!", "?"]


# every end before a space; with no space, those a closer does not end (".\"Total": the quote opens
# nothing, so the cut is not sure there, and the reader does not make it)
_JOINS = [(e, " ") for e in _ENDS] + [(e, "") for e in _ENDS if len(e) == 1 or e == "..."]


@pytest.mark.parametrize(("end", "space"), _JOINS)
def test_a_change_word_of_the_sentence_before_licenses_no_level(end, space):
    text = f"Sales moved{end}{space}{_LEVEL}"
    assert len(split_sentences(text)) == 2, _parts(text)
    assert check_answer(text, _SALES).status == "fail", text
    true = f"Sales moved{end}{space}Total net sales fell by $11,043 million [F1, F2]."
    assert check_answer(true, _SALES).status == "pass", true


def test_the_closer_stays_with_its_sentence_and_the_next_starts_at_its_word():
    assert _parts('He said "sales moved." Total net sales were flat.') == [
        'He said "sales moved."',
        "Total net sales were flat.",
    ]
    assert _parts("Sales (see note 3.) Total net sales were flat.") == [
        "Sales (see note 3.)",
        "Total net sales were flat.",
    ]
    assert _parts("매출이 변했다。총 순매출은 늘었다。") == ["매출이 변했다。", "총 순매출은 늘었다。"]


def test_an_ellipsis_inside_a_sentence_does_not_cut_it():
    assert _parts("Revenue was … $383.3 billion [F1].") == ["Revenue was … $383.3 billion [F1]."]
    assert _parts("Revenue was ... $383.3 billion [F1].") == ["Revenue was ... $383.3 billion [F1]."]
    assert _parts("Revenue moved… and then it fell.") == ["Revenue moved… and then it fell."]
    assert check_answer("Fiscal 2022 revenue was … $383.3 billion [F1].", _SALES).status == "fail"  # F1 is FY2023
    assert check_answer("Fiscal 2023 revenue was … $383.3 billion [F1].", _SALES).status == "pass"


def test_abbreviations_initials_and_decimals_still_do_not_cut():
    assert _parts("Apple Inc.Total sales were flat.") == ["Apple Inc.Total sales were flat."]
    assert _parts("U.S.Treasury yields rose.") == ["U.S.Treasury yields rose."]
    assert _parts("Revenue was $383.3 billion. It fell 2.8%.") == ["Revenue was $383.3 billion.", "It fell 2.8%."]
    assert _parts("Richard S. Hill joined. Sales rose.") == ["Richard S. Hill joined.", "Sales rose."]


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(["Sales moved", "Revenue changed", "Net sales fell", "It rose", "매출이 변했다"]),
    st.sampled_from(_ENDS),
    st.sampled_from([" ", "  ", "\u00a0", ""]),
)
def test_property_no_licence_crosses_a_sentence_end(first, end, space):
    if space == "" and end[0] in ".!?" and end != "...":
        end = end[0]  # (".\"Total" is one token: a quote with no space after it opens nothing)
    text = f"{first}{end}{space}{_LEVEL}"
    assert check_answer(text, _SALES).status == "fail", text


def test_an_ellipsis_inside_a_sentence_keeps_the_loss_word_with_its_number():
    apple = Snapshot(facts=(Fact(id="F7", label="Net income", value=96995, unit="USD millions", period="FY2023"),))
    assert check_answer("Apple's net loss was... $97.0 billion [F7].", apple).status == "fail"
    assert check_answer("Apple's net loss was … $97.0 billion [F7].", apple).status == "fail"
    assert check_answer("Apple's net income was... $97.0 billion [F7].", apple).status == "pass"
