"""A year of a paragraph number's context is its own only with no other number between them
(issue 15, f15: ``period_swap`` in uncited mode).

Failing input (TAT-QA templated sentences, uncited): "The effective tax rate in 2018 was 13.0%"
passed on the paragraph "…effective income tax rate for 2019 was 13.0% compared to 18.3% for
2018…": the twin rule let a paragraph number stand when its context named the sentence's year
anywhere, and 2018 is the year of the 18.3%.
"""

from __future__ import annotations

import pytest

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.candidates import fact_candidate
from assay.grounding.operands import own_years

CONTEXT = "…effective income tax rate for 2019 was 13.0% compared to 18.3% for 2018. The…"
SNAP = Snapshot(
    facts=(
        Fact(id="T11C1", label="Effective income tax rate | 2019", value=13.0, unit="%", period="2019"),
        Fact(id="T11C2", label="Effective income tax rate | 2018", value=18.3, unit="%", period="2018"),
        Fact(id="P2N0", label=CONTEXT, value=13.0, unit="%"),
        Fact(id="P2N1", label=CONTEXT, value=18.3, unit="%"),
    )
)


@pytest.mark.parametrize(
    "answer, ok",
    [
        ("The effective tax rate in 2018 was 13.0%.", False),
        ("The effective tax rate in 2019 was 18.3%.", False),
        ("The effective tax rate in 2019 was 13.0%.", True),
        ("The effective tax rate in 2018 was 18.3%.", True),
    ],
)
def test_a_context_year_belongs_to_the_nearest_number(answer: str, ok: bool) -> None:
    assert (check_answer(answer, SNAP, mode="uncited").status == "pass") is ok


def test_own_years() -> None:
    c13 = fact_candidate(SNAP.facts[2])
    c18 = fact_candidate(SNAP.facts[3])
    assert own_years(CONTEXT, c13) == {2019}
    assert own_years(CONTEXT, c18) == {2018}
    assert own_years("…rates in 2019 and 2018 were stable…", c13) == {2019, 2018}  # number not found: every year
