"""Summaries of one axis and paired differences: mean, sample std and percentile bootstrap CIs.

- :func:`summarize`: mean, std (ddof=1) and the bootstrap CI of the mean of one axis;
- :func:`bootstrap_ci`: the percentile bootstrap CI of the mean, optionally resampling whole
  clusters (Davison & Hinkley, *Bootstrap Methods and their Application* (1997), §3.8; Field &
  Welsh, "Bootstrapping clustered data", JRSS-B 69 (2007));
- :func:`paired_bootstrap`: the mean paired difference over shared ids and its CI.

Percentile bootstrap: Efron & Tibshirani, *An Introduction to the Bootstrap* (1993), ch. 13;
quantiles with numpy's default linear interpolation, as ``scipy.stats.bootstrap`` does.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.stats._resample import bootstrap_clean
from assay.stats._values import (
    check_bootstrap_params,
    checked_mean,
    clean_values,
    finite_array,
    round_pair,
    round_value,
    sample_std,
)

__all__ = ["PairedDiff", "Summary", "bootstrap_ci", "paired_bootstrap", "summarize"]


@dataclass(frozen=True)
class Summary:
    """Mean, sample standard deviation and bootstrap CI of one axis/dimension.

    ``mean`` is ``None`` when ``effective_n == 0``; ``std`` and ``ci`` are ``None`` when
    ``effective_n < 2`` (or, with clusters, fewer than 2 clusters for ``ci``).
    """

    mean: float | None
    std: float | None
    ci: tuple[float, float] | None
    effective_n: int

    def to_dict(self) -> dict[str, Any]:
        """``{"mean", "std", "ci": [lo, hi] | None, "effective_n"}``, floats rounded to 6 places."""
        return {
            "mean": round_value(self.mean),
            "std": round_value(self.std),
            "ci": round_pair(self.ci),
            "effective_n": self.effective_n,
        }


@dataclass(frozen=True)
class PairedDiff:
    """Mean paired difference ``a - b`` with its paired bootstrap CI.

    ``diff`` is ``None`` when ``n_pairs == 0``; ``ci`` is ``None`` when ``n_pairs < 2``.
    """

    diff: float | None
    ci: tuple[float, float] | None
    n_pairs: int

    def to_dict(self) -> dict[str, Any]:
        """``{"diff", "ci": [lo, hi] | None, "n_pairs"}`` with floats rounded to 6 places."""
        return {"diff": round_value(self.diff), "ci": round_pair(self.ci), "n_pairs": self.n_pairs}


def summarize(
    values: Sequence[float | None],
    *,
    clusters: Sequence[Hashable] | None = None,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Summary:
    """Summarise one axis: mean, sample std (ddof=1), percentile bootstrap CI of the mean.

    Args:
        values: length-n sequence of finite numbers or ``None``. ``None`` (not measured) is
            dropped; ``effective_n`` is the number of non-``None`` values.
        clusters: optional length-n sequence of hashable keys, one per value (e.g. the task id,
            so repeated trials of one task are resampled together). Keys of dropped ``None``
            values are dropped with them. See :func:`bootstrap_ci`.
        n_resamples: number of bootstrap resamples, ``>= 1``.
        confidence: two-sided confidence level, in the open interval (0, 1).
        seed: seed for ``numpy.random.default_rng``.

    Returns:
        :class:`Summary`. ``mean`` is ``None`` when ``effective_n == 0``; ``std`` is ``None``
        when ``effective_n < 2``; ``ci`` is ``None`` when ``effective_n < 2`` (or fewer than two
        clusters). Identical values give ``ci == (v, v)``.

    Raises:
        ValueError: a value is NaN or ±inf or not a number; ``clusters`` has a different length
            from ``values``; ``n_resamples < 1``; ``confidence`` outside (0, 1); the mean
            overflows.

    Formulas: mean = Σx/n (exactly rounded sum, ``math.fsum``); std = sqrt(Σ(x-mean)²/(n-1));
    CI as in :func:`bootstrap_ci`, clipped to [min(x), max(x)] against last-ulp rounding.
    """
    x, keys = clean_values(values, clusters)
    n = int(x.size)
    if n == 0:
        return Summary(mean=None, std=None, ci=None, effective_n=0)
    mean = checked_mean(x)
    std = sample_std(x, mean) if n >= 2 else None
    ci = bootstrap_clean(x, keys, n_resamples=n_resamples, confidence=confidence, seed=seed)
    return Summary(mean=mean, std=std, ci=ci, effective_n=n)


def bootstrap_ci(
    values: Sequence[float | None],
    *,
    clusters: Sequence[Hashable] | None = None,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap confidence interval of the mean.

    Draws ``n_resamples`` resamples with replacement (an ``(n_resamples, n)`` index matrix from
    ``numpy.random.default_rng(seed)``, generated in blocks to bound memory), takes each
    resample's mean, and returns the ``(1-confidence)/2`` and ``(1+confidence)/2`` quantiles of
    those means (numpy's linear interpolation, as ``scipy.stats.bootstrap(...,
    method="percentile")``; Efron & Tibshirani 1993, ch. 13).

    With ``clusters`` (one hashable key per value), whole clusters are resampled with
    replacement: a resample draws K of the K distinct clusters, and its statistic is the mean
    over all values in the drawn clusters, Σ cluster sums / Σ cluster sizes (cluster bootstrap;
    Davison & Hinkley 1997, §3.8). Values that share a key (e.g. repeated trials of one task) are
    then not treated as independent, which widens the CI when they are correlated. With one
    value per cluster this draws exactly the same resamples as the ordinary bootstrap.

    Args:
        values: length-n sequence of finite numbers or ``None`` (dropped, with its cluster key).
        clusters: optional length-n sequence of hashable keys.
        n_resamples: number of resamples, ``>= 1``.
        confidence: two-sided confidence level in (0, 1).
        seed: seed for ``numpy.random.default_rng``.

    Returns:
        ``(lo, hi)`` with ``lo <= hi``, or ``None`` when fewer than 2 values (or, with
        ``clusters``, fewer than 2 distinct clusters) remain. Identical values give ``(v, v)``.

    Raises:
        ValueError: NaN/±inf/non-numeric value, length mismatch with ``clusters``,
            ``n_resamples < 1``, ``confidence`` outside (0, 1), or an overflowing mean.
    """
    x, keys = clean_values(values, clusters)
    return bootstrap_clean(x, keys, n_resamples=n_resamples, confidence=confidence, seed=seed)


