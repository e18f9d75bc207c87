"""The validity simulator (assay.memory.experiments.simulate) at small fixed seeds: exact decisions,
and its running clustered variance equal to assay.stats.sequential.cluster_ratio at a look."""

from __future__ import annotations

import numpy as np
import pytest

from assay.memory.experiments import GateParams
from assay.memory.experiments.simulate import _arm, _running_stats, simulate
from assay.stats.sequential import cluster_ratio


def test_running_variance_matches_cluster_ratio():
    rng = np.random.default_rng(5)
    units, (y,) = _arm(rng, 3, 0.3, 0.1, 400, 5, guards=False)
    looks = np.array([49, 199, 399])
    mean, var = _running_stats(units, y, looks)
    for e in range(3):
        for j, look in enumerate(looks):
            ref = cluster_ratio(y[e, : look + 1], units[e, : look + 1])
            assert mean[e, j] == pytest.approx(ref.mean)
            assert var[e, j] == pytest.approx(ref.variance)


# 60 experiments, horizon 1,500 deliveries per arm, a look every 20: exact counts for these seeds.
SMALL = dict(horizon=1500, look_every=20, params=GateParams(min_delivered=100))
NULL_CS, NULL_NAIVE = 1, 6  # the naive rule re-checked at every look promotes six times as often
LIFT_CS, LIFT_MEDIAN = 51, 520  # +0.10 on 0.30: 51 of 60 promoted, after a median 520 deliveries per arm


def test_null_small_fixed_seed():
    r = simulate(60, effect=0.0, seed=11, **SMALL)
    assert int(r.cs_promoted.sum()) == NULL_CS
    assert int(r.naive_promoted.sum()) == NULL_NAIVE
    assert r.naive_promoted.sum() > r.cs_promoted.sum()


def test_lift_small_fixed_seed():
    r = simulate(60, effect=0.10, seed=12, **SMALL)
    assert int(r.cs_promoted.sum()) == LIFT_CS
    assert int(np.median(r.cs_deliveries[r.cs_promoted])) == LIFT_MEDIAN
    assert np.all(r.cs_deliveries[~r.cs_promoted] == -1)


def test_harm_with_guards_small_fixed_seed():
    r = simulate(30, effect=-0.05, seed=13, guards=True, **SMALL)
    assert int(r.cs_promoted.sum()) == 0


def test_bad_arguments():
    with pytest.raises(ValueError):
        simulate(1, effect=0.0, look_every=3)
    with pytest.raises(ValueError):
        simulate(1, effect=0.8)
