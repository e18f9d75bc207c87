"""A move runs forward in time, and a period that trails a figure is that figure's (gate-13; a new
user's false accepts, each beside its true counterpart):

- :func:`assay.grounding.level_moves.move_order_veto`: "rose from $383.3 billion to $394.3
  billion [F1, F2]" (F1 FY2023, F2 FY2022) agreed with its values but ran backwards in time;
  "increased to $383.3 billion [F1, F2]" and "fell 2.8% to $394.3 billion [F1, F2]" moved the
  figure to a level that is not the latest, or the wrong way;
- :func:`assay.grounding.operands.period_owner`: "$394.3 billion in fiscal 2023 versus $383.3
  billion in fiscal 2022" gave both years to the 383.3 (the nearer by characters), so the swap of
  the two years' figures passed.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apple import apple
from assay.claims import extract_claims
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.level_moves import Move, stated_moves

_SALES = apple("F1", "F2", "F5")


@pytest.mark.parametrize(
    ("false", "true"),
    [
        (
            "Total net sales rose from $383.3 billion to $394.3 billion [F1, F2].",
            "Total net sales fell from $394.3 billion to $383.3 billion [F1, F2].",
        ),
        (
            "Total net sales rose to $394.3 billion from $383.3 billion [F1, F2].",
            "Total net sales fell to $383.3 billion from $394.3 billion [F1, F2].",
        ),
        (
            "Total net sales were $394.3 billion, up from $383.3 billion [F1, F2].",
            "Total net sales were $383.3 billion, down from $394.3 billion [F1, F2].",
        ),
        (
            "Total net sales increased to $383.3 billion [F1, F2].",
            "Total net sales decreased to $383.3 billion [F1, F2].",
        ),
        (
            "Total net sales fell 2.8% to $394.3 billion [F1, F2].",
            "Total net sales fell 2.8% to $383.3 billion [F1, F2].",
        ),
        (
            "Total net sales were $394.3 billion, an increase from $383.3 billion [F1, F2].",
            "Total net sales were $383.3 billion, a decrease from $394.3 billion [F1, F2].",
        ),
        (
            "Total net sales rebounded to $394.3 billion [F1, F2].",
            "Total net sales declined to $383.3 billion [F1, F2].",
        ),
        (  # gate-16, a helper's non-year hunt: a lone level's move from the year before, and "rose, to"
            "Total net sales were $383.3 billion, up from the prior year [F1, F2].",
            "Total net sales were $383.3 billion, down from the prior year [F1, F2].",
        ),
        (
            "Total net sales were $383.3 billion [F1], higher than a year earlier [F2].",
            "Total net sales were $383.3 billion [F1], lower than a year earlier [F2].",
        ),
        (
            "Total net sales rose, to $383.3 billion [F1, F2].",
            "Total net sales fell, to $383.3 billion [F1, F2].",
        ),
    ],
)
def test_a_move_runs_forward_in_time_and_the_stated_way(false, true):
    r = check_answer(false, _SALES)
    assert r.status == "fail" and r.violations[0].kind == "period_mismatch", false
    assert check_answer(true, _SALES).status == "pass", true


@pytest.mark.parametrize(
    ("false", "true"),
    [
        (
            "총 순매출은 3,943억 달러에서 3,833억 달러로 증가했다 [F1, F2].",
            "총 순매출은 3,943억 달러에서 3,833억 달러로 감소했다 [F1, F2].",
        ),
        (
            "총 순매출은 3,833억 달러에서 3,943억 달러로 증가했다 [F1, F2].",
            "총 순매출은 3,943억 달러에서 3,833억 달러로 감소했다 [F1, F2].",
        ),
        ("총 순매출은 3,833억 달러로 증가했다 [F1, F2].", "총 순매출은 3,833억 달러로 감소했다 [F1, F2]."),
    ],
)
def test_a_korean_move_runs_forward_in_time_and_the_stated_way(false, true):
    # "A에서 B로 증가했다" (rose from A to B), "B로 증가했다" (rose to B): the English forms' rules
    assert check_answer(false, _SALES).status == "fail", false
    assert check_answer(true, _SALES).status == "pass", true


def test_a_level_with_no_earlier_fact_of_its_item_is_not_judged():
    assert check_answer("Operating income increased to $114.3 billion [F5].", _SALES).status == "pass"
    assert check_answer("Total net sales increased to $383.3 billion [F1].", _SALES).status == "pass"  # F2 not cited


def test_uncited_mode_reads_the_snapshot_facts():
    assert check_answer("Total net sales increased to $383.3 billion.", _SALES, mode="uncited").status == "fail"
    assert check_answer("Total net sales decreased to $383.3 billion.", _SALES, mode="uncited").status == "pass"


def test_stated_moves_reads_pairs_and_lone_levels():
    text = "Total net sales fell 2.8% to $383.3 billion [F1, F2]."
    (claim,) = extract_claims(text)
    moves = stated_moves(claim.text, claim.span[0], tuple(claim.numbers))
    level = claim.numbers[1]
    assert moves == {level.span[0]: Move(-1)}
    text = "Total net sales rose from $383.3 billion to $394.3 billion [F1, F2]."
    (claim,) = extract_claims(text)
    a, b = claim.numbers
    assert stated_moves(claim.text, claim.span[0], tuple(claim.numbers)) == {b.span[0]: Move(1, a)}
    (claim,) = extract_claims("Total net sales were $383.3 billion [F1].")
    assert stated_moves(claim.text, claim.span[0], tuple(claim.numbers)) == {}


@pytest.mark.parametrize(
    ("false", "true"),
    [
        (
            "Total net sales were $394.3 billion in fiscal 2023 versus $383.3 billion in fiscal 2022 [F1, F2].",
            "Total net sales were $383.3 billion in fiscal 2023 versus $394.3 billion in fiscal 2022 [F1, F2].",
        ),
        (
            "Total net sales were $394.3 billion in FY2023, $383.3 billion in FY2022 [F1, F2].",
            "Total net sales were $383.3 billion in FY2023, $394.3 billion in FY2022 [F1, F2].",
        ),
        (
            "Total net sales were $394.3 billion (FY2023) and $383.3 billion (FY2022) [F1, F2].",
            "Total net sales were $383.3 billion (FY2023) and $394.3 billion (FY2022) [F1, F2].",
        ),
        (
            "Total net sales were $394.3 billion in FY23 and $383.3 billion in FY22 [F1, F2].",
            "Total net sales were $383.3 billion in FY23 and $394.3 billion in FY22 [F1, F2].",
        ),
    ],
)
def test_a_period_that_trails_a_figure_is_that_figures(false, true):
    r = check_answer(false, _SALES)
    assert r.status == "fail" and {v.kind for v in r.violations} == {"period_mismatch"}, false
    assert check_answer(true, _SALES).status == "pass", true


def test_a_leading_period_still_goes_to_the_nearest_figure():
    ok = "In fiscal 2023 total net sales were $383.3 billion, against $394.3 billion in fiscal 2022 [F1, F2]."
    assert check_answer(ok, _SALES).status == "pass"


@settings(max_examples=80, deadline=None)
@given(st.integers(1_000, 900_000), st.integers(1_000, 900_000), st.sampled_from(["Revenue", "Total assets"]))
def test_property_a_move_between_two_years_is_judged_by_time_and_way(new, old, label):
    if abs(new - old) < 10:
        return
    snap = Snapshot(
        facts=[
            Fact(id="A", label=label, value=new, unit="USD millions", period="FY2023"),
            Fact(id="B", label=label, value=old, unit="USD millions", period="FY2022"),
        ]
    )
    way, wrong = ("rose", "fell") if new > old else ("fell", "rose")
    n, o = f"${new:,} million", f"${old:,} million"
    assert check_answer(f"{label} {way} from {o} to {n} [A, B].", snap).status == "pass"
    assert check_answer(f"{label} {wrong} from {n} to {o} [A, B].", snap).status == "fail"  # backwards in time
    assert check_answer(f"{label} {way} to {n} [A, B].", snap).status == "pass"
    assert check_answer(f"{label} {wrong} to {n} [A, B].", snap).status == "fail"
    assert check_answer(f"{label} {way} to {o} [A, B].", snap).status == "fail"  # not the latest level
    assert check_answer(f"{label} was {n} in fiscal 2023 versus {o} in fiscal 2022 [A, B].", snap).status == "pass"
    assert check_answer(f"{label} was {o} in fiscal 2023 versus {n} in fiscal 2022 [A, B].", snap).status == "fail"


@pytest.mark.parametrize(
    ("new", "old", "false"),
    [  # the property test's finds: one figure twice the other, so the two periods' difference equals a level
        (1_000, 2_000, "Revenue rose to $1,000 million [A, B]."),
        (2_000, 1_000, "Revenue fell from $2,000 million to $1,000 million [A, B]."),
        (1_000, 2_000, "Revenue increased by 50% to $1,000 million [A, B]."),
    ],
)
def test_a_figure_a_move_goes_to_or_from_is_a_level_not_the_change(new, old, false):
    snap = Snapshot(
        facts=[
            Fact(id="A", label="Revenue", value=new, unit="USD millions", period="FY2023"),
            Fact(id="B", label="Revenue", value=old, unit="USD millions", period="FY2022"),
        ]
    )
    assert check_answer(false, snap).status == "fail", false
    change = "Revenue changed by $1,000 million [A, B]."  # the difference itself, stated as a change
    assert check_answer(change, snap).status == "pass"
