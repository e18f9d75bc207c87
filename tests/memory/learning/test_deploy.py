"""The beat-the-incumbent gate on synthetic scores whose answer is known (no model loaded)."""

from __future__ import annotations

import pytest

from assay.memory.learning.deploy import composite_scores, gate, pairwise_agreement, system_scores
from assay.memory.learning.pairs import Item, Pair


def _pairs(n_queries=10, per_query=3):
    out = []
    for q in range(n_queries):
        for j in range(per_query):
            pos = Item(f"q{q}p{j}", f"good {j}", 3, None, None, 0.2)
            neg = Item(f"q{q}n{j}", f"bad {j}", 0, None, None, 0.6)  # the composite orders every pair wrong
            out.append(Pair(f"q{q}", f"q{q}", f"query {q}", pos, neg))
    return out


def _scores(pairs, right: int, n: int):
    """Scores ordering the first ``right`` of every ``n`` pairs right, the rest wrong."""
    s = {}
    for i, p in enumerate(pairs):
        ok = i % n < right
        s[(p.query_id, p.pos.memory_id)] = 1.0 if ok else 0.0
        s[(p.query_id, p.neg.memory_id)] = 0.0 if ok else 1.0
    return s


def test_agreement_counts_ties_and_unknowns_as_half():
    ps = _pairs(1, 4)
    s = {(p.query_id, p.pos.memory_id): 1.0 for p in ps} | {(p.query_id, p.neg.memory_id): 0.0 for p in ps}
    assert pairwise_agreement(ps, s) == 1.0
    s[("q0", "q0n0")] = 1.0  # a tie
    del s[("q0", "q0p1")]  # an unknown score
    assert pairwise_agreement(ps, s) == pytest.approx((0.5 + 0.5 + 1 + 1) / 4)
    with pytest.raises(ValueError, match="at least one pair"):
        pairwise_agreement([], s)


def test_composite_incumbent_reads_the_recorded_scores():
    ps = _pairs()
    assert pairwise_agreement(ps, composite_scores(ps)) == 0.0
    untold = [Pair(p.query_id, p.group, p.query, Item(p.pos.memory_id, "a", 3, None, None, None), p.neg) for p in ps]
    assert pairwise_agreement(untold, composite_scores(untold)) == 0.5


def test_a_clearly_better_candidate_is_deployed_and_flagged_safe():
    ps = _pairs()
    d = gate(ps, composite_scores(ps), _scores(ps, 1, 1), incumbent_name="composite")
    assert (d.incumbent_agreement, d.candidate_agreement, d.margin, d.n_pairs) == (0.0, 1.0, 1.0, 30)
    assert d.deployed and d.auto_promote_safe and d.margin_ci is not None


@pytest.mark.parametrize(
    ("cand_right", "inc_right", "n", "margin", "deployed"),
    [
        (2, 2, 3, 0.0, False),  # equal is never deployed, even with margin 0
        (2, 1, 3, 0.02, True),  # 0.667 vs 0.333
        (17, 16, 30, 0.02, True),  # +0.0333 >= 0.02
        (31, 30, 60, 0.02, False),  # +0.0167 < 0.02
        (31, 30, 60, 0.01, True),
        (1, 2, 3, 0.0, False),  # worse
    ],
)
def test_gate_decides_by_the_margin(cand_right, inc_right, n, margin, deployed):
    ps = _pairs(20, 3)
    d = gate(ps, _scores(ps, inc_right, n), _scores(ps, cand_right, n), incumbent_name="x", deploy_margin=margin)
    assert d.deployed is deployed
    assert d.candidate_agreement - d.incumbent_agreement == pytest.approx(d.margin, abs=2e-6)


def test_auto_promote_needs_ninety_percent():
    ps = _pairs(10, 10)
    assert not gate(ps, _scores(ps, 0, 10), _scores(ps, 8, 10), incumbent_name="x").auto_promote_safe
    assert gate(ps, _scores(ps, 0, 10), _scores(ps, 9, 10), incumbent_name="x").auto_promote_safe


def test_no_pairs_never_reach_the_loss():
    from assay.memory.learning.train import TrainConfig, train_pairwise

    with pytest.raises(ValueError, match="no training pairs"):
        train_pairwise([], TrainConfig())


def test_negative_deploy_margin_is_refused():
    ps = _pairs(2, 1)
    with pytest.raises(ValueError, match="deploy_margin"):
        gate(ps, {}, {}, incumbent_name="x", deploy_margin=-0.1)


def test_system_scores_blend_per_query_and_fall_back_to_the_model_without_composite():
    ps = _pairs(2, 2)
    seen = []

    def model(pairs):
        seen.extend(pairs)
        return [1.0 if text.startswith("good") else 0.0 for _q, text in pairs]

    served, raw = system_scores(ps, model, 0.5)
    assert len(seen) == 8 and set(raw) == set(served) == set(composite_scores(ps))
    # model says pos > neg, composite says neg > pos, by the same normalised amount → ties at w=0.5
    assert pairwise_agreement(ps, raw) == 1.0 and pairwise_agreement(ps, served) == 0.5
    served1, _ = system_scores(ps, model, 1.0)
    assert pairwise_agreement(ps, served1) == 1.0
    untold = [
        Pair(p.query_id, p.group, p.query, Item(p.pos.memory_id, p.pos.text, 3, None, None, None), p.neg) for p in ps
    ]
    served_u, _ = system_scores(untold, model, 0.5)
    assert pairwise_agreement(untold, served_u) == 1.0  # unknown composite: the model alone
    with pytest.raises(ValueError, match="returned 1 scores"):
        system_scores(ps, lambda pairs: [0.0], 0.5)
