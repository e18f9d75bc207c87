"""Anytime-valid inference: a normal-mixture confidence sequence, clustered ratio means, a sequential SRM test.

A confidence sequence (CS) is a sequence of intervals that covers the true value at every
sample size *simultaneously* with probability ≥ 1 − alpha, so it may be checked after every new
observation (and the experiment stopped whenever it clears a margin) without inflating the
error rate — unlike a fixed 95% CI re-checked at every look, whose error grows with the number
of looks.

Method (and why this one): the **two-sided normal-mixture boundary** of Robbins (1970) in the
form of Howard, Ramdas, McAuliffe & Sekhon, "Time-uniform, nonparametric, nonasymptotic
confidence sequences", Ann. Statist. 49 (2021), §3 (the normal mixture; implemented in their
``confseq`` package as ``normal_mixture_bound``, two-sided): for a martingale ``S`` with
intrinsic time ``v``, ``|S_v| < sqrt((v + rho) * (log(1 + v/rho) + 2 log(1/alpha)))`` for all
``v`` with probability ≥ 1 − alpha, ``rho`` chosen so the boundary is tightest at ``v_opt``
(``rho = v_opt / (2 log(1/alpha) + log(1 + 2 log(1/alpha)))``). Applied with the *estimated*
variance it is the asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy &
Ramdas, "Time-uniform central limit theory and asymptotic confidence sequences", Ann. Statist.
(2024), §2 (the Gaussian-mixture asymptotic CS): ``mean ± sigma_hat * bound(t) / t``, valid as the sample grows
for any distribution with finite variance — which covers a difference of two clustered ratio
means, where no bounded-increment (betting) CS applies directly. It is one closed form,
vectorises in numpy (the validity simulation evaluates millions of looks), and was chosen over a
group-sequential alpha-spending design because the number and timing of looks is not known in
advance (a cron job looks whenever it runs). ``confseq`` itself has no wheel for this Python;
the reference values in ``tests/stats/test_sequential.py`` are the ones its C++ test suite pins
(``test/uniform_boundaries_unittest.cpp``, from the authors' R reference implementation).

Clustering: memories written in one unit share a writer and a context, so their outcomes are
correlated. Every ratio mean here is Σy / Σn over rows with a variance *clustered by unit*
(:func:`cluster_ratio`): the unit's residual total ``Y_u − mean·N_u`` is the independent
increment, so the CS's time is counted in units' information, not rows (Liang & Zeger 1986's
sandwich; Cameron & Miller, "A practitioner's guide to cluster-robust inference", J. Human
Resources 50 (2015), the CR1 estimator with its G/(G−1) small-sample factor).

Sample-ratio mismatch (SRM): :func:`srm_log_bayes_factor` is the beta-binomial mixture
likelihood ratio of Lindon & Malek, "Anytime-valid inference for multinomial count data"
(NeurIPS 2022), two-category case: a test martingale under the planned allocation, so
rejecting when it reaches ``1/alpha`` (Ville's inequality) is valid at every look too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special as _special
from scipy import stats as _sps

__all__ = [
    "best_rho",
    "normal_log_mixture",
    "normal_mixture_bound",
    "cs_halfwidth",
    "naive_halfwidth",
    "cluster_ratio",
    "cluster_totals",
    "ClusteredMean",
    "diff_cs",
    "DiffCS",
    "srm_log_bayes_factor",
]

_Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


def _check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")


def best_rho(v_opt: float, alpha: float) -> float:
    """The mixing precision ``rho`` that makes the two-sided normal-mixture boundary tightest at
    intrinsic time ``v_opt`` (> 0) for level ``alpha`` in (0, 1): ``v_opt / (2 log(1/alpha) +
    log(1 + 2 log(1/alpha)))`` (Howard et al. 2021, §3; ``confseq``'s
    ``TwoSidedNormalMixture::best_rho``). ``ValueError`` for ``v_opt <= 0`` or a bad alpha."""
    _check_alpha(alpha)
    if not v_opt > 0:
        raise ValueError(f"v_opt must be > 0, got {v_opt}")
    la = np.log(1 / alpha)
    return float(v_opt / (2 * la + np.log(1 + 2 * la)))


def normal_log_mixture(s: ArrayLike, v: ArrayLike, v_opt: float, alpha_opt: float = 0.05) -> NDArray[np.float64]:
    """Log of the two-sided normal-mixture supermartingale ``log sqrt(rho/(v+rho)) + s²/(2(v+rho))``
    at sum ``s`` and intrinsic time ``v`` ≥ 0, ``rho = best_rho(v_opt, alpha_opt)`` (Howard et
    al. 2021, §3; ``confseq``'s ``normal_log_mixture``). Crossing ``log(1/alpha)`` is the boundary
    of :func:`normal_mixture_bound`."""
    rho = best_rho(v_opt, alpha_opt)
    s_, v_ = np.asarray(s, dtype=np.float64), np.asarray(v, dtype=np.float64)
    out: NDArray[np.float64] = 0.5 * np.log(rho / (v_ + rho)) + s_**2 / (2 * (v_ + rho))
    return out


def normal_mixture_bound(
    v: ArrayLike, alpha: float, v_opt: float, alpha_opt: float | None = None
) -> NDArray[np.float64]:
    """The two-sided normal-mixture uniform boundary on ``|S_v|``: ``sqrt((v + rho)(log(1 + v/rho)
    + 2 log(1/alpha)))`` at intrinsic time(s) ``v`` ≥ 0 (any shape), ``rho = best_rho(v_opt,
    alpha_opt or alpha)``. ``P(exists v: |S_v| >= bound(v)) <= alpha`` for a sub-Gaussian
    martingale with variance process ``v`` (Howard et al. 2021, §3, by Ville's inequality).
    ``ValueError`` for a negative ``v`` or a bad alpha."""
    _check_alpha(alpha)
    rho = best_rho(v_opt, alpha if alpha_opt is None else alpha_opt)
    v_ = np.asarray(v, dtype=np.float64)
    if np.any(v_ < 0):
        raise ValueError("intrinsic time v must be >= 0")
    out: NDArray[np.float64] = np.sqrt((v_ + rho) * (np.log1p(v_ / rho) + 2 * np.log(1 / alpha)))
    return out


def cs_halfwidth(variance: ArrayLike, t: ArrayLike, alpha: float, t_opt: float) -> NDArray[np.float64]:
    """Half-width of the asymptotic CS for an estimate with estimated ``variance`` (of the estimate,
    ≥ 0) after ``t`` > 0 observations: ``sqrt(variance * t) * bound(t) / t`` with the unit-variance
    boundary of :func:`normal_mixture_bound` tuned at ``t_opt`` (Waudby-Smith et al. 2024, §2,
    ``sigma_hat² = variance * t``). Vectorised over ``variance`` and ``t`` (broadcast).
    Where ``t`` is 0 the half-width is ``inf``."""
    var = np.asarray(variance, dtype=np.float64)
    t_ = np.asarray(t, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        safe_t = np.where(t_ > 0, t_, 1.0)
        hw = np.sqrt(np.maximum(var, 0.0) * safe_t) * normal_mixture_bound(safe_t, alpha, t_opt) / safe_t
    out: NDArray[np.float64] = np.where(t_ > 0, hw, np.inf)
    return out


def naive_halfwidth(variance: ArrayLike, alpha: float = 0.05) -> NDArray[np.float64]:
    """Half-width of the fixed-sample normal CI ``z_{1-alpha/2} * sqrt(variance)`` — valid at ONE
    pre-planned look only; here as the peer the validity simulation compares with."""
    _check_alpha(alpha)
    z = _Z95 if alpha == 0.05 else float(_sps.norm.ppf(1 - alpha / 2))
    out: NDArray[np.float64] = z * np.sqrt(np.maximum(np.asarray(variance, dtype=np.float64), 0.0))
    return out


@dataclass(frozen=True)
class ClusteredMean:
    """A ratio mean ``Σy / Σn`` with its cluster-robust ``variance`` (of the mean), the number of
    rows ``n`` and of clusters (units) ``n_units``. ``mean``/``variance`` are ``None`` when
    undefined (no rows; variance also with fewer than two units)."""

    mean: float | None
    variance: float | None
    n: int
    n_units: int


def cluster_ratio(y: ArrayLike, units: ArrayLike) -> ClusteredMean:
    """Mean of row values ``y`` (1-D, finite; 0/1 for a rate, grades for a mean grade) with the
    variance clustered by ``units`` (same length; any hashable labels): ``G/(G-1) Σ_u (Y_u −
    mean·N_u)² / N²`` over the ``G`` units (Cameron & Miller 2015, CR1 without the
    (N−1)/(N−K) factor, K = 1). ``ValueError`` for mismatched lengths or a non-finite value."""
    y_ = np.asarray(y, dtype=np.float64)
    u_ = np.asarray(units)
    if y_.ndim != 1 or u_.shape != y_.shape:
        raise ValueError(f"y and units must be 1-D of one length, got {y_.shape} and {u_.shape}")
    if not np.all(np.isfinite(y_)):
        raise ValueError("y holds NaN or inf")
    if y_.size == 0:
        return ClusteredMean(None, None, 0, 0)
    _, codes = np.unique(u_, return_inverse=True)
    g = int(codes.max()) + 1
    return cluster_totals(np.bincount(codes, weights=y_, minlength=g), np.bincount(codes, minlength=g))


def cluster_totals(y_units: ArrayLike, n_units: ArrayLike) -> ClusteredMean:
    """:func:`cluster_ratio` from per-unit totals: ``y_units[u]`` = Σy and ``n_units[u]`` = row count
    of unit ``u`` (1-D, one length; units with no rows are dropped). What a ``GROUP BY unit`` in
    the database gives, so a store never ships every row to compute a clustered mean."""
    yu = np.asarray(y_units, dtype=np.float64)
    nu = np.asarray(n_units, dtype=np.float64)
    if yu.ndim != 1 or nu.shape != yu.shape:
        raise ValueError(f"y_units and n_units must be 1-D of one length, got {yu.shape} and {nu.shape}")
    if not (np.all(np.isfinite(yu)) and np.all(np.isfinite(nu))) or np.any(nu < 0):
        raise ValueError("totals must be finite and counts >= 0")
    keep = nu > 0
    yu, nu = yu[keep], nu[keep]
    n = int(nu.sum())
    g = int(yu.size)
    if n == 0:
        return ClusteredMean(None, None, 0, 0)
    mean = float(yu.sum() / n)
    if g < 2:
        return ClusteredMean(mean, None, n, g)
    var = float(g / (g - 1) * np.sum((yu - mean * nu) ** 2) / n**2)
    return ClusteredMean(mean, var, n, g)


@dataclass(frozen=True)
class DiffCS:
    """``estimate`` = B − A with its anytime-valid ``lower``/``upper`` bounds (level 1 − alpha) and,
    for comparison only, the fixed-sample 95% ``naive`` interval; ``t`` is the CS's time (the
    harmonic mean of the two arms' row counts). All ``None`` when either arm has no variance yet."""

    estimate: float | None
    lower: float | None
    upper: float | None
    naive: tuple[float, float] | None
    t: float


def diff_cs(a: ClusteredMean, b: ClusteredMean, *, alpha: float, t_opt: float) -> DiffCS:
    """The anytime-valid CS of ``b.mean − a.mean`` (independent arms, variances added) at time
    ``t = 2 / (1/n_a + 1/n_b)`` rows (equal arms: ``t = n``), tuned at ``t_opt`` rows per arm
    (:func:`cs_halfwidth`). Undefined (``None`` fields) until both arms have a variance."""
    if a.mean is None or b.mean is None or a.variance is None or b.variance is None or not a.n or not b.n:
        return DiffCS(None, None, None, None, 0.0)
    est = b.mean - a.mean
    var = a.variance + b.variance
    t = 2.0 / (1.0 / a.n + 1.0 / b.n)
    hw = float(cs_halfwidth(var, t, alpha, t_opt))
    nh = float(naive_halfwidth(var))
    return DiffCS(est, est - hw, est + hw, (est - nh, est + nh), t)


def srm_log_bayes_factor(
    n_b: ArrayLike, n: ArrayLike, allocation: float, concentration: float = 1.0
) -> NDArray[np.float64]:
    """Log beta-binomial mixture likelihood ratio of ``n_b`` B-units out of ``n`` against the
    planned ``allocation`` to B (in (0, 1)): ``log B(a + n_b, b + n − n_b) − log B(a, b) −
    n_b log p − (n − n_b) log(1 − p)`` with prior ``Beta(a, b)``, ``a = concentration·p``, ``b =
    concentration·(1 − p)`` centred on the allocation (Lindon & Malek 2022, §3, two categories).
    A nonnegative martingale under no mismatch: reject at ``log(1/alpha)``. Vectorised."""
    if not 0 < allocation < 1:
        raise ValueError(f"allocation must be in (0, 1), got {allocation}")
    if not concentration > 0:
        raise ValueError("concentration must be > 0")
    k = np.asarray(n_b, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    if np.any(k < 0) or np.any(k > m):
        raise ValueError("need 0 <= n_b <= n")
    p = allocation
    a, b = concentration * p, concentration * (1 - p)
    mix = _special.betaln(a + k, b + m - k) - _special.betaln(a, b)
    out: NDArray[np.float64] = mix - k * np.log(p) - (m - k) * np.log1p(-p)
    return out
