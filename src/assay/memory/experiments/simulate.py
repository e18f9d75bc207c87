"""A seeded numpy simulator of write-side experiments, to measure the gate's validity and power.

Not through the store: it draws what the store would hold and applies the gate's rule — the
same confidence sequence (:func:`assay.stats.sequential.cs_halfwidth`), the same clustered
variance, the same parameters (:class:`~assay.memory.experiments.config.GateParams`) — at every
look, next to the naive rule (a fixed 95% CI re-checked at every look).

Model, per experiment and arm (A: control, B: candidate):

- deliveries arrive one by one, alternating between the arms (allocation 0.5); a look is taken
  after every ``look_every`` deliveries in total, up to ``horizon`` deliveries per arm;
- delivery ``i`` of an arm delivers a memory of a writing unit drawn uniformly among the units
  written so far (``1 + i // deliveries_per_unit`` of them): older units collect more
  deliveries, as older memories do;
- each unit has its own engagement probability ``p_u ~ Beta(mu·k, (1−mu)·k)``, ``k = 1/icc − 1``
  (a beta-binomial with intra-class correlation ``icc`` between two deliveries of one unit),
  ``mu = base`` in A and ``base + effect`` in B; a delivery is engaged with ``p_u``;
- with guards: every delivery is graded, ``grade ~ Binomial(3, q_u)`` with ``q_u ~ Beta`` of mean
  0.5, and hard-negative with ``h_u ~ Beta`` of mean 0.1 (both at the same ``icc``; no true
  effect on either, so guards can only cost power here).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from assay.memory.experiments.config import GateParams
from assay.stats.sequential import cs_halfwidth, naive_halfwidth

__all__ = ["SimResult", "simulate"]

_F = NDArray[np.float64]


@dataclass(frozen=True)
class SimResult:
    """Outcome per experiment: ``promoted`` (bool, shape ``(n_experiments,)``) and
    ``deliveries_at_promotion`` (per arm; ``-1`` where not promoted), for the anytime-valid
    gate (``cs_*``) and the naive rule (``naive_*``)."""

    cs_promoted: NDArray[np.bool_]
    cs_deliveries: NDArray[np.int64]
    naive_promoted: NDArray[np.bool_]
    naive_deliveries: NDArray[np.int64]


def simulate(
    n_experiments: int,
    *,
    effect: float,
    base: float = 0.30,
    icc: float = 0.1,
    horizon: int = 5000,
    look_every: int = 20,
    deliveries_per_unit: int = 5,
    guards: bool = False,
    params: GateParams | None = None,
    seed: int = 0,
    block: int = 100,
) -> SimResult:
    """Simulate ``n_experiments`` (≥ 1) experiments (module docstring) and apply both rules at every
    look. ``look_every`` must be even (half per arm); ``base`` and ``base + effect`` in (0, 1);
    ``icc`` in (0, 1). Experiments are drawn in blocks of ``block`` (memory ~ block × horizon × 100 B).
    Deterministic for a ``seed``. ``ValueError`` for a bad argument."""
    p = params or GateParams()
    if n_experiments < 1 or horizon < 1 or look_every < 2 or look_every % 2:
        raise ValueError("need n_experiments >= 1, horizon >= 1 and an even look_every >= 2")
    if not (0 < base < 1 and 0 < base + effect < 1 and 0 < icc < 1):
        raise ValueError("base and base + effect must be in (0, 1), icc in (0, 1)")
    rng = np.random.default_rng(seed)
    out = [[], [], [], []]  # type: list[list[NDArray[np.generic]]]
    for start in range(0, n_experiments, block):
        e = min(block, n_experiments - start)
        res = _block(rng, e, effect, base, icc, horizon, look_every // 2, deliveries_per_unit, guards, p)
        for acc, r in zip(out, res, strict=True):
            acc.append(r)
    return SimResult(
        np.concatenate(out[0]).astype(bool),
        np.concatenate(out[1]).astype(np.int64),
        np.concatenate(out[2]).astype(bool),
        np.concatenate(out[3]).astype(np.int64),
    )


def _beta(rng: np.random.Generator, mean: float, icc: float, size: tuple[int, int]) -> _F:
    k = 1.0 / icc - 1.0
    out: _F = rng.beta(mean * k, (1 - mean) * k, size=size)
    return out


def _arm(
    rng: np.random.Generator, e: int, mean: float, icc: float, horizon: int, per_unit: int, guards: bool
) -> tuple[NDArray[np.int64], list[_F]]:
    """Units (``(e, horizon)``) and the metric values of one arm's deliveries."""
    n_units = 1 + (horizon - 1) // per_unit
    high = 1 + np.arange(horizon) // per_unit
    units = np.floor(rng.random((e, horizon)) * high).astype(np.int64)
    rows = np.arange(e)[:, None]
    p_u = _beta(rng, mean, icc, (e, n_units))
    values = [(rng.random((e, horizon)) < p_u[rows, units]).astype(np.float64)]
    if guards:
        q_u = _beta(rng, 0.5, icc, (e, n_units))
        h_u = _beta(rng, 0.1, icc, (e, n_units))
        values.append(rng.binomial(3, q_u[rows, units]).astype(np.float64))
        values.append((rng.random((e, horizon)) < h_u[rows, units]).astype(np.float64))
    return units, values


