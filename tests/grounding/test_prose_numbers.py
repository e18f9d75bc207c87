"""A passage number written in prose is judged by what its own sentence on the page says it is
(gate-19, ``assay.grounding.prose_numbers``): its years and its row item. TAT-QA's templated
sentences, uncited on the tables as text, passed on paragraph numbers whose sentence gives them
another year or another row's item (the largest group of their period and label swaps)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Snapshot
from assay.grounding import check_answer
from assay.grounding.candidates import make_candidate
from assay.grounding.prose_numbers import own_sentence, prose_years

_TAX = (
    "Years Ended December 31, | 2019 | 2018 | 2017\n"
    "Statutory federal income tax rate | 21.0% | 21.0% | 35.0%\n"
    "Effective income tax rate | 13.0% | 18.3% | (48.3)%\n\n"
    "The effective income tax rate for 2019 was 13.0% compared to 18.3% for 2018. The decrease was due to tax reform."
)
_SEGMENTS = (
    "(in millions)\nOPERATING REVENUES | Q4 2019 | Q4 2018 | $ CHANGE\n"
    "Bell Wireless | 2,493 | 2,407 | 86\nBell Media | 879 | 850 | 29\n\n"
    "Bell Wireless operating revenues increased by 3.6% in Q4 2019, compared to Q4 2018, driven by product revenues."
)


def _prose(line: str, displayed: float):
    return make_candidate(displayed, "percent", "S1:L1", line[:80], displayed=displayed, origin="passage")


@pytest.mark.parametrize(
    ("line", "shown", "years"),
    [
        ("The effective income tax rate for 2019 was 13.0% compared to 18.3% for 2018. The decrease", 13.0, {2019}),
        ("The effective income tax rate for 2019 was 13.0% compared to 18.3% for 2018. The decrease", 18.3, {2018}),
        ("Guarantees amounting to US$261,518 (2018: US$283,752).", 261_518, set()),  # the year is the next one's
        ("Guarantees amounting to US$261,518 (2018: US$283,752).", 283_752, {2018}),
        ("Amounts due of $200 (December 31, 2018: $169) are expenses", 169, {2018}),
        ("Cash increased $224 million for fiscal 2019 as compared to fiscal 2018. In 2017 it fell.", 224, {2019}),
        # a hunt's false rejects and accepts: a date's day, a change's base year, the figure a year trails
        (
            "Backlog was $169.0 million at December 31, 2019, compared with $150.2 million at December 31, 2018.",
            150.2,
            {2018},
        ),
        (
            "Backlog was $169.0 million at December 31, 2019, compared with $150.2 million at December 31, 2018.",
            169.0,
            {2019},
        ),
        ("Backlog at the end of 2019 was $2.4 billion, an increase of $310 million over 2018.", 310, set()),
        ("Net income for 2019 increased 8.4% from 2018 to $603.4 million.", 603.4, set()),
        ("Revenue rose to $2,405 million in 2019 from $2,095 million in 2018, an increase of 14.8%.", 14.8, set()),
        ("Revenue rose to $2,405 million in 2019 from $2,095 million in 2018, an increase of 14.8%.", 2_095, {2018}),
        ("The effective tax rate was 14.2% in 2019 compared to 19.6% in 2018.", 19.6, {2018}),
        ("For 2019, 2018 and 2017 they were $131 million, $117 million and $180 million, respectively.", 131, set()),
        ("It was 5.0% in 2019 and 5.0% in 2018.", 5.0, set()),  # shown twice: whose is unknown
        ("Revenue was $12.0 million.", 7.0, set()),  # not shown
        # gate-20: a list of years right before "respectively" goes to as many numbers before it, in order
        (
            _FCF := "Free Cash Flow was positive $497 million in 2019, compared to positive $533 million and "
            "positive $308 million in 2018 and 2017, respectively.",
            533,
            {2018},
        ),
        (_FCF, 308, {2017}),
        (_FCF, 497, {2019}),
        ("Sales were $5 million and $7 million, or 2% and 3%, in 2019 and 2018, respectively.", 5, set()),
        # gate-20: a unit between a figure and its year; an opening year; the level a change moved to
        (
            _EGGS
            := "Net average selling price of shell eggs decreased from $1.397 per dozen for fiscal 2018 to $1.265 "
            "per dozen for fiscal 2019, a decrease of $0.132 per dozen.",
            1.397,
            {2018},
        ),
        (_EGGS, 1.265, {2019}),
        (
            _GM := "In 2018, gross margin improved by 80 basis points to 40.0% from 39.2% in the full year 2017.",
            40.0,
            {2018},
        ),
        (_GM, 39.2, {2017}),
        (
            "SG&A for the year ended December 31, 2019 decreased $8.6 million to $24.9 million from $33.5 million for "
            "the year ended December 31, 2018.",
            24.9,
            {2019},
        ),
        # a sentence a page repeats shows its number once in each copy; twice in one sentence is unknown
        ("Sales for 2019 were $793.4 million. Sales for 2019 were $793.4 million.", 793.4, {2019}),
        ("Deposits at 31 December 2019 are £3.5 million (2018: £3.5 million).", 3.5, set()),
    ],
)
def test_prose_years(line, shown, years):
    assert prose_years(line, _prose(line, shown)) == years


def test_a_respectively_list_dates_its_numbers_in_order():
    page = (
        "(in millions) | 2019 | 2018 | 2017\nRevenue | 9,000 | 8,000 | 7,000\n\n" + "Free Cash Flow was positive $497 "
        "million in 2019, compared to positive $533 million and positive $308 million in 2018 and 2017, respectively."
    )
    snap = Snapshot(sources=(page,))
    got = check_answer("The Free Cash Flow in 2017 was $533 million.", snap, mode="uncited")
    assert got.status == "fail" and "period_mismatch" in [v.kind for v in got.violations], got
    assert check_answer("The Free Cash Flow in 2018 was $533 million.", snap, mode="uncited").status == "pass"
    assert check_answer("The Free Cash Flow in 2018 was $497 million.", snap, mode="uncited").status == "fail"


def test_a_derivation_of_a_paragraph_backs_only_what_the_paragraph_is_of():
    """gate-20: two figures of a paragraph that names no row item are evidence of what the paragraph says they
    are ("net sales"), not of another row's change ("Ceramic Components"); and such a derivation equal to a
    figure the paragraph shows is judged as that figure ("… decreased $8.6 million to $24.9 million from
    $33.5 million …": 24.9 is 2019's, not 2018's 33.5 − 8.6)."""
    page = (
        "Net sales (in thousands) | 2018 | 2019\nCeramic Components | $226,204 | $421,849\n"
        "Tantalum Components | 300,000 | 310,000\n\n"
        "Net sales for the fiscal year ended March 31, 2019 were $1,791.8 million compared to $1,562.5 million for "
        "the fiscal year ended March 31, 2018. SG&A for the year ended December 31, 2019 decreased $8.6 million to "
        "$24.9 million from $33.5 million for the year ended December 31, 2018."
    )
    snap = Snapshot(sources=(page,))
    got = check_answer(
        "The percentage change in Ceramic Components between 2018 and 2019 was 14.68%.", snap, mode="uncited"
    )
    assert got.status == "fail" and "label_mismatch" in [v.kind for v in got.violations], got
    true = "The percentage change in net sales between 2018 and 2019 was 14.68%."
    assert check_answer(true, snap, mode="uncited").status == "pass"
    got = check_answer("The SG&A for the year ended December 31, 2018 was $24.9 million.", snap, mode="uncited")
    assert got.status == "fail" and "period_mismatch" in [v.kind for v in got.violations], got
    true = "The SG&A for the year ended December 31, 2019 was $24.9 million."
    assert check_answer(true, snap, mode="uncited").status == "pass"


def test_own_sentence_is_cut_at_sentence_ends_not_at_abbreviations():
    line = "Sales in U.S. dollars rose. In 2019 sales were 5.5 million. Costs fell in 2018."
    start, end, _ = own_sentence(line, _prose(line, 5.5))
    assert line[start:end] == "In 2019 sales were 5.5 million."


@pytest.mark.parametrize(
    ("page", "false", "true"),
    [
        (_TAX, "The effective tax rate in 2018 was 13.0%.", "The effective tax rate in 2019 was 13.0%."),
        (_TAX, "The effective tax rate in 2017 was 18.3%.", "The effective tax rate in 2018 was 18.3%."),
        (
            _SEGMENTS,
            "The percentage change in Bell Media operating revenues in Q4 2019 to Q4 2018 was 3.6%.",
            "The percentage change in Bell Wireless operating revenues in Q4 2019 to Q4 2018 was 3.6%.",
        ),
    ],
)
def test_a_prose_number_backs_what_its_own_sentence_says(page, false, true):
    snap = Snapshot(sources=(page,))
    got = check_answer(false, snap, mode="uncited")
    assert got.status == "fail" and {v.kind for v in got.violations} & {"period_mismatch", "label_mismatch"}, got
    assert check_answer(true, snap, mode="uncited").status == "pass", true


def test_a_derivation_of_prose_numbers_backs_what_their_sentence_is_of():
    page = (
        "(in millions) | 2019 | 2018\nCash flow from operations | 140.6 | 101.9\nFree cash flow | 100.1 | 50.9\n\n"
        "Free cash flow for 2019 almost doubled, coming in at $100.1 million, compared to $50.9 million in 2018."
    )
    snap = Snapshot(sources=(page,))
    got = check_answer("The change in cash flow from operations was 49.2 million.", snap, mode="uncited")
    assert got.status == "fail" and "label_mismatch" in [v.kind for v in got.violations], got
    assert check_answer("The change in free cash flow was 49.2 million.", snap, mode="uncited").status == "pass"


def test_of_several_numbers_only_the_years_read_as_its_own_count():
    # FinanceBench (J&J FY2022): "1.3%" is 2022's; the sentence's "2021" is the 13.6%'s, not a claim about 1.3%
    page = (
        "(in millions) | 2022 | 2021\nSales | 94,943 | 93,775\n\n"
        "In 2022, worldwide sales increased 1.3% to $94.9 billion as compared to an increase of 13.6% in 2021."
    )
    answer = "Worldwide sales rose by 1.3% to $94.9 billion, well below the 13.6% increase in 2021."
    assert check_answer(answer, Snapshot(sources=(page,)), mode="uncited").status == "pass"


def test_a_year_that_is_no_period_is_not_judged():
    page = "(in millions) | 2019 | 2018\nDebt | 500 | 500\n\nWe issued $750 million of notes due 2025 last year."
    assert (
        check_answer(
            "In 2019 the company issued $750 million of notes.", Snapshot(sources=(page,)), mode="uncited"
        ).status
        == "pass"
    )


_YEARS = [2017, 2018, 2019]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_YEARS), st.sampled_from(_YEARS), st.integers(100, 9_999), st.booleans())
def test_property_a_prose_number_backs_its_own_year_only(own, said, tenths, colon):
    """A paragraph's number and its year, under a table whose columns are those years: a sentence giving
    the number another year fails, its own year passes; a year before a colon is not the first number's."""
    value = f"{tenths / 10:,.1f}"
    other = f"{tenths / 10 + 7.3:,.1f}"
    prose = (
        f"Deferred revenue was ${value} million ({own - 1}: ${other} million)."
        if colon
        else f"In {own}, deferred revenue was ${value} million."
    )
    page = "(in millions) | 2019 | 2018 | 2017\nInventories | 1.0 | 2.0 | 3.0\n\n" + prose
    got = check_answer(f"Deferred revenue was ${value} million in {said}.", Snapshot(sources=(page,)), mode="uncited")
    # (the colon form: its year is the next number's, so the first one has none and is not judged)
    assert got.status == ("pass" if colon or said == own else "fail"), (prose, said, got.violations)
