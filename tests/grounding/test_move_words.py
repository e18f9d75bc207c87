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
