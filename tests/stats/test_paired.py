"""BCa intervals, sign-flip p-values and Holm's correction (assay.stats.paired)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from assay.stats.paired import bca_ci, holm, sign_flip_p


def test_bca_matches_scipy_reference_within_resampling_noise():
    rng = np.random.default_rng(7)
    d = rng.beta(2, 5, size=60) - 0.25  # skewed, as a score difference can be
    ours = bca_ci(d, n_resamples=20_000, seed=1)
    ref = sps.bootstrap((d,), np.mean, method="BCa", n_resamples=20_000, random_state=1).confidence_interval
    assert ours is not None
    assert ours[0] == pytest.approx(ref.low, abs=0.006)
    assert ours[1] == pytest.approx(ref.high, abs=0.006)


def test_bca_edge_cases():
    assert bca_ci(np.array([0.3])) is None
    assert bca_ci(np.array([0.2, 0.2, 0.2])) == (0.2, 0.2)
    with pytest.raises(ValueError):
        bca_ci(np.array([0.1, 0.2]), confidence=1.5)


def test_sign_flip_exact_enumeration():
    # 2^3 sign patterns; |mean| >= 2 only for (+,+,+) and (-,-,-): p = 2/8.
    assert sign_flip_p(np.array([1.0, 2.0, 3.0])) == pytest.approx(0.25)
    # one-sided: only the identity reaches mean >= 2
    assert sign_flip_p(np.array([1.0, 2.0, 3.0]), alternative="greater") == pytest.approx(1 / 8)
    assert sign_flip_p(np.array([])) is None


def test_sign_flip_shift_is_a_non_inferiority_test():
    d = np.full(40, 0.0) + np.linspace(-0.01, 0.01, 40)  # centred on 0
    assert sign_flip_p(d, alternative="greater", seed=3) > 0.3  # no evidence that the mean > 0
    assert sign_flip_p(d, shift=-0.05, alternative="greater", seed=3) < 0.001  # clearly above -0.05


def test_sign_flip_random_draws_are_seeded():
    d = np.random.default_rng(0).normal(0.05, 0.2, size=100)
    assert sign_flip_p(d, seed=5) == sign_flip_p(d, seed=5)
    assert 0 < sign_flip_p(d, seed=5) <= 1


def test_holm_hand_computed():
    # sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → monotone max 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([None, 0.02]) == [None, 0.02]
    assert holm([0.6, 0.9]) == [1.0, 1.0]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_is_monotone_and_dominates_raw(ps):
    adj = holm(ps)
    for p, a in zip(ps, adj, strict=True):
        assert a is not None and p <= a + 1e-12 and a <= 1.0
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(adj[order[i]] <= adj[order[i + 1]] + 1e-12 for i in range(len(ps) - 1))


def test_expanded_percentile_is_wider_at_small_n_and_converges():
    from assay.stats import bootstrap_ci
    from assay.stats.paired import expanded_percentile_ci

    rng = np.random.default_rng(2)
    small = rng.normal(0.05, 0.2, 30)
    lo_p, hi_p = bootstrap_ci(small.tolist(), seed=0)
    lo_e, hi_e = expanded_percentile_ci(small, seed=0)
    assert lo_e < lo_p and hi_e > hi_p
    # alpha'/2 at n=30: Phi(-sqrt(30/29) * t_{0.975,29}) ≈ 0.0188 (Hesterberg 2015, §3.8)
    t = sps.t.ppf(0.975, 29)
    assert sps.norm.cdf(-np.sqrt(30 / 29) * t) == pytest.approx(0.0188, abs=5e-4)
    big = rng.normal(0.05, 0.2, 5000)
    lo_p, hi_p = bootstrap_ci(big.tolist(), seed=0)
    lo_e, hi_e = expanded_percentile_ci(big, seed=0)
    assert (hi_e - lo_e) / (hi_p - lo_p) == pytest.approx(1.0, abs=0.02)
