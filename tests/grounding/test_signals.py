"""Signals next to the gate: completeness, the impersonal check and the rubric composite."""

from __future__ import annotations

import pytest

from assay.facts import Fact, Snapshot
from assay.grounding.completeness import DEFAULT_MATERIAL_LABELS, completeness, is_material
from assay.grounding.gate import check_answer
from assay.grounding.impersonal import check_impersonal
from assay.grounding.rubric import DEFAULT_WEIGHTS, DIMENSIONS, compose

FACTS = (
    Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
    Fact(id="F2", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
    Fact(id="F3", label="Research and development", value=29915, unit="USD millions"),
    Fact(id="F4", label="Net income", value=96995, unit="USD millions"),
    Fact(id="F5", label="Employees", value=161000, unit="count"),
)
SNAP = Snapshot(facts=FACTS)

# --- completeness ------------------------------------------------------------------------------


def test_cited_omitted_material_and_score():
    answer = "Revenue fell 2.8% [F1, F2]. R&D was $29.9 billion [F3]."
    r = completeness(answer, SNAP, check_answer(answer, SNAP))
    assert r.cited == ("F1", "F2", "F3") and r.omitted == ("F4", "F5")
    assert r.material_omitted == ("F4",) and r.n_material == 3
    assert r.basis == "material" and r.score == pytest.approx(2 / 3, abs=1e-4)
    assert r.reference_recall is None and r.n_reference == 0


def test_facts_used_by_the_gate_count_as_cited_in_uncited_mode():
    answer = "Net income was $97.0 billion and sales fell 2.8%."
    g = check_answer(answer, SNAP)
    assert g.mode == "uncited" and g.status == "pass"
    r = completeness(answer, SNAP, g)
    assert set(r.cited) == {"F1", "F2", "F4"}
    assert completeness(answer, SNAP).cited == ()  # without the gate only markers count


def test_reference_recall():
    answer = "Revenue fell 2.8% [F1, F2]."
    r = completeness(answer, SNAP, reference="Revenue fell 2.8% and net income was $97.0 billion")
    assert (r.reference_recall, r.n_reference, r.basis, r.score) == (0.5, 2, "reference", 0.5)


@pytest.mark.parametrize(
    ("answer", "reference"),
    [
        ("Revenue was $383.3 billion.", "$383,285 million"),
        ("Revenue was $383,285 million.", 383285.0),
        ("Margin was 25.3%.", 0.253),
        ("Capex was $1,577 million.", "(1,577)"),
        ("Revenue was 1,950.", 1950),
        ("Revenue was 1,950.", [1950.0]),
    ],
)
def test_reference_recall_is_lenient_on_form(answer, reference):
    assert completeness(answer, SNAP, reference=reference).reference_recall == 1.0


def test_regression_numeric_reference_in_year_range_is_a_number():
    """Bug fixed: a numeric reference such as 1950 (or 1e-05) was parsed from text and dropped as a year."""
    r = completeness("Revenue was 1,950 and the rate 0.00001.", SNAP, reference=[1950, 1e-05])
    assert (r.n_reference, r.reference_recall) == (2, 1.0)


def test_reference_without_numbers_falls_back_to_material():
    r = completeness("Yes [F1].", SNAP, reference="Yes, it did.")
    assert r.n_reference == 0 and r.reference_recall is None and r.basis == "material"


def test_not_measurable_without_material_facts_or_reference():
    snap = Snapshot(facts=(Fact(id="A", label="Employees", value=3),))
    r = completeness("There were 3 [A].", snap)
    assert (r.score, r.basis, r.cited) == (None, None, ("A",))


@pytest.mark.parametrize(
    ("label", "material"),
    [
        ("Revenue", True),
        ("Total revenues", True),
        ("EBITDA margin", True),
        ("Diluted EPS", True),
        ("매출액", True),
        ("NET INCOME attributable", True),
        ("Proceeds from sale of equipment", False),
        ("Employees", False),
        ("Prepaid expenses", False),
        ("Cashmere inventory", False),
        # regressions: a bare "cash" matched hedges; "sales"/"revenue" matched costs and deferrals
        ("Cash and cash equivalents", True),
        ("Cash flow hedges", False),
        ("Cost of sales", False),
        ("Cost of revenue | 2019", False),
        ("Deferred revenue", False),
        ("Unearned revenue", False),
        ("Sales and marketing", False),
        ("Net sales", True),
    ],
)
def test_default_material_labels(label, material):
    assert is_material(label) is material


def test_custom_material_labels():
    assert is_material("Churn rate", [("churn",)])
    assert not is_material("Revenue", [("churn",)])
    snap = Snapshot(
        facts=(Fact(id="A", label="Churn rate | 2023", value=3, unit="%"), Fact(id="B", label="Revenue", value=1))
    )
    r = completeness("x", snap, material=[("churn",)])
    assert r.material_omitted == ("A",) and r.n_material == 1


def test_regression_empty_material_set_marks_nothing():
    """Bug fixed: an empty material set compiled to an empty alternation that matched labels like "Revenue | 2019"."""
    snap = Snapshot(facts=(Fact(id="A", label="Revenue | 2019", value=1),))
    r = completeness("x", snap, material=())
    assert r.n_material == 0 and r.material_omitted == () and r.score is None
    assert not is_material("Revenue | 2019", ()) and not is_material("Revenue | 2019", [("",)])


def test_default_material_set_is_nonempty_concepts():
    assert all(concept and all(s.strip() for s in concept) for concept in DEFAULT_MATERIAL_LABELS)


# --- impersonal --------------------------------------------------------------------------------


def _consistent(text: str, r) -> None:
    for f in r.flags:
        assert text[f.span[0] : f.span[1]] == f.text and f.text[:1].isalnum()
    assert [f.span for f in r.flags] == sorted(f.span for f in r.flags)
    assert r.score == pytest.approx(max(0.0, 1 - sum(f.severity for f in r.flags)), abs=1e-4)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("You should buy AAPL now.", "You should"),
        ("Given the margin, you must sell the shares.", "you must"),
        ("I recommend you hold the stock.", "I recommend you"),
        ("We strongly suggest buying the shares.", "We strongly suggest buying"),
        ("Margins are high. Buy the shares now!", "Buy"),
        ("Consider buying before earnings.", "Consider buying"),
        ("지금 매수하세요.", "매수하세요"),
    ],
)
def test_personal_investment_advice_costs_the_whole_score(text, phrase):
    r = check_impersonal(text)
    assert r.flags and any(phrase in f.text for f in r.flags), r.flags
    assert r.score == 0.0
    _consistent(text, r)


