"""A profit or loss word on a change of figures of both signs names the later figure (issue 15, f15).

Failing inputs (TAT-QA templated sentences, perturbation ``sign_word``): on Net income (loss) of
−762.3 (2018) and +542.0 (2019), "The Net loss decreased by 171.1% [T3C1, T3C2] between 2018 and
2019" passed, and on Basic net income (loss) per share of −3.27 (2018) and +2.29 (2019), "The
change in the Basic net loss per common share between 2018 and 2019 was 5.56": the sign rule on
derivations fired only when EVERY operand had the other sign. A paired item written
"(Loss)/profit" states no sign (its ")/" gap was not read as a pair).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

NI = Snapshot(
    facts=(
        Fact(id="T3C1", label="Net income (loss) | 2019", value=542.0, unit="USD millions", period="2019"),
        Fact(id="T3C2", label="Net income (loss) | 2018", value=-762.3, unit="USD millions", period="2018"),
    )
)
EPS = Snapshot(
    facts=(
        Fact(id="T4C1", label="Basic net income (loss) per common share | 2019", value=2.29, unit="USD", period="2019"),
        Fact(
            id="T4C2", label="Basic net income (loss) per common share | 2018", value=-3.27, unit="USD", period="2018"
        ),
    )
)
PBT = Snapshot(
    facts=(
        Fact(id="T1C1", label="(Loss)/profit before taxation | 2019", value=-42.7, unit="GBP millions", period="2019"),
        Fact(id="T1C2", label="(Loss)/profit before taxation | 2018", value=20.9, unit="GBP millions", period="2018"),
    )
)


@pytest.mark.parametrize(
    "false, snap",
    [
        ("The change in net loss between 2018 and 2019 was $1,304.3 million [T3C1, T3C2].", NI),
        ("The change in the Basic net loss per common share between 2018 and 2019 was $5.56 [T4C1, T4C2].", EPS),
    ],
)
def test_a_loss_word_on_a_change_to_a_profit_fails(false: str, snap: Snapshot) -> None:
    r = check_answer(false, snap)
    assert r.status == "fail" and "later figure" in r.violations[0].reason


@pytest.mark.parametrize(
    "true, snap",
    [
        ("The Net income increased by $1,304.3 million [T3C1, T3C2] between 2018 and 2019.", NI),
        ("The change in the Basic net income per common share between 2018 and 2019 was $5.56 [T4C1, T4C2].", EPS),
        ("The (Loss)/profit before taxation decreased by £63.6 million [T1C1, T1C2] from 2018 to 2019.", PBT),
    ],
)
def test_true_counterparts_pass(true: str, snap: Snapshot) -> None:
    assert check_answer(true, snap).status == "pass"


def test_a_question_naming_the_loss_licenses_the_loss_word() -> None:
    answer = "The change in the Basic net loss per common share between 2018 and 2019 was $5.56 [T4C1, T4C2]."
    assert check_answer(answer, EPS, question="What was the change in the basic net loss per share?").status == "pass"


@settings(max_examples=50, deadline=None)
@given(before=st.integers(-900, -10), after=st.integers(10, 900))
def test_property_sign_word_on_a_loss_turned_profit(before: int, after: int) -> None:
    """Perturbation class ``sign_word`` on a change from a loss to a profit: 'net income' passes,
    'net loss' fails."""
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Net income (loss) | 2019", value=after, unit="USD millions", period="2019"),
            Fact(id="B", label="Net income (loss) | 2018", value=before, unit="USD millions", period="2018"),
        )
    )
    true = f"Net income increased by ${after - before} million [A, B] from 2018 to 2019."
    assert check_answer(true, snap).status == "pass"
    assert check_answer(true.replace("Net income", "Net loss"), snap).status == "fail"
