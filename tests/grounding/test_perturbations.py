"""The perturbation suite (assay.grounding.perturbations): each class's rule on small cases, and
the suite runner (assay.grounding.suite) counting false accepts with Wilson intervals."""

from __future__ import annotations

from assay.cases import Case
from assay.grounding.perturbations import (
    CLASSES,
    direction_word,
    label_swap,
    moved_unit,
    period_swap,
    scale_word,
    sign_word,
    sum_periods,
    templated_case,
)
from assay.grounding.suite import format_table, run_suite, wilson

FACTS = (
    {"id": "F1", "label": "Total net sales", "value": 383285, "unit": "USD millions", "period": "FY2023"},
    {"id": "F2", "label": "Total net sales", "value": 394328, "unit": "USD millions", "period": "FY2022"},
    {"id": "F7", "label": "Net income", "value": 96995, "unit": "USD millions", "period": "FY2023"},
    {"id": "F8", "label": "Net income", "value": 99803, "unit": "USD millions", "period": "FY2022"},
)


def _case(answer: str, question: str | None = None) -> Case:
    return Case(id="q", answer=answer, question=question, facts=FACTS)


def test_classes_are_in_report_order():
    assert list(CLASSES) == [
        "moved_unit",
        "sign_word",
        "direction_word",
        "period_swap",
        "label_swap",
        "sum_periods",
        "scale_word",
    ]


def test_moved_unit_moves_every_number_and_names_the_class():
    p = moved_unit(_case("Net income was $97.0 billion [F7]."))
    assert p is not None and p.answer == "Net income was $97.1 billion [F7]." and p.variant == "moved_unit"
    assert moved_unit(_case("No figure.")) is None


def test_sign_word_flips_profit_and_loss_wording_both_ways():
    p = sign_word(_case("Apple's net income was $97.0 billion [F7]."))
    assert p is not None and p.answer == "Apple's net loss was $97.0 billion [F7]."
    back = sign_word(_case("Apple lost $97.0 billion [F7]."))
    assert back is not None and back.answer == "Apple earned $97.0 billion [F7]."
    assert sign_word(_case("Gain (loss) on sale was $5 million [F7].")) is None  # both kinds
    assert sign_word(_case("Revenue was $383.3 billion [F1].")) is None


def test_sign_word_flips_only_a_word_of_the_numbers_own_sentence():
    text = "Operating activities brought in $1,824 million. Investing activities lost the least [F7]."
    assert sign_word(_case(text)) is None  # "lost" is the next sentence's word, about no figure
    p = sign_word(_case("Operating activities earned $1,824 million [F7]. Investing was small."))
    assert p is not None and p.answer.startswith("Operating activities lost $1,824 million")


def test_direction_word_flips_the_first_word_of_change():
    p = direction_word(_case("Revenue decreased by 2.8% [F1, F2]."))
    assert p is not None and p.answer == "Revenue increased by 2.8% [F1, F2]."
    k = direction_word(_case("매출은 2.8% 감소했다 [F1, F2]."))
    assert k is not None and "증가" in k.answer
    assert direction_word(_case("Revenue was $383.3 billion [F1].")) is None


def test_period_swap_replaces_the_cited_year_by_another_snapshot_year():
    p = period_swap(_case("Fiscal 2023 revenue was $383.3 billion [F1]."))
    assert p is not None and p.answer == "Fiscal 2022 revenue was $383.3 billion [F1]."
    assert period_swap(_case("Revenue was $383.3 billion [F1].")) is None  # no year named
    same = Case(
        id="q",
        answer="Sales in 2023 were $5 [A].",
        facts=(
            {"id": "A", "label": "Sales", "value": 5, "unit": "USD", "period": "2023"},
            {"id": "B", "label": "Sales", "value": 5, "unit": "USD", "period": "2022"},
        ),
    )
    assert period_swap(same) is None  # the 2022 sentence would still be true


def test_period_swap_never_names_a_period_the_sentence_already_names():
    three = tuple(
        {"id": f"G{y}", "label": "Goodwill impairment", "value": v, "unit": "USD", "period": str(y)}
        for y, v in ((2019, 50.0), (2018, 27.0), (2017, 10.0))
    )
    case = Case(id="q", answer="Goodwill impairment rose by $23 between 2018 and 2019 [G2019, G2018].", facts=three)
    p = period_swap(case)
    assert p is not None and p.answer == "Goodwill impairment rose by $23 between 2017 and 2019 [G2019, G2018]."
    two = Case(id="q", answer=case.answer, facts=three[:2])
    assert period_swap(two) is None  # the only other year is named: "between 2019 and 2019" is no sentence


