"""Words of a rise or a fall the gate did not know (gate-17; group E of a helper's hunt for non-year
false accepts, ``benchmarks/data/gate_nonyear_hunt.json``): "R&D spending was cut by 14.0% [F11, F12]"
and "Apple slashed R&D by 14.0%" passed on a 14.0% rise, "Net income improved to $97.0 billion [F7, F8]"
on a fall. "cut", "slashed", "trimmed", "lowered" now state a fall and "boosted", "lifted" a rise
(:data:`assay.claims.wording.DOWN_WORDS`/``UP_WORDS``); "improved" moves a figure to a level as "rose"
does and "weakened", "deteriorated", "worsened" as "fell" does (:mod:`assay.grounding.level_moves`).
Each false sentence beside its true one."""

from __future__ import annotations

import pytest

from apple import apple
from assay.grounding import check_answer

_APPLE = apple()


@pytest.mark.parametrize(
    ("false", "true"),
    [
        ("R&D spending was cut by 14.0% [F11, F12].", "R&D spending was raised by 14.0% [F11, F12]."),
        ("Apple slashed R&D by 14.0% [F11, F12].", "Apple boosted R&D by 14.0% [F11, F12]."),
        ("Apple trimmed R&D by 14.0% [F11, F12].", "Apple lifted R&D by 14.0% [F11, F12]."),
        ("Net income improved to $97.0 billion [F7, F8].", "Net income fell to $97.0 billion [F7, F8]."),
        ("Net income weakened to $99.8 billion [F7, F8].", "Net income deteriorated to $97.0 billion [F7, F8]."),
        ("Apple lowered R&D by 14.0% [F11, F12].", "Apple grew R&D by 14.0% [F11, F12]."),
        ("Operating income was boosted by 4.3% [F5, F6].", "Operating income was cut by 4.3% [F5, F6]."),
    ],
)
def test_a_move_word_states_its_way(false, true):
    assert check_answer(false, _APPLE).status == "fail", false
    assert check_answer(true, _APPLE).status == "pass", true


def test_a_cut_named_as_a_level_is_not_a_change():
    """ "cut" before a level that moved no way of its own is still that level ("a tax cut of …" is an amount)."""
    assert check_answer("R&D was $29.9 billion after the cut [F11].", _APPLE).status == "pass"


@pytest.mark.parametrize(
    ("false", "true"),
    [
        (
            "Net income of $97.0 billion [F7] exceeded the prior year's $99.8 billion [F8].",
            "Net income of $97.0 billion [F7] trailed the prior year's $99.8 billion [F8].",
        ),
        (
            "Operating income of $114.3 billion [F5] was an improvement on $119.4 billion [F6].",
            "Operating income of $114.3 billion [F5] was a decline from $119.4 billion [F6].",
        ),
        (
            "Net income of $99.8 billion [F8] was below the $97.0 billion [F7] of fiscal 2023.",
            "Net income of $99.8 billion [F8] was above the $97.0 billion [F7] of fiscal 2023.",
        ),
    ],
)
def test_two_levels_compared_the_wrong_way_fail(false, true):
    """Two levels a verb or noun compares ("A exceeded B", "A was an improvement on B", "A trailed B")
    must stand the way it says (gate-17; group E of the non-year hunt)."""
    got = check_answer(false, _APPLE)
    assert got.status == "fail" and "one way" in got.violations[0].reason, (false, got.violations)
    assert check_answer(true, _APPLE).status == "pass", true


def test_a_korean_comparison_of_two_levels_the_wrong_way_fails():
    """ "A로 전년의 B보다 늘었다" (A, more than the year before's B) needs A above B (gate-17, group E)."""
    assert check_answer("순매출은 3,833억 달러로 전년의 3,943억 달러보다 늘었다 [F1, F2].", _APPLE).status == "fail"
    assert check_answer("순매출은 3,833억 달러로 전년의 3,943억 달러보다 줄었다 [F1, F2].", _APPLE).status == "pass"


@pytest.mark.parametrize(
    ("true", "false"),
    [
        ("Revenue was 2.8% behind the prior year [F1, F2].", "Revenue was 2.8% ahead of the prior year [F1, F2]."),
        ("Net income fell just short of $97 billion [F7].", "Net income fell short of $96 billion [F7]."),
    ],
)
def test_regression_comparatives_and_bounds_that_are_no_move(true, false):
    """A helper's false rejects (gate-17): "2.8% behind the prior year" is a comparison against the
    other figure (as "below"), and "fell (just) short of $97 billion" a bound, not a fall of $97
    billion; each beside a false one."""
    assert check_answer(true, _APPLE).status == "pass", true
    assert check_answer(false, _APPLE).status == "fail", false


def test_regression_made_up_is_no_rise():
    """ "Services made up 22.2% of total net sales" read "up" as a rise and failed on a share."""
    from assay.facts import Fact, Snapshot

    snap = Snapshot(
        facts=[
            Fact(id="S", label="Services net sales", value=85200, unit="USD millions", period="FY2023"),
            Fact(id="T", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        ]
    )
    assert check_answer("Services made up 22.2% of total net sales [S, T].", snap).status == "pass"
    assert check_answer("Services made up 23.2% of total net sales [S, T].", snap).status == "fail"


@pytest.mark.parametrize(
    "false",
    [
        "Apple cut R&D spending to $29.9 billion [F11, F12].",
        "R&D was slashed to $29.9 billion [F11, F12].",
        "Apple trimmed R&D to $29.9 billion [F11, F12].",
        "Apple lowered R&D to $29.9 billion [F11, F12].",
        "Apple lifted revenue to $383.3 billion [F1, F2].",
        "Revenue was boosted to $383.3 billion [F1, F2].",
        "Net income of $97.0 billion beat the prior year's $99.8 billion [F7, F8].",
        "Revenue was $383.3 billion, exceeding the prior year's $394.3 billion [F1, F2].",
        "Revenue was $383.3 billion, topping the prior year's $394.3 billion [F1, F2].",
        "R&D was $29.9 billion, trailing the prior year's $26.3 billion [F11, F12].",
        "Net income was $97.0 billion, above fiscal 2022's $99.8 billion [F7, F8].",
        "Net income was $97.0 billion, ahead of fiscal 2022's $99.8 billion [F7, F8].",
    ],
)
def test_regression_a_fresh_helper_s_false_accepts_on_moves_and_comparisons(false):
    """A second hunt on gate-17's rules found the new move verbs unread before "to <level>" and the
    comparisons "beat", "exceeding", "topping", "trailing", ", above/ahead of … 's" unread between two levels."""
    assert check_answer(false, _APPLE).status == "fail", false


@pytest.mark.parametrize(
    "true",
    [
        "Net income fell $2.8 billion to $97.0 billion [F7, F8].",
        "R&D expense rose $3.7 billion to $29.9 billion [F11, F12].",
        "Diluted EPS rose $0.02 to $6.13 [F9, F10].",
        "Revenue fell $11.0 billion to $383.3 billion [F1, F2].",
        "Apple cut R&D spending to $26.3 billion in fiscal 2022 [F12].",
        "Net income was $97.0 billion, below fiscal 2022's $99.8 billion [F7, F8].",
    ],
)
def test_regression_a_change_then_its_level_without_by(true):
    """ "fell $2.8 billion to $97.0 billion" was read as a range (the level took the fall's direction and
    failed as a change by an amount); a move verb, an amount, "to" and a level three or more times it is a
    change and its level, as "fell by … to" was (``assay.claims.ranges``)."""
    assert check_answer(true, _APPLE).status == "pass", true
