"""A passage number's table column names its period (assay.grounding.column_period, passages):
the Best Buy FinanceBench false accepts ("inventories at the end of fiscal 2019 were $5,410
million" on the 2018 column's 5,410), each with its true counterpart, and a property."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Snapshot
from assay.grounding import check_answer
from assay.grounding.column_period import named_years
from assay.grounding.passages import parse_passages

#: The flattened balance sheet as FinanceBench's evidence page holds it (one cell per line).
PAGE = "\n".join(
    [
        "Consolidated Balance Sheets",
        "$ in millions, except per share and share amounts",
        "",
        "February 2, 2019",
        "",
        "February 3, 2018",
        "Assets",
        "Merchandiseinventories",
        "",
        "5,409 ",
        "5,209",
        "Short-terminvestments",
        "",
        "2,032",
        "Fixturesandequipment",
        "",
        "5,865 ",
        "5,410",
    ]
)


def status(answer: str, page: str = PAGE) -> str:
    return check_answer(answer, Snapshot(sources=(page,)), mode="uncited").status


def test_a_number_gets_its_columns_year_when_its_row_fills_the_header():
    years = {c.value: c.column_year for c in parse_passages((PAGE,)).direct}
    assert years[5409e6] == 2019 and years[5209e6] == 2018 and years[5410e6] == 2018
    assert years[2032e6] is None  # one number under two columns: which one is unknown


def test_a_sentence_naming_another_year_than_the_column_is_not_backed():
    assert status("The total inventories at the end of fiscal year 2019 was $5,409 million.") == "pass"
    assert status("The total inventories at the end of fiscal year 2019 was $5,410 million.") == "fail"
    assert status("The year-end FY2019 total amount of inventories for Best Buy is $5,410 million USD.") == "fail"
    assert status("Fixtures and equipment were $5,410 million at February 3, 2018.") == "pass"
    assert status("Fixtures and equipment were $5,410 million.") == "pass"  # no year named: not judged
    assert status("Inventories were $5,409 million in FY2019, up from $5,209 million in FY2018.") == "pass"


def test_a_number_without_a_column_year_is_not_judged():
    assert status("Short-term investments were $2,032 million in 2019.") == "pass"


def test_named_years_reads_years_fiscal_years_and_dates():
    assert named_years("in FY23 and fiscal 2022, at February 2, 2019") == {2023, 2022, 2019}
    assert named_years("$2,019 million, 12.2019") == frozenset()


@settings(max_examples=30, deadline=None)
@given(a=st.integers(min_value=100, max_value=9999), b=st.integers(min_value=100, max_value=9999))
def test_property_each_column_backs_its_own_year_only(a: int, b: int):
    if a == b:
        return
    page = f"In millions\n2023\n2022\nRevenue\n{a:,}\n{b:,}"
    assert status(f"Revenue in 2023 was ${a:,} million.", page) == "pass"
    assert status(f"Revenue in 2022 was ${b:,} million.", page) == "pass"
    assert status(f"Revenue in 2023 was ${b:,} million.", page) == "fail"


def test_a_difference_of_a_rows_two_year_columns_is_no_level():
    # found by the property test above (a=200, b=100): 200 - 100 backed "Revenue in 2023 was $100 million"
    page = "In millions\n2023\n2022\nRevenue\n200\n100"
    assert status("Revenue in 2023 was $100 million.", page) == "fail"
    assert status("Revenue rose by $100 million from 2022 to 2023.", page) == "pass"


def test_a_ratio_of_one_rows_two_years_is_no_one_years_ratio():
    """gate-20: TAT-QA's "current ratio in 2019" passed (gold and its period swap) as 2019's retained profits
    over 2018's; a sentence naming both years keeps it."""
    page = "Parent |  | \n | 2019 | 2018\nRetained profits | 79,918 | 102,680\nTotal equity | 150,000 | 160,000"
    snap = Snapshot(sources=(page,))
    got = check_answer("The current ratio in 2019 was 0.78.", snap, mode="uncited")
    assert got.status == "fail" and "period_mismatch" in [v.kind for v in got.violations], got
    both = "Retained profits in 2019 were 0.78 times those of 2018."
    assert check_answer(both, snap, mode="uncited").status == "pass"
