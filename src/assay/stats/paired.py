"""Paired comparisons of two runs: BCa bootstrap intervals, sign-flip permutation p-values, Holm.

These are the statistics a stated effect ("composite +0.05") is checked with
(:mod:`assay.effects`). Inputs are the per-pair differences ``d = head - base`` as a 1-D float
array (``shape (n,)``, finite); everything is a pure function of its arguments and a seed.

Sources:

- BCa interval: Efron, "Better bootstrap confidence intervals", JASA 82 (1987); Efron &
  Tibshirani, *An Introduction to the Bootstrap* (1993), §14.3 (bias correction ``z0`` from the
  share of resample means below the estimate, acceleration ``a`` from the jackknife, eq. 14.15).
- Expanded percentile interval: Hesterberg, "What teachers should know about the bootstrap",
  The American Statistician 69 (2015), §3.8: the percentile interval at the adjusted level
  ``alpha'/2 = Phi(-sqrt(n/(n-1)) * t_{1-alpha/2, n-1})``, which corrects the plug-in variance's
  narrowness at small n (what makes the percentile interval undercover there).
- Paired sign-flip permutation test: Fisher (1935), *The Design of Experiments*, §21; Good,
  *Permutation, Parametric and Bootstrap Tests of Hypotheses* (2005), §3.7. The p-value counts the
  observed statistic among the flips, ``(1 + #{|T*| >= |T|}) / (B + 1)`` (Phipson & Smyth,
  "Permutation p-values should never be zero", SAGMB 9 (2010)); exact enumeration of all ``2^n``
  flips when ``n <= EXACT_FLIPS_MAX_N``.
- Holm's step-down correction: Holm, "A simple sequentially rejective multiple test procedure",
  Scand. J. Statist. 6 (1979).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

import numpy as np
from scipy import stats as _sps

from assay.stats._resample import resample_means
from assay.stats._values import FloatArray, check_bootstrap_params, is_constant

__all__ = ["EXACT_FLIPS_MAX_N", "bca_ci", "expanded_percentile_ci", "holm", "sign_flip_p"]

#: Up to this many pairs the sign-flip test enumerates all 2^n flips (65,536 at 16): exact and
#: still fast; above it, ``n_flips`` random flips are drawn.
EXACT_FLIPS_MAX_N = 16

Alternative = Literal["two-sided", "greater", "less"]


def bca_ci(
    d: FloatArray, *, n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float] | None:
    """BCa bootstrap CI of ``mean(d)`` (Efron 1987): percentiles of the resample means moved by the
    bias correction ``z0`` and the jackknife acceleration ``a``.

    Args:
        d: finite values, shape ``(n,)`` (e.g. paired differences).
        n_resamples: bootstrap resamples (> 0); confidence: in (0, 1); seed: numpy seed.

    Returns:
        ``(lo, hi)``, or ``None`` when ``n < 2``; ``(v, v)`` for a constant input. When every
        resample mean lies on one side of the estimate (``z0`` infinite) the percentile interval
        is returned instead, since the BCa correction is undefined there.

    Raises:
        ValueError: invalid ``n_resamples`` / ``confidence``.
    """
    means = _resample_or_trivial(d, n_resamples, confidence, seed)
    if not isinstance(means, np.ndarray):
        return means
    n = d.size
    theta = float(d.mean())
    alpha = (1.0 - confidence) / 2.0
    share_below = float(np.mean(means < theta))
    if not 0.0 < share_below < 1.0:
        lo, hi = np.percentile(means, [100.0 * alpha, 100.0 * (1.0 - alpha)])
        return (float(lo), float(hi))
    z0 = float(_sps.norm.ppf(share_below))
    jack = (d.sum() - d) / (n - 1)  # leave-one-out means, closed form for the mean
    dev = jack.mean() - jack
    denom = 6.0 * float(np.sum(dev**2)) ** 1.5
    a = float(np.sum(dev**3)) / denom if denom > 0 else 0.0
    qs = []
    for z_alpha in (_sps.norm.ppf(alpha), _sps.norm.ppf(1.0 - alpha)):
        shifted = z0 + (z0 + z_alpha) / (1.0 - a * (z0 + z_alpha))
        qs.append(100.0 * float(_sps.norm.cdf(shifted)))
    lo, hi = np.percentile(means, qs)
    return (max(float(lo), float(d.min())), min(float(hi), float(d.max())))


def expanded_percentile_ci(
    d: FloatArray, *, n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float] | None:
    """Hesterberg's (2015) expanded percentile CI of ``mean(d)``: the percentile interval of the
    resample means taken at ``alpha'/2 = Phi(-sqrt(n/(n-1)) * t_{1-alpha/2, n-1})`` instead of
    ``alpha/2`` (for n = 30 and 95%: the 1.9th and 98.1st percentiles).

    Args and returns as :func:`bca_ci` (``None`` when ``n < 2``; ``(v, v)`` when constant).
    """
    means = _resample_or_trivial(d, n_resamples, confidence, seed)
    if not isinstance(means, np.ndarray):
        return means
    n = d.size
    t = float(_sps.t.ppf(1.0 - (1.0 - confidence) / 2.0, n - 1))
    tail = float(_sps.norm.cdf(-np.sqrt(n / (n - 1)) * t))
    lo, hi = np.percentile(means, [100.0 * tail, 100.0 * (1.0 - tail)])
    return (max(float(lo), float(d.min())), min(float(hi), float(d.max())))


def sign_flip_p(
    d: FloatArray,
    *,
    shift: float = 0.0,
    alternative: Alternative = "two-sided",
    n_flips: int = 10_000,
    seed: int = 0,
) -> float | None:
    """Paired sign-flip permutation p-value for ``H0: the differences d - shift are symmetric about 0``.

    The statistic is ``T = mean(d - shift)``; under H0 every sign pattern of ``d - shift`` is
    equally likely. ``alternative`` is ``"two-sided"`` (``|T*| >= |T|``), ``"greater"``
    (``T* >= T``: evidence that the mean exceeds ``shift``, e.g. a non-inferiority guard with
    ``shift = -margin``) or ``"less"`` (``T* <= T``).

    Args:
        d: finite paired differences, shape ``(n,)``.
        shift: the null value of the mean (units of ``d``).
        n_flips: random flips when ``n > EXACT_FLIPS_MAX_N`` (> 0); seed: numpy seed.

    Returns:
        The p-value in (0, 1], or ``None`` when ``n == 0``.
    """
    if n_flips < 1:
        raise ValueError(f"n_flips must be >= 1, got {n_flips}")
    x = np.asarray(d, dtype=np.float64) - shift
    n = x.size
    if n == 0:
        return None
    t_obs = float(x.mean())
    if n <= EXACT_FLIPS_MAX_N:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)), dtype=np.float64)
        t_star = signs @ x / n
        hits, total = _count(t_star, t_obs, alternative), t_star.size
        return hits / total  # the identity flip is among them, so hits >= 1
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    block = max(1, (1 << 16) // n)
    while done < n_flips:
        m = min(block, n_flips - done)
        signs = rng.integers(0, 2, size=(m, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        hits += _count(signs @ x / n, t_obs, alternative)
        done += m
    return (1 + hits) / (n_flips + 1)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (Holm 1979), in the input order; ``None`` stays ``None``
    and is not counted in the family size. Each adjusted value is in [0, 1]."""
    idx = sorted((i for i, p in enumerate(p_values) if p is not None), key=lambda i: p_values[i] or 0.0)
    m = len(idx)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, i in enumerate(idx):
        p = p_values[i]
        assert p is not None
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def _resample_or_trivial(
    d: FloatArray, n_resamples: int, confidence: float, seed: int
) -> FloatArray | tuple[float, float] | None:
    """The resample means of ``d``, or the interval itself when there is nothing to resample:
    ``None`` for ``n < 2``, ``(v, v)`` for a constant input (checked parameters first)."""
    check_bootstrap_params(n_resamples, confidence)
    if d.size < 2:
        return None
    if is_constant(d):
        v = float(d[0])
        return (v, v)
    return resample_means(d, n_resamples, np.random.default_rng(seed))


def _count(t_star: FloatArray, t_obs: float, alternative: Alternative) -> int:
    # A relative tolerance so the observed statistic counts itself despite float summation order.
    tol = 1e-12 * max(1.0, abs(t_obs))
    if alternative == "two-sided":
        return int(np.count_nonzero(np.abs(t_star) >= abs(t_obs) - tol))
    if alternative == "greater":
        return int(np.count_nonzero(t_star >= t_obs - tol))
    if alternative == "less":
        return int(np.count_nonzero(t_star <= t_obs + tol))
    raise ValueError(f"alternative must be two-sided, greater or less, got {alternative!r}")
