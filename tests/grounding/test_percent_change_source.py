"""A percent change stated by its wording needs a change on the page (issue 15, FinanceBench
uncited ``direction_word``): :func:`assay.grounding.change_amount.percent_change_veto` (a level
on a page that names no change), :func:`~assay.grounding.change_amount.cell_level_veto` (one
named year's column for a change between two named years) and a table cell's paragraph twin
(``Candidate.cell_direction``). Each false sentence beside its true counterpart; pages shaped
as FinanceBench's evidence pages (one cell per line)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Snapshot
from assay.grounding import check_answer
from assay.grounding.passages import parse_passages

#: Amcor's reconciliation page: levels only, no change column anywhere.
LEVELS = "\n".join(
    ["($ million)", "EBITDA", "Net income attributable to Amcor", "805 ", "Net loss on disposals(2)", "0.7 "]
)

#: Corning's highlights: year columns of levels and one "% change" column.
CHANGE_COLUMN = "\n".join(
    [
        "Year ended December 31,",
        "% change",
        "2022",
        "2021",
        "22 vs. 21",
        "Translated earnings contract gain, net",
        " $",
        "351 $",
        "354 ",
        "(1%)",
        "(as a % of net sales)",
        "2% ",
        "3% ",
    ]
)

#: J&J's sales analysis: a paragraph that tells the direction, and a table of changes by year.
TWIN = "\n".join(
    [
        "In 2022, worldwide sales increased 1.3% to $94.9 billion as compared to an increase of 13.6% in 2021.",
        "Sales increase/(decrease) due to:",
        "2022",
        "2021",
        "Volume",
        "6.9 %",
        "12.9 %",
        "Total",
        "1.3 %",
        "13.6 %",
    ]
)


def status(answer: str, page: str) -> str:
    return check_answer(answer, Snapshot(sources=(page,)), mode="uncited").status


def test_a_change_on_a_level_of_a_page_that_names_no_change_is_not_backed():
    assert status("On a constant currency basis, adjusted EBITDA was 1% higher than the prior year.", LEVELS) == "fail"
    assert status("On a constant currency basis, adjusted EBITDA was 1% lower than the prior year.", LEVELS) == "fail"
    assert status("Net loss on disposals was 0.7.", LEVELS) == "pass"  # the level, stated as one


def test_a_page_with_a_change_column_gives_its_cells_the_benefit_of_the_doubt():
    cells = parse_passages((CHANGE_COLUMN,)).direct
    assert all(c.page_names_change for c in cells)
    assert not any(c.page_names_change for c in parse_passages((LEVELS,)).direct)
    assert status("Translated earnings contract amounts decreased by 1%.", CHANGE_COLUMN) == "pass"


def test_a_change_between_two_named_years_is_no_one_years_column():
    said = "The effective tax rate of Corning has {} by 3% between FY2021 and FY2022."
    assert status(said.format("decreased"), CHANGE_COLUMN) == "fail"
    assert status(said.format("increased"), CHANGE_COLUMN) == "fail"  # a 2021 level, whatever the direction
    assert status("Translated earnings were 3% of net sales in 2021.", CHANGE_COLUMN) == "pass"  # the level
    assert status("They were 2% of net sales in FY2022, down from 3% in FY2021.", CHANGE_COLUMN) == "pass"


def test_a_cell_takes_the_direction_its_paragraph_twin_tells():
    total = next(c for c in parse_passages((TWIN,)).direct if c.ref == "S1:L9")
    assert total.cell_direction == 1 and total.column_year == 2022
    assert status("JnJ's total revenue grew only 1.3% year-over-year in FY2022.", TWIN) == "pass"
    assert status("JnJ's total revenue shrank only 1.3% year-over-year in FY2022.", TWIN) == "fail"
    assert status("Sales increased 1.3% from 2021 to 2022.", TWIN) == "pass"  # a year column of changes


def test_twins_of_both_directions_tell_none():
    page = "Sales increased 5.0% in the East.\nCosts decreased 5.0% overall.\nRegion\n5.0 %"
    cell = next(c for c in parse_passages((page,)).direct if c.ref == "S1:L4")
    assert cell.cell_direction is None


@settings(max_examples=40, deadline=None)
@given(
    v=st.integers(min_value=1, max_value=99),
    word=st.sampled_from(["increased by", "decreased by", "rose", "fell", "grew", "declined"]),
)
def test_property_no_stated_percent_change_is_backed_by_a_level_page(v: int, word: str):
    page = f"(in millions)\nOperating margin\n{v}.0 %\nTax rate\n{v + 100}.0 %"
    assert status(f"Operating margin {word} {v}% versus the prior year.", page) == "fail"
    assert status(f"Operating margin was {v}%.", page) == "pass"


def test_a_table_row_of_cells_joined_by_pipes_can_name_the_change_column():
    """TAT-QA's IBM revenue table (the grounded-check bench's gold answer, lost and restored): the
    header "Yr.-to-Yr. Percent Change" stands in a row of cells joined by "|", longer than 80
    characters, and still names a change column."""
    page = "\n".join(
        [
            "($ in millions) |  |  |  |  | ",
            "For the year ended December 31: | 2019 | 2018 | Yr.-to-Yr. Percent Change | Yr.-to-Yr. Percent Change"
            " Adjusted for Currency",
            "Total revenue | $77,147 | $79,591 | (3.1)% | (1.0)%",
        ]
    )
    assert status("Total revenue of $77,147 million in 2019 decreased 3.1 percent year to year.", page) == "pass"
    assert status("Total revenue of $77,147 million in 2019 increased 3.1 percent year to year.", page) == "fail"
