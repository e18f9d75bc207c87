"""A period the snapshot has no fact of is judged when its form says it is a figure's period
(gate-13; :func:`assay.grounding.operands.judged_year`): "FY2021 revenue was $383.3 billion [F1]"
on a FY2023 fact passed, the period rule reading only the snapshot's years. Fiscal-marked years
("fiscal 2021", "FY21", "2021 회계연도") and a plain year trailing its figure ("$383.3 billion in
2021") are judged; a range's endpoint ("from fiscal year 2017 to 2019") and a year elsewhere
("founded in 1976") are not; a split fiscal year ("2018/2019") is the fiscal year of either name.
gate-14 (:func:`assay.grounding.item_years.item_year`): a plain year in a line item's place, the
phrase stating the item's figure — "Net income in 2021 was $97.0 billion [F7]", "2021 net income
was …", "In 2021, net income was …" — is judged too (a new user's false accept: no fact was of
2021, so the year was read as no period at all), and so is a year trailing a figure past its
citation marker ("$97.0 billion [F7] in 2021"). A year in a comparison, a forecast or another
clause is not (a helper's hunt for false rejects of the first form of the rule).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apple import apple
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.operands import split_years

_SALES = apple("F1", "F2")
_INCOME = apple("F1", "F2", "F5", "F6", "F7", "F8")


@pytest.mark.parametrize(
    "answer",
    [
        "FY2021 revenue was $383.3 billion [F1].",
        "Total net sales were $383.3 billion in fiscal 2021 [F1].",
        "Total net sales were $383.3 billion in fiscal year 2024 [F1].",
        "Total net sales were $383.3 billion in FY21 [F1].",
        "Total net sales were $383.3 billion in 2021 [F1].",
        "2021 회계연도 총 순매출은 3,833억 달러였다 [F1].",
        "Apple projects total net sales of $383.3 billion for fiscal 2024 [F1].",
    ],
)
def test_a_period_no_fact_is_of_fails_when_its_form_names_a_figures_period(answer):
    r = check_answer(answer, _SALES)
    assert r.status == "fail" and r.violations[0].kind == "period_mismatch", answer
    true = answer.replace("2021", "2023").replace("2024", "2023").replace("FY21", "FY23")
    assert check_answer(true, _SALES).status == "pass", true


@pytest.mark.parametrize(
    "answer",
    [
        "Apple, founded in 1976, had total net sales of $383.3 billion in fiscal 2023 [F1].",
        "Total net sales of $383.3 billion [F1] were the highest since 2018.",
        "Between fiscal 2019 and fiscal 2023 sales grew; they were $383.3 billion in fiscal 2023 [F1].",
    ],
)
def test_a_year_that_names_no_figures_period_is_not_judged(answer):
    assert check_answer(answer, _SALES).status == "pass", answer


def test_a_range_endpoint_is_not_judged_and_a_split_year_is_either_year():
    changes = Snapshot(
        facts=[
            Fact(id="C1", label="Change in expenses | 2018", value=1000, unit="thousands", period="2018"),
            Fact(id="C2", label="Change in expenses | 2019", value=2059, unit="thousands", period="2019"),
        ]
    )
    total = "The total change in expenses from fiscal year 2017 to 2019 was 3,059 thousand [C1, C2]."
    assert check_answer(total, changes).status == "pass"
    split = Snapshot(facts=[Fact(id="T", label="Income taxes | 2018/2019", value=-298, unit="millions", period="2018")])
    assert check_answer("The amount of income taxes in FY2019 was −298 million [T].", split).status == "pass"
    assert check_answer("The amount of income taxes in FY2020 was −298 million [T].", split).status == "fail"
    assert split_years("Income taxes | 2018/2019") == {2018, 2019}
    assert split_years("Sales | 2018/19") == {2018, 2019}
    assert split_years("Sales | 2018-2020") == frozenset()
    assert split_years("Sales | 2019") == frozenset()


@settings(max_examples=60, deadline=None)
@given(st.integers(1995, 2040), st.sampled_from(["in fiscal {y}", "in FY{y}", "for fiscal year {y}", "in {y}"]))
def test_property_a_named_fiscal_year_must_be_the_facts(year, form):
    phrase = form.format(y=year)
    answer = f"Total net sales were $383.3 billion {phrase} [F1]."
    expected = "pass" if year == 2023 else "fail"
    assert check_answer(answer, _SALES).status == expected, answer


@pytest.mark.parametrize(
    "answer",
    [
        "Net income in 2021 was $97.0 billion [F7].",
        "Net income for 2021 was $97.0 billion [F7].",
        "Net income for the fiscal year 2021 was $97.0 billion [F7].",
        "2021 net income was $97.0 billion [F7].",
        "2021's net income was $97.0 billion [F7].",
        "In 2021, net income was $97.0 billion [F7].",
        "In 2021 net income was $97.0 billion [F7].",
        "During 2021, Apple's net income was $97.0 billion [F7].",
        "In 2021, total net sales were $383.3 billion [F1] and net income was $97.0 billion [F7].",
        "Net income in 2021 totaled about $97.0 billion [F7].",
        "Net income was $97.0 billion [F7] in 2021.",
        # a second hunt: a reporting subject, a move's verb, "of", "a record"
        "In 2021, Apple reported net income of $97.0 billion [F7].",
        "In 2021, the company reported net income of $97.0 billion [F7].",
        "For 2021, Apple reported total net sales of $383.3 billion [F1].",
        "Net income in 2021 rose to $97.0 billion [F7].",
        "Apple reported 2021 net income of $97.0 billion [F7].",
        "2021 net income of $97.0 billion [F7] was a record.",
        "Net income in 2021 was a record $97.0 billion [F7].",
    ],
)
def test_a_year_in_a_line_items_place_is_judged_though_no_fact_is_of_it(answer):
    assert_2021_fails_and_2023_passes(answer)


def assert_2021_fails_and_2023_passes(answer: str) -> None:
    """``answer`` (FY2023's figures stated as 2021's) fails on its period alone; stated as 2023's, it passes."""
    r = check_answer(answer, _INCOME)
    assert r.status == "fail" and {v.kind for v in r.violations} == {"period_mismatch"}, answer
    true = answer.replace("2021", "2023").replace("September 25", "September 30")
    assert check_answer(true, _INCOME).status == "pass", true


