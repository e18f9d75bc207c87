"""A unitless passage number read at the answer's scale word needs its page to name that scale
(issue 15, f15: ``scale_word`` on FinanceBench).

Failing input (FinanceBench, perturbation ``scale_word``, 11 of 227 accepted): "Amcor's adjusted
non-GAAP EBITDA for FY 2023 was $2,018 billion" passed on a page showing "2,018" in a table
whose scale header the parser did not read: a unitless passage number matched as displayed at
ANY stated scale. It now matches at a stated thousand/million/billion only when its page names
that scale in words somewhere ("$ million", "in millions", "$1.2 billion").
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Snapshot
from assay.grounding import check_answer

PAGE = "Reconciliation of Non-GAAP Measures ($ million)\nAdjusted EBITDA 2,018 2,117\nNet sales 14,694 14,544\n"


def status(answer: str, page: str = PAGE) -> str:
    return check_answer(answer, Snapshot(sources=(page,)), mode="uncited").status


@pytest.mark.parametrize(
    "answer",
    [
        "Adjusted EBITDA for FY 2023 was $2,018 million.",
        "Adjusted EBITDA was 2,018.",
        "Net sales were $14,694 million.",
    ],
)
def test_the_pages_scale_passes(answer: str) -> None:
    assert status(answer) == "pass"


@pytest.mark.parametrize(
    "answer", ["Adjusted EBITDA for FY 2023 was $2,018 billion.", "Net sales were $14,694 thousand."]
)
def test_a_scale_the_page_never_names_fails(answer: str) -> None:
    assert status(answer) == "fail"


def test_a_page_naming_both_scales_backs_either() -> None:
    page = PAGE + "Total debt was $1.2 billion.\n"
    assert status("Adjusted EBITDA was $2,018 billion.", page) == "pass"  # unverifiable: the page names both


@settings(max_examples=40, deadline=None)
@given(v=st.integers(100, 99_999), word=st.sampled_from(["thousand", "million", "billion"]))
def test_property_scale_word_swap_on_an_unheaded_page(v: int, word: str) -> None:
    """Perturbation class ``scale_word``: the page's own scale passes, another fails."""
    other = {"thousand": "million", "million": "billion", "billion": "million"}[word]
    page = f"Figures in {word}s\nRevenue {v:,}\n".replace(f"in {word}s", f"($ {word})")
    assert status(f"Revenue was ${v:,} {word}.", page) == "pass"
    assert status(f"Revenue was ${v:,} {other}.", page) == "fail"
