"""The anytime-valid CS, the clustered ratio mean and the sequential SRM test (assay.stats.sequential)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.stats.sequential import (
    ClusteredMean,
    best_rho,
    cluster_ratio,
    cluster_totals,
    cs_halfwidth,
    diff_cs,
    naive_halfwidth,
    normal_log_mixture,
    normal_mixture_bound,
    srm_log_bayes_factor,
)


def test_reference_values_of_confseq():
    # confseq's test/uniform_boundaries_unittest.cpp (TestTwoSidedNormalMixture), values from the
    # authors' R reference implementation of Howard et al. (2021): V_OPT = 100, ALPHA_OPT = ALPHA = 0.05.
    assert best_rho(100, 0.05) == pytest.approx(12.60056, abs=1e-5)
    assert float(normal_log_mixture(10, 100, 100, 0.05)) == pytest.approx(-0.6510052, abs=1e-5)
    assert float(normal_mixture_bound(100, 0.05, 100)) == pytest.approx(30.35209, abs=1e-5)


def test_boundary_is_the_mixture_crossing_log_one_over_alpha():
    v = np.array([1.0, 10.0, 100.0, 1e4])
    b = normal_mixture_bound(v, 0.05, 100)
    np.testing.assert_allclose(normal_log_mixture(b, v, 100, 0.05), math.log(20), rtol=1e-12)


def test_cs_is_wider_than_the_naive_ci_and_shrinks():
    t = np.array([50.0, 500.0, 5000.0])
    var = 0.21 / t
    hw = cs_halfwidth(var, t, 0.05, 1000)
    assert np.all(hw > naive_halfwidth(var))
    assert np.all(np.diff(hw) < 0)
    assert math.isinf(float(cs_halfwidth(0.1, 0, 0.05, 1000)))


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        best_rho(0, 0.05)
    with pytest.raises(ValueError):
        normal_mixture_bound(-1, 0.05, 10)
    with pytest.raises(ValueError):
        normal_mixture_bound(1, 1.5, 10)
    with pytest.raises(ValueError):
        cluster_ratio([1.0, float("nan")], ["a", "b"])
    with pytest.raises(ValueError):
        cluster_ratio([1.0], ["a", "b"])
    with pytest.raises(ValueError):
        srm_log_bayes_factor(5, 3, 0.5)


def test_cluster_ratio_by_hand():
    # units a: y=[1,1] b: y=[0] c: y=[1,0,0] -> mean 3/6; residual totals 1, -0.5, -0.5
    m = cluster_ratio([1, 1, 0, 1, 0, 0], ["a", "a", "b", "c", "c", "c"])
    assert m.mean == pytest.approx(0.5)
    assert m.variance == pytest.approx(3 / 2 * (1 + 0.25 + 0.25) / 36)
    assert (m.n, m.n_units) == (6, 3)
    assert cluster_ratio([], []).mean is None
    assert cluster_ratio([1.0, 0.0], ["a", "a"]).variance is None


def test_clustering_widens_the_variance_of_correlated_rows():
    rng = np.random.default_rng(3)
    units = np.repeat(np.arange(200), 10)
    p = rng.beta(0.9, 2.1, size=200)[units]  # ICC 0.1 around 0.3
    y = (rng.random(units.size) < p).astype(float)
    clustered = cluster_ratio(y, units)
    iid = cluster_ratio(y, np.arange(units.size))
    assert clustered.variance is not None and iid.variance is not None
    assert clustered.variance > 1.5 * iid.variance  # design effect 1 + (10-1)*0.1 = 1.9


def test_diff_cs_undefined_then_defined():
    a = ClusteredMean(0.3, None, 1, 1)
    assert diff_cs(a, a, alpha=0.05, t_opt=1000).estimate is None
    a = ClusteredMean(0.30, 0.0004, 1000, 200)
    b = ClusteredMean(0.36, 0.0004, 1000, 200)
    d = diff_cs(a, b, alpha=0.05, t_opt=1000)
    assert d.estimate == pytest.approx(0.06)
    assert d.t == pytest.approx(1000)
    assert d.lower is not None and d.naive is not None and d.lower < d.naive[0]


def test_srm_rejects_a_skewed_split_only():
    assert float(srm_log_bayes_factor(500, 1000, 0.5)) < math.log(1000)
    assert float(srm_log_bayes_factor(600, 1000, 0.5)) > math.log(1000)
    assert float(srm_log_bayes_factor(0, 0, 0.3)) == pytest.approx(0.0)


def test_cs_validity_small_simulation_fixed_seed():
    # 400 null streams of N(0,1) means, looked at after every 10 rows up to 2,000: the CS is
    # crossed in at most alpha of them; the naive CI re-checked at every look far more often.
    rng = np.random.default_rng(20261201)
    x = rng.standard_normal((400, 2000))
    t = np.arange(1, 2001)
    mean = np.cumsum(x, axis=1) / t
    looks = np.arange(9, 2000, 10)
    var = 1.0 / t[looks]
    cs = np.any(np.abs(mean[:, looks]) > cs_halfwidth(var, t[looks], 0.05, 500), axis=1).mean()
    naive = np.any(np.abs(mean[:, looks]) > naive_halfwidth(var), axis=1).mean()
    assert cs == pytest.approx(17 / 400)  # exact for this seed; <= alpha
    assert naive > 0.3


@settings(max_examples=50, deadline=None)
@given(k=st.integers(0, 300), extra=st.integers(0, 300), p=st.floats(0.05, 0.95))
def test_srm_mixture_is_finite_and_its_minimum_is_near_the_allocation(k, extra, p):
    n = k + extra
    v = float(srm_log_bayes_factor(k, n, p))
    assert math.isfinite(v)
    best = float(srm_log_bayes_factor(round(p * n), n, p))
    assert best <= v + 1e-9 or abs(k - p * n) < 1.0


@settings(max_examples=40, deadline=None)
@given(data=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 3)), min_size=1, max_size=60))
def test_cluster_totals_equals_cluster_ratio_of_the_rows(data):
    units = [u for u, _ in data]
    y = [float(v) for _, v in data]
    g = max(units) + 1
    yu = np.bincount(units, weights=y, minlength=g)
    nu = np.bincount(units, minlength=g)
    a, b = cluster_ratio(y, units), cluster_totals(yu, nu)
    assert (a.n, a.n_units) == (b.n, b.n_units)
    assert a.mean == pytest.approx(b.mean)
    assert (a.variance is None) == (b.variance is None)
    if a.variance is not None:
        assert a.variance == pytest.approx(b.variance, abs=1e-12)
