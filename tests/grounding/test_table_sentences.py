"""The third template sets (issue 15, n15): a true sentence for every row and year of a table —
levels, profit/loss, changes, percent changes — and the class's perturbation of each rejected."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from assay.cases import Case
from assay.facts import Fact
from assay.grounding import check_answer
from assay.grounding.perturbations import direction_word, sign_word, sum_periods
from assay.grounding.table_sentences import (
    RESULT_ROW,
    change_sentence,
    change_sentences,
    level_sentence,
    level_sentences,
    one_per_table,
    percent_change_sentence,
    percent_change_sentences,
    profit_loss_sentence,
    profit_loss_sentences,
)


def _case(facts: tuple[Fact, ...], **meta: object) -> Case:
    return Case(id="c1", question="What was it?", answer="x", facts=facts, meta=dict(meta))


SALES = (
    Fact(id="T2C1", label="Fixed Price | 2019", value=1452.4, unit="USD millions", period="2019"),
    Fact(
        id="T2C2",
        label="Fixed Price | Years Ended September 30, 2018",
        value=1146.2,
        unit="USD millions",
        period="2018",
    ),
    Fact(id="T2C3", label="Fixed Price | 2017", value=1036.9, unit="USD millions", period="2017"),
    Fact(id="T4C1", label="Net income (1) | 2019", value=53330, unit="USD thousands", period="2019"),
    Fact(id="T5C1", label="Net loss | 2019", value=-1250.5, unit="USD millions", period="2019"),
    Fact(id="T5C2", label="Net loss | 2018", value=-980.0, unit="USD millions", period="2018"),
    Fact(id="T6C1", label="Total | 2019", value=3, unit="USD millions", period="2019"),
    Fact(id="T7C1", label="Distribution | 2019 (As percentage of net revenues)", value=30, period="2019"),
)


def test_level_sentence_states_one_cell() -> None:
    case = _case(SALES)
    t = level_sentence(case, SALES[0])
    assert t is not None and t.variant == "templated_level" and t.question is None
    assert t.answer == "Fixed Price in 2019 was $1,452.4 million [T2C1]."
    assert check_answer(t.answer, t.snapshot()).status == "pass"
    s = sum_periods(t)
    assert s is not None and check_answer(s.answer, t.snapshot()).status == "fail"


def test_level_sentence_skips_out_of_scope_cells() -> None:
    case = _case(SALES)
    assert level_sentence(case, SALES[4]) is None  # a negative value
    assert level_sentence(case, SALES[6]) is None  # "Total" names no line item
    assert level_sentence(case, SALES[7]) is None  # a percent stored without a unit
    two = (
        Fact(id="A1", label="Revenue | 2019 Q4", value=5, unit="USD millions", period="2019"),
        Fact(id="A2", label="Revenue | 2019", value=20, unit="USD millions", period="2019"),
        Fact(id="B1", label="Notes due 2025 | 2019", value=7, unit="USD millions", period="2019"),
        Fact(id="C1", label="Net sales | 2018/2019", value=8, unit="USD millions", period="2018"),
    )
    assert level_sentences(_case(two)) == []  # ambiguous year; a digit in the name; two years


def test_profit_loss_sentence_names_the_result_and_its_sign() -> None:
    case = _case(SALES)
    t = profit_loss_sentence(case, SALES[3])
    assert t is not None and t.answer == "Net income in 2019 was a profit of $53,330 thousand [T4C1]."
    loss = profit_loss_sentence(case, SALES[4])
    assert loss is not None and loss.answer == "Net loss in 2019 was a loss of $1,250.5 million [T5C1]."
    assert check_answer(loss.answer, loss.snapshot()).status == "pass"
    flipped = sign_word(t)
    assert flipped is not None and "a loss of" in flipped.answer
    assert check_answer(flipped.answer, t.snapshot()).status == "fail"
    assert [s.answer.split(" in ")[0] for s in profit_loss_sentences(case)] == ["Net income", "Net loss", "Net loss"]


def test_profit_loss_sentence_skips_non_results_and_both_kinds() -> None:
    facts = (
        Fact(id="A1", label="Net income (loss) | 2019", value=12, unit="USD millions", period="2019"),
        Fact(id="A2", label="Diluted net income per share | 2019", value=1.2, unit="USD", period="2019"),
        Fact(id="A3", label="Interest income from loans | 2019", value=4, unit="USD millions", period="2019"),
        Fact(id="A4", label="Operating loss | 2019", value=-3, unit="USD millions", period="2019"),
        Fact(id="A5", label="Operating loss | 2018", value=2, unit="USD millions", period="2018"),
        Fact(id="A6", label="Gross profit | 2019", value=-5, unit="USD millions", period="2019"),
    )
    # both kinds; per share; revenue-like; a loss row of mixed signs; a negative profit
    assert profit_loss_sentences(_case(facts)) == []
    assert RESULT_ROW.match("Products and Licensing operating income")
    assert RESULT_ROW.match("Income from continuing operations before income taxes")
    assert not RESULT_ROW.match("Income tax expense")


def test_change_sentences_state_every_pair_of_years() -> None:
    case = _case(SALES)
    got = [t.answer for t in change_sentences(case)]
    assert got == [
        "Fixed Price increased by $306.2 million from 2018 to 2019 [T2C1, T2C2].",
        "Fixed Price increased by $415.5 million from 2017 to 2019 [T2C1, T2C3].",
        "Fixed Price increased by $109.3 million from 2017 to 2018 [T2C2, T2C3].",
    ]  # "Net loss" stored negative is skipped: a loss "increases" as it shrinks
    assert change_sentence(case, SALES[4], SALES[5]) is None
    for t in change_sentences(case):
        assert check_answer(t.answer, t.snapshot()).status == "pass"


def test_percent_change_sentences() -> None:
    case = _case(SALES)
    t = percent_change_sentence(case, SALES[0], SALES[1])
    assert t is not None and t.variant == "templated_percent_change"
    assert t.answer == "Fixed Price rose 26.7% from 2018 to 2019 [T2C1, T2C2]."
    assert check_answer(t.answer, t.snapshot()).status == "pass"
    assert len(percent_change_sentences(case)) == 3
    tie = (
        Fact(id="A1", label="Rate | 2019", value=3.7, period="2019"),
        Fact(id="A2", label="Rate | 2017", value=1.6, period="2017"),
    )
    assert percent_change_sentences(_case(tie)) == []  # 131.25%: 131.2% and 131.3% are both true


def test_one_per_table_prefers_a_magnitude_scale() -> None:
    a = _case(SALES, table_uid="t1", scale="percent").model_copy(update={"id": "a"})
    b = _case(SALES, table_uid="t1", scale="million").model_copy(update={"id": "b"})
    c = _case(SALES, table_uid="t1", scale="thousand").model_copy(update={"id": "c"})
    d = _case(SALES, table_uid="t2", scale="percent").model_copy(update={"id": "d"})
    e = _case(SALES, table_uid="t2", scale="").model_copy(update={"id": "e"})
    f = _case(SALES, table_uid="t3", scale="percent").model_copy(update={"id": "f"})
    # t3 is asked about only in percent: its amounts were read without the table's scale
    assert [x.id for x in one_per_table([a, b, c, d, e, f])] == ["b", "e"]


@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(1, 10**6),
    b=st.integers(1, 10**6),
    unit=st.sampled_from(["USD", "USD millions", "USD thousands", None]),
)
def test_property_direction_word_on_percent_changes_fails(a: int, b: int, unit: str | None) -> None:
    """Perturbation class ``direction_word`` on the percent-change sentences: the true sentence
    passes, its flipped direction never does."""
    p = abs(a - b) / b * 100
    assume(a != b and round(p, 1) not in (0, round(a, 1), round(b, 1)))  # a percent equal to a level is that level
    facts = (
        Fact(id="F1", label="Net sales | 2019", value=a, unit=unit, period="2019"),
        Fact(id="F2", label="Net sales | 2018", value=b, unit=unit, period="2018"),
    )
    t = percent_change_sentence(_case(facts), facts[0], facts[1])
    assume(t is not None)  # a rounding tie is skipped
    assert t is not None and check_answer(t.answer, t.snapshot()).status == "pass"
    flipped = direction_word(t)
    assert flipped is not None
    assert check_answer(flipped.answer, t.snapshot()).status == "fail"


@settings(max_examples=60, deadline=None)
@given(a=st.integers(1, 10**6), b=st.integers(1, 10**6))
def test_property_sum_periods_on_levels_fails(a: int, b: int) -> None:
    """Perturbation class ``sum_periods`` on the level sentences: the true sentence passes, the
    sum of its two years never does."""
    facts = (
        Fact(id="F1", label="Net sales | 2019", value=a, unit="USD millions", period="2019"),
        Fact(id="F2", label="Net sales | 2018", value=b, unit="USD millions", period="2018"),
    )
    t = level_sentence(_case(facts), facts[0])
    assert t is not None and check_answer(t.answer, t.snapshot()).status == "pass"
    s = sum_periods(t)
    assert s is not None
    assert check_answer(s.answer, t.snapshot()).status == "fail"