def paired_bootstrap(
    a: Mapping[str, float | None],
    b: Mapping[str, float | None],
    *,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedDiff:
    """Mean paired difference ``a - b`` over shared ids, with a paired bootstrap CI.

    Pairs are the ids present in both mappings whose two values are both non-``None``; an id
    missing from either side, or ``None`` on either side, is dropped. Pairs are taken in sorted
    id order, so the result does not depend on mapping insertion order. The CI resamples pairs
    (i.e. it is :func:`bootstrap_ci` of the per-id differences), which keeps the per-question
    correlation between variants (Efron & Tibshirani 1993, §15.2 on paired comparisons).

    Args:
        a, b: mappings from case/question id to a finite score or ``None``.
        n_resamples, confidence, seed: as in :func:`bootstrap_ci`.

    Returns:
        :class:`PairedDiff` with ``diff = mean(a[id] - b[id])`` (``None`` when ``n_pairs == 0``)
        and ``ci`` (``None`` when ``n_pairs < 2``).

    Raises:
        ValueError: any non-``None`` value of ``a`` or ``b`` (paired or not) is
            NaN/±inf/non-numeric, or invalid ``n_resamples`` / ``confidence``.
    """
    check_bootstrap_params(n_resamples, confidence)
    finite_array([v for v in a.values() if v is not None], name="a")
    finite_array([v for v in b.values() if v is not None], name="b")
    shared = sorted(k for k in a.keys() & b.keys() if a[k] is not None and b[k] is not None)
    if not shared:
        return PairedDiff(diff=None, ci=None, n_pairs=0)
    d = np.asarray([a[k] for k in shared], dtype=np.float64) - np.asarray([b[k] for k in shared], dtype=np.float64)
    if not np.all(np.isfinite(d)):
        raise ValueError("paired differences overflow")
    diff = checked_mean(d)
    ci = bootstrap_clean(d, None, n_resamples=n_resamples, confidence=confidence, seed=seed)
    return PairedDiff(diff=diff, ci=ci, n_pairs=len(shared))
