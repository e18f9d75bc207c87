"""A single-digit currency amount with no scale ("$1") is as coarse as a bare digit in uncited
mode (gate.UNCITED_MIN_BARE_PASSAGE): every page holds a "$ 1", so it is checked against facts
only. The FinanceBench false accept: AES's "$0" of restructuring costs moved to "$1"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

PAGE = "Consolidated Statements of Operations\n(in millions)\nOther income\n$ 1\n$ 14"


def status(answer: str, snap: Snapshot) -> str:
    return check_answer(answer, snap, mode="uncited").status


def test_a_single_digit_dollar_amount_is_not_checked_against_a_page():
    page = Snapshot(sources=(PAGE,))
    assert status("Restructuring costs outlined in the income statement were $1.", page) == "no_claims"
    assert status("Other income was $14 million.", page) == "pass"  # two digits: checked as before
    assert status("Other income was $1 million.", page) == "pass"  # a scale makes it a stated amount


def test_a_single_digit_dollar_amount_is_checked_against_facts():
    facts = Snapshot(facts=(Fact(id="D", label="Dividend per year", value=3, unit="USD"),))
    assert status("The dividend was $3.", facts) == "pass"
    assert status("The dividend was $4.", facts) == "fail"


@settings(max_examples=20, deadline=None)
@given(d=st.integers(min_value=0, max_value=9))
def test_property_no_single_digit_dollar_amount_passes_on_a_page_alone(d: int):
    page = Snapshot(sources=(f"Table\nItem\n$ {d}\n$ {d + 20}",))
    assert status(f"The amount was ${d}.", page) != "pass"
