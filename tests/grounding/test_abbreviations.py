"""An abbreviation's or an initial's period ends no sentence and no clause (issue 15, f15).

Failing inputs (TAT-QA templated sentences, perturbation suite): the clause rules cut at
``[.;!?]`` + space, so in "The net loss attributable to VMware, Inc. in Q3 2020 was 407 million
[T2C3]" the loss word sat in another clause than the number and a positive fact passed; in
"The total compensations for Darcy Antonellis and Christopher A. Seams, respectively was 255,987
[T1C4] …" the named line item was cut off at "A." and a swapped name passed.
"""

from __future__ import annotations

import pytest

from assay.claims import extract_claims, split_sentences
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

VMW = Snapshot(
    facts=(
        Fact(
            id="T2C3",
            label="Net income attributable to VMware, Inc. | Q3 2020",
            value=407,
            unit="millions",
            period="Q3 2020",
        ),
    )
)
PAY = Snapshot(
    facts=(
        Fact(id="T1C4", label="Richard S. Hill | Total($)", value=255987, unit="USD", displayed_value="$255,987"),
        Fact(id="T3C4", label="Darcy Antonellis | Total($)", value=205320, unit="USD", displayed_value="$205,320"),
        Fact(id="T6C4", label="Christopher A. Seams | Total($)", value=231987, unit="USD", displayed_value="$231,987"),
    )
)


@pytest.mark.parametrize(
    "text, n",
    [
        ("The net income attributable to VMware, Inc. in Q3 2020 was 407 million [T2C3].", 1),
        ("Sales outside the U.S. were $5 million [F1]. Sales in the U.S. were $6 million [F2].", 2),
        ("Pay for Richard S. Hill was $255,987 [T1C4]. It rose.", 2),
        ("Shares outstanding incl. dilutive effect rose approx. 5% [F1]. Then 6% [F2].", 2),
        ("Revenue in segment b. was 5 [F1]. Costs were 4 [F2].", 3),  # a lower-case letter is no initial
    ],
)
def test_sentences_are_not_cut_at_abbreviations(text: str, n: int) -> None:
    assert len(split_sentences(text)) == n


def test_a_loss_word_before_inc_is_in_the_numbers_clause() -> None:
    false = "The net loss attributable to VMware, Inc. in Q3 2020 was 407 million [T2C3]."
    true = "The net income attributable to VMware, Inc. in Q3 2020 was 407 million [T2C3]."
    r = check_answer(false, VMW)
    assert r.status == "fail" and "loss" in r.violations[0].reason
    assert check_answer(true, VMW).status == "pass"


def test_a_line_item_with_an_initial_is_named_whole() -> None:
    tail = " and Christopher A. Seams, respectively was 255,987 [T1C4] and 231,987 [T6C4]."
    false = "The total compensations for Darcy Antonellis" + tail
    true = "The total compensations for Richard S. Hill" + tail
    assert check_answer(false, PAY).status == "fail"
    assert check_answer(true, PAY).status == "pass"
    assert len(extract_claims(true)) == 1
