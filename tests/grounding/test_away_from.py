"""A level said to have moved away from another stated level must have moved that way
(assay.grounding.direction.from_to_contradictions): the FinanceBench false accept "the liability
balance was $93 million, which was an increase from the $118 million balance"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Snapshot
from assay.grounding import check_answer

PAGE = "Restructuring liability\n(in millions)\nBalance at June 30, 2022\n$ 118\nBalance at December 31, 2022\n$ 93"


def status(answer: str, page: str = PAGE) -> str:
    return check_answer(answer, Snapshot(sources=(page,)), mode="uncited").status


def test_a_level_cannot_be_an_increase_from_a_higher_one():
    true = "At December 31, 2022 the balance was $93 million, which was a decrease from the $118 million balance."
    assert status(true) == "pass"
    assert status(true.replace("a decrease", "an increase")) == "fail"


def test_levels_without_such_wording_are_judged_as_before():
    assert status("The balance was $93 million at December 31, 2022 and $118 million at June 30, 2022.") == "pass"


@settings(max_examples=30, deadline=None)
@given(a=st.integers(min_value=10, max_value=999), b=st.integers(min_value=10, max_value=999))
def test_property_the_stated_way_must_fit_the_two_levels(a: int, b: int):
    if a == b:
        return
    page = f"Balances\n(in millions)\nClosing\n$ {a}\nOpening\n$ {b}"
    right, wrong = ("an increase", "a decrease") if a > b else ("a decrease", "an increase")
    assert status(f"The balance was ${a} million, which was {right} from the ${b} million balance.", page) == "pass"
    assert status(f"The balance was ${a} million, which was {wrong} from the ${b} million balance.", page) == "fail"
