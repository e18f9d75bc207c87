"""A multiple's subject and base (gate-17, ``assay.grounding.comparison.multiple_veto``; group D of a
helper's hunt for non-year false accepts): "Net income was 1.18 times operating income [F5, F7]" passed
on operating income / net income = 1.18. The item named before the multiple is the ratio's numerator,
the one after it its denominator. Each false sentence beside its true one."""

from __future__ import annotations

import pytest

from apple import apple
from assay.grounding import check_answer

_APPLE = apple()


@pytest.mark.parametrize(
    ("false", "true"),
    [
        (
            "Net income was 1.18 times operating income [F5, F7].",
            "Operating income was 1.18 times net income [F5, F7].",
        ),
        ("R&D was roughly three times net income [F7, F11].", "Net income was roughly three times R&D [F7, F11]."),
        ("Net income was four times revenue [F1, F7].", "Revenue was four times net income [F1, F7]."),
        ("Net income was 4.0x total net sales [F1, F7].", "Total net sales were 4.0x net income [F1, F7]."),
    ],
)
def test_a_multiple_states_its_numerator_first(false, true):
    got = check_answer(false, _APPLE)
    assert got.status == "fail" and [v.kind for v in got.violations] == ["label_mismatch"], (false, got.violations)
    assert check_answer(true, _APPLE).status == "pass", true


@pytest.mark.parametrize(
    "answer",
    [
        "Total net sales were 3.95 times net income [F7, F1].",  # marker order never matters
        "Total net sales in fiscal 2022 were 1.03 times those of fiscal 2023 [F1, F2].",  # one line item: not this rule
        "The ratio was 3.95x [F1, F7].",  # no items named: not judged
    ],
)
def test_a_multiple_the_rule_does_not_judge_passes(answer):
    got = check_answer(answer, _APPLE)
    assert got.status == "pass", (answer, got.violations)


def test_a_multiple_of_one_item_has_the_period_named_first_as_numerator():
    """ "FY2023 revenue was 1.03 times FY2022 revenue" passed on FY2022 / FY2023 (a second hunt on gate-17)."""
    got = check_answer("FY2023 revenue was 1.03 times FY2022 revenue [F1, F2].", _APPLE)
    assert got.status == "fail" and [v.kind for v in got.violations] == ["period_mismatch"], got.violations
    assert check_answer("FY2022 revenue was 1.03 times FY2023 revenue [F1, F2].", _APPLE).status == "pass"
