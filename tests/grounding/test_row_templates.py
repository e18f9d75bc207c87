"""The second template sets (issue 15, f15b): true sentences carrying a sign or a direction,
built from a case's cited cells, and the class's perturbation of each rejected."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from assay.cases import Case
from assay.facts import Fact
from assay.grounding import check_answer
from assay.grounding.perturbations import direction_word, sign_word
from assay.grounding.row_templates import direction_case, sign_case


def _case(facts: tuple[Fact, ...], answer: str) -> Case:
    return Case(id="c1", question="What was it?", answer=answer, facts=facts)


NET = (
    Fact(id="T1C1", label="Net income | 2019", value=53330, unit="USD thousands", period="2019"),
    Fact(id="T1C2", label="Net income | 2018", value=41200, unit="USD thousands", period="2018"),
    Fact(id="T2C1", label="Operating loss | 2019", value=1250.5, unit="USD millions", period="2019"),
    Fact(id="T3C1", label="Income (loss) | 2019", value=12, unit="USD millions", period="2019"),
)


def test_sign_case_states_the_result_with_its_sign_word() -> None:
    t = sign_case(_case(NET, "$53,330 thousand [T1C1]"))
    assert t is not None and t.variant == "templated_sign"
    assert t.answer == "Net income in 2019 was a profit of $53,330 thousand [T1C1]."
    assert check_answer(t.answer, t.snapshot()).status == "pass"
    flipped = sign_word(t)
    assert flipped is not None and "a loss of" in flipped.answer
    assert check_answer(flipped.answer, t.snapshot()).status == "fail"


def test_sign_case_reads_a_loss_item_stored_as_a_magnitude() -> None:
    t = sign_case(_case(NET, "$1,250.5 million [T2C1]"))
    assert t is not None and t.answer == "Operating loss in 2019 was a loss of $1,250.5 million [T2C1]."
    assert check_answer(t.answer, t.snapshot()).status == "pass"


def test_sign_case_skips_items_naming_both_and_non_results() -> None:
    only_both = (NET[3], Fact(id="T4C1", label="Revenue | 2019", value=9, unit="USD millions", period="2019"))
    assert sign_case(_case(only_both, "$12 million [T3C1]")) is None


def test_direction_case_states_the_change_between_two_years() -> None:
    t = direction_case(_case(NET, "$53,330 thousand [T1C1]"))
    assert t is not None and t.variant == "templated_direction"
    assert t.answer == "Net income increased by $12,130 thousand from 2018 to 2019 [T1C1, T1C2]."
    assert check_answer(t.answer, t.snapshot()).status == "pass"
    flipped = direction_word(t)
    assert flipped is not None and "decreased" in flipped.answer
    assert check_answer(flipped.answer, t.snapshot()).status == "fail"


def test_direction_case_needs_another_year_of_the_item() -> None:
    assert direction_case(_case(NET, "$1,250.5 million [T2C1]")) is None
    other = (
        Fact(id="T1", label="Other | 2019", value=3, period="2019"),
        Fact(id="T2", label="Other | 2018", value=4, period="2018"),
    )
    assert direction_case(_case(other, "3 [T1]")) is None  # a generic item names nothing


@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(1, 10**6),
    b=st.integers(1, 10**6),
    unit=st.sampled_from(["USD", "USD millions", "USD thousands", None]),
)
def test_property_direction_word_on_change_sentences_fails(a: int, b: int, unit: str | None) -> None:
    """Perturbation class ``direction_word`` on the change sentences: the true sentence passes,
    its flipped direction never does."""
    assume(abs(b - a) not in (0, a, b))  # a change equal to a level is matched as that level
    facts = (
        Fact(id="F1", label="Net sales | 2019", value=a, unit=unit, period="2019"),
        Fact(id="F2", label="Net sales | 2018", value=b, unit=unit, period="2018"),
    )
    t = direction_case(_case(facts, "x [F1]"))
    assert t is not None
    assert check_answer(t.answer, t.snapshot()).status == "pass"
    flipped = direction_word(t)
    assert flipped is not None
    assert check_answer(flipped.answer, t.snapshot()).status == "fail"


@settings(max_examples=60, deadline=None)
@given(
    v=st.integers(-(10**6), 10**6), item=st.sampled_from(["Net income", "Gross profit", "Net loss", "Operating loss"])
)
def test_property_sign_word_on_profit_loss_sentences_fails(v: int, item: str) -> None:
    """Perturbation class ``sign_word`` on the profit/loss sentences: the true sentence passes,
    the flipped profit/loss word never does."""
    assume(v > 0 or (v < 0 and "loss" in item))  # a negative "Net income" is skipped by the template
    facts = (Fact(id="F1", label=f"{item} | 2019", value=v, unit="USD millions", period="2019"),)
    t = sign_case(_case(facts, "x [F1]"))
    assert t is not None
    assert check_answer(t.answer, t.snapshot()).status == "pass"
    flipped = sign_word(t)
    assert flipped is not None
    assert check_answer(flipped.answer, t.snapshot()).status == "fail"


def test_templates_drop_the_question() -> None:
    """Regression (suite, ``sum_periods`` on profit/loss sentences): the case's question "What was
    the total operating income …" licensed the sum of two years in "Operating income in 2019 was
    a profit of $26,799 billion [T4C1, T4C2]"; the templated sentence answers no question."""
    case = _case(NET, "$53,330 thousand [T1C1]").model_copy(update={"question": "What was the total net income?"})
    for make in (sign_case, direction_case):
        t = make(case)
        assert t is not None and t.question is None


def test_direction_case_skips_negative_values() -> None:
    """Regression (f15c): "Voyage expenses (21,387) in 2019, (28,237) in 2018" made "Voyage
    expenses increased by 6,850 thousand from 2018 to 2019": the cost shrank. Positive values only."""
    facts = (
        Fact(id="T3C1", label="Voyage expenses | 2019", value=-21387, unit="thousands", period="2019"),
        Fact(id="T3C2", label="Voyage expenses | 2018", value=-28237, unit="thousands", period="2018"),
    )
    assert direction_case(_case(facts, "(21,387) [T3C1]")) is None


def test_templates_skip_a_column_naming_two_years() -> None:
    """Regression (f15c): a "2019 over 2018" change column (period 2019) was read as 2019's level,
    and a "2017/2018" fiscal year as 2017."""
    facts = (
        Fact(id="T3C4", label="Systems | 2019 over 2018", value=139042, unit="thousands", period="2019"),
        Fact(id="T3C2", label="Systems | Years Ended 2018", value=1742043, unit="thousands", period="2018"),
        Fact(id="T9C1", label="Net income | 2017/2018", value=359, unit="USD millions", period="2017"),
    )
    assert direction_case(_case(facts, "139,042 [T3C4]")) is None
    assert sign_case(_case(facts, "$359 million [T9C1]")) is None
