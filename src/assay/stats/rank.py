"""Rank statistics: Spearman's rank correlation (with a permutation p-value for small samples)
and ROC AUC as the Mann–Whitney U statistic (Hanley & McNeil, "The meaning and use of the area
under a ROC curve", Radiology 143, 1982). Both use scipy underneath.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from scipy import stats as _sps

from assay.stats._values import FloatArray, as_bool, finite_array, is_constant, paired_arrays

__all__ = ["SPEARMAN_EXACT_BELOW", "auc", "spearman"]

#: Below this many pairs :func:`spearman` takes its p-value from a permutation test: the t
#: approximation scipy uses is poor for small samples (scipy.stats.spearmanr documentation
#: recommends a permutation test there).
SPEARMAN_EXACT_BELOW = 10


def spearman(x: Sequence[float | None], y: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Spearman rank correlation ``(rho, p)`` via ``scipy.stats.spearmanr``.

    Args:
        x, y: equal-length sequences of finite numbers or ``None``; a pair with ``None`` on
            either side is dropped.

    Returns:
        ``(rho, p)`` with rho in [-1, 1] and a two-sided p-value: from scipy's t approximation
        at :data:`SPEARMAN_EXACT_BELOW` pairs or more; below, from a permutation test of the
        pairings (``scipy.stats.permutation_test``; exact up to 8 pairs, 9,999 seeded
        permutations at 9) — the t approximation gives p = 0 for 3 perfectly ordered pairs,
        whose exact p is 1/3. ``(None, None)`` when fewer than 3 complete pairs remain or
        either side is constant (rho undefined). NaN never leaks out: any undefined component
        is ``None``.

    Raises:
        ValueError: lengths differ, or a value is NaN/±inf/non-numeric.
    """
    xs, ys = paired_arrays(x, y, "x", "y")
    if xs.size < 3 or is_constant(xs) or is_constant(ys):
        return None, None
    res = _sps.spearmanr(xs, ys)
    rho, p = float(res.statistic), float(res.pvalue)
    if xs.size < SPEARMAN_EXACT_BELOW:
        p = _spearman_permutation_p(xs, ys)
    return (rho if math.isfinite(rho) else None, p if math.isfinite(p) else None)


def auc(scores: Sequence[float | None], labels: Sequence[bool]) -> float | None:
    """ROC AUC of ``scores`` for the binary ``labels``: P(score_pos > score_neg) + ½P(tie).

    Computed as the Mann–Whitney U statistic of the positives against the negatives divided by
    ``n_pos · n_neg`` (``scipy.stats.mannwhitneyu``; Hanley & McNeil 1982). Ties count half.

    Args:
        scores: length-n sequence of finite numbers or ``None`` (a ``None`` score drops its
            pair: not measured).
        labels: length-n sequence of booleans (``bool``, ``numpy.bool_``, or integer 0/1).

    Returns:
        AUC in [0, 1], or ``None`` when either class is empty after dropping.

    Raises:
        ValueError: lengths differ, a score is NaN/±inf/non-numeric, or a label is not boolean.
    """
    if len(scores) != len(labels):
        raise ValueError(f"scores and labels differ in length: {len(scores)} != {len(labels)}")
    s = finite_array([0.0 if v is None else v for v in scores], name="scores")
    lab = np.array([as_bool(v, "labels") for v in labels], dtype=bool)
    measured = np.array([v is not None for v in scores], dtype=bool)
    pos, neg = s[measured & lab], s[measured & ~lab]
    if pos.size == 0 or neg.size == 0:
        return None
    # "asymptotic" avoids the exact p-value computation; the U statistic is the same either way.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        u = _sps.mannwhitneyu(pos, neg, alternative="two-sided", method="asymptotic").statistic
    return float(u) / (int(pos.size) * int(neg.size))


def _spearman_permutation_p(xs: FloatArray, ys: FloatArray) -> float:
    """Two-sided permutation p of Spearman's rho (Pearson of the ranks), pairings permuted."""
    rx, ry = _sps.rankdata(xs), _sps.rankdata(ys)
    ry = (ry - ry.mean()) / np.linalg.norm(ry - ry.mean())

    def statistic(a: FloatArray, axis: int = -1) -> FloatArray:
        a = a - a.mean(axis=axis, keepdims=True)
        rho: FloatArray = (a * ry).sum(axis=axis) / np.linalg.norm(a, axis=axis)
        return rho

    n_perm = math.factorial(xs.size)
    res = _sps.permutation_test(
        (rx,),
        statistic,
        permutation_type="pairings",
        vectorized=True,
        n_resamples=np.inf if n_perm <= 100_000 else 9_999,
        alternative="two-sided",
        rng=np.random.default_rng(0),
    )
    return float(res.pvalue)
