"""A figure stated as a rate is backed by a rate, not a total (gate-17, ``assay.grounding.rates``; group C
of a helper's hunt for non-year false accepts): "Net income was $97.0 billion per month [F7]" and "Total
net sales were $383.3 billion per store [F1]" passed on the year's totals, and "Net income was $97.0
billion per share [F7]" on net income (a per-share figure with a scale backed by a total). Each false
sentence beside its true one; a ratio of two figures and a fact labelled as a rate back a rate."""

from __future__ import annotations

import pytest

from apple import apple
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

_APPLE = apple()


@pytest.mark.parametrize(
    ("false", "true"),
    [
        ("Net income was $97.0 billion per month [F7].", "Net income was $97.0 billion for the year [F7]."),
        ("Total net sales were $383.3 billion per store [F1].", "Total net sales were $383.3 billion [F1]."),
        ("Net income was $97.0 billion a month [F7].", "Net income was $97.0 billion a year [F7]."),
        ("R&D was $29.9 billion for each segment [F11].", "R&D was $29.9 billion in fiscal 2023 [F11]."),
        ("Net income was $97.0 billion per share [F7].", "Net income was $97.0 billion [F7]."),
    ],
)
def test_a_rate_is_not_backed_by_a_total(false, true):
    got = check_answer(false, _APPLE)
    assert got.status == "fail", (false, got.violations)
    assert check_answer(true, _APPLE).status == "pass", true


@pytest.mark.parametrize(
    "answer",
    [
        "Diluted earnings per share were $6.13 per share [F9].",
        "Revenue per employee was $2.4 million per employee [R].",  # a fact labelled as a rate
        "Net income was $97.0 billion per annum [F7].",
        "Gross margin was 44.1 per cent of total net sales [F1, F3].",
    ],
)
def test_a_rate_backed_by_a_ratio_or_a_rate_passes(answer):
    snap = Snapshot(facts=[*_APPLE.facts, Fact(id="R", label="Revenue per employee", value=2.4, unit="USD millions")])
    got = check_answer(answer, snap)
    assert got.status == "pass", (answer, got.violations)


def test_an_eps_cell_read_as_dollars_still_backs_a_per_share_figure():
    """A per-share figure with no scale (or in cents) is still backed by an EPS stored as plain dollars."""
    snap = Snapshot(facts=[Fact(id="E", label="Diluted EPS", value=6.13, unit="USD", period="FY2023")])
    assert check_answer("Diluted EPS was $6.13 per share [E].", snap).status == "pass"
    assert check_answer("Diluted EPS was 613 cents per share [E].", snap).status == "pass"


def test_regression_per_a_source_is_no_rate():
    """ "per Apple's 10-K" (according to it) was read as a rate (a second hunt on gate-17)."""
    assert check_answer("Net income was $97.0 billion per Apple's 10-K [F7].", _APPLE).status == "pass"


@pytest.mark.parametrize(
    ("false", "true"),
    [
        ("Revenue per employee was $383.3 billion [F1].", "Revenue was $383.3 billion [F1]."),
        ("Net income per share was $97.0 billion [F7].", "Diluted earnings per share were $6.13 [F9]."),
        ("Revenue for each store was $383.3 billion [F1].", "Sales per the 10-K were $383.3 billion [F1]."),
    ],
)
def test_regression_a_rate_named_before_its_figure_is_not_backed_by_a_total(false, true):
    """A rate named as the figure's subject ("Revenue per employee was $383.3 billion [F1]") passed on the
    total (a second hunt on gate-17): the rule read only what follows the number."""
    got = check_answer(false, _APPLE)
    assert got.status == "fail" and [v.kind for v in got.violations] == ["label_mismatch"], (false, got.violations)
    assert check_answer(true, _APPLE).status == "pass", true


def test_regression_earnings_per_share_of_a_figure_is_backed_by_its_cell():
    """A TAT-QA gold answer the rate-before rule failed: "… represented diluted earnings per share of $0.43"
    is a per-share figure, which the page's EPS cell backs; only a per-share figure with a scale ("Net income
    per share was $97.0 billion") is not backed by a total."""
    page = Snapshot(sources=("Diluted EPS | $0.43 | $0.34 | $0.46",))  # a label that names no rate
    answer = "The fourth quarter 2019 net income represented diluted earnings per share of $0.43."
    assert check_answer(answer, page, mode="uncited").status == "pass"
    assert check_answer("Net income per share was $97.0 billion [F7].", _APPLE).status == "fail"
