"""The promotion gate: a pure function of a round's statistics and the gate's parameters.

Promote B only when all of these hold at this look:

1. **primary** — the anytime-valid CS of B − A on the engagement rate of delivered memories
   (``params.procedure`` only) has its lower bound above ``params.margin``;
2. **enough data** — at least ``params.min_delivered`` labelled deliveries in each arm;
3. **no sample-ratio mismatch** — the sequential SRM test on stamped units has not fired;
4. **guards** — for each guard, its own CS shows B *not worse* than its margin: mean grade's
   lower bound of B − A above −margin, hard-negative share's upper bound below +margin
   (non-inferiority, anytime-valid like the primary; an unmeasured guard blocks).

Each CS holds at every look with probability ≥ 1 − alpha, so re-running the gate after every
delivery (a cron ``tick``) keeps the false-promotion rate ≤ alpha (measured in
``benchmarks/bench_ab_validity.py``). Requiring the guards on top can only remove promotions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from assay.memory.experiments.config import GUARDS, GateParams
from assay.memory.experiments.status import ExperimentStatus

__all__ = ["Decision", "GuardCheck", "decide"]


@dataclass(frozen=True)
class GuardCheck:
    """One guard: ``metric``, B − A ``estimate``, the CS ``bound`` that must clear ``limit``
    (lower bound > −margin for higher-is-better, upper bound < +margin for lower-is-better), ``ok``."""

    metric: str
    estimate: float | None
    bound: float | None
    limit: float
    ok: bool


@dataclass(frozen=True)
class Decision:
    """The gate's answer: ``promote`` (the gate says yes), ``promoted`` (this call did promote),
    ``reasons`` (why not, empty when yes), the primary figures (``estimate``, ``lower``,
    ``upper``, ``margin``, ``n_a``, ``n_b``), ``guards``, the SRM figures, the round."""

    experiment: str
    round: int
    candidate_version: str | None
    promote: bool
    reasons: tuple[str, ...]
    metric: str
    estimate: float | None
    lower: float | None
    upper: float | None
    margin: float
    alpha: float
    n_a: int
    n_b: int
    min_delivered: int
    guards: tuple[GuardCheck, ...] = ()
    srm: dict[str, Any] = field(default_factory=dict)
    promoted: bool = False

    def done(self) -> Decision:
        """This decision, promoted by this call."""
        return replace(self, promoted=True)

    def lost_race(self) -> Decision:
        """This decision, not promoted: another process ended the round first."""
        return replace(self, promoted=False, reasons=(*self.reasons, "another process ended this round first"))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, id-free."""
        return {
            "experiment": self.experiment,
            "round": self.round,
            "candidate_version": self.candidate_version,
            "promote": self.promote,
            "promoted": self.promoted,
            "reasons": list(self.reasons),
            "metric": self.metric,
            "estimate": self.estimate,
            "lower": self.lower,
            "upper": self.upper,
            "margin": self.margin,
            "alpha": self.alpha,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "min_delivered": self.min_delivered,
            "guards": [g.__dict__ for g in self.guards],
            "srm": self.srm,
        }


def decide(status: ExperimentStatus, params: GateParams) -> Decision:
    """Apply the gate (module docstring) to ``status``. Pure."""
    reasons: list[str] = []
    key = f"engagement:{params.procedure}"
    if status.status != "running" or status.candidate_version is None:
        reasons.append(f"experiment is {status.status}, no candidate under test")
    diff = status.diffs.get(key)
    arm_n = {
        a: (s.engagement[params.procedure].n if params.procedure in s.engagement else 0) for a, s in status.arms.items()
    }
    n_a, n_b = arm_n.get("A", 0), arm_n.get("B", 0)
    lower = upper = estimate = None
    if diff is not None:
        estimate = diff.estimate
        if diff.cs is not None:
            lower, upper = diff.cs
    if lower is None:
        reasons.append(f"no confidence sequence yet for {key} (needs two units per arm)")
    elif not lower > params.margin:
        reasons.append(f"{key}: lower bound {lower:+.4f} is not above the margin {params.margin:+.4f}")
    if min(n_a, n_b) < params.min_delivered:
        reasons.append(f"{min(n_a, n_b)} labelled deliveries in the smaller arm, {params.min_delivered} needed")
    if status.srm.mismatch:
        reasons.append(
            f"sample-ratio mismatch: {status.srm.units_a} A / {status.srm.units_b} B units for allocation "
            f"{status.srm.allocation}"
        )
    guards = tuple(_guard(status, g, params.guard_margin(g)) for g in params.guards)
    for g in guards:
        if not g.ok:
            reasons.append(
                f"guard {g.metric}: bound {'unmeasured' if g.bound is None else f'{g.bound:+.4f}'} does not clear "
                f"{g.limit:+.4f}"
            )
    return Decision(
        experiment=status.name,
        round=status.round,
        candidate_version=status.candidate_version,
        promote=not reasons,
        reasons=tuple(reasons),
        metric=key,
        estimate=estimate,
        lower=lower,
        upper=upper,
        margin=params.margin,
        alpha=params.alpha,
        n_a=n_a,
        n_b=n_b,
        min_delivered=params.min_delivered,
        guards=guards,
        srm={
            "units_a": status.srm.units_a,
            "units_b": status.srm.units_b,
            "mismatch": status.srm.mismatch,
            "log_bayes_factor": round(status.srm.log_bayes_factor, 4),
        },
    )


def _guard(status: ExperimentStatus, metric: str, margin: float) -> GuardCheck:
    direction = GUARDS[metric]
    diff = status.diffs.get(metric)
    est = diff.estimate if diff is not None else None
    if diff is None or diff.cs is None:
        return GuardCheck(metric, est, None, -direction * margin, False)
    if direction > 0:
        return GuardCheck(metric, est, diff.cs[0], -margin, diff.cs[0] > -margin)
    return GuardCheck(metric, est, diff.cs[1], margin, diff.cs[1] < margin)
