"""Stated effects checked against two runs: paired differences, their CI, a verdict per statement.

For each statement (:mod:`assay.effects.statements`) the paired difference head − base on its
dimension is taken over the cases present in both runs whose two values are both not ``None``
(``n_pairs``); its mean gets a seeded 95% paired bootstrap CI (percentile by default, BCa or
Hesterberg's expanded percentile on request) and a verdict by the claimed delta ``d`` and the CI ``[lo, hi]``:

- ``contradicted``: the CI lies wholly on the other side of 0 from ``d``;
- ``not_significant``: the CI contains 0;
- ``supported``: the CI is on ``d``'s side and contains ``d``;
- ``overstated``: on ``d``'s side, ``|d|`` above every value in the CI;
- ``understated``: on ``d``'s side, ``|d|`` below every value in the CI.

A claim holds when ``supported`` or ``understated``. A guard (``dim >= -margin``) holds when the
CI's lower bound is at least ``-margin`` (a non-inferiority check). With ``family="holm"`` each
statement also gets a paired sign-flip permutation p-value (two-sided for claims, one-sided
``mean > -margin`` for guards), Holm-adjusted over the family; a statement whose adjusted p-value
exceeds ``1 - confidence`` is ``not_significant`` (claims) or not held (guards), whatever its CI.
A statement with fewer than 2 pairs has no CI: ``no_pairs`` (0) or ``too_few_pairs`` (1), and the
measurement is incomplete (exit 3 in the CLI's contract).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from assay.effects.runs import EffectInputError, Pairing, RunScores, paired_values
from assay.effects.statements import StatedEffect
from assay.stats import bootstrap_ci
from assay.stats.paired import bca_ci, expanded_percentile_ci, holm, sign_flip_p

__all__ = ["EffectCheck", "EffectsReport", "Verdict", "check_effects"]

Verdict = Literal[
    "contradicted",
    "not_significant",
    "supported",
    "overstated",
    "understated",
    "held",
    "not_held",
    "no_pairs",
    "too_few_pairs",
]
_HOLDS = {"supported", "understated", "held"}


@dataclass(frozen=True)
class EffectCheck:
    """One statement's measurement: ``diff`` = mean(head − base) over ``n_pairs`` pairs, its
    ``ci``, the ``verdict``, ``holds``, and the p-values when a family correction was asked for."""

    statement: StatedEffect
    n_pairs: int
    diff: float | None
    ci: tuple[float, float] | None
    verdict: Verdict
    p_value: float | None = None
    p_adjusted: float | None = None

    @property
    def holds(self) -> bool:
        """Whether the statement holds (``supported``/``understated`` claims, ``held`` guards)."""
        return self.verdict in _HOLDS

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the statement, its normalised value, the figures and the verdict."""
        s = self.statement
        return {
            "kind": s.kind,
            "statement": s.text,
            "variant": s.variant,
            "dimension": s.dimension,
            "delta": s.delta,
            "written": s.written,
            "line": s.line,
            "n_pairs": self.n_pairs,
            "diff": None if self.diff is None else round(self.diff, 6),
            "ci": None if self.ci is None else [round(self.ci[0], 6), round(self.ci[1], 6)],
            "verdict": self.verdict,
            "holds": self.holds,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "warning": s.warning,
        }


