"""A table's leader dot ends no line item: "Applications . | July 28, 2018" is "applications"
(issue 15, f15: ``label_swap``).

Failing input (TAT-QA templated sentences, cited): "The revenue from Applications in 2018 was
2,352 million [T4C2]" passed on Security = 2,352: the row "Applications ." was no exact line
item, so naming it fired nothing (three such cases in the suite).
"""

from __future__ import annotations

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.labels import line_item

SNAP = Snapshot(
    facts=(
        Fact(id="T3C2", label="Applications . | July 28, 2018", value=5036, unit="millions", period="July 28, 2018"),
        Fact(id="T4C2", label="Security | July 28, 2018", value=2352, unit="millions", period="July 28, 2018"),
    )
)


def test_a_leader_dot_is_cut() -> None:
    assert line_item("Applications . | July 28, 2018") == "applications"
    assert line_item("U.S. | 2019") == "u.s."  # a dot that ends a word stays


def test_the_other_rows_name_fails_and_its_own_passes() -> None:
    assert check_answer("The revenue from Applications in 2018 was 2,352 million [T4C2].", SNAP).status == "fail"
    assert check_answer("The revenue from Security in 2018 was 2,352 million [T4C2].", SNAP).status == "pass"
    assert check_answer("The revenue from Applications in 2018 was 5,036 million [T3C2].", SNAP).status == "pass"
