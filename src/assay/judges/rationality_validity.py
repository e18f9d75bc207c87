"""How far to trust a rationality backend: agreement between backends, validity against outcome
labels, the fit of the heuristic's weights, and mistake localisation on windows of steps.

- :func:`backend_agreement` — two ``rationality.local.json`` runs paired on case id: per axis
  Spearman ρ with p, mean and std of both, and the same per slice.
- :func:`label_validity` — per score: ROC AUC and Spearman ρ against a binary outcome label, with
  95% percentile-bootstrap CIs that resample whole clusters (e.g. the trials of one tau-bench
  task are not independent; Field & Welsh 2007), plus the AUC's one-sided test against 0.5.
- :func:`fit_rule_params` — coordinate ascent of the heuristic composite's AUC over
  :data:`~assay.judges.rationality_rules.WEIGHT_GRID` (the fit that produced ``DEFAULT_PARAMS``).
- :func:`window_localisation` — cut each trace into fixed windows of steps, score each with the
  heuristic, and count how often the lowest-scoring window holds the labelled mistake step, against
  chance (1 / number of windows) and "always the first window".

Pure functions of their inputs; randomness only from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, overload

import numpy as np

from assay.judges.rationality import REPORT_DIMS, composite
from assay.judges.rationality_rules import (
    DEFAULT_PARAMS,
    STAGE_GRID,
    START_PARAMS,
    WEIGHT_GRID,
    RuleParams,
    axis_scores,
    findings,
    heuristic_scores,
)
from assay.stats import auc, bootstrap_ci, spearman
from assay.traces import Trace, window_trace

__all__ = ["backend_agreement", "label_validity", "auc_difference", "fit_rule_params", "window_localisation"]


def backend_agreement(
    a: Mapping[str, Any], b: Mapping[str, Any], *, dims: Sequence[str] = REPORT_DIMS
) -> dict[str, Any]:
    """Agreement of two rationality runs (``*.local.json`` dicts) per axis, paired on case id.

    Returns ``{"backend_a", "backend_b", "n_a", "n_b", "n_pairs", "axes": {axis: row},
    "slices": {slice: {axis: row}}}`` where ``row = {"rho", "p", "n_pairs", "mean_a", "std_a",
    "mean_b", "std_b"}`` over the cases both runs measured on that axis (``rho``/``p`` ``None``
    below 3 pairs or for a constant side; means ``None`` with no pair, std ``None`` below 2).
    Raises ``ValueError`` when a record lacks ``id`` or ``scores``.
    """
    ra, rb = _by_id(a, "A"), _by_id(b, "B")
    shared = [i for i in ra if i in rb]
    slices: dict[str, list[str]] = defaultdict(list)
    for i in shared:
        slices[str(ra[i].get("slice") if ra[i].get("slice") is not None else "—")].append(i)
    return {
        "backend_a": a.get("backend"),
        "backend_b": b.get("backend"),
        "n_a": len(ra),
        "n_b": len(rb),
        "n_pairs": len(shared),
        "axes": {d: _agree(ra, rb, shared, d) for d in dims},
        "slices": {s: {d: _agree(ra, rb, ids, d) for d in dims} for s, ids in sorted(slices.items())},
    }


def label_validity(
    scores: Mapping[str, Sequence[float | None]],
    labels: Sequence[bool],
    clusters: Sequence[Hashable],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
) -> dict[str, dict[str, Any]]:
    """AUC and Spearman ρ of each named score against ``labels``, with cluster-bootstrap CIs.

    Args:
        scores: name → length-n scores (higher = predicted positive); ``None`` drops that case
            for that score.
        labels: length-n booleans (True = the good outcome, e.g. ``reward == 1``).
        clusters: length-n keys; resampling draws whole clusters with replacement.
        n_resamples, seed: bootstrap settings.

    Returns ``{name: {"auc", "auc_ci", "p_auc_gt_half", "rho", "rho_ci", "n", "n_clusters"}}``;
    ``p_auc_gt_half`` is the share of resampled AUCs ≤ 0.5 (one-sided bootstrap p). CIs are
    ``None`` with fewer than 2 clusters; resamples where the AUC is undefined (one class) are
    skipped.
    """
    n = len(labels)
    if len(clusters) != n or any(len(v) != n for v in scores.values()):
        raise ValueError("scores, labels and clusters must have the same length")
    draws = _cluster_draws(clusters, n_resamples, seed)
    out: dict[str, dict[str, Any]] = {}
    for name, vals in scores.items():
        idx = [i for i in range(n) if vals[i] is not None]
        x = [float(v) for v in vals if v is not None]  # the values at idx, in order
        y = [bool(labels[i]) for i in idx]
        a = auc(x, y)
        rho, _ = spearman(x, [float(v) for v in y])
        boot_a, boot_r = [], []
        for d in draws:
            xs = [vals[i] for i in d if vals[i] is not None]
            ys = [bool(labels[i]) for i in d if vals[i] is not None]
            ba = auc(xs, ys)
            if ba is not None:
                boot_a.append(ba)
            br, _ = spearman(xs, [float(v) for v in ys])
            if br is not None:
                boot_r.append(br)
        out[name] = {
            "auc": _r(a),
            "auc_ci": _pct(boot_a),
            "p_auc_gt_half": _r(sum(v <= 0.5 for v in boot_a) / len(boot_a)) if boot_a else None,
            "rho": _r(rho),
            "rho_ci": _pct(boot_r),
            "n": len(idx),
            "n_clusters": len({clusters[i] for i in idx}),
        }
    return out


def auc_difference(
    a: Sequence[float],
    b: Sequence[float],
    labels: Sequence[bool],
    clusters: Sequence[Hashable],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """AUC(a) − AUC(b) on the same cases, with a paired cluster-bootstrap 95% CI (both AUCs are
    computed on each resample of whole clusters). Returns ``{"diff", "ci", "p_le_zero"}``
    (``p_le_zero``: share of resampled differences ≤ 0). No ``None`` scores allowed."""
    if not len(a) == len(b) == len(labels) == len(clusters):
        raise ValueError("a, b, labels and clusters must have the same length")
    base_a, base_b = auc(list(a), list(labels)), auc(list(b), list(labels))
    diffs = []
    for idx in _cluster_draws(clusters, n_resamples, seed):
        ra, rb = auc([a[i] for i in idx], [labels[i] for i in idx]), auc([b[i] for i in idx], [labels[i] for i in idx])
        if ra is not None and rb is not None:
            diffs.append(ra - rb)
    diff = None if base_a is None or base_b is None else base_a - base_b
    return {
        "diff": _r(diff),
        "ci": _pct(diffs),
        "p_le_zero": _r(sum(d <= 0 for d in diffs) / len(diffs)) if diffs else None,
    }


def fit_rule_params(
    traces: Sequence[Trace], labels: Sequence[bool], *, start: RuleParams = START_PARAMS, rounds: int = 3
) -> tuple[RuleParams, float]:
    """Coordinate ascent of the heuristic composite's AUC against ``labels``.

    Each round visits the fields of :class:`RuleParams` in declaration order and keeps the grid
    value with the highest AUC (ties keep the current value): weights from ``WEIGHT_GRID``,
    ``max_stages`` from ``STAGE_GRID``. Returns ``(params, auc)``. Deterministic. The finding
    counts are computed once per ``max_stages`` value (the only parameter they depend on).
    """
    counts: dict[int, list[dict[str, dict[str, float] | None]]] = {}

    def objective(p: RuleParams) -> float:
        if p.max_stages not in counts:
            counts[p.max_stages] = [findings(t, p) for t in traces]
        scores = [composite(axis_scores(f, p)) for f in counts[p.max_stages]]
        return auc(scores, list(labels)) or 0.0

    params, best = start, objective(start)
    for _ in range(rounds):
        for f in dataclasses.fields(RuleParams):
            grid = STAGE_GRID if f.name == "max_stages" else WEIGHT_GRID
            for v in grid:
                change: dict[str, Any] = {f.name: v}  # an int or float field, by name
                cand = dataclasses.replace(params, **change)
                a = objective(cand)
                if a > best + 1e-12:
                    params, best = cand, a
    return params, best


def window_localisation(
    traces: Sequence[Trace],
    mistake_steps: Sequence[int],
    *,
    size: int = 5,
    params: RuleParams = DEFAULT_PARAMS,
    dim: str = "composite",
) -> dict[str, Any]:
    """How often the lowest-scoring window of ``size`` steps holds the labelled mistake step.

    Each trace is cut into windows ``[0, size), [size, 2·size), …``; each window is scored with the
    heuristic (:func:`assay.traces.window_trace`). Ties for the lowest score share the hit
    (credit = 1/ties when the mistake's window is among them: the expected hit rate of breaking
    ties at random). Baselines: chance = mean of 1/windows; first = share of mistakes in window 0.
    Returns ``{"n", "size", "dim", "hit_rate", "hit_rate_ci" (95% bootstrap over logs), "chance",
    "first_window", "mean_windows", "hits": [...]}``.
    """
    hits: list[float] = []
    chance: list[float] = []
    first: list[float] = []
    n_windows: list[int] = []
    for trace, step in zip(traces, mistake_steps, strict=True):  # one label per trace: a mismatch is a caller bug
        n = len(trace.steps)
        if n == 0 or not 0 <= step < n:
            continue
        starts = list(range(0, n, size))
        vals = []
        for s in starts:
            scores = heuristic_scores(window_trace(trace, s, min(s + size, n)), params)[0]
            v = composite(scores) if dim == "composite" else scores.get(dim)
            vals.append(1.0 if v is None else v)
        low = min(vals)
        lowest = [i for i, v in enumerate(vals) if v == low]
        target = step // size
        hits.append(1.0 / len(lowest) if target in lowest else 0.0)
        chance.append(1.0 / len(starts))
        first.append(1.0 if target == 0 else 0.0)
        n_windows.append(len(starts))
    k = len(hits)
    ci = bootstrap_ci(hits, n_resamples=2000, seed=0) if k else None
    return {
        "n": k,
        "size": size,
        "dim": dim,
        "hit_rate": _r(math.fsum(hits) / k) if k else None,
        "hit_rate_ci": [_r(ci[0]), _r(ci[1])] if ci else None,
        "chance": _r(math.fsum(chance) / k) if k else None,
        "first_window": _r(math.fsum(first) / k) if k else None,
        "mean_windows": _r(sum(n_windows) / k) if k else None,
        "hits": hits,
    }


# --- helpers -------------------------------------------------------------------------------


def _cluster_draws(clusters: Sequence[Hashable], n_resamples: int, seed: int) -> list[list[int]]:
    """``n_resamples`` cluster-bootstrap resamples as case indices: each draws K of the K distinct
    clusters with replacement (``numpy.random.default_rng(seed)``); none with fewer than 2 clusters."""
    members: dict[Hashable, list[int]] = {}
    for i, c in enumerate(clusters):
        members.setdefault(c, []).append(i)
    keys = list(members)
    if len(keys) < 2:
        return []
    rng = np.random.default_rng(seed)
    return [[i for j in rng.integers(0, len(keys), len(keys)) for i in members[keys[j]]] for _ in range(n_resamples)]


def _by_id(run: Mapping[str, Any], side: str) -> dict[str, Mapping[str, Any]]:
    cases = run.get("cases")
    if not isinstance(cases, list):
        raise ValueError(f"run {side}: cases: not a rationality *.local.json (no 'cases' list)")
    out: dict[str, Mapping[str, Any]] = {}
    for i, r in enumerate(cases):
        if not isinstance(r, Mapping) or "id" not in r or not isinstance(r.get("scores"), Mapping):
            raise ValueError(f"run {side}: cases[{i}]: needs id and scores")
        out[str(r["id"])] = r
    return out


def _agree(ra: Mapping[str, Any], rb: Mapping[str, Any], ids: Sequence[str], dim: str) -> dict[str, Any]:
    pairs = [(ra[i]["scores"].get(dim), rb[i]["scores"].get(dim)) for i in ids]
    pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    rho, p = spearman(xs, ys) if pairs else (None, None)
    return {
        "rho": _r(rho),
        "p": _r(p),
        "n_pairs": len(pairs),
        "mean_a": _mean(xs),
        "std_a": _std(xs),
        "mean_b": _mean(ys),
        "std_b": _std(ys),
    }


def _mean(x: Sequence[float]) -> float | None:
    return _r(math.fsum(x) / len(x)) if x else None


def _std(x: Sequence[float]) -> float | None:
    if len(x) < 2:
        return None
    m = math.fsum(x) / len(x)
    return _r(math.sqrt(math.fsum((v - m) ** 2 for v in x) / (len(x) - 1)))


def _pct(vals: Sequence[float]) -> list[float] | None:
    if len(vals) < 2:
        return None
    lo, hi = np.quantile(np.asarray(vals), [0.025, 0.975])
    return [_r(float(lo)), _r(float(hi))]


@overload
def _r(v: float) -> float: ...
@overload
def _r(v: None) -> None: ...
@overload
def _r(v: float | None) -> float | None: ...
def _r(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)