@dataclass(frozen=True)
class EffectsReport:
    """Every statement's check, with the settings that made them (for the report and the JSON)."""

    checks: list[EffectCheck]
    interval: Literal["percentile", "bca", "expanded"]
    family: Literal["none", "holm"]
    confidence: float
    seed: int
    n_resamples: int
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """3 when a statement has fewer than 2 pairs (measurement incomplete), else 0 when every
        statement holds and 1 when any does not (DEVELOPERS.md's exit-code contract)."""
        if any(c.n_pairs < 2 for c in self.checks):
            return 3
        return 0 if all(c.holds for c in self.checks) else 1

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``assay claims check --json`` prints (no case ids: aggregates only)."""
        return {
            "kind": "claims_check",
            "schema": 1,
            "interval": self.interval,
            "family": self.family,
            "confidence": self.confidence,
            "seed": self.seed,
            "n_resamples": self.n_resamples,
            "all_hold": all(c.holds for c in self.checks),
            "checks": [c.to_dict() for c in self.checks],
            "notes": list(self.notes),
        }


def check_effects(
    base: RunScores,
    head: RunScores,
    statements: Sequence[StatedEffect],
    *,
    base_variant: str | None = None,
    head_variant: str | None = None,
    seed: int = 0,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    family: Literal["none", "holm"] = "none",
    interval: Literal["percentile", "bca", "expanded"] = "percentile",
) -> EffectsReport:
    """Check each statement on the paired differences ``head − base`` (see the module docstring).

    Args:
        base, head: the two runs (:func:`assay.effects.runs.run_scores`); they may be the same run
            when ``base_variant``/``head_variant`` pick two of its variants.
        statements: parsed ``Claim:``/``Guard:`` lines (at least one).
        base_variant, head_variant: compare these variants (one given: the same name on both
            sides); otherwise a statement's own ``variant.`` prefix, otherwise pairs are
            ``(case id, variant)`` over the variants both runs hold.
        seed, n_resamples, confidence: of the bootstrap (and the sign-flip draws).
        family: ``"holm"`` adds Holm-adjusted sign-flip p-values to the decision.
        interval: ``"percentile"`` (Efron & Tibshirani 1993, ch. 13), ``"bca"`` (Efron 1987) or
            ``"expanded"`` (Hesterberg 2015): at small n the percentile interval undercovers and
            BCa does not fix it for a mean; the expanded one does
            (``benchmarks/bench_claims_coverage.py``).

    Raises:
        EffectInputError (a ``ValueError``): an unknown dimension or variant (naming what
            exists), runs of different kinds, a ``composite`` compared across eval schemas, no
            statements.
    """
    if not statements:
        raise EffectInputError("no Claim: or Guard: lines found")
    alpha = 1.0 - confidence
    measured: list[tuple[StatedEffect, np.ndarray]] = []
    notes: list[str] = []
    for s in statements:
        pairing = Pairing.for_statement(s, base_variant, head_variant)
        b, h, dropped = paired_values(base, head, s.dimension, pairing)
        keys = sorted(b.keys() & h.keys())
        d = np.asarray([h[k] - b[k] for k in keys], dtype=np.float64)
        measured.append((s, d))
        if dropped:
            notes.append(f"{s.label}: {dropped} case(s) with a None side dropped")
        if s.warning:
            notes.append(f"line {s.line}: {s.warning}")
    p_values: list[float | None] = [None] * len(measured)
    if family == "holm":
        for i, (s, d) in enumerate(measured):
            if d.size:
                if s.kind == "claim":
                    p_values[i] = sign_flip_p(d, n_flips=n_resamples, seed=seed)
                else:
                    p_values[i] = sign_flip_p(d, shift=s.delta, alternative="greater", n_flips=n_resamples, seed=seed)
    adjusted = holm(p_values) if family == "holm" else [None] * len(measured)
    checks = []
    for (s, d), p, p_adj in zip(measured, p_values, adjusted, strict=True):
        diff, ci = _interval(d, interval, n_resamples=n_resamples, confidence=confidence, seed=seed)
        verdict = _verdict(s, d.size, ci)
        if p_adj is not None and p_adj > alpha and verdict in _HOLDS | {"overstated", "contradicted"}:
            verdict = "not_significant" if s.kind == "claim" else "not_held"
        checks.append(EffectCheck(s, int(d.size), diff, ci, verdict, p, p_adj))
    return EffectsReport(checks, interval, family, confidence, seed, n_resamples, notes)


def _interval(
    d: np.ndarray, interval: str, *, n_resamples: int, confidence: float, seed: int
) -> tuple[float | None, tuple[float, float] | None]:
    if d.size == 0:
        return None, None
    if interval == "bca":
        return float(d.mean()), bca_ci(d, n_resamples=n_resamples, confidence=confidence, seed=seed)
    if interval == "expanded":
        return float(d.mean()), expanded_percentile_ci(d, n_resamples=n_resamples, confidence=confidence, seed=seed)
    # The paired bootstrap CI is the bootstrap CI of the per-pair differences (stats.paired_bootstrap).
    return float(d.mean()), bootstrap_ci(d.tolist(), n_resamples=n_resamples, confidence=confidence, seed=seed)


def _verdict(s: StatedEffect, n_pairs: int, ci: tuple[float, float] | None) -> Verdict:
    if ci is None:
        return "no_pairs" if n_pairs == 0 else "too_few_pairs"
    lo, hi = ci
    if s.kind == "guard":
        return "held" if lo >= s.delta else "not_held"
    # Mirror a negative claim onto the positive side: the rules are then one set.
    d, lo, hi = (s.delta, lo, hi) if s.delta > 0 else (-s.delta, -hi, -lo)
    if hi < 0:
        return "contradicted"
    if lo <= 0:
        return "not_significant"
    if d > hi:
        return "overstated"
    if d < lo:
        return "understated"
    return "supported"
