"""Issue 15: a change stated against either base ("higher than", "lower than", "exceeded … by",
"negative growth of") matches (a−b)/b or (b−a)/a with the stated direction; marker order never
matters; the wrong direction, the wrong base or the periods the wrong way round fail."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.comparison import compared_periods

# Apple's total net sales (USD millions): FY2023 383,285 (F1), FY2022 394,328 (F2).
# (F2 − F1) / F1 = +2.88% (FY2022 against FY2023); (F1 − F2) / F2 = −2.80% (FY2023 against FY2022).
SNAP = Snapshot(
    facts=(
        Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        Fact(id="F2", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
    )
)


def status(answer: str, snap: Snapshot = SNAP) -> str:
    return check_answer(answer, snap).status


TRUE = [
    "FY2022 revenue was 2.9% higher than FY2023 revenue [{m}].",
    "FY2022 revenue exceeded FY2023 revenue by 2.9% [{m}].",
    "FY2022 revenue exceeded FY2023 revenue by $11.0 billion [{m}].",
    "FY2023 revenue was 2.8% lower than FY2022 revenue [{m}].",
    "FY2023 revenue trailed FY2022 revenue by 2.8% [{m}].",
    "Revenue posted negative growth of 2.8% [{m}].",
    "Revenue was 2.9% higher than the FY2023 level [{m}].",
    "Revenue fell 2.8% from fiscal 2022 [{m}].",
    "Revenue was 2.9% higher in FY2022 than in FY2023 [{m}].",  # the subject's period before "than"
    "Revenue was 2.8% lower in fiscal 2023 than in fiscal 2022 [{m}].",
]
FALSE = [
    "FY2022 revenue was 2.9% lower than FY2023 revenue [{m}].",  # wrong direction
    "FY2022 revenue was 2.8% higher than FY2023 revenue [{m}].",  # wrong base (2.8% is on FY2022)
    "FY2022 revenue was 2.8% lower than FY2023 revenue [{m}].",  # the periods the wrong way round
    "FY2023 revenue was 2.9% higher than FY2022 revenue [{m}].",  # the periods the wrong way round
    "FY2022 revenue trailed FY2023 revenue by 2.9% [{m}].",  # wrong direction
    "FY2023 revenue exceeded FY2022 revenue by 2.9% [{m}].",  # the periods the wrong way round
    "FY2022 revenue trailed FY2023 revenue by $11.0 billion [{m}].",  # the periods the wrong way round
    "Revenue posted positive growth of 2.8% [{m}].",  # wrong direction
    "Revenue posted negative growth of 2.9% [{m}].",  # wrong base
    "Revenue grew 2.9% [{m}].",  # a verb of change runs forward in time: FY2022 → FY2023 fell
    "Revenue rose 3% from fiscal 2022 [{m}].",  # the backward change (+2.88%) backs no verb of change
    "Revenue changed by 2.9% [{m}].",  # no direction: the backward change is never offered
    "Revenue was 2.9% higher in FY2023 than in FY2022 [{m}].",  # the periods the wrong way round
    "Revenue was 2.8% lower in FY2022 than in FY2023 [{m}].",  # the periods the wrong way round
    "Revenue was 2.8% higher in FY2022 than in FY2023 [{m}].",  # wrong base
]


@pytest.mark.parametrize("markers", ["F1, F2", "F2, F1"])
@pytest.mark.parametrize("template", TRUE)
def test_true_comparisons_pass_in_either_marker_order(template, markers):
    r = check_answer(template.format(m=markers), SNAP)
    assert r.status == "pass", r.violations


@pytest.mark.parametrize("markers", ["F1, F2", "F2, F1"])
@pytest.mark.parametrize("template", FALSE)
def test_false_counterparts_fail_in_either_marker_order(template, markers):
    assert status(template.format(m=markers)) == "fail"


def test_backward_change_is_reported_with_its_operands():
    r = check_answer("FY2022 revenue was 2.9% higher than FY2023 revenue [F1, F2].", SNAP)
    (c,) = r.checks
    assert (c.ref, c.op, c.derived_from) == ("(F2-F1)/F1", "(a-b)/b", ("F2", "F1"))


def test_periods_the_wrong_way_round_are_a_period_mismatch():
    (v,) = check_answer("FY2022 revenue was 2.8% lower than FY2023 revenue [F1, F2].", SNAP).violations
    assert v.kind == "period_mismatch"
    assert "compares FY2022 with FY2023" in v.reason


@pytest.mark.parametrize(
    ("sentence", "order"),
    [
        ("FY2022 revenue was 2.9% higher than FY2023 revenue", ("FY2022", "FY2023")),
        ("Fiscal 2023 revenue exceeded fiscal 2022 revenue by 2.9%", ("FY2023", "FY2022")),
        ("Revenue was 2.9% higher than the FY2023 level", None),  # one period: no order to check
        ("FY2021, FY2022 and FY2023 revenue rose", None),  # three: not a two-figure comparison
    ],
)
def test_compared_periods(sentence, order):
    assert compared_periods(sentence) == order


def test_unnamed_periods_leave_the_base_to_the_value():
    """Without period mentions nothing vetoes: either base, the direction fixing the sign."""
    assert status("Revenue was 2.9% higher than the other year [F1, F2].") == "pass"  # no side named
    assert status("Revenue was 2.8% lower than the year before [F1, F2].") == "pass"
    assert status("Revenue was 2.9% lower than the year before [F1, F2].") == "fail"


@pytest.mark.parametrize("markers", ["F1, F2", "F2, F1"])
@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # found by rtry: revenue fell, yet each "higher" sentence passed as FY2022 against FY2023
        ("Revenue was 2.9% higher than the year before [{m}].", "fail"),
        ("Revenue was 2.9% higher than the prior year [{m}].", "fail"),
        ("Revenue was 2.9% higher than in FY2022 [{m}].", "fail"),
        ("In fiscal 2023 revenue was 2.9% higher than a year earlier [{m}].", "fail"),
        ("Revenue was 2.8% lower than in FY2022 [{m}].", "pass"),
        ("In fiscal 2023 revenue was 2.8% lower than a year earlier [{m}].", "pass"),
        ("Revenue was $11.0 billion lower than the year before [{m}].", "pass"),
        ("Revenue was $11.0 billion higher than the year before [{m}].", "fail"),
    ],
)
def test_one_named_period_or_an_earlier_year_fixes_the_base(sentence, expected, markers):
    assert status(sentence.format(m=markers)) == expected


def test_uncited_mode_reads_the_comparison_too():
    for text in ("FY2022 revenue was 2.9% higher than FY2023 revenue.", "FY2023 revenue was 2.8% lower than FY2022."):
        assert check_answer(text, SNAP, mode="uncited").status == "pass"
    assert check_answer("FY2022 revenue was 2.9% lower than FY2023 revenue.", SNAP, mode="uncited").status == "fail"


# --- property: either base, either marker order, the direction fixes the sign ------------------------


@settings(max_examples=150, deadline=None)
@given(st.integers(1_000, 900_000), st.integers(1_000, 900_000), st.booleans())
@example(1993, 2000, False)  # the true change is -0.35%: "0.4% lower" rounds it half up (the other base's -0.351%)
def test_property_comparison_against_either_base(later, earlier, markers_reversed):
    """For any two years' figures: the true comparison (either subject, the right word) passes in
    either marker order; the opposite word fails; the change on the other base fails unless it
    is within half a displayed unit of the true change (which it then rounds)."""
    snap = Snapshot(
        facts=(
            Fact(id="F1", label="Total net sales", value=later, unit="USD millions", period="FY2023"),
            Fact(id="F2", label="Total net sales", value=earlier, unit="USD millions", period="FY2022"),
        )
    )
    markers = "F2, F1" if markers_reversed else "F1, F2"
    for subject, base, s, b in (("FY2022", "FY2023", earlier, later), ("FY2023", "FY2022", later, earlier)):
        change = round(100 * (s - b) / b, 1)
        other = round(100 * (s - b) / s, 1)
        if abs(change) < 0.1:
            continue  # "0.0% higher" states no direction worth testing
        word, wrong = ("higher", "lower") if change > 0 else ("lower", "higher")
        text = f"{subject} revenue was {abs(change):.1f}% {{}} than {base} revenue [{markers}]."
        assert status(text.format(word), snap) == "pass", text.format(word)
        assert status(text.format(wrong), snap) == "fail", text.format(wrong)
        if abs(abs(other) - abs(100 * (s - b) / b)) > 0.05 + 1e-9:  # (else it rounds the true change too)
            wrong_base = f"{subject} revenue was {abs(other):.1f}% {word} than {base} revenue [{markers}]."
            assert status(wrong_base, snap) == "fail", wrong_base


def test_two_line_items_compared_the_wrong_way_round_are_a_label_mismatch():
    """gate-16 (a helper's non-year hunt): "Net income exceeded operating income by $17.3 billion"
    passed on operating income − net income; the item before the comparison word is the subject."""
    from apple import apple

    snap = apple("F5", "F7")  # operating income 114,301, net income 96,995 (FY2023)
    for false, true in [
        (
            "Net income exceeded operating income by $17.3 billion [F5, F7].",
            "Operating income exceeded net income by $17.3 billion [F5, F7].",
        ),
        (
            "Net income was $17.3 billion higher than operating income [F5, F7].",
            "Net income was $17.3 billion lower than operating income [F5, F7].",
        ),
        (
            "Operating income was $17.3 billion below net income [F5, F7].",
            "Operating income was $17.3 billion above net income [F5, F7].",
        ),
    ]:
        r = check_answer(false, snap)
        assert r.status == "fail" and r.violations[0].kind == "label_mismatch", false
        assert check_answer(true, snap).status == "pass", true
