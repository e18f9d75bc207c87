"""False accepts a new user found (issue 15, gate-11), each beside its true counterpart: what the
form of a sentence says about its numbers (:mod:`assay.grounding.forms`)."""

from __future__ import annotations

from assay.claims import extract_claims
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.forms import negated_numbers

APPLE = Snapshot(
    facts=(
        Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        Fact(id="F2", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
        Fact(id="F3", label="Net income", value=96995, unit="USD millions", period="FY2023"),
        Fact(id="F5", label="Cash used in investing activities", value=-1577, unit="USD millions", period="FY2023"),
    )
)


def status(answer: str, snap: Snapshot = APPLE, question: str | None = None, mode: str = "auto") -> str:
    return check_answer(answer, snap, question=question, mode=mode).status  # type: ignore[arg-type]


def test_a_negated_change_backs_no_figure():
    for false in [
        "Total net sales did not decline 2.8% [F1, F2].",
        "Total net sales didn't fall by 2.8% [F1, F2].",
        "Total net sales have not yet decreased 2.8% [F1, F2].",
        "Total net sales never fell 2.8% [F1, F2].",
    ]:
        assert status(false) == "fail", false
    assert status("Total net sales declined 2.8% [F1, F2].") == "pass"
    assert status("Total net sales fell by 2.8% [F1, F2].") == "pass"


def test_a_denied_figure_backs_nothing():
    assert status("Total net sales were not $383.3 billion [F1].") == "fail"
    assert status("Total net sales did not reach $383.3 billion [F1].") == "fail"
    assert status("There was no 2.8% decline in total net sales [F1, F2].") == "fail"
    assert status("Total net sales were $383.3 billion [F1].") == "pass"
    assert status("There was a 2.8% decline in total net sales [F1, F2].") == "pass"


def test_a_negation_elsewhere_in_the_sentence_is_not_the_numbers():
    assert status("Total net sales did not grow; they fell 2.8% [F1, F2].") == "pass"
    assert status("Total net sales did not grow, declining 2.8% [F1, F2].") == "pass"
    assert status("Total net sales not only fell 2.8% but ... [F1, F2].") == "pass"
    assert status("Net income, not including charges, was $97.0 billion [F3].") == "pass"


def test_a_korean_negated_change_backs_no_figure():
    assert status("2023 회계연도 매출은 2.8% 감소하지 않았다 [F1, F2].") == "fail"


def test_a_korean_denied_level_backs_no_figure():
    # gate-13 (a new user's false accept): "was not" / "did not record" after the figure
    assert status("2023 회계연도 총 순매출은 3,833억 달러가 아니었다 [F1].") == "fail"
    assert status("2023 회계연도 총 순매출은 3,833억 달러를 기록하지 않았다 [F1].") == "fail"
    assert status("2023 회계연도 총 순매출은 3,833억 달러였다 [F1].") == "pass"
    assert status("2023 회계연도 총 순매출은 3,833억 달러를 기록했다 [F1].") == "pass"
    assert status("2023 회계연도 총 순매출은 3,833억 달러이며 증가하지 않았다 [F1].") == "pass"  # the rise is denied


def test_negated_numbers_reads_the_verb_that_gives_the_direction():
    text = "Sales did not decline 2.8% and costs fell 3.1%."
    (claim,) = extract_claims(text)
    negated = negated_numbers(claim.text, claim.span[0], claim.numbers)
    assert negated == {claim.numbers[0].span[0]}


def test_an_inflow_word_on_an_outflow_fails():
    q = "How much cash was used in investing activities in FY2023?"
    assert status("The company received $1,577 million [F5].", question=q) == "fail"
    assert status("After capital expenditures, the company received $1,577 million [F5].") == "fail"
    assert status("Apple collected $1,577 million in investing activities [F5].", question=q) == "fail"
    assert status("The company spent $1,577 million [F5].", question=q) == "pass"
    assert status("The company spent $1,577 million [F5].") == "pass"
    assert status("Apple received approval and spent $1,577 million [F5].") == "pass"  # the nearer word
    assert status("Apple received $383.3 billion of total net sales [F1].") == "pass"  # a positive figure


QUARTERS = Snapshot(
    facts=(
        Fact(id="F6", label="Revenue", value=120, unit="USD millions", period="Q3 2023"),
        Fact(id="F7", label="Revenue", value=100, unit="USD millions", period="Q2 2023"),
    )
)


def test_a_quarter_named_is_the_figures_quarter():
    for wrong, right in [
        ("Q2 2023 revenue was $120 million [F6].", "Q3 2023 revenue was $120 million [F6]."),
        ("Revenue was $120 million in the second quarter of 2023 [F6].", "Revenue was $120 million in Q3 2023 [F6]."),
        ("In 2Q23, revenue was $120 million [F6].", "In 3Q23, revenue was $120 million [F6]."),
        ("2023년 2분기 매출은 1억 2천만 달러였다 [F6].", "2023년 3분기 매출은 1억 2천만 달러였다 [F6]."),
    ]:
        assert status(wrong, QUARTERS) == "fail", wrong
        assert status(right, QUARTERS) == "pass", right
    both = "Revenue was $120 million in Q3 2023 and $100 million in Q2 2023 [F6, F7]."
    assert status(both, QUARTERS) == "pass"
    assert status("Revenue was $100 million in Q3 2023 and $120 million in Q2 2023 [F6, F7].", QUARTERS) == "fail"
    assert status("Revenue grew 20% from Q2 2023 to Q3 2023 [F6, F7].", QUARTERS) == "pass"
    assert status("Revenue was $120 million in 2023 [F6].", QUARTERS) == "pass"  # a year: the year rule's


def test_a_stated_bound_must_hold_for_the_figure():
    assert status("Total net sales were less than $383 billion [F1].") == "fail"  # 383.285 is more
    assert status("Total net sales were more than $383 billion [F1].") == "pass"
    assert status("Total net sales were more than $383.3 billion [F1].") == "fail"
    assert status("Total net sales were at least $383.3 billion [F1].") == "fail"
    assert status("Total net sales were under $383.3 billion [F1].") == "pass"
    assert status("Total net sales were more than $400 billion [F1].") == "fail"  # no such figure
    assert status("Net income fell to less than $97.0 billion [F3].") == "pass"  # 96.995


def test_an_exact_figure_stated_as_a_strict_bound_fails():
    assert status("Total net sales were more than $383,285 million [F1].") == "fail"
    assert status("Total net sales were at least $383,285 million [F1].") == "pass"
    assert status("Total net sales were $383,285 million [F1].") == "pass"


def test_a_comparisons_base_is_no_bound():
    answer = "Total net sales of $383.3 billion were less than $394.3 billion in FY2022 [F1, F2]."
    assert status(answer) == "pass"


def test_a_multiple_verb_is_the_new_figure_over_the_old():
    doubling = Snapshot(
        facts=(
            Fact(id="F1", label="Revenue", value=200, unit="USD millions", period="2023"),
            Fact(id="F2", label="Revenue", value=100, unit="USD millions", period="2022"),
        )
    )
    assert status("Revenue halved from 2022 to 2023 [F1, F2].", doubling) == "fail"
    assert status("Revenue halved [F2, F1].", doubling) == "fail"
    assert status("Revenue doubled from 2022 to 2023 [F1, F2].", doubling) == "pass"
    assert status("Revenue doubled [F2, F1].", doubling) == "pass"
    tripling = Snapshot(facts=(doubling.facts[0].model_copy(update={"value": 300}), doubling.facts[1]))
    assert status("Revenue doubled [F1, F2].", tripling) == "fail"  # (300 − 100) / 100 = 2.0 is no doubling
    assert status("Revenue tripled [F1, F2].", tripling) == "pass"
    unordered = Snapshot(
        facts=(
            Fact(id="F1", label="Segment A revenue", value=200, unit="USD millions"),
            Fact(id="F2", label="Segment B revenue", value=100, unit="USD millions"),
        )
    )
    assert status("Revenue doubled [F1, F2].", unordered) == "fail"  # nothing orders them in time


def test_an_average_is_no_sum():
    assert status("Total net sales averaged $777.6 billion over the two years [F1, F2].") == "fail"
    assert status("Total net sales were $777.6 billion over the two years [F1, F2].") == "pass"
    assert status("Total net sales were $777.6 billion on average over the two years [F1, F2].") == "fail"
    assert status("The average of total net sales was $383.3 billion in FY2023 [F1].") == "pass"  # the figure itself


def test_a_share_is_of_its_ratios_denominator():
    assert status("Net income was 25.3% of total net sales [F3, F1].") == "pass"
    assert status("Net income was 25.3% of revenue [F3, F1].") == "pass"  # one concept
    assert status("Total net sales were 25.3% of net income [F3, F1].") == "fail"  # the ratio runs the other way
    snap = Snapshot(facts=(*APPLE.facts, Fact(id="F9", label="Interest expense", value=3933, unit="USD millions")))
    assert status("Net income was 25.3% of interest expense [F3, F1, F9].", snap) == "fail"