@pytest.mark.parametrize(
    "answer",
    [
        "Apple, founded in 1976, had net income of $97.0 billion in fiscal 2023 [F7].",
        "Net income of $97.0 billion [F7] was the highest since 2018.",
        "Net income in fiscal 2023 was $97.0 billion [F7], above 2019 levels.",
        "In 1976 Apple was founded; net income in fiscal 2023 was $97.0 billion [F7].",
        "Net income from 2019 to 2023 rose; in fiscal 2023 it was $97.0 billion [F7].",
        # a helper's false rejects of the first form of gate-14 (every judged year went to the one figure)
        "Net income of $97.0 billion [F7] far exceeded 2019 net income.",
        "Net income was $97.0 billion [F7], nearly double net income in 2019.",
        "Compared with 2019 net income, this year's net income of $97.0 billion [F7] is far higher.",
        "Analysts expect 2024 net income to exceed $97.0 billion [F7].",
        "Net income in 2024 is expected to exceed the $97.0 billion [F7] earned this year.",
        "In 1976, Apple was founded in a garage; its net income is now $97.0 billion [F7].",
        "In 2019, net income was far lower; net income was $97.0 billion [F7] this year.",
        "In the 2024 proxy statement, net income was reported as $97.0 billion [F7].",
        "Net income of $97.0 billion [F7] and operating income of $114.3 billion [F5] both exceeded 2019 net income.",
        "In 2021, Apple changed its segment reporting; net income in fiscal 2023 was $97.0 billion [F7].",
        "In 2019, Apple had net income far below the $97.0 billion [F7] of fiscal 2023.",
    ],
)
def test_a_year_outside_a_line_items_place_is_still_not_judged(answer):
    assert check_answer(answer, _INCOME).status == "pass", answer


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1995, 2040),
    st.sampled_from(
        ["Net income in {y} was", "Net income for fiscal year {y} was", "{y} net income was", "In {y}, net income was"]
    ),
)
def test_property_a_year_in_a_line_items_place_must_be_the_facts(year, form):
    answer = form.format(y=year) + " $97.0 billion [F7]."
    expected = "pass" if year == 2023 else "fail"
    assert check_answer(answer, _INCOME).status == expected, answer


def test_a_year_past_a_citation_marker_is_its_figures():
    """gate-14: "$394.3 billion [F2] in 2023 and $383.3 billion [F1] in 2022" swapped the two years and
    passed (each year went to the nearer figure by characters); the true order passes."""
    swapped = "Total net sales were $394.3 billion [F2] in 2023 and $383.3 billion [F1] in 2022."
    true = "Total net sales were $383.3 billion [F1] in 2023 and $394.3 billion [F2] in 2022."
    assert check_answer(swapped, _SALES).status == "fail"
    assert check_answer(true, _SALES).status == "pass"


