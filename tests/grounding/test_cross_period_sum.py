"""A sum across two known years needs a cross-period licence even for generic rows
(assay.grounding.context): "in total" licenses adding components, not two years' totals. The
TAT-QA false accept: "50,789 million [T7C5, T7C1]" to "How much amount of goodwill activity in
2019 in total?", the 2019 and 2018 "Total" rows added."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

Y19, Y18 = "Dec 28, 2019", "Dec 29, 2018"
GOODWILL = Snapshot(
    facts=(
        Fact(id="T7C5", label=f"Total | {Y19}", value=26276, unit="USD millions", period=Y19),
        Fact(id="T7C1", label=f"Total | {Y18}", value=24513, unit="USD millions", period=Y18),
        Fact(id="T7C2", label=f"Client Computing | {Y19}", value=4356, unit="USD millions", period=Y19),
        Fact(id="T7C3", label=f"Data Center | {Y19}", value=5421, unit="USD millions", period=Y19),
    )
)
Q = "How much amount of goodwill activity in 2019 in total?"


def status(answer: str, question: str | None = Q) -> str:
    return check_answer(answer, GOODWILL, question=question).status


def test_in_total_does_not_license_adding_two_years_totals():
    assert status("26,276 million [T7C5]") == "pass"
    assert status("50,789 million [T7C5, T7C1]") == "fail"
    assert status("50,789 million [T7C5, T7C1]", "What is the total goodwill in 2019 and 2018?") == "pass"


def test_in_total_still_licenses_components_of_one_year():
    assert status("9,777 million [T7C2, T7C3]") == "pass"


@settings(max_examples=30, deadline=None)
@given(a=st.integers(min_value=100, max_value=90000), b=st.integers(min_value=100, max_value=90000))
def test_property_a_two_year_total_needs_a_cross_period_word(a: int, b: int):
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Total | 2019", value=a, unit="USD millions", period="2019"),
            Fact(id="B", label="Total | 2018", value=b, unit="USD millions", period="2018"),
        )
    )
    answer = f"{a + b:,} million [A, B]"
    assert check_answer(answer, snap, question="What was the total in 2019 in total?").status == "fail"
    assert check_answer(answer, snap, question="What was the cumulative total over the two years?").status == "pass"
