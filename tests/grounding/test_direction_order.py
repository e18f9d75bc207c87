"""A stated direction on a change of two figures needs their order in time (issue 15, f15).

Failing inputs (TAT-QA templated sentences, perturbation ``direction_word``): with no period on
the cited facts the gate accepted either direction — "The net sales increased by 611 thousand
[T2C4, T2C3] between the third and fourth quarter" (Third 115,651, Fourth 115,040: a decrease),
"The balance of minimum pension liability increased by 4.8 [T5C2, T1C2] between 2017 and 2018"
(the years in the row labels), "The leasehold external valuation % increased by 37% [T2C1,
T5C1]" (two cells of one label, nothing orders them). An ordinal column ("Third", "Fourth") or a
date in the label now orders the figures; when nothing does, a stated direction is rejected
(it cannot be checked), while the same change stated without a direction still passes.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.candidates import fact_candidate, time_rank

QUARTERS = Snapshot(
    facts=(
        Fact(id="T2C3", label="Net sales | Third", value=115651, unit="USD thousands"),
        Fact(id="T2C4", label="Net sales | Fourth", value=115040, unit="USD thousands"),
    )
)
PENSION = Snapshot(
    facts=(
        Fact(id="T1C2", label="Balance at March 31, 2017 | Minimum Pension Liability", value=-5.3, unit="USD millions"),
        Fact(
            id="T5C2", label="Balance at March 31, 2018 | Minimum Pension Liability", value=-10.1, unit="USD millions"
        ),
    )
)
UNORDERED = Snapshot(
    facts=(
        Fact(id="T2C1", label="Leasehold | External valuation %", value=23, unit="%"),
        Fact(id="T5C1", label="Leasehold | External valuation %", value=60, unit="%"),
    )
)


def test_ordinal_columns_order_the_change() -> None:
    true = "The net sales decreased by 611 thousand [T2C4, T2C3] between the third and fourth quarter."
    false = true.replace("decreased", "increased")
    assert check_answer(true, QUARTERS).status == "pass"
    assert check_answer(false, QUARTERS).status == "fail"


def test_a_date_in_the_label_orders_the_change() -> None:
    true = "The balance of minimum pension liability decreased by $4.8 million [T5C2, T1C2] between 2017 and 2018."
    false = true.replace("decreased", "increased")
    assert check_answer(true, PENSION).status == "pass"
    assert check_answer(false, PENSION).status == "fail"


def test_a_direction_nothing_can_check_is_rejected() -> None:
    for word in ("increased", "decreased"):
        r = check_answer(f"The leasehold external valuation % {word} by 37 percentage points [T2C1, T5C1].", UNORDERED)
        assert r.status == "fail"
        assert "order in time" in r.violations[0].reason
    # no direction stated: the difference is backed
    assert check_answer("The leasehold external valuation % changed by 37 pp [T2C1, T5C1].", UNORDERED).status == "pass"


def test_time_rank_kinds() -> None:
    fc = fact_candidate
    assert time_rank(fc(Fact(id="a", label="x", value=1, period="FY2023"))) == (0, 2023, 0)
    assert time_rank(fc(Fact(id="a", label="Balance at March 31, 2017 | y", value=1))) == (0, 2017, 0)
    assert time_rank(fc(Fact(id="a", label="Net sales | Third", value=1))) == (1, 0, 3)
    assert time_rank(fc(Fact(id="a", label="Net sales | Total", value=1))) is None
    assert time_rank(fc(Fact(id="a", label="Third-party revenue | Amount", value=1))) is None


@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(1, 10**6),
    b=st.integers(1, 10**6),
    first=st.sampled_from(["First", "Second", "Third"]),
)
def test_property_flipped_direction_on_ordered_columns_fails(a: int, b: int, first: str) -> None:
    """Perturbation class ``direction_word`` on ordinal columns: the true direction passes, the
    flipped one never does."""
    assume(abs(b - a) not in (0, a, b))  # a change equal to a level is matched as that level
    nxt = {"First": "Second", "Second": "Third", "Third": "Fourth"}[first]
    snap = Snapshot(
        facts=(
            Fact(id="F1", label=f"Net sales | {first}", value=a, unit="USD"),
            Fact(id="F2", label=f"Net sales | {nxt}", value=b, unit="USD"),
        )
    )
    up, down = ("increased", "decreased") if b > a else ("decreased", "increased")
    true = f"Net sales {up} by ${abs(b - a):,} [F1, F2]."
    assert check_answer(true, snap).status == "pass"
    assert check_answer(true.replace(up, down), snap).status == "fail"