def test_label_swap_uses_another_line_item_of_the_same_unit():
    p = label_swap(_case("Total net sales were $383.3 billion [F1]."))
    assert p is not None and p.answer == "Net income were $383.3 billion [F1]."
    assert label_swap(_case("Sales were $383.3 billion [F1].")) is None  # the line item is not named


def test_sum_periods_adds_the_same_line_items_other_period_and_cites_both():
    p = sum_periods(_case("Revenue was $383.3 billion [F1]."))
    assert p is not None and p.answer == "Revenue was $777.6 billion [F1, F2]."
    assert sum_periods(_case("Revenue was $383.3 billion and $394.3 billion [F1, F2].")) is None


def test_scale_word_swaps_million_billion_thousand_and_korean_units():
    assert scale_word(_case("Revenue was $383.3 billion [F1].")).answer == "Revenue was $383.3 million [F1]."  # type: ignore[union-attr]
    assert scale_word(_case("It was 5 thousand.")).answer == "It was 5 million."  # type: ignore[union-attr]
    assert scale_word(_case("매출은 3억원이었다.")).answer == "매출은 3만원이었다."  # type: ignore[union-attr]
    assert scale_word(_case("Revenue was $383.3 [F1].")) is None


def test_templated_case_builds_a_sentence_from_the_question():
    t = templated_case(_case("383.3 billion [F1]", "What was the total net sales in 2023?"))
    assert t is not None and t.answer == "The total net sales in 2023 was 383.3 billion [F1]."
    ch = templated_case(_case("-11.0 billion [F1, F2]", "What was the change in total net sales from 2022 to 2023?"))
    assert ch is not None and ch.answer == "The total net sales decreased by 11.0 billion [F1, F2] from 2022 to 2023."
    assert templated_case(_case("5 [F1]", "Which year had the higher revenue?")) is None


def test_wilson_interval_is_informative_at_zero_and_inside_unit_range():
    r = wilson(0, 300)
    assert r.rate == 0.0 and r.low == 0.0 and r.high is not None and 0.012 < r.high < 0.013
    assert wilson(0, 0).rate is None
    full = wilson(10, 10)
    assert full.high == 1.0 and full.low is not None and full.low < 1.0


def test_run_suite_counts_false_accepts_only_among_accepted_gold_cases():
    gold = [_case("Revenue was $383.3 billion [F1]."), _case("Revenue was $999 billion [F1].")]
    r = run_suite("small", gold, "cited", {"moved_unit": moved_unit})
    assert (r.gold.k, r.gold.n) == (1, 2)
    assert (r.classes["moved_unit"].k, r.classes["moved_unit"].n) == (0, 1)
    table = format_table([r])
    assert "gold accepted" in table and "moved_unit" in table and "0/1" in table
    d = r.to_dict()
    assert d["gold_acceptance"] == {"k": 1, "n": 2, "rate": 0.5, "ci95": [wilson(1, 2).low, wilson(1, 2).high]}


def test_pooled_sums_the_table_sets_per_mode_and_leaves_other_sets_out():
    """The pooled row of a mode is the sums of k and n of the POOLED_SETS rows of that mode, with
    the Wilson interval of the sums (0/467 proves ≤ 1%, which no single set of 174 could)."""
    from assay.grounding.suite import POOLED_NAME, POOLED_NOTE, POOLED_SETS, SuiteResult, pooled

    def res(name: str, mode: str, k: int, n: int) -> SuiteResult:
        return SuiteResult(name, mode, wilson(n, n + 1), {"sign_word": wilson(k, n)})  # type: ignore[arg-type]

    results = [
        res(POOLED_SETS[1], "cited", 0, 174),
        res(POOLED_SETS[2], "cited", 0, 147),
        res(POOLED_SETS[3], "cited", 0, 146),
        res(POOLED_SETS[1], "uncited", 2, 100),
        res(POOLED_SETS[2], "uncited", 1, 50),
        res("tatqa templated sentences", "cited", 5, 86),  # repeats the table sentences: not pooled
    ]
    rows = pooled(results)
    assert [(r.name, r.mode) for r in rows] == [
        (POOLED_NAME, "cited"),
        (POOLED_NAME, "uncited"),
    ]
    cited, uncited = rows
    assert cited.classes["sign_word"] == wilson(0, 467) and cited.classes["sign_word"].high is not None
    assert cited.classes["sign_word"].high < 0.01 < wilson(0, 174).high  # type: ignore[operator]
    assert uncited.classes["sign_word"] == wilson(3, 150)
    assert (cited.gold.k, cited.gold.n) == (467, 470) and not cited.false_accepts
    assert pooled([res("tatqa gold figures", "cited", 0, 5)]) == []
    assert format_table([*results, *rows]).endswith(POOLED_NOTE) and POOLED_NOTE not in format_table(results)


