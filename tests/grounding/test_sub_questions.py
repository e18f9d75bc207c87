"""Two-part questions (issue 15, a new user's false accept of gate-12;
:func:`assay.grounding.lexicon.sub_questions`): "How did total net sales change, and what were
total net sales in FY2023?" licensed a level-worded difference — and a question's licence of a
magnitude of a negative figure or of a sum reached a figure that may answer the other part. A
licence holds only when every sub-question gives it.
"""

from __future__ import annotations

from apple import apple
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.lexicon import licences, question_carries_sign, sub_questions

_SALES = apple("F1", "F2")
_LEVEL = "Total net sales were $11,043 million [F1, F2]."


_TWO_PART = "How did total net sales change, and what were total net sales in FY2023?"


def test_a_two_part_question_licenses_no_level_worded_difference():
    assert check_answer(_LEVEL, _SALES, question=_TWO_PART).status == "fail"
    assert check_answer(_LEVEL, _SALES, question="How did total net sales change?").status == "pass"
    both = "How much did total net sales change, and by how much did they fall from FY2022?"
    assert check_answer(_LEVEL, _SALES, question=both).status == "pass"  # both parts ask a change
    true = "Total net sales fell by $11,043 million [F1, F2]."
    assert check_answer(true, _SALES, question=_TWO_PART).status == "pass"


def test_a_two_part_question_licenses_no_sign_unless_both_parts_carry_it():
    capex = Snapshot(facts=(Fact(id="C", label="Capital expenditure", value=-1577, unit="USD millions"),))
    one = "How much was spent on capital expenditure?"
    assert check_answer("1,577 million [C]", capex, question=one).status == "pass"
    two = "What was revenue, and how much was spent on capital expenditure?"
    assert question_carries_sign(one) and not question_carries_sign(two)
    assert check_answer("1,577 million [C]", capex, question=two).status == "fail"


def test_a_two_part_question_licenses_a_sum_only_when_both_parts_ask_one():
    assert licences("What was the total of A and B in 2019?")[0]
    assert not licences("What was the total of A and B in 2019, and what was A in 2018?")[0]


def test_sub_questions_cut_only_at_a_second_question():
    assert sub_questions(_TWO_PART) == ("How did total net sales change, and ", "what were total net sales in FY2023?")
    assert len(sub_questions("What was revenue in 2019 and 2018?")) == 1
    assert len(sub_questions("What was the sum of A and B?")) == 1
    # FinanceBench's instructions after the question ask for no figure of their own
    fb = (
        "What is Adobe's year-over-year change in unadjusted operating income from FY2015 to FY2016? "
        "Give a solution to the question by using the income statement."
    )
    assert sub_questions(fb) == (fb,)
    assert len(sub_questions("What was revenue? What was net income?")) == 2
    assert len(sub_questions("How much was the cost, and how much remained as of May 31, 2019?")) == 2