@pytest.mark.parametrize(
    "answer",
    [
        # gate-15: the leftovers gate-14's note listed, and a third hunt's forms of them
        "However, in 2021, net income was $97.0 billion [F7].",
        "Also, in 2021, net income was $97.0 billion [F7].",
        "Meanwhile in 2021, net income was $97.0 billion [F7].",
        "Back in 2021, net income was $97.0 billion [F7].",
        "For the year ended September 25, 2021, net income was $97.0 billion [F7].",
        "For the fiscal year ended September 25, 2021, net income was $97.0 billion [F7].",
        "In the twelve months ended September 25, 2021, net income was $97.0 billion [F7].",
        "Net income, in 2021, was $97.0 billion [F7].",
        "Net income (2021) was $97.0 billion [F7].",
        "Net income in the 2021 fiscal year was $97.0 billion [F7].",
        "Net income in 2021: $97.0 billion [F7].",
        "Net income was $97.0 billion (as restated) in 2021 [F7].",
        "Net income totaled $97.0 billion in calendar year 2021 [F7].",
        "Profit in 2021 was $97.0 billion [F7].",
        "Earnings in 2021 were $97.0 billion [F7].",
        "2021년 순이익은 970억 달러였다 [F7].",
        "2021년의 순이익은 970억 달러였다 [F7].",
        # a helper's hunt of gate-15's first form: false accepts it left open
        "Notably, in 2021, net income was $97.0 billion [F7].",
        "In 2021, Apple earned $97.0 billion [F7].",
        "Net income of $97.0 billion [F7] was recorded in 2021.",
        "Net income was $97.0 billion [F7] (in 2021).",
        "Net income was $97.0 billion [F7] (as restated) in 2021.",
        "Net income was $97.0 billion [F7] for the year ended September 25, 2021.",
        "Net income, 2021: $97.0 billion [F7].",
        "Net income for full-year 2021 was $97.0 billion [F7].",
        "Net income in 2021 equaled $97.0 billion [F7].",
        "Net income in 2021 was close to $97.0 billion [F7].",
        "Apple's bottom line for 2021 was $97.0 billion [F7].",
        "2021년에 순이익은 970억 달러였다 [F7].",
        "2021년 애플의 순이익은 970억 달러였다 [F7].",
        "2021년 이익은 970억 달러였다 [F7].",
        "Net income totaled $97.0 billion [F7] for the 2021 year.",
        "In the year to September 2021, net income was $97.0 billion [F7].",
        "In the twelve months to September 2021, net income was $97.0 billion [F7].",
        "For the year through September 2021, net income was $97.0 billion [F7].",
        "순이익은 2021년에 970억 달러였다 [F7].",
    ],
)
def test_an_opening_after_a_discourse_word_a_year_ended_and_other_item_places_are_judged(answer):
    assert_2021_fails_and_2023_passes(answer)


def test_an_opening_after_a_discourse_word_scopes_a_known_year_as_a_bare_opening_does():
    """gate-15: "However, in fiscal 2023, …" scopes the sentence's figures as "In fiscal 2023, …" does."""
    swapped = (
        "However, in fiscal 2023, total net sales were $383.3 billion [F1] and net income was $99.8 billion [F7, F8]."
    )
    assert check_answer(swapped, _INCOME).status == "fail"
    assert check_answer(swapped.replace("$99.8", "$97.0"), _INCOME).status == "pass"


@pytest.mark.parametrize(
    "answer",
    [
        "By 2025, net income of $97.0 billion [F7] is expected to double.",
        "Net income (excluding a 2019 charge) was $97.0 billion [F7].",
        "2019년 대비 순이익은 970억 달러였다 [F7].",
        "Earnings in 2024 are expected to exceed the $97.0 billion [F7] of fiscal 2023.",
        "Net income was $97.0 billion [F7] (as restated), the highest since 2018.",
    ],
)
def test_gate_15_forms_leave_a_year_outside_an_items_place_unjudged(answer):
    assert check_answer(answer, _INCOME).status == "pass", answer


def test_two_coordinated_years_in_an_items_place_are_both_judged_and_a_range_is_not():
    """gate-15: "in 2020 and 2021" was read as a range's endpoints (as "between 2017 and 2019" is), so
    neither year was judged and FY2023's figure passed as theirs; "between … and" and "from … to" stay ranges."""
    for answer in (
        "Net income in 2020 and 2021 was $97.0 billion [F7].",
        "2020 and 2021 net income was $97.0 billion [F7].",
    ):
        r = check_answer(answer, _INCOME)
        assert r.status == "fail" and {v.kind for v in r.violations} == {"period_mismatch"}, answer
    for answer in (
        "Net income between 2019 and 2021 rose; it was $97.0 billion [F7] in fiscal 2023.",
        "Net income in 2022 and 2023 was $99.8 billion [F8] and $97.0 billion [F7], respectively.",
    ):
        assert check_answer(answer, _INCOME).status == "pass", answer


