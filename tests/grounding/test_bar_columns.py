"""A table written as cells joined by "|" (markdown, TAT-QA's tables as text) names its columns' years
from a header row of years (gate-18, ``assay.grounding.passages``): before, only a line of years and
nothing else was a header, so "Revenue was 1,100 million in 2019." passed on the 2018 cell of
" | 2019 | 2018". Each number takes the year of its own cell, so a dash cell ("$ -"), a footnote in the
caption ("Other items(1)") or a change column shifts nothing. On TAT-QA's tables as text the level
sentences stated with another year passed 2,417 of 2,478 times before, 451 after (gold 2,476/2,540
both)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Snapshot
from assay.grounding import check_answer
from assay.grounding.passages import parse_passages
from assay.grounding.table_headers import CHANGE, bar_header, spanned

_TABLE = (
    "(in thousands)\n"
    " | For the Year Ended December 31, |  | Change Amount\n"
    " | 2018 | 2017 | \n"
    "Restructuring charges | $ - | $752 | $(752)\n"
    "Goodwill impairment | 9,174 | 8,418 | 756\n"
    "Other items(1) | 17 | — | 17\n"
)


def _check(answer: str) -> str:
    return check_answer(answer, Snapshot(sources=(_TABLE,)), mode="uncited").status


@pytest.mark.parametrize(
    ("line", "header"),
    [
        (" | 2019 | 2018", True),
        ("Years Ended December 31, | 2019 | 2018 | 2017", True),
        (" | June 1, 2019 | June 2, 2018 | June 3, 2017", True),
        (" | Fiscal 2019 |  | Fiscal Year 2018 | ", True),
        (" | December 31, 2019 | December 31,2018", True),
        (" | FY19 | FY18", True),  # a fresh-eyes hunt's: "FY19" and "2019 (restated)" named no column
        (" | 2019 (restated) | 2018", True),
        (" | Q1 2019 | Q4 2018", True),  # gate-19: a quarter's cell names its year (was left open)
        (" | Year Ended December 31, 2018 | Year Ended December 31, 2017", True),  # gate-19: words of dates
        (" | Year-ended 31 March 2019 | Year-ended 31 March 2018 Restated See note 2", True),
        (" | Pro Forma Year Ended September 30, 2018 (unaudited) | Pro Forma Year Ended September 30, 2017", True),
        ("€ million | 30/9/2018 | 30/9/2019", True),
        ("Maturity date | 30/7/2021~ | 28/6/2019~", False),  # a range of dates names no one year
        ("Description | Notes due 2025 | Notes due 2027", False),  # "due": no word of a period
        ("Segment | Fiscal 2019 Net Sales | Fiscal 2018 Net Sales", True),  # a fiscal year beside an item
        (" | 2019 vs. 2018 | 2018 vs. 2017", False),  # two years a cell: a change column
        ("(in millions, except per share amounts) | 2019 | 2018 (4) | 2017 (4) | 2016 (4) | 2015 (4)", True),
        ("Revenue | 1,234 | 1,100", False),
        (" | 2019", False),  # one year names no columns
        ("x | FY2019 | FY2018 | % change", True),  # a cell naming no year names none
        (" | Fiscal | Actual", False),
    ],
)
def test_a_bar_header_of_years(line, header):
    assert (bar_header(line) is not None) is header


def test_a_slash_date_under_a_table_s_header_is_a_value():
    assert bar_header(" | 11/4/2024 | 8/12/2023", first=True) is not None
    assert bar_header(" | 11/4/2024 | 8/12/2023", first=False) is None  # "Maturity date | 30/7/2021~ | …" continued


def test_a_header_s_footnote_marks_leave_it_a_header():
    # gate-19: "(1)" was read as a number after the first "|", so the header named no column's year and
    # "The Other operating expenses in 2018 was 27.0 million." passed on the 2019 cell (TAT-QA)
    page = "(in millions)\n | 2019 (1) | 2018 | 2017 (2)\nOther operating expenses | 27.0 | 33.7 | 11.8\n"
    years = [(c.displayed, c.column_year) for c in parse_passages((page,)).direct if c.ref == "S1:L3"]
    assert years == [(27.0, 2019), (33.7, 2018), (11.8, 2017)]
    snap = Snapshot(sources=(page,))
    assert check_answer("The Other operating expenses in 2018 was 27.0 million.", snap, mode="uncited").status == "fail"
    assert check_answer("The Other operating expenses in 2019 was 27.0 million.", snap, mode="uncited").status == "pass"


def test_each_number_takes_its_cell_s_year():
    years = [(c.ref, c.displayed, c.column_year) for c in parse_passages((_TABLE,)).direct]
    assert years[:2] == [("S1:L4", 752.0, 2017), ("S1:L4", -752.0, None)]  # "$ -" is an empty 2018 cell
    assert years[2:5] == [("S1:L5", 9174.0, 2018), ("S1:L5", 8418.0, 2017), ("S1:L5", 756.0, None)]  # (change: none)
    assert years[5:] == [("S1:L6", 1.0, None), ("S1:L6", 17.0, 2018), ("S1:L6", 17.0, None)]  # the caption's "(1)"


@pytest.mark.parametrize(
    ("false", "true"),
    [
        ("Restructuring charges were $752 thousand in 2018.", "Restructuring charges were $752 thousand in 2017."),
        # 9,174 − 756 (the change column) is 2017's level, no figure of 2018
        ("Goodwill impairment was 8,418 thousand in 2018.", "Goodwill impairment was 8,418 thousand in 2017."),
        ("Goodwill impairment was 9,174 thousand in 2017.", "Goodwill impairment was 9,174 thousand in 2018."),
    ],
)
def test_a_cell_backs_its_column_s_year_only(false, true):
    assert _check(false) == "fail", false
    assert _check(true) == "pass", true


def test_years_joined_by_to_with_respectively_name_the_years_between():
    """A TAT-QA gold sentence the column years failed: "2019 to 2017 … respectively" names 2018 too."""
    table = "(in thousands)\n | 2019 | 2018 | 2017\nNet income | $53,294 | $61,431 | $279,745\n"
    answer = (
        "The net income for fiscal years 2019 to 2017 respectively was $53,294 thousand, $61,431 thousand and "
        "$279,745 thousand."
    )
    assert check_answer(answer, Snapshot(sources=(table,)), mode="uncited").status == "pass"
    moved = "Net income was $61,431 thousand in 2019 and $53,294 thousand in 2017."
    assert check_answer(moved, Snapshot(sources=(table,)), mode="uncited").status == "fail"


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.data())
def test_property_a_cell_backs_the_year_of_its_column(n, data):
    years = list(range(2019, 2019 - n, -1))
    values = data.draw(st.lists(st.integers(1_000, 9_999), min_size=n, max_size=n, unique=True))
    text = (
        "(in millions)\n | " + " | ".join(map(str, years)) + "\nInventories | " + " | ".join(f"{v:,}" for v in values)
    )
    i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    answer = f"Inventories were {values[i]:,} million in {years[j]}."
    got = check_answer(answer, Snapshot(sources=(text,)), mode="uncited").status
    assert got == ("pass" if i == j else "fail"), (text, answer, got)


def test_a_long_bar_header_names_its_columns():
    """A "|" header longer than 80 characters (a caption and change columns) is one too (a TAT-QA table)."""
    table = (
        "(In millions, except percentages and per share amounts) | 2019 | 2018 | 2017 | "
        "Percentage Change 2019 Versus 2018 | Percentage Change 2018 Versus 2017\n"
        "Gross margin | 82,933 | 72,007 | 62,310 | 15% | 16%\n"
    )
    snap = Snapshot(sources=(table,))
    assert check_answer("Gross margin was 62,310 million in 2017.", snap, mode="uncited").status == "pass"
    assert check_answer("Gross margin was 62,310 million in 2018.", snap, mode="uncited").status == "fail"


_MD = "(in millions)\n| | 2019 | 2018 |\n|---|---|---|\n| Revenue | 1,234 | 1,100 |\n| Cost of sales | 800 | 700 |\n"
_MD3 = "(in millions)\n| | 2019 | 2018 | 2017 |\n|---|---|---|---|\n| Revenue | 1,234 | 1,100 | 1,000 |\n"


@pytest.mark.parametrize(
    ("table", "answer", "status"),
    [  # a fresh-eyes hunt on gate-18's first form: each was the other status
        (_MD, "Cost of sales was $1,234 million in 2019.", "fail"),  # markdown's leading "|" hid the row item
        (_MD, "Revenue was $1,100 million in 2019 and $1,234 million in 2018.", "fail"),  # each its own year
        (_MD, "In 2019 and 2018, revenue was $1,100 million and $1,234 million, respectively.", "fail"),
        (_MD, "In 2019 and 2018, revenue was $1,234 million and $1,100 million, respectively.", "pass"),
        (_MD.replace(" |\n", "\n").replace("|---|---|---|\n", ""), "Revenue was $1,234 million in 2018.", "fail"),
        (_MD.replace(" |\n", "\n"), "Revenue increased by $134 million from 2018 to 2019.", "pass"),  # no closing "|"
        (_MD.replace(" | ", "|"), "Revenue was $800 million in 2019.", "fail"),  # compact cells
        (_MD3, "Revenue grew 10% in 2018 and 12.2% in 2019.", "pass"),  # a derivation: its own years
        (_MD3, "Revenue grew 12.2% and 10% in 2019 and 2018, respectively.", "pass"),
        (_MD3, "Revenue grew by $134 million and $100 million in 2019 and 2018, respectively.", "pass"),
        (_MD3, "Revenue grew 10% in 2019 and 12.2% in 2018.", "fail"),
    ],
)
def test_markdown_tables_and_the_years_given_each_number(table, answer, status):
    assert check_answer(answer, Snapshot(sources=(table,)), mode="uncited").status == status, answer


_CHANGES = (
    "(in thousands)\n | Fiscal years ended July 31, |  |  | \n | 2019 | 2018 | Change | \n"
    " | Amount | Amount | ($) | (%)\n"
    "Interest income | $30,182 | $13,281 | 16,901 | 127\nInterest expense | $(17,334) | $(6,442) | (10,892) | 169\n"
)
_FAVOURABLE = (  # BCE's capital spending: a fall is signed as a favourable change
    "(in millions)\n | 2019 | 2018 | $ CHANGE | % CHANGE\nBell Wireless | 697 | 664 | (33) | (5.0%)\n"
    "Bell Wireline | 3,183 | 3,193 | 10 | 0.3%\n"
)


@pytest.mark.parametrize(
    ("line", "changes"),
    [
        (" | 2019 | 2018 | Change | ", {3}),
        (" | July 27, 2019 (1) | July 28, 2018 | Variance in Dollars | Variance in Percent", {3, 4}),
        ("x | 2019 | 2018 | Increase (Decrease)", {3}),
        ("x | 2019 | 2018 | 2019 vs. 2018", {3}),
        ("(Dollars in thousands) | 2019 | 2018 | 2017 | 2019 over 2018 |  | 2018 over 2017 | ", {4, 6}),
        (" | 2019 | 2018 | $ Difference  | % Difference", {3, 4}),
        ("x | 2019 | 2018 | (Increase) Decrease", set()),  # a rise signed negative
        ("x | 2019 | 2018 | Decrease", set()),
        ("x | 2019 | 2018 | Favorable (Unfavorable) Change", set()),
    ],
)
def test_a_header_marks_its_change_columns(line, changes):
    _, cells = bar_header(line)
    assert {i for i, y in cells.items() if y == CHANGE} == changes


def test_a_change_column_may_be_named_by_the_cell_over_it():
    _, cells = bar_header(" | 2018 | 2017 | $ | %", above=" | Year Ended December 31, |  | Change | ")
    assert {i for i, y in cells.items() if y == CHANGE} == {3}
    _, cells = bar_header(" | 2018 | 2017 | $ | %", above="Change | x")  # (not as many cells: not read)
    assert not {i for i, y in cells.items() if y == CHANGE}


def test_a_change_column_s_cell_tells_its_sign_as_its_direction():
    # gate-19: "The decrease in interest income in 2019 was $16.9 million." passed on the Change column's 16,901
    snap = Snapshot(sources=(_CHANGES,))
    assert (
        check_answer("The decrease in interest income in 2019 was $16.9 million.", snap, mode="uncited").status
        == "fail"
    )
    assert (
        check_answer("The increase in interest income in 2019 was $16.9 million.", snap, mode="uncited").status
        == "pass"
    )
    cells = cells_of(_CHANGES, "S1:L5")
    assert cells[16_901.0] == 1 and cells[30_182.0] is None  # (a level tells none)
    assert cells_of(_CHANGES, "S1:L6")[-10_892.0] is None  # an expense shown negative: "rose" either way


def cells_of(page: str, ref: str) -> dict[float | None, int | None]:
    return {c.displayed: c.cell_direction for c in parse_passages((page,)).direct if c.ref == ref}


def test_a_loss_row_s_change_tells_no_direction():
    # a hunt's false rejects: "Net loss decreased by $8,551 thousand" failed as "a rise" (the value rose)
    page = "(in thousands)\n | 2019 | 2018 | Change\nNet loss | $(15,571) | $(24,122) | 8,551\n"
    assert cells_of(page, "S1:L3")[8_551.0] is None
    assert (
        check_answer("Net loss decreased by $8,551 thousand.", Snapshot(sources=(page,)), mode="uncited").status
        == "pass"
    )


def test_a_change_column_signed_against_its_levels_tells_nothing():
    cells = {c.displayed: c.cell_direction for c in parse_passages((_FAVOURABLE,)).direct}
    assert cells[10.0] is None and cells[0.3] is None  # 3,183 < 3,193: this page signs a fall "+"
    assert cells[-33.0] is None and cells[-5.0] is None  # (697 > 664 signed "(33)": the same convention)
    snap = Snapshot(sources=(_FAVOURABLE,))
    assert check_answer("Bell Wireline fell 0.3% from 2018 to 2019.", snap, mode="uncited").status == "pass"


def test_a_header_s_note_number_leaves_it_a_header():
    page = " | Year-ended 31 March 2019 | Year-ended 31 March 2018 Restated See note 2\nUK | 83.2 | 73.5\n"
    assert [c.column_year for c in parse_passages((page,)).direct if c.ref == "S1:L2"] == [2019, 2018]


@pytest.mark.parametrize(
    ("false", "true"),
    [
        ("The operating leases for 2022 was 138 million.", "The operating leases for 2021 was 138 million."),
        ("The finance leases for 2021 was 7 million.", "The finance leases for 2022 was 7 million."),
    ],
)
def test_a_row_named_by_a_year_gives_its_numbers_that_year(false, true):
    # gate-19: a table of payments by year has its years as rows, not columns
    page = "(in millions)\n | Operating Leases | Finance Leases\n2021 | $138 | $6\n2022 | 125 | 7\n"
    snap = Snapshot(sources=(page,))
    assert check_answer(false, snap, mode="uncited").status == "fail"
    assert check_answer(true, snap, mode="uncited").status == "pass"


@pytest.mark.parametrize(
    ("header", "below", "years"),
    [
        (  # the header leaves a group's other cells empty
            " | December 31, 2019 |  | December 31, 2018 | ",
            "(In millions) | Carrying Amount | Fair Value | Carrying Amount | Fair Value",
            {1: 2019, 2: 2019, 3: 2018, 4: 2018},
        ),
        (" | 2019 | 2018", " | Amount | % | Amount | %", {1: 2019, 2: 2019, 3: 2018, 4: 2018}),  # a cell a year
        (" | 2019 | 2018 | 2017", " | Amount | Amount | Amount", None),  # one column a year: nothing spanned
        (" | 2019 | 2018", " | Amount | % | Amount | Change", None),  # groups of other names
        (" | 2019 | 2018", " | Amount | % | Amount", None),  # groups of unequal size
    ],
)
def test_a_year_spanning_columns_names_each_of_them(header, below, years):
    got = spanned(header, below, bar_header(header))
    assert (got[1] if got else None) == years


def test_spanned_columns_date_their_cells():
    # gate-19: the fair-value columns named no year, so another year's figures passed
    page = (
        "(in millions)\n | December 31, 2019 |  | December 31, 2018 | \n"
        " | Carrying Amount | Fair Value | Carrying Amount | Fair Value\n"
        "Total debt | 3,774.4 | 4,073.9 | 3,474.2 | 3,535.1\n"
    )
    snap = Snapshot(sources=(page,))
    assert (
        check_answer("The fair value of total debt was $3,535.1 million in 2019.", snap, mode="uncited").status
        == "fail"
    )
    assert (
        check_answer("The fair value of total debt was $4,073.9 million in 2019.", snap, mode="uncited").status
        == "pass"
    )
