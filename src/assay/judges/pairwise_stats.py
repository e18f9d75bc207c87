"""The pairwise aggregate: win rate of B with a cohort-clustered CI, ties, position consistency and bias.

Per criterion and overall (every criterion of every scored pair pooled), over scored pairs only:

- ``win_rate_b``: mean of 1 (B wins), 0 (A wins), ½ (``tie`` or ``inconsistent``), with a 95 %
  percentile bootstrap CI that resamples whole cohorts (:func:`assay.stats.bootstrap_ci` with
  ``clusters``; Davison & Hinkley 1997, §3.8): pairs of one cohort (one case, one session) are
  not independent evidence;
- ``tie_rate`` (both orders said tie) and ``inconsistent_rate`` (the orders disagreed);
- ``position_consistency``: share of (pair, criterion) whose two orders agree after mapping back;
- ``first_position_rate``: among the decisive single-order verdicts (not ``tie``), the share that
  picked Response 1 — ½ for a judge without position bias, 1 for one that always picks the first.

No pair id appears in the aggregate. Rates are ``None`` when their denominator is 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from assay.judges.pairwise_prompt import Criterion, PairVerdict
from assay.stats import bootstrap_ci

__all__ = ["pairwise_aggregate", "criterion_stats", "WIN_VALUE"]

#: The value of a final verdict in the win rate of B.
WIN_VALUE = {"B": 1.0, "A": 0.0, "tie": 0.5, "inconsistent": 0.5}


def criterion_stats(
    verdicts: Sequence[PairVerdict], criteria: Sequence[str], *, n_resamples: int = 10_000, seed: int = 0
) -> dict[str, Any]:
    """The figures of the module docstring over ``criteria`` of the scored ``verdicts``:
    ``{"n", "wins_a", "wins_b", "ties", "inconsistent", "win_rate_b": {"value", "ci",
    "n_cohorts"}, "tie_rate", "inconsistent_rate", "position_consistency", "first_position_rate",
    "n_decisive"}`` (``n`` counts (pair, criterion) units)."""
    values: list[float] = []
    clusters: list[str] = []
    finals: Counter[str] = Counter()
    consistent = 0
    decisive = first = 0
    for v in verdicts:
        if v.status != "scored":
            continue
        for c in criteria:
            final = v.verdicts[c]
            finals[final] += 1
            values.append(WIN_VALUE[final])
            clusters.append(v.cohort)
            consistent += v.orders["ab"][c] == v.orders["ba"][c]
            for order in ("ab", "ba"):
                pick = v.positions[order][c]
                if pick != "tie":
                    decisive += 1
                    first += pick == "response_1"
    n = len(values)
    ci = bootstrap_ci(values, clusters=clusters, n_resamples=n_resamples, seed=seed) if n else None
    return {
        "n": n,
        "wins_a": finals["A"],
        "wins_b": finals["B"],
        "ties": finals["tie"],
        "inconsistent": finals["inconsistent"],
        "win_rate_b": {
            "value": _rate(sum(values), n),
            "ci": None if ci is None else [round(ci[0], 6), round(ci[1], 6)],
            "n_cohorts": len(set(clusters)),
        },
        "tie_rate": _rate(finals["tie"], n),
        "inconsistent_rate": _rate(finals["inconsistent"], n),
        "position_consistency": _rate(consistent, n),
        "first_position_rate": _rate(first, decisive),
        "n_decisive": decisive,
    }


def pairwise_aggregate(
    verdicts: Sequence[PairVerdict],
    criteria: Sequence[Criterion],
    *,
    backend: str,
    model: str | None,
    usage: dict[str, Any] | None = None,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> dict[str, Any]:
    """``NAME.aggregate.json`` of a pairwise run: ``{"schema": 1, "kind": "pairwise", "backend",
    "model", "n", "n_scored", "n_rejected", "n_skipped", "reasons", "redactions",
    "position_consistency", "first_position_rate", "tie_rate", "inconsistent_rate", "win_rate_b",
    "overall", "criteria": {name: {"definition", …criterion_stats}}, "usage", "notes"}``; the
    top-level rates are the overall ones. No pair id."""
    names = [c.name for c in criteria]
    status = Counter(v.status for v in verdicts)
    reasons = Counter((v.reason or "unknown").split(":", 1)[0].strip()[:60] for v in verdicts if v.status != "scored")
    stat = {"n_resamples": n_resamples, "seed": seed}
    overall = criterion_stats(verdicts, names, **stat)
    per = {c.name: {"definition": c.definition, **criterion_stats(verdicts, [c.name], **stat)} for c in criteria}
    notes: list[str] = []
    if backend == "stub":
        notes.append("stub backend: a hash of the request, not a quality signal (a floor)")
    if backend == "length":
        notes.append("length backend: prefers the longer output on every criterion (a known judge bias, a baseline)")
    notes.append("inconsistent verdicts (the two orders disagree) count as ties in win_rate_b")
    return {
        "schema": 1,
        "kind": "pairwise",
        "backend": backend,
        "model": model,
        "n": len(verdicts),
        "n_scored": status["scored"],
        "n_rejected": status["rejected"],
        "n_skipped": status["skipped"],
        "reasons": dict(sorted(reasons.items())),
        "redactions": sum(v.redactions for v in verdicts),
        "position_consistency": overall["position_consistency"],
        "first_position_rate": overall["first_position_rate"],
        "tie_rate": overall["tie_rate"],
        "inconsistent_rate": overall["inconsistent_rate"],
        "win_rate_b": overall["win_rate_b"],
        "overall": overall,
        "criteria": per,
        "usage": usage,
        "notes": notes,
    }


def _rate(num: float, den: int) -> float | None:
    return None if den == 0 else round(num / den, 6)
