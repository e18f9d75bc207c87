"""A fraction (in words or ``1/4``) is a ratio: it matches a cited a/b within its stated tolerance.

Failing input before the fix (found by a new-user pass this round): "Net income was a quarter of
revenue [F7, F1]" (96,995 / 383,285 = 0.253) failed as value_mismatch — the matcher had no
reading for the unit ``ratio`` the reader gives fractions, so no fraction ever matched.
"""

from __future__ import annotations

import pytest

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

SNAP = Snapshot(
    facts=(
        Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        Fact(id="F7", label="Net income", value=96995, unit="USD millions", period="FY2023"),
        Fact(id="F3", label="Services net sales", value=85200, unit="USD millions", period="FY2023"),
    )
)


@pytest.mark.parametrize(
    "answer",
    [
        "Net income was a quarter of revenue [F7, F1].",
        "Net income was 1/4 of revenue [F7, F1].",
        "Net income was about one quarter of total net sales [F7, F1].",
    ],
)
def test_a_true_fraction_of_two_cited_facts_passes(answer: str) -> None:
    assert check_answer(answer, SNAP).status == "pass"


@pytest.mark.parametrize(
    "answer",
    [
        "Net income was a third of revenue [F7, F1].",  # 0.333 ± 0.02 vs 0.253
        "Net income was half of revenue [F7, F1].",
        "Net income was 1/3 of revenue [F7, F1].",
        "Services were a quarter of revenue [F3, F1].",  # 0.222: outside a quarter's ± 0.02
    ],
)
def test_a_false_fraction_fails(answer: str) -> None:
    assert check_answer(answer, SNAP).status == "fail"
