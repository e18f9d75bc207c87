"""A currency's hundredth after the number (gate-17; a new user's false reject: "EPS was 613 cents [F3]"
failed against a $6.13 EPS, read as a bare 613): "613 cents", "94¢", "12 pence" are 6.13, 0.94 and 0.12
of a currency — "cents" of any dollar or euro (no currency), "pence" of sterling — at their displayed
precision (613 cents is 6.13 ± 0.005), per share when "per share" follows. Words that only start like
them ("centimeters", "per cent", "percent") are not hundredths."""

from __future__ import annotations

import pytest

from assay.claims import extract_quantities
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("613 cents", 613.0, None),
        ("1 cent", 1.0, None),
        ("3.45 cents", 3.45, None),
        ("94¢", 94.0, None),
        ("12 pence", 12.0, "GBP"),
        ("613 cents per share", 613.0, "USD/share"),
        ("18¢ a share", 18.0, "USD/share"),
    ],
)
def test_a_hundredth_is_read_at_scale_one_hundredth(text, value, unit):
    (q,) = extract_quantities(f"It was {text}.")
    assert (q.text, q.value, q.scale, q.unit) == (text, value, 0.01, unit)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("3 centimeters", ("3", 1.0, None)),
        ("5 per cent", ("5 per cent", 1.0, "%")),
        ("7 percent", ("7 percent", 1.0, "%")),
    ],
)
def test_words_that_only_start_like_a_hundredth_are_not_one(text, read):
    (q,) = extract_quantities(text)
    assert (q.text, q.scale, q.unit) == read


SNAP = Snapshot(
    facts=[
        Fact(id="F3", label="Diluted earnings per share", value=6.13, unit="USD/share", period="FY2023"),
        Fact(id="F4", label="Dividend per share", value=0.94, unit="USD/share", period="FY2023"),
        Fact(id="F5", label="Dividends paid", value=0.94, unit="USD", period="FY2023"),
    ]
)


@pytest.mark.parametrize(
    "answer",
    [
        "Diluted earnings per share were 613 cents [F3].",
        "Diluted earnings per share were 613 cents per share [F3].",
        "The dividend per share was 94 cents a share [F4].",
        "The dividend per share was 94¢ [F4].",
        "Dividends paid were 94 cents [F5].",
    ],
)
def test_regression_a_figure_in_cents_backs_its_fact(answer):
    assert check_answer(answer, SNAP).status == "pass", answer


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("Diluted earnings per share were 612 cents [F3].", "value_mismatch"),  # 6.12 ≠ 6.13
        ("Diluted earnings per share were 61 cents [F3].", "value_mismatch"),  # a tenth of it
        ("Dividends paid were 95 cents [F5].", "value_mismatch"),  # not "the value matches" 0.94: 0.95 ≠ 0.94
        ("Dividends paid were 94 pence [F5].", "unit_mismatch"),  # sterling, not dollars
        ("Dividends paid were 94 dollars [F5].", "value_mismatch"),
    ],
)
def test_a_wrong_figure_in_cents_fails(answer, kind):
    r = check_answer(answer, SNAP)
    assert r.status == "fail" and [v.kind for v in r.violations] == [kind], (answer, r.violations)


PAGE = Snapshot(sources=("The directors declared a final dividend of 18 cents per share, up from 16 cents.",))


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ("The final dividend was 18 cents per share.", "pass"),
        ("The final dividend was $0.18 per share.", "pass"),
        ("The final dividend was 18 cents.", "pass"),
        ("The final dividend was 18.", "pass"),  # the page's digits, copied
        ("The final dividend was 19 cents per share.", "fail"),
        ("The final dividend was 18 per share.", "fail"),  # $18 a share is not 18 cents a share
    ],
)
def test_regression_a_passage_figure_in_cents_per_share_is_its_amount(answer, status):
    """A passage's "18 cents per share" was the per-share figure 18 (its scale dropped), so "$0.18 per
    share" and "18 cents per share" failed and "18 per share" passed."""
    assert check_answer(answer, PAGE, mode="uncited").status == status, answer


@pytest.mark.parametrize("label", ["Dividend per share (cents)", "Dividend (cents)"])
def test_regression_a_fact_labelled_in_cents_is_no_dollars(label):
    """A unitless fact of 24 labelled "(cents)" backed "$24 per share" (its digits read as dollars) and
    failed "24 cents per share" and "$0.24 per share" (a second hunt on gate-17)."""
    snap = Snapshot(facts=[Fact(id="F1", label=label, value=24, unit="")])
    for answer in ("24 cents per share", "$0.24 per share", "$0.24", "24 cents", "24"):
        assert check_answer(f"The dividend was {answer} [F1].", snap).status == "pass", answer
    for answer in ("$24 per share", "$24", "25 cents"):
        assert check_answer(f"The dividend was {answer} [F1].", snap).status == "fail", answer