def _running_stats(units: NDArray[np.int64], y: _F, looks: NDArray[np.int64]) -> tuple[_F, _F]:
    """Mean and clustered variance of the mean at each look (rows ``0..look``), per experiment."""
    e, h = y.shape
    n_units = int(units.max()) + 1
    key = (np.arange(e)[:, None] * n_units + units).ravel()
    order = np.argsort(key, kind="stable")  # by (experiment, unit), delivery order kept
    ys = y.ravel()[order]
    ks = key[order]
    first = np.r_[True, ks[1:] != ks[:-1]]
    grp_start = np.maximum.accumulate(np.where(first, np.arange(ks.size), 0))
    csum = np.cumsum(ys)
    y_before_sorted = csum - ys - np.where(grp_start > 0, csum[grp_start - 1], 0.0)
    n_before_sorted = (np.arange(ks.size) - grp_start).astype(np.float64)
    y_before = np.empty_like(ys)
    n_before = np.empty_like(ys)
    y_before[order] = y_before_sorted
    n_before[order] = n_before_sorted
    y_before = y_before.reshape(e, h)
    n_before = n_before.reshape(e, h)
    s_y = np.cumsum(y, axis=1)[:, looks]
    s_yy = np.cumsum(2 * y_before * y + y * y, axis=1)[:, looks]
    s_yn = np.cumsum(y_before + y * n_before + y, axis=1)[:, looks]
    s_nn = np.cumsum(2 * n_before + 1, axis=1)[:, looks]
    g = np.cumsum(n_before == 0, axis=1)[:, looks].astype(np.float64)
    n = (looks + 1).astype(np.float64)
    mean = s_y / n
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(g > 1, g / (g - 1), np.inf) * (s_yy - 2 * mean * s_yn + mean**2 * s_nn) / n**2
    return mean, np.maximum(var, 0.0)


def _block(
    rng: np.random.Generator,
    e: int,
    effect: float,
    base: float,
    icc: float,
    horizon: int,
    per_look: int,
    per_unit: int,
    guards: bool,
    p: GateParams,
) -> tuple[NDArray[np.bool_], NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]:
    looks = np.arange(per_look - 1, horizon, per_look)
    n = (looks + 1).astype(np.float64)
    ua, va = _arm(rng, e, base, icc, horizon, per_unit, guards)
    ub, vb = _arm(rng, e, base + effect, icc, horizon, per_unit, guards)
    diffs = []
    for ya, yb in zip(va, vb, strict=True):
        ma, xa = _running_stats(ua, ya, looks)
        mb, xb = _running_stats(ub, yb, looks)
        diffs.append((mb - ma, xa + xb))
    enough = n >= p.min_delivered
    decisions = []
    for halfwidth in (
        lambda var: cs_halfwidth(var, n, p.alpha, p.t_opt),
        lambda var: naive_halfwidth(var),
    ):
        est, var = diffs[0]
        ok = (est - halfwidth(var) > p.margin) & enough
        if guards:
            g_est, g_var = diffs[1]
            ok &= g_est - halfwidth(g_var) > -p.guard_margin("mean_grade")
            h_est, h_var = diffs[2]
            ok &= h_est + halfwidth(h_var) < p.guard_margin("hard_negative_share")
        promoted: NDArray[np.bool_] = np.asarray(ok.any(axis=1), dtype=np.bool_)
        first = np.argmax(ok, axis=1)
        at: NDArray[np.int64] = np.asarray(np.where(promoted, (looks + 1)[first], -1), dtype=np.int64)
        decisions.append((promoted, at))
    return decisions[0][0], decisions[0][1], decisions[1][0], decisions[1][1]
