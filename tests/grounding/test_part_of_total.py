"""An item named after "percentage of" is the part when "out of / in the total" follows (issue 15, f15).

Failing input (TAT-QA templated sentences, ``label_swap``): "The percentage of Bell Wireline out
of the Total BCE operating revenues in Q4 2019 was 39.47% [T1C1, T5C1]" passed on Bell Wireless
÷ Total: every item after "percentage of" was taken for the ratio's base, never checked.
"""

from __future__ import annotations

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer

SNAP = Snapshot(
    facts=(
        Fact(id="T1C1", label="Bell Wireless | Q4 2019", value=2493, period="Q4 2019"),
        Fact(id="T2C1", label="Bell Wireline | Q4 2019", value=3200, period="Q4 2019"),
        Fact(id="T5C1", label="Total BCE operating revenues | Q4 2019", value=6316, period="Q4 2019"),
    )
)


def test_the_part_named_before_out_of_the_total_is_checked() -> None:
    tail = " out of the Total BCE operating revenues in Q4 2019 was 39.47% [T1C1, T5C1]."
    assert check_answer("The percentage of Bell Wireless" + tail, SNAP).status == "pass"
    assert check_answer("The percentage of Bell Wireline" + tail, SNAP).status == "fail"


def test_a_base_after_percentage_of_is_still_a_base() -> None:
    # "as a percentage of" names the base: the number is Bell Wireless's share, its item named first
    ok = "Bell Wireless as a percentage of Total BCE operating revenues in Q4 2019 was 39.47% [T1C1, T5C1]."
    assert check_answer(ok, SNAP).status == "pass"
