""" "negative" beside a profit item states a negative figure (issue 15: loss words in both directions).

Failing inputs before the fix (found by a new-user pass this round): on F7 = net income +96,995,
"Net income was negative $97.0 billion [F7]" and "Apple reported negative net income of $97.0
billion [F7]" passed — a loss and a profit word within 16 characters were taken for a paired
line item ("income (loss)") that states no sign.
"""

from __future__ import annotations

import pytest

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

SNAP = Snapshot(
    facts=(
        Fact(id="F7", label="Net income", value=96995, unit="USD millions", period="FY2023"),
        Fact(id="F8", label="Net income (loss)", value=-5200, unit="USD millions", period="FY2023"),
    )
)


@pytest.mark.parametrize(
    "answer",
    [
        "Net income was negative $97.0 billion [F7].",
        "Apple reported negative net income of $97.0 billion [F7].",
        "Net income turned negative at $97.0 billion [F7].",
    ],
)
def test_negative_on_a_positive_profit_fails(answer: str) -> None:
    r = check_answer(answer, SNAP)
    assert r.status == "fail" and "loss" in r.violations[0].reason


@pytest.mark.parametrize(
    "answer",
    [
        "Net income was $97.0 billion [F7].",
        "Net income or loss for the year was $97.0 billion [F7].",  # a paired item states no sign
        "Apple reported negative net income of $5.2 billion [F8].",  # true: the figure is negative
        "Net income was negative $5.2 billion [F8].",
    ],
)
def test_true_counterparts_pass(answer: str) -> None:
    assert check_answer(answer, SNAP).status == "pass"


def test_a_paired_line_item_states_no_sign() -> None:
    only_f7 = Snapshot(facts=SNAP.facts[:1])
    assert check_answer("Net income (loss) was $97.0 billion [F7].", only_f7).status == "pass"
    assert check_answer("Net income/(loss) was $97.0 billion [F7].", only_f7).status == "pass"


KRW_PROFIT = Snapshot(facts=(Fact(id="F1", label="영업이익", value=1.2e12, unit="KRW", period="2023"),))
KRW_LOSS = Snapshot(facts=(Fact(id="F1", label="영업손익", value=-1.2e12, unit="KRW", period="2023"),))


@pytest.mark.parametrize(
    "answer",
    [
        "영업손실은 1조 2,000억원이었다 [F1].",  # failing input: 손실 inside the compound 영업손실 was not read
        "1조 2,000억원의 영업손실을 기록했다 [F1].",  # the word after the figure and 의
        "손실은 1조 2,000억원이었다 [F1].",
    ],
)
def test_a_korean_compound_loss_word_fails_on_a_profit_and_passes_on_a_loss(answer: str) -> None:
    assert check_answer(answer, KRW_PROFIT).status == "fail"
    assert check_answer(answer, KRW_LOSS).status == "pass"


def test_a_korean_profit_word_on_a_loss_fails() -> None:
    assert check_answer("영업이익은 1조 2,000억원이었다 [F1].", KRW_PROFIT).status == "pass"
    assert check_answer("영업이익은 1조 2,000억원이었다 [F1].", KRW_LOSS).status == "fail"
