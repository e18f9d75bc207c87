"""A Korean line item names its figure with the particle written onto it (gate-13;
``labels._NAME_END``): "2023년 순이익은 3,833억 달러였다 [F1]" — net income stated on total net
sales — passed while the English "Net income was $383.3 billion [F1]" failed, because "(?!\\w)"
never matched after "순이익" in "순이익은". Each false statement beside its true counterpart."""

from __future__ import annotations

import pytest

from apple import apple
from assay.grounding import check_answer
from assay.grounding.index import SnapshotIndex

_APPLE = apple("F1", "F5", "F7")


@pytest.mark.parametrize(
    ("false", "true"),
    [
        ("2023년 순이익은 3,833억 달러였다 [F1].", "2023년 순이익은 970억 달러였다 [F7]."),
        ("2023년 매출은 970억 달러였다 [F7].", "2023년 매출은 3,833억 달러였다 [F1]."),
        ("2023년 영업이익이 970억 달러였다 [F7].", "2023년 영업이익이 1,143억 달러였다 [F5]."),
        ("2023년 당기순이익은 1,143억 달러를 기록했다 [F5].", "2023년 당기순이익은 970억 달러를 기록했다 [F7]."),
    ],
)
def test_a_korean_item_with_its_particle_is_named(false, true):
    r = check_answer(false, _APPLE)
    assert r.status == "fail" and r.violations[0].kind == "label_mismatch", false
    assert check_answer(true, _APPLE).status == "pass", true


def test_a_particle_is_no_longer_word():
    vocab = SnapshotIndex.build(_APPLE).vocabulary
    names = lambda text: [n for _, _, n in vocab.named_spans(text)]  # noqa: E731
    assert names("순이익은 늘었다") == ["순이익"]
    assert names("매출의 절반") == ["매출"]
    assert names("영업이익률은 30%였다") == []  # a margin, not operating income
    assert names("매출이익") == []  # a particle followed by Hangul is no particle
    assert names("net income was") == ["net income"]