ROWS = (
    {"id": "D", "label": "Discount rate | 2019", "value": 4.0, "unit": "%", "period": "2019"},
    {"id": "T", "label": "Total | 2019", "value": 9.0, "unit": "%", "period": "2019"},
    {"id": "R", "label": "row 6 | 2019", "value": 7.0, "unit": "%", "period": "2019"},
    {"id": "L", "label": "Low | 2019", "value": 1.0, "unit": "%", "period": "2019"},
    {"id": "E", "label": "Expected return on plan assets . | 2019", "value": 6.5, "unit": "%", "period": "2019"},
)


def test_label_swap_names_a_line_item_on_word_boundaries_never_a_generic_or_placeholder_row():
    """Suite fix (issue 15): swaps to "Total", "row 6" or "Low" made vague sentences, not false
    ones, and "discount rates" became "Expected return on plan assetss" (a part of a word)."""
    p = label_swap(Case(id="q", answer="The discount rate in 2019 was 4.0% [D].", facts=ROWS))
    assert p is not None and p.answer == "The Expected return on plan assets in 2019 was 4.0% [D]."
    assert label_swap(Case(id="q", answer="The discount rates in 2019 were 4.0% [D].", facts=ROWS)) is None
    only_vague = tuple(f for f in ROWS if f["id"] != "E")
    assert label_swap(Case(id="q", answer="The discount rate in 2019 was 4.0% [D].", facts=only_vague)) is None


def test_direction_word_leaves_a_bound_alone():
    """Suite fix: "up to $584 million" is a bound; flipping it to "down to" changed no stated change."""
    text = "The costs are up to $584 million, of which approximately $108 million remained as of May 31, 2019 [F1]."
    assert direction_word(_case(text)) is None


def test_templated_case_joins_a_multi_span_answer_into_one_sentence():
    """Suite fix: "… was 4.1% [A]. 4.6% [B].." split a "respectively" sentence in two, so its
    years never reached the second figure."""
    case = Case(
        id="q", question="What are the respective dividend yield in 2017 and 2018?", answer="4.1% [A]. 4.6% [B]."
    )
    t = templated_case(case)
    assert t is not None and t.answer == "The respective dividend yield in 2017 and 2018 was 4.1% [A] and 4.6% [B]."


def test_direction_word_flips_the_numbers_own_word_and_up_only_right_before_it():
    """Suite fix: "a slower growth rate compared to the 10.3% increase" flipped "growth", not the
    10.3%'s own "increase"; "Adding those up results in $16,525 million" flipped "up"."""
    p = direction_word(_case("A slower growth rate compared to the 10.3% increase [F1, F2]."))
    assert p is not None and p.answer == "A slower growth rate compared to the 10.3% decrease [F1, F2]."
    p = direction_word(_case("Revenue was up 2.8% [F1, F2]."))
    assert p is not None and p.answer == "Revenue was down 2.8% [F1, F2]."


def test_label_swap_never_swaps_in_a_paragraph_numbers_context():
    """Suite fix: 'The …a $572 million decrease in Blizzard net bookings… in 2018 was $4,203 million'."""
    facts = (
        {"id": "D", "label": "Discount rate | 2019", "value": 4.0, "unit": "%", "period": "2019"},
        {"id": "P", "label": "…a $572 million decrease in Blizzard net bookings…", "value": 3.0, "unit": "%"},
    )
    assert label_swap(Case(id="q", answer="The discount rate in 2019 was 4.0% [D].", facts=facts)) is None
