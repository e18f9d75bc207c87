"""Gate-6 rules (assay.grounding.context, labels): the false accepts the perturbation suite found
on TAT-QA's templated sentences, each as the perturbed sentence and its true counterpart, and a
hypothesis property on generated change statements."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.label_signs import own_clause
from assay.grounding.lexicon import LOSS
from assay.grounding.perturbations import label_swap, period_swap, sign_word


def status(answer: str, snap: Snapshot, question: str | None = None, mode: str = "auto") -> str:
    return check_answer(answer, snap, question=question, mode=mode).status  # type: ignore[arg-type]


def test_a_loss_word_on_a_derivation_of_positive_figures_fails():
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Total | 2019", value=302, unit="USD millions", period="2019"),
            Fact(id="B", label="Total | 2018", value=148, unit="USD millions", period="2018"),
        )
    )
    assert status("The change in total operating income in 2019 from 2018 was 154 million [A, B].", snap) == "pass"
    assert status("The change in total operating loss in 2019 from 2018 was 154 million [A, B].", snap) == "fail"
    assert status("The operating loss margin was 204.05% [A, B].", snap) == "fail"


def test_a_profit_word_on_a_derivation_of_negative_figures_fails():
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Transaction related | Allowance for Losses", value=-238, unit="USD"),
            Fact(id="B", label="Transaction related | Allowance for Losses", value=-168, unit="USD"),
        )
    )
    assert status("The percentage change in the allowance for losses was 41.67% [A, B].", snap) == "pass"
    assert status("The percentage change in the allowance for gains was 41.67% [A, B].", snap) == "fail"


def test_a_question_naming_the_loss_licenses_its_positive_magnitudes_in_a_sum():
    snap = Snapshot(
        facts=(
            Fact(id="D", label="Domestic–state | Amount", value=57299, unit="USD thousands"),
            Fact(id="F", label="Foreign | Amount", value=565609, unit="USD thousands"),
        )
    )
    answer = "The sum of all net operating loss carryforwards was 622,908 thousand [D, F]."
    assert status(answer, snap, "What was the sum of all net operating loss carryforwards?") == "pass"
    assert status(answer, snap) == "fail"


def test_a_derivation_with_a_figure_below_the_stated_precision_is_that_one_figure():
    snap = Snapshot(
        facts=(
            Fact(
                id="P1",
                label="…consisted primarily of a net loss of $3.8 million, capitalized…",
                value=3.8,
                unit="USD millions",
            ),
            Fact(id="P2", label="…capitalized debt discount of $13 thousand and…", value=13, unit="USD thousands"),
        )
    )
    assert status("It consisted primarily of a net loss of $3.8 million [P1, P2].", snap) == "pass"
    assert status("It consisted primarily of a net income of $3.8 million [P1, P2].", snap) == "fail"


YIELDS = Snapshot(
    facts=(
        Fact(id="A", label="Dividend yield | 2017", value=4.1, unit="%", period="2017"),
        Fact(id="B", label="Dividend yield | 2018", value=4.6, unit="%", period="2018"),
        Fact(id="C", label="Dividend yield | 2019", value=3.9, unit="%", period="2019"),
    )
)


def test_respectively_pairs_years_with_numbers_in_order_or_keeps_them_as_a_set():
    assert status("The dividend yield in 2017 and 2018 was 4.1% and 4.6%, respectively [A, B].", YIELDS) == "pass"
    assert status("The dividend yield in 2019 and 2018 was 4.1% and 4.6%, respectively [A, B].", YIELDS) == "fail"
    assert status("The respective dividend yield in 2017 and 2018 was 4.1% [A].", YIELDS) == "pass"
    assert status("The respective dividend yield in 2019 and 2018 was 4.1% [A].", YIELDS) == "fail"
    assert status("The dividend yield in 2019, 2018 and 2017 respectively was 3.9% [C].", YIELDS) == "pass"


def test_a_derivation_with_an_operand_of_unknown_period_must_have_a_named_year():
    snap = Snapshot(
        facts=(
            Fact(id="T", label="Food Care | 2018", value=1914.4, unit="USD millions", period="2018"),
            Fact(id="T9", label="Food Care | 2019", value=1800.0, unit="USD millions", period="2019"),
            Fact(
                id="P", label="…to Food Care were understated by $372.9 million with…", value=372.9, unit="USD millions"
            ),
        )
    )
    assert status("The unrevised value of Food Care for 2018 was 1,541.5 million [T, P].", snap) == "pass"
    assert status("The unrevised value of Food Care for 2019 was 1,541.5 million [T, P].", snap) == "fail"


def test_a_passage_number_repeating_a_fact_is_judged_as_that_fact():
    snap = Snapshot(
        facts=(
            Fact(id="T", label="Final dividend per share (cents) | 2019", value=3.45, unit="", period="2019"),
            Fact(id="T8", label="Final dividend per share (cents) | 2018", value=3.2, unit="", period="2018"),
            Fact(
                id="P",
                label="…final dividend proposed for 2019 of 3.45 cents per Ordinary Share is…",
                value=3.45,
                unit="",
            ),
        )
    )
    assert status("The final dividend per share proposed for 2019 was 3.45 cents [T, P].", snap) == "pass"
    assert status("The final dividend per share proposed for 2018 was 3.45 cents [T, P].", snap) == "fail"
    assert status("The final dividend per share proposed for 2018 was 3.45 cents.", snap, mode="uncited") == "fail"
    assert status("The final dividend per share proposed for 2019 was 3.45 cents.", snap, mode="uncited") == "pass"


def test_and_before_a_year_continues_a_list_not_a_clause():
    snap = Snapshot(
        facts=(
            Fact(id="T1", label="Taiwan Dollar | 2018", value=30.15, unit="", period="2018"),
            Fact(id="T2", label="Taiwan Dollar | 2019", value=30.90, unit="", period="2019"),
            Fact(id="S1", label="Swedish Krona | 2018", value=8.69, unit="", period="2018"),
        )
    )
    true = (
        "The exchange rate for Taiwan Dollar for the years ended December 31, 2018, and 2019, respectively"
        " was 30.15 [T1]."
    )
    assert status(true, snap) == "pass"
    assert status(true.replace("Taiwan Dollar", "Swedish Krona"), snap) == "fail"


def test_a_longer_exact_line_item_names_that_other_row():
    snap = Snapshot(
        facts=(
            Fact(
                id="A",
                label="Additions based on tax positions taken during a prior period | 2019",
                value=484,
                unit="thousands",
                period="2019",
            ),
            Fact(
                id="B",
                label="Additions based on tax positions taken during a prior period - acquisitions | 2019",
                value=12,
                unit="thousands",
                period="2019",
            ),
        )
    )
    assert (
        status("The Additions based on tax positions taken during a prior period was 484 thousand [A].", snap) == "pass"
    )
    assert (
        status(
            "The Additions based on tax positions taken during a prior period - acquisitions was 484 thousand [A].",
            snap,
        )
        == "fail"
    )


def test_a_material_concept_buried_in_two_long_items_does_not_relate_them():
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Share of net earnings in other affiliates | 2018", value=3711, unit="", period="2018"),
            Fact(id="B", label="Share of net earnings in Golar Partners | 2018", value=100, unit="", period="2018"),
            Fact(id="N", label="Net income | 2018", value=9000, unit="", period="2018"),
        )
    )
    assert status("The share of net earnings in other affiliates in 2018 was 3,711 [A].", snap) == "pass"
    assert status("The share of net earnings in Golar Partners in 2018 was 3,711 [A].", snap) == "fail"
    assert status("Net earnings in 2018 were 9,000 [N].", snap) == "pass"  # a synonym of the concept


def test_a_line_item_named_by_its_change_tells_its_direction():
    snap = Snapshot(
        facts=(Fact(id="R", label="Rate of compensation increase | 2019", value=4.3, unit="%", period="2019"),)
    )
    assert status("The rate of compensation increase in 2019 was 4.3% [R].", snap) == "pass"
    assert status("The rate of compensation decrease in 2019 was 4.3% [R].", snap) == "fail"


def test_a_profit_word_up_to_sixty_characters_before_the_number_counts():
    snap = Snapshot(
        facts=(Fact(id="S", label="Software license | 2019", value=275792, unit="USD thousands", period="2019"),)
    )
    assert (
        status("The respective gross profit from software license in 2019 was $275,792 thousand [S].", snap) == "pass"
    )
    assert status("The respective gross loss from software license in 2019 was $275,792 thousand [S].", snap) == "fail"


def test_the_direction_a_context_tells_is_that_of_the_numbersown_clause():
    label = "…3.1 percent year to year as reported (1 percent adjusted for currency), but increased…"
    assert own_clause(label, 1.0) == "1 percent adjusted for currency"
    assert "increased" in own_clause("…revenue increased by $16.9 million in fiscal 2019…", 16.9)
    snap = Snapshot(facts=(Fact(id="P", label=label, value=1.0, unit="%"),))
    assert status("Revenue decreased 1 percent adjusted for currency [P].", snap) == "pass"


def test_negative_growth_is_a_direction_not_a_loss_word():
    assert LOSS.search("Revenue posted negative growth of 2.8%") is None
    assert LOSS.search("a negative balance of $5 million") is not None


_ITEMS = ["Net income", "Operating income", "Research and development", "Total revenue", "Inventories"]


@st.composite
def _change(draw: st.DrawFn) -> Case:
    a = draw(st.sampled_from(_ITEMS))
    b = draw(st.sampled_from([i for i in _ITEMS if i != a]))
    v = [draw(st.integers(1000, 99999)) for _ in range(6)]
    if v[0] == v[1]:
        v[0] += 7
    facts = tuple(
        Fact(id=f"{k}{y}", label=f"{item} | {y}", value=v[i * 3 + j], unit="USD millions", period=str(y))
        for i, (k, item) in enumerate((("A", a), ("B", b)))
        for j, y in enumerate((2019, 2018, 2017))
    )
    diff = v[0] - v[1]
    verb = "increased" if diff > 0 else "decreased"
    answer = f"{a} {verb} by ${abs(diff):,} million from 2018 to 2019 [A2019, A2018]."
    return Case(id="h", answer=answer, facts=facts)


@settings(max_examples=40, deadline=None)
@given(_change())
def test_property_true_change_statements_pass_and_perturbed_ones_fail(case: Case):
    snap = case.snapshot()
    assert check_answer(case.answer, snap).status == "pass", case.answer
    for change in (period_swap, label_swap, sign_word):
        p = change(case)
        if p is not None:
            assert check_answer(p.answer, snap).status == "fail", (change.__name__, p.answer)


def _facts(*rows: tuple[str, float, str, str | None]) -> Snapshot:
    return Snapshot(
        facts=tuple(Fact(id=f"X{i}", label=lab, value=v, unit=u, period=p) for i, (lab, v, u, p) in enumerate(rows))
    )


def test_an_exact_line_item_of_another_fact_is_not_related_through_a_concept():
    snap = _facts(
        ("Total revenue | 30 June 2019", 179260, "thousands", "2019"),
        ("Data centre services revenue | 30 June 2019", 150000, "thousands", "2019"),
    )
    assert status("The total revenue in FY19 was 179,260 thousand [X0].", snap) == "pass"
    assert status("Revenue in FY19 was 179,260 thousand [X0].", snap) == "pass"  # a synonym, no fact's name
    assert status("The Data centre services revenue in FY19 was 179,260 thousand [X0].", snap) == "fail"


def test_a_direct_match_naming_another_facts_exact_line_item_fails():
    snap = _facts(
        ("Total | Fiscal 2018 Net Sales", 7938.3, "USD millions", "2018"),
        ("Grocery & Snacks | Fiscal 2018 Net Sales", 3000.0, "USD millions", "2018"),
    )
    assert status("The total net sales in fiscal year 2018 was $7,938.3 million [X0].", snap) == "pass"
    assert status("The Grocery & Snacks net sales in fiscal year 2018 was $7,938.3 million [X0].", snap) == "fail"


def test_a_comma_and_inside_a_named_line_item_cuts_no_clause():
    snap = _facts(
        ("Net cash provided by operating activities | 2017", 8153, "USD", "2017"),
        ("Net increase in cash, cash equivalents, and restricted cash | 2017", 500, "USD", "2017"),
    )
    assert status("The net cash provided by operating activities in 2017 was $8,153 [X0].", snap) == "pass"
    bad = "The Net increase in cash, cash equivalents, and restricted cash in 2017 was $8,153 [X0]."
    assert status(bad, snap) == "fail"


def test_the_base_named_before_a_ratio_is_not_what_it_is():
    snap = _facts(
        ("Cost of revenue | 2017", 55, "%", "2017"),
        ("Research and development | 2017", 20, "%", "2017"),
        ("Revenue | 2017", 100, "USD millions", "2017"),
    )
    assert status("The cost of revenue as a percentage of revenue in 2017 was 55% [X0].", snap) == "pass"
    assert status("The research and development as a percentage of revenue in 2017 was 55% [X0].", snap) == "fail"


def test_a_sentence_with_one_number_gives_it_every_year_it_names():
    snap = _facts(
        ("Net increase in cash | 2019", 692, "USD", "2019"),
        ("Net increase in cash | 2018", 1371, "USD", "2018"),
        ("Net increase in cash | 2017", 1000, "USD", "2017"),
    )
    assert status("The net increase decreased by 49.53% [X1, X0], and it was from 2018 to 2019.", snap) == "pass"
    assert status("The net increase decreased by 49.53% [X1, X0], and it was from 2017 to 2019.", snap) == "fail"


def test_of_two_far_apart_sign_words_the_nearer_is_the_numbers():
    snap = _facts(("…LinkedIn operating loss increased $63 million to $987 million…", 63, "USD millions", None))
    prefix = "The LinkedIn operating loss in 2018 was: LinkedIn operating "
    assert status(prefix + "loss increased $63 million [X0].", snap) == "pass"
    assert status(prefix + "income increased $63 million [X0].", snap) == "fail"


def test_a_loss_word_against_the_one_operand_with_a_polarity_fails():
    snap = _facts(
        ("Cash (1) | 2019", 1280, "USD", "2019"),
        ("Gains on the sale of company-operated restaurants | 2019", 1366, "USD", "2019"),
    )
    assert status("Cash was 93.7% of the total gains on the sale of restaurants in 2019 [X0, X1].", snap) == "pass"
    assert status("Cash was 93.7% of the total losses on the sale of restaurants in 2019 [X0, X1].", snap) == "fail"


def test_a_cited_cell_showing_the_same_digits_is_the_paragraph_numbers_twin():
    snap = _facts(
        ("Free Cash Flow | 2018", 533, "USD", "2018"),
        ("Free Cash Flow | 2017", 308, "USD", "2017"),
        ("…compared to positive $533 million and positive $308 million in 2018 and…", 533, "USD millions", None),
    )
    assert status("The Free Cash Flow in 2018 was $533 million [X0, X2].", snap) == "pass"
    assert status("The Free Cash Flow in 2017 was $533 million [X0, X2].", snap) == "fail"


def test_a_paragraph_number_whose_context_names_the_item_is_not_a_twin():
    snap = _facts(
        ("Bell Wireline | % CHANGE", 0.3, "%", None),
        ("Capital intensity ratio | 2019", 16.6, "%", "2019"),
        ("…capital intensity ratio of 16.6%, down 0.3 pts compared to last year…", 0.3, "pp", None),
    )
    assert status("The % change in the capital intensity ratio for BCE was 0.3 pts [X0, X2].", snap) == "pass"


def test_respectively_over_a_range_of_years_holds_the_years_between():
    snap = _facts(
        ("Net income | 2019", 5, "USD thousands", "2019"),
        ("Net income | 2018", 6, "USD thousands", "2018"),
        ("Net income | 2017", 7, "USD thousands", "2017"),
    )
    ok = "The net income for fiscal years 2019 to 2017 respectively was $5 thousand, $6 thousand and $7 thousand"
    assert status(ok + " [X0, X1, X2].", snap) == "pass"


def test_a_stated_change_is_never_a_ratio_of_two_figures():
    snap = _facts(
        ("Developed Rest of World | Q2 2023 %", -74, "%", None),
        ("Developed Rest of World | Q2 2022 %", -55, "%", None),
    )
    assert status("Its revenues showed a decrease of 74%.", snap, mode="uncited") == "pass"
    assert status("Its revenues showed an increase of 74%.", snap, mode="uncited") == "fail"  # not -55/-74


def test_a_ratio_whose_operand_is_a_change_may_back_a_stated_increase():
    snap = _facts(("Total assets | As reported", 1000, "USD", None), ("Total assets | Adjustments", 7.2, "USD", None))
    assert status("The percentage increase in total assets after adoption was 0.72% [X1, X0].", snap) == "pass"


def test_a_direction_contradicting_the_sentences_own_from_and_to_figures_fails():
    snap = _facts(
        ("Effective tax rate | FY2021", 20, "%", "FY2021"),
        ("Effective tax rate | FY2022", 23, "%", "FY2022"),
    )
    true = "The effective tax rate increased by 3% from 20% in FY2021 to 23% in FY2022 [X0, X1]."
    assert status(true, snap) == "pass"
    assert status(true.replace("increased", "decreased"), snap) == "fail"


def test_a_number_that_is_only_compared_to_states_no_direction():
    snap = _facts(("…adjusted EPS of $10.15, increasing by 3.6%…", 3.6, "%", None))
    assert status("This growth is lower than the growth rate of 3.6% in 2022 [X0].", snap) == "pass"
    assert status("Adjusted EPS decreased by 3.6% in 2022 [X0].", snap) == "fail"  # the context says increasing


def test_a_gain_line_item_in_parentheses_shown_negative_is_a_gain():
    snap = _facts(("(Gain) on completion of Consumer Healthcare JV transaction", -8.1, "USD billions", None))
    # a loss word licenses a magnitude-only match of a negative figure; this one is a gain
    assert status("Pfizer recorded a pre-tax loss of $8.1 billion [X0].", snap) == "fail"
    loss = _facts(("Loss on completion of Consumer Healthcare JV transaction", -8.1, "USD billions", None))
    assert status("Pfizer recorded a pre-tax loss of $8.1 billion [X0].", loss) == "pass"


def test_a_change_ratio_takes_the_direction_of_its_change_operand():
    snap = _facts(
        ("Net bookings | Increase (Decrease)", -874, "USD", None), ("Net bookings | 2018", 7262, "USD", "2018")
    )
    assert status("The net bookings decreased by 12.04% between 2018 and 2019 [X0, X1].", snap) == "pass"
    assert status("The net bookings increased by 12.04% between 2018 and 2019 [X0, X1].", snap) == "fail"
    diff = _facts(("SG&A expense | $ Difference", 9.6, "USD millions", None))
    assert status("The SG&A expense increase in 2019 was $9.6 million [X0].", diff) == "pass"
    assert status("The SG&A expense decrease in 2019 was $9.6 million [X0].", diff) == "fail"


def test_a_level_moved_by_its_change_column_is_another_periods_level():
    snap = _facts(
        ("Net sales | December 31, 2018", 103350, "USD thousands", "2018"),
        ("Net sales | $", -9688, "USD thousands", None),
        ("Net sales | December 31, 2019", 93662, "USD thousands", "2019"),
    )
    assert status("The net sales for the year ended December 31, 2019 was $93,662 thousand.", snap, mode="uncited") == (
        "pass"
    )
    bad = "The net sales for the year ended December 31, 2018 was $93,662 thousand."
    assert status(bad, snap, mode="uncited") == "fail"  # 103,350 − 9,688 is 2019's, not 2018's


def test_two_year_mentions_name_every_operand_of_a_change():
    snap = _facts(
        ("Systems | 2019", 1603001, "USD thousands", "2019"),
        ("Systems | 2018", 1800000, "USD thousands", "2018"),
        ("Systems | 2017", 2134926, "USD thousands", "2017"),
    )
    assert status(
        "The net difference in sale of systems between 2019 and 2017 was -531,925 thousand [X0, X2].", snap
    ) == ("pass")
    assert status(
        "The net difference in sale of systems between 2017 and 2017 was -531,925 thousand [X0, X2].", snap
    ) == ("fail")
    assert (
        status("Sales of systems in 2019 were 10.9% lower than the prior year [X0, X1].", snap) == "pass"
    )  # one mention


def test_a_number_inside_a_named_line_item_is_part_of_the_name():
    snap = _facts(
        ("Combustion of fuel and operation of facilities (Scope 1) | FY19", 59495, "", "FY19"),
        ("Total gross emissions (Scope 1 and 2) | FY19", 87128, "", "FY19"),
    )
    assert status("The total gross emissions for FY19 were 87,128 [X1].", snap) == "pass"
    bad = "The Combustion of fuel and operation of facilities (Scope 1) for FY19 was 87,128 [X1]."
    g = check_answer(bad, snap)  # the "1" of "(Scope 1)" took the name before; 87,128 is now judged by it
    assert [v.kind for v in g.violations if v.quantity == "87,128"] == ["label_mismatch"]


def test_the_proportion_of_an_item_as_a_percentage_of_revenue_names_that_item():
    snap = _facts(
        ("Cost of revenue | 2017", 55, "%", "2017"),
        ("Research and development | 2017", 20, "%", "2017"),
        ("Revenue | 2017", 100, "USD millions", "2017"),
    )
    assert status("The proportion of cost of revenue as a percentage of revenue in 2017 was 55% [X0].", snap) == "pass"
    bad = "The proportion of Research and development as a percentage of revenue in 2017 was 55% [X0]."
    assert status(bad, snap) == "fail"
    share = _facts(("Gross profit | 2019", 40, "%", "2019"), ("Net sales | 2019", 900, "USD", "2019"))
    assert status("The percentage of sales represented by gross profit in 2019 was 40% [X0].", share) == "pass"


# --- gate-12: a difference of two periods is no level ------------------------------------------

_SALES = Snapshot(
    facts=[
        Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        Fact(id="F2", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
        Fact(id="F3", label="Cost of sales", value=214137, unit="USD millions", period="FY2023"),
    ]
)


@pytest.mark.parametrize(
    "answer",
    ["Total net sales were $11,043 million [F1, F2].", "Total net sales were $11.0 billion [F2, F1]."],
)
def test_a_difference_of_two_periods_stated_as_a_level_fails(answer):
    r = check_answer(answer, _SALES)
    assert r.status == "fail" and "change of 'total net sales'" in r.violations[0].reason


@pytest.mark.parametrize(
    "answer",
    [
        "Total net sales fell by $11,043 million [F1, F2].",
        "Total net sales were $11,043 million lower than in FY2022 [F1, F2].",
        "The difference in total net sales was $11,043 million [F1, F2].",
        "Gross margin was $169,148 million [F1, F3].",  # two line items of one period: a level
    ],
)
def test_a_stated_change_or_a_difference_of_two_items_still_passes(answer):
    assert check_answer(answer, _SALES).status == "pass"


def test_the_question_can_name_the_change():
    answer = "It was $11,043 million [F1, F2]."
    assert check_answer(answer, _SALES).status == "fail"
    assert check_answer(answer, _SALES, question="What was the change in total net sales?").status == "pass"


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1000, 900_000),
    st.integers(1000, 900_000),
    st.sampled_from(["Revenue", "Operating income", "Total assets"]),
    st.sampled_from(["was", "were", "stood at", "came to", "totaled"]),
)
def test_property_a_two_period_difference_backs_no_level(a, b, label, verb):
    if abs(a - b) < 100 or abs(a - b) in (a, b):
        return  # a difference equal to a level is that level
    snap = Snapshot(
        facts=[
            Fact(id="F1", label=label, value=a, unit="USD millions", period="FY2023"),
            Fact(id="F2", label=label, value=b, unit="USD millions", period="FY2022"),
        ]
    )
    d = f"${abs(a - b):,} million"
    assert check_answer(f"{label} {verb} {d} [F1, F2].", snap).status == "fail"
    way = "rose" if a > b else "fell"
    assert check_answer(f"{label} {way} by {d} [F1, F2].", snap).status == "pass"


# a new user's attempts on gate-12 (licence words as parts of other words, in another clause, in a
# question that asks no change; Korean stems inside other words), each beside a true change phrasing
_LEVELS = [
    "Total net sales from the company's products were $11,043 million [F1, F2].",
    "Moreover, total net sales were $11,043 million [F1, F2].",
    "Additionally, total net sales were $11,043 million [F1, F2].",
    "Total net sales upon completion were $11,043 million [F1, F2].",
    "Total net sales (turnover) were $11,043 million [F1, F2].",
    "Total net sales, with savings accounts excluded, were $11,043 million [F1, F2].",
    "Total net sales were $11,043 million [F1, F2]; services changed little.",
    "오늘 기준 총 순매출은 11,043백만 달러였다 [F1, F2].",
    "총 순매출은 보다 자세히 보면 11,043백만 달러였다 [F1, F2].",
]
_CHANGES = [
    "Total net sales posted a $11,043 million slump [F1, F2].",
    "The contraction in total net sales was $11,043 million [F1, F2].",
    "Total net sales eased by $11,043 million [F1, F2].",
    "Total net sales were $11,043 million short of FY2022 [F1, F2].",
    "총 순매출의 증감액은 11,043백만 달러였다 [F1, F2].",
    "Total net sales declined $11,043 million year over year [F1, F2].",
]


@pytest.mark.parametrize("answer", _LEVELS)
def test_a_licence_word_must_be_a_word_of_the_numbers_clause(answer):
    assert check_answer(answer, _SALES).status == "fail"


@pytest.mark.parametrize("answer", _CHANGES)
def test_true_change_phrasings_pass(answer):
    assert check_answer(answer, _SALES).status == "pass"


@pytest.mark.parametrize(
    ("question", "status"),
    [
        ("How much did the company earn from total net sales in FY2023?", "fail"),
        ("How did it compare to analyst consensus?", "fail"),
        ("What is the company's turnover?", "fail"),
        ("How much did total net sales shrink in FY2023?", "pass"),
        ("What was the change in total net sales from FY2022 to FY2023?", "pass"),
        ("How much less were total net sales in FY2023 than in FY2022?", "pass"),  # a TAT-QA gold question's form
    ],
)
def test_only_a_question_asking_a_change_licenses_a_difference(question, status):
    assert check_answer("Total net sales were $11,043 million [F1, F2].", _SALES, question=question).status == status


# Korean comparatives with 보다 ("than"): the base stands before 보다, the comparative after the number
@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ("2022 회계연도 총 순매출은 2023 회계연도보다 2.9% 많았다 [F1, F2].", "pass"),
        ("2022 회계연도 총 순매출은 2023 회계연도보다 2.9% 높았다 [F1, F2].", "pass"),
        ("2023 회계연도 총 순매출은 2022 회계연도보다 2.8% 적었다 [F1, F2].", "pass"),
        ("2023 회계연도 총 순매출은 2022 회계연도보다 2.8% 많았다 [F1, F2].", "fail"),  # the other way
        ("2023 회계연도 총 순매출은 2022 회계연도보다 2.9% 많았다 [F1, F2].", "fail"),  # subject and base swapped
        ("2022 회계연도 총 순매출은 2023 회계연도보다 2.9% 적었다 [F1, F2].", "fail"),
    ],
)
def test_a_korean_comparison_with_boda_is_a_change_against_its_base(answer, status):
    sales = Snapshot(
        facts=[
            Fact(id="F1", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
            Fact(id="F2", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        ]
    )
    assert check_answer(answer, sales).status == status
