"""A stated direction on a row shown negative in both years (gate-20, ``label_signs.negative_row_reading``)
and on two cells of one year's columns (ordered by ``table_headers.column_parts``, else
``match._one_column_year``): what a reader can tell, and nothing
backed where the reader cannot tell. TAT-QA's templated change sentences, uncited on the tables as text:
the signed reading passed "The Net Loss increased by 8,551" on a loss that shrank from 24,122 to 15,571."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Snapshot
from assay.grounding import check_answer


def _status(answer: str, row: str, a: str, b: str) -> str:
    page = f"(in thousands)\n | 2019 | 2018\n{row} | {a} | {b}\nShares outstanding | 1,000 | 900"
    return check_answer(answer, Snapshot(sources=(page,)), mode="uncited").status


@pytest.mark.parametrize(
    ("row", "true", "false"),
    [
        ("Net Loss", "decreased", "increased"),  # a loss: its size
        ("Finance costs", "decreased", "increased"),  # a cost: its size
        ("Net cash used in investing activities", "decreased", "increased"),  # cash used: its size
        ("Other sales", "increased", "decreased"),  # sales shown negative (returns): the sign
    ],
)
def test_a_deduction_moves_by_its_size_a_profit_by_its_sign(row, true, false):
    # 2019: (15,571), 2018: (24,122): the size fell by 8,551, the signed value rose by 8,551
    said = "The {row} {word} by 8,551 thousand from 2018 to 2019."
    assert _status(said.format(row=row, word=true), row, "$(15,571)", "$(24,122)") == "pass"
    assert _status(said.format(row=row, word=false), row, "$(15,571)", "$(24,122)") == "fail"


@pytest.mark.parametrize(
    "row", ["Disposals during the year", "Valuation allowance", "Net cash provided by (used in) investing activities"]
)
def test_a_row_whose_label_says_no_sign_backs_no_direction(row):
    # TAT-QA's annotators read such rows both ways: neither reading is proven (fail-closed)
    for word in ("increased", "decreased"):
        assert _status(f"The {row} {word} by 8,551 thousand from 2018 to 2019.", row, "(15,571)", "(24,122)") == "fail"


def test_the_change_amount_without_a_direction_still_matches():
    assert (
        _status("The change in valuation allowance was 8,551 thousand.", "Valuation allowance", "(15,571)", "(24,122)")
        == "pass"
    )


def test_cells_of_one_years_columns_are_ordered_by_their_place_in_it():
    # a quarter's columns, a half-year's dates: the change between two of them has a known way (gate-20)
    page = (
        "Fiscal 2020 | Q1 2020 (1) | Q2 2020 (1) | Q3 2020 (1) | Q4 2020\n"
        "Net income per share, diluted | $0.89 | $12.47 | $0.96 | $0.76"
    )
    snap = Snapshot(sources=(page,))
    said = "The net income per share, diluted {} by 11.51 between Q2 and Q3 2020."
    assert check_answer(said.format("decreased"), snap, mode="uncited").status == "pass"
    assert check_answer(said.format("increased"), snap, mode="uncited").status == "fail"
    page = "(in thousands)\n | June 30, 2019 | December 31, 2019\nCash and cash equivalents | 10,000 | 17,670"
    snap = Snapshot(sources=(page,))
    said = "Cash and cash equivalents {} by 7,670 thousand from June 30, 2019 to December 31, 2019."
    assert check_answer(said.format("increased"), snap, mode="uncited").status == "pass"
    assert check_answer(said.format("decreased"), snap, mode="uncited").status == "fail"


def test_cells_of_one_years_unordered_columns_prove_no_direction():
    # a year spanning two columns of another kind: which is later is unknown, so no direction is backed
    page = (
        "(in thousands)\n | December 31, 2019 |  | December 31, 2018 | \n"
        " | Carrying Amount | Fair Value | Carrying Amount | Fair Value\n"
        "Total debt | 1,000 | 1,200 | 900 | 950"
    )
    snap = Snapshot(sources=(page,))
    for word in ("increased", "decreased"):
        said = f"The total debt {word} by 200 thousand in 2019."
        assert check_answer(said, snap, mode="uncited").status == "fail", word
    assert (
        check_answer("The total debt's fair value was 1,200 thousand in 2019.", snap, mode="uncited").status == "pass"
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(1_000, 90_000), st.integers(1_000, 90_000))
def test_property_a_loss_row_direction_follows_its_size(later, earlier):
    """Two negative levels of a "Net loss" row: the direction that says how its size moved passes, the
    other fails."""
    if abs(later - earlier) < 10:
        return  # (a change of one digit is too coarse to be checked against a page)
    word, other = ("increased", "decreased") if later > earlier else ("decreased", "increased")
    by = f"{abs(later - earlier):,}"
    said = "The Net loss {} by " + by + " thousand from 2018 to 2019."
    assert _status(said.format(word), "Net loss", f"({later:,})", f"({earlier:,})") == "pass"
    assert _status(said.format(other), "Net loss", f"({later:,})", f"({earlier:,})") == "fail"
