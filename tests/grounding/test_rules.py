"""Gate-5 rules (assay.grounding.context): what a sentence says a number IS — sign wording, sums,
periods, line items, the question's sign licence — each with issue 15's sentences and their true
counterparts, and a hypothesis property per perturbation class on generated statements."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case
from assay.facts import Fact, Snapshot
from assay.grounding import GATE_VERSION, check_answer
from assay.grounding.perturbations import label_swap, period_swap, sign_word, sum_periods

APPLE = Snapshot(
    facts=(
        Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        Fact(id="F2", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
        Fact(id="F5", label="Operating income", value=114301, unit="USD millions", period="FY2023"),
        Fact(id="F7", label="Net income", value=96995, unit="USD millions", period="FY2023"),
        Fact(id="F8", label="Net income", value=99803, unit="USD millions", period="FY2022"),
        Fact(id="S1", label="Services net sales", value=85200, unit="USD millions", period="FY2023"),
        Fact(id="P1", label="Products net sales", value=298085, unit="USD millions", period="FY2023"),
    )
)


def status(answer: str, question: str | None = None, snap: Snapshot = APPLE, mode: str = "auto") -> str:
    return check_answer(answer, snap, question=question, mode=mode).status  # type: ignore[arg-type]


def kinds(answer: str, snap: Snapshot = APPLE) -> list[str]:
    return [v.kind for v in check_answer(answer, snap).violations]


def test_gate_version_is_bumped():
    assert GATE_VERSION == "gate-21"


def test_loss_wording_on_a_positive_fact_fails_and_the_true_wording_passes():
    assert status("Apple posted a net loss of $97.0 billion [F7].") == "fail"
    assert status("Operating loss was $114.3 billion [F5].") == "fail"
    assert status("Apple's net income was $97.0 billion [F7].") == "pass"
    assert status("Operating income was $114.3 billion [F5].") == "pass"


def test_a_stated_loss_still_matches_a_negative_facts_magnitude():
    snap = Snapshot(facts=(Fact(id="L", label="Net income", value=-12.5, unit="USD millions", period="2019"),))
    assert status("The net loss was $12.5 million [L].", snap=snap) == "pass"
    assert status("Net income was $12.5 million [L].", snap=snap) == "fail"
    assert status("Net profit was $12.5 million [L].", snap=snap) == "fail"


def test_a_loss_line_item_shown_as_a_positive_magnitude_is_a_loss():
    snap = Snapshot(facts=(Fact(id="L", label="Net loss", value=12.5, unit="USD millions", period="2019"),))
    assert status("The net loss was $12.5 million [L].", snap=snap) == "pass"
    assert status("The net profit was $12.5 million [L].", snap=snap) == "fail"


def test_the_question_licenses_a_magnitude_of_a_negative_figure():
    snap = Snapshot(facts=(Fact(id="C", label="Capital expenditure", value=-1577, unit="USD millions"),))
    assert status("1,577 million [C]", snap=snap) == "fail"
    assert status("1,577 million [C]", "How much was spent on capital expenditure?", snap) == "pass"
    assert status("1,577 million [C]", "What was the amount?", snap) == "fail"
    assert status("1,577 million [C]", "What was the capital expenditure?", snap) == "pass"  # capex: an outflow


def test_sums_across_periods_need_licensing_words():
    assert status("Apple's revenue was $777.6 billion [F1, F2].") == "fail"
    assert status("Apple's revenue was $777.6 billion [F1, F2].", mode="uncited") == "fail"
    assert status("Revenue over the two years was $777.6 billion [F1, F2].") == "pass"
    assert status("Cumulative revenue was $777.6 billion [F1, F2].") == "pass"
    assert status("Combined revenue was $777.6 billion [F1, F2].") == "fail"  # across periods needs more


def test_sums_of_components_of_one_period_pass():
    assert status("Products and services net sales were $383.3 billion [P1, S1].") == "pass"


def test_period_mismatch_fires_only_when_the_sentence_names_another_facts_period():
    assert kinds("Fiscal 2022 revenue was $383.3 billion [F1].") == ["period_mismatch"]
    assert status("Fiscal 2023 revenue was $383.3 billion [F1].") == "pass"
    assert status("Revenue was $383.3 billion [F1].") == "pass"  # no period named
    assert status("Revenue was $383.3 billion in 2023, down from $394.3 billion in 2022 [F1, F2].") == "pass"


def test_label_mismatch_fires_only_for_a_known_label_of_another_fact():
    assert kinds("Net income was $383.3 billion [F1].") == ["label_mismatch"]
    assert status("Total net sales were $383.3 billion [F1].") == "pass"
    assert status("Revenue was $383.3 billion [F1].") == "pass"  # a synonym of the fact's label
    assert status("The figure was $383.3 billion [F1].") == "pass"  # no known label named


def test_the_base_of_a_ratio_is_not_what_the_number_is():
    snap = Snapshot(
        facts=(
            Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
            Fact(id="F17", label="Gross margin percentage", value=44.1, unit="%", period="FY2023"),
        )
    )
    assert status("Gross margin was 44.1% of net sales [F17].", snap=snap) == "pass"


def test_markers_without_any_facts_are_unknown_citations_not_unsourced():
    assert kinds("Revenue was $383.3 billion [F1].", Snapshot()) == ["unknown_citation", "value_mismatch"]


_LABELS = ["Total revenue", "Net income", "Operating income", "Research and development", "Total assets"]


@st.composite
def _statement(draw: st.DrawFn) -> Case:
    a, b = draw(st.sampled_from(_LABELS)), draw(st.sampled_from(_LABELS))
    if a == b:
        b = "Inventories"
    v = [draw(st.integers(1000, 99999)) for _ in range(4)]
    facts = (
        Fact(id="A1", label=a, value=v[0], unit="USD millions", period="2019"),
        Fact(id="A2", label=a, value=v[1], unit="USD millions", period="2018"),
        Fact(id="B1", label=b, value=v[2], unit="USD millions", period="2019"),
        Fact(id="B2", label=b, value=v[3], unit="USD millions", period="2018"),
    )
    return Case(id="h", answer=f"{a} in 2019 was ${v[0]:,} million [A1].", facts=facts)


@settings(max_examples=40, deadline=None)
@given(_statement())
def test_property_true_statements_pass_and_perturbed_ones_fail(case: Case):
    snap = case.snapshot()
    assert check_answer(case.answer, snap).status == "pass"
    for change in (period_swap, label_swap, sum_periods, sign_word):
        p = change(case)
        if p is not None:
            assert check_answer(p.answer, snap).status == "fail", (change.__name__, p.answer)


def test_a_fact_that_states_its_own_direction_must_agree_with_the_wording():
    snap = Snapshot(
        facts=(
            Fact(
                id="P",
                label="…Interest income increased by $16.9 million in fiscal year 2019…",
                value=16.9,
                unit="USD millions",
            ),
        )
    )
    assert status("The increase in interest income was $16.9 million [P].", snap=snap) == "pass"
    assert status("Interest income decreased by $16.9 million [P].", snap=snap) == "fail"


def test_loss_and_profit_words_must_agree_with_the_line_items_polarity_in_a_derivation():
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Operating loss carryforward | 2019", value=73260, unit="thousands", period="2019"),
            Fact(id="B", label="Operating loss carryforward | 2018", value=57768, unit="thousands", period="2018"),
        )
    )
    assert status("The operating loss carryforward rose 26.82% from 2018 to 2019 [A, B].", snap=snap) == "pass"
    assert status("The operating income carryforward rose 26.82% from 2018 to 2019 [A, B].", snap=snap) == "fail"


def test_a_derivation_naming_a_line_item_that_is_none_of_its_operands_fails():
    snap = Snapshot(
        facts=(
            Fact(id="TA", label="Total assets | 2019", value=1000, unit="USD millions", period="2019"),
            Fact(id="TL", label="Total liabilities | 2019", value=500, unit="USD millions", period="2019"),
            Fact(id="C", label="Cash and equivalents | 2019", value=90, unit="USD millions", period="2019"),
        )
    )
    assert status("The ratio of total assets to total liabilities in 2019 was 2.0 [TA, TL].", snap=snap) == "pass"
    assert (
        status("The ratio of cash and equivalents to total liabilities in 2019 was 2.0 [TA, TL].", snap=snap) == "fail"
    )


def test_sum_licences_of_tatqa_questions_bugs_found_on_gold_answers():
    """Gold answers the sum rule first rejected: components "for both" tables, maturity buckets
    "due within 3 years", and generic "Total" rows of two tables (not one line item)."""
    both = Snapshot(
        facts=(
            Fact(id="A", label="Underlying rights and other | Net", value=14.5, unit="millions"),
            Fact(id="B", label="Underlying rights and other | Net", value=1.9, unit="millions"),
        )
    )
    assert status("16.4 million [A, B]", snap=both) == "fail"
    assert (
        status("16.4 million [A, B]", "What is the net total for both finite-lived and indefinite-lived?", both)
        == "pass"
    )
    leases = Snapshot(
        facts=(
            Fact(id="L1", label="Operating leases | 2020", value=20000, unit="thousands", period="2020"),
            Fact(id="L2", label="Operating leases | 2021-2022", value=18282, unit="thousands", period="2021-2022"),
        )
    )
    assert status("38,282 thousand [L1, L2]", snap=leases) == "fail"
    assert (
        status("38,282 thousand [L1, L2]", "What is the total operating leases due within 3 years?", leases) == "pass"
    )