@pytest.mark.parametrize(
    "answer",
    [
        # a hunt's false rejects of gate-15's first form: forecasts in Korean, a document's year after a
        # discourse word, a clause going on past a parenthetical's year, a colon phrase that is no subject
        "2024년 순이익은 970억 달러[F7]를 넘어설 것으로 예상된다.",
        "2024년 영업이익은 1,143억 달러[F5]를 넘어설 전망이다.",
        "However, in the 2024 proxy statement, net income was $97.0 billion [F7].",
        "Meanwhile, in the 2024 annual report, net income was $97.0 billion [F7].",
        "Net income was $97.0 billion (F7), at 2021 levels.",
        "Operating income was $114.3 billion (F5), in 2024 the company expects margins to hold.",
        "Prior-year base for 2024 net income: $97.0 billion [F7].",
    ],
)
def test_gate_15_hunt_true_sentences_still_pass(answer):
    assert check_answer(answer, _INCOME).status == "pass", answer


#: A retailer whose fiscal year is labelled by the year it starts: fiscal 2022 ended January 29, 2023.
_RETAILER = Snapshot(
    facts=[
        Fact(id="H1", label="Net sales", value=157403, unit="USD millions", period="FY2022"),
        Fact(id="H2", label="Net sales", value=151157, unit="USD millions", period="FY2021"),
        Fact(id="H5", label="Net earnings", value=17105, unit="USD millions", period="FY2022"),
    ]
)
_BANK = Snapshot(
    facts=[
        Fact(id="B1", label="Net income", value=37676, unit="USD millions", period="2022"),
        Fact(id="B2", label="Net income", value=48334, unit="USD millions", period="2021"),
    ]
)


@pytest.mark.parametrize(
    ("answer", "snapshot"),
    [
        # a second hunt's false rejects of gate-15's first form: a year ended in January–June may be
        # labelled by its first year (Home Depot, Sony) or its last (Walmart): not judged
        ("For the fiscal year ended January 29, 2023, net sales were $157.4 billion [H1].", _RETAILER),
        ("Net earnings were $17.1 billion [H5] for the year ended Jan. 29, 2023.", _RETAILER),
        ("Net sales were $157.4 billion for the fiscal year ended January 29, 2023 [H1].", _RETAILER),
        ("In the year to January 2023, net sales were $157.4 billion [H1].", _RETAILER),
        # the time of a report is not its figure's period
        ("In early 2023, JPMorgan reported net income of $37.7 billion [B1], down from $48.3 billion [B2].", _BANK),
    ],
)
def test_a_year_ended_in_the_first_half_and_a_reports_date_are_not_judged(answer, snapshot):
    assert check_answer(answer, snapshot).status == "pass", answer


@pytest.mark.parametrize(
    "answer",
    [
        # the second hunt: gate-15's first form let a clause going on past "[F7] in 2021" pass (gate-14 failed them)
        "Net income rose to $97.0 billion [F7] in 2021 on strong iPhone demand.",
        "Net income was $97.0 billion [F7] in 2021 despite supply constraints.",
        "Net income was $97.0 billion [F7] in 2021 — a record.",
        "Total net sales climbed to $383.3 billion [F1] in 2021 as demand surged.",
        # and forms it closes
        "Net income for the twelve months ended September 25, 2021 came in at $97.0 billion [F7].",
        "Net income of 2021 was $97.0 billion [F7].",
        "Net income in 2021 reached a record high of $97.0 billion [F7].",
        "2021년 순이익은 970억 달러로 집계됐다 [F7].",
        "Net income in 2021 was, at $97.0 billion [F7], a record.",
        "Apple's 2021 net income, at $97.0 billion [F7], set a record.",
        "Net income climbed in 2021 to $97.0 billion [F7].",
        "The 2021 figure for net income was $97.0 billion [F7].",
        "Apple posted $97.0 billion [F7] of net income in 2021.",
        "Apple generated $383.3 billion [F1] in revenue in 2021.",
    ],
)
def test_gate_15_second_hunt_false_accepts_fail(answer):
    assert_2021_fails_and_2023_passes(answer)


@pytest.mark.parametrize(
    "answer",
    [
        # a third hunt's false rejects of a looser form: another phrase's year after the figure's item
        "Apple generated $383.3 billion [F1] of sales in markets entered in 2019.",
        "Apple earned $97.0 billion [F7] in profit from products launched in 2019.",
        "Apple earned $97.0 billion [F7] of net income versus in 2022 $99.8 billion [F8].",
        # "to" after a range or a comparison's object, not after a move of the item's own
        "Net income more than doubled from profit in 2019 to $97.0 billion [F7].",
        "Apple's operating income rose from income in 2019 to $114.3 billion [F5].",
        # ", at" after a comparison's object, not the clause's subject
        "Apple's net income far exceeded its profit in 2019, at $97.0 billion [F7].",
    ],
)
def test_gate_15_third_hunt_true_sentences_still_pass(answer):
    assert check_answer(answer, _INCOME).status == "pass", answer