def test_reader_holdings_cost_half():
    r = check_impersonal("This fits your portfolio.")
    assert [(f.rule, f.text) for f in r.flags] == [("reader_holdings", "your portfolio")] and r.score == 0.5
    _consistent("This fits your portfolio.", r)


def test_non_investment_second_person_directive_costs_less():
    text = "For details you should refer to the 10-K."
    r = check_impersonal(text)
    assert r.flags and 0.0 < r.score < 1.0
    _consistent(text, r)


@pytest.mark.parametrize(
    "text",
    [
        "Apple's revenue fell 2.8% to $383.3 billion [F1].",
        "The company should buy back shares.",
        "Analysts recommend buying.",
        "Management expects margins to hold.",
        "매출은 1,234억 원이다.",
    ],
)
def test_impersonal_clean_text(text):
    r = check_impersonal(text)
    assert r.score == 1.0 and r.flags == ()


def test_impersonal_score_floors_at_zero_and_spans_are_code_points():
    text = "😀 You must sell the stock. Your money too. You should buy more."
    r = check_impersonal(text)
    assert r.score == 0.0 and len(r.flags) == 3
    assert r.flags[0].span[0] == 2 and r.flags[0].text.startswith("You must")
    _consistent(text, r)


# --- rubric ------------------------------------------------------------------------------------


def test_default_weights_cover_the_dimensions_and_sum_to_one():
    assert set(DEFAULT_WEIGHTS) == set(DIMENSIONS) and sum(DEFAULT_WEIGHTS.values()) == pytest.approx(1.0)


def test_composite_with_all_dimensions():
    scores = {"sourcing": 1.0, "faithfulness": 0.5, "completeness": 0.0, "impersonal": 1.0}
    r = compose(scores)
    expected = sum(DEFAULT_WEIGHTS[d] * s for d, s in scores.items())
    assert r.composite == pytest.approx(expected, abs=1e-4) and r.dropped == {}


def test_missing_dimension_is_dropped_and_weights_renormalised():
    r = compose({"sourcing": 1.0, "completeness": None, "impersonal": 0.0, "faithfulness": 0.5})
    assert r.dropped == {"completeness": "not measured"}
    assert sum(r.weights_used.values()) == pytest.approx(1.0, abs=1e-3)
    total = DEFAULT_WEIGHTS["sourcing"] + DEFAULT_WEIGHTS["impersonal"] + DEFAULT_WEIGHTS["faithfulness"]
    assert r.composite == pytest.approx(
        (DEFAULT_WEIGHTS["sourcing"] + 0.5 * DEFAULT_WEIGHTS["faithfulness"]) / total, abs=1e-4
    )


def test_stub_faithfulness_is_shown_not_scored():
    r = compose(
        {"sourcing": 1.0, "completeness": 1.0, "impersonal": 1.0, "faithfulness": 0.0}, faithfulness_backend="stub"
    )
    assert r.composite == 1.0 and "faithfulness" in r.dropped and "faithfulness" not in r.weights_used


def test_no_claims_gives_no_composite():
    r = compose({"sourcing": None, "completeness": 1.0, "impersonal": 1.0})
    assert r.composite is None and "composite" in r.dropped


def test_rubric_rejects_bad_scores_and_weights():
    with pytest.raises(ValueError, match="outside"):
        compose({"sourcing": 1.2})
    with pytest.raises(ValueError, match="non-negative"):
        compose({"sourcing": 1.0}, weights={"sourcing": -1.0})


def test_custom_weights():
    r = compose({"sourcing": 0.5, "impersonal": 1.0}, weights={"sourcing": 1.0, "impersonal": 1.0})
    assert r.composite == 0.75 and r.weights_used == {"sourcing": 0.5, "impersonal": 0.5}
