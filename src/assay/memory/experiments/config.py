"""Write-side experiment settings, each default with its rationale; the environment is read here only.

- :class:`GateParams` — the promotion gate's parameters, stored with each experiment (so a
  later change of a default never changes a running experiment's test).
- :class:`ExperimentSettings` — process-level switches: ``ASSAY_AB_ENABLED`` (``0`` makes every
  assignment control: the stop switch that needs no database) and the config cache's lifetime.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["GateParams", "ExperimentSettings", "GUARDS", "PRIMARY_METRIC"]

#: The primary metric of the gate: engagement rate of delivered memories (one procedure).
PRIMARY_METRIC = "engagement"

#: Guard metrics: name → direction (+1: higher is better, −1: lower is better).
GUARDS: dict[str, int] = {"mean_grade": +1, "hard_negative_share": -1}


@dataclass(frozen=True)
class GateParams:
    """Parameters of the promotion gate (:mod:`assay.memory.experiments.gate`).

    - ``alpha`` 0.05 — level of every confidence sequence (primary and each guard): the
      false-promotion rate the gate promises at any number of looks.
    - ``margin`` 0.0 — promote only when the CS's lower bound of B − A on the primary metric
      exceeds this (absolute rate). 0: "B is better at all".
    - ``procedure`` ``"lexical"`` — the engagement procedure of the primary metric; rows of
      another procedure are never pooled with it (lexical and semantic labels differ in rate).
    - ``min_delivered`` 200 — labelled deliveries per arm before any promotion: the asymptotic
      CS (:mod:`assay.stats.sequential`) needs enough units for its variance estimate.
    - ``t_opt`` 1000.0 — deliveries per arm at which the CS is tightest (the normal mixture's
      tuning; Howard et al. 2021, §3): a typical decision size, not a horizon.
    - ``guards`` ``("mean_grade", "hard_negative_share")`` — guard metrics that must be shown
      *not worse* than their margin by their own CS (non-inferiority, anytime-valid); an empty
      tuple turns guards off (e.g. when nothing is graded).
    - ``guard_margins`` mean grade 0.3 (a tenth of the 0–3 scale), hard-negative share 0.05
      (absolute): how much worse B may be on a guard.
    - ``srm_alpha`` 0.001 — level of the sequential sample-ratio-mismatch test on stamped units
      (a strict level, as SRM alarms are bugs, not effects: Fabijan et al., KDD 2019).
    """

    alpha: float = 0.05
    margin: float = 0.0
    procedure: str = "lexical"
    min_delivered: int = 200
    t_opt: float = 1000.0
    guards: tuple[str, ...] = ("mean_grade", "hard_negative_share")
    guard_margins: tuple[tuple[str, float], ...] = (("hard_negative_share", 0.05), ("mean_grade", 0.3))
    srm_alpha: float = 0.001

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1 or not 0 < self.srm_alpha < 1:
            raise ValueError("alpha and srm_alpha must be in (0, 1)")
        if self.min_delivered < 1 or not self.t_opt > 0:
            raise ValueError("min_delivered must be >= 1 and t_opt > 0")
        object.__setattr__(self, "guard_margins", tuple(sorted(dict(self.guard_margins).items())))
        unknown = [g for g in self.guards if g not in GUARDS]
        if unknown:
            raise ValueError(f"unknown guard(s) {unknown}; known: {sorted(GUARDS)}")

    def guard_margin(self, guard: str) -> float:
        """The margin of ``guard`` (``KeyError`` if it has none)."""
        return dict(self.guard_margins)[guard]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (tuples as lists, guard margins as an object)."""
        d = asdict(self)
        d["guards"] = list(self.guards)
        d["guard_margins"] = dict(self.guard_margins)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GateParams:
        """Inverse of :meth:`to_dict`; unknown keys are ignored (written by a newer assay)."""
        known = {f.name for f in fields(cls)}
        kw: dict[str, Any] = {k: v for k, v in d.items() if k in known}
        if "guards" in kw:
            kw["guards"] = tuple(kw["guards"])
        if "guard_margins" in kw:
            kw["guard_margins"] = tuple(sorted(dict(kw["guard_margins"]).items()))
        return cls(**kw)


@dataclass(frozen=True)
class ExperimentSettings:
    """Process-level settings.

    - ``enabled`` True — ``ASSAY_AB_ENABLED=0`` (or ``false``/``no``/``off``) makes every
      assignment control and stamps nothing: the kill switch works even when the database is
      unreachable.
    - ``cache_ttl_s`` 5.0 — how long :class:`~assay.memory.experiments.store.ExperimentStore`
      serves an experiment's config from memory before re-reading it (``ASSAY_AB_CACHE_TTL_S``):
      assignment does no database read per call, and a promotion or stop reaches every process
      within this time. Units assigned during that window keep the old round's arm and stamp;
      their memories are filed under the old round and never counted in the new one.
    """

    enabled: bool = True
    cache_ttl_s: float = 5.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ExperimentSettings:
        """Defaults, then ``ASSAY_AB_ENABLED`` and ``ASSAY_AB_CACHE_TTL_S``. ``ValueError`` for a
        TTL that is not a nonnegative number."""
        env = os.environ if environ is None else environ
        enabled = env.get("ASSAY_AB_ENABLED", "1").strip().lower() not in {"0", "false", "no", "off"}
        ttl_raw = env.get("ASSAY_AB_CACHE_TTL_S", "").strip()
        ttl = cls.cache_ttl_s
        if ttl_raw:
            try:
                ttl = float(ttl_raw)
            except ValueError:
                raise ValueError(f"ASSAY_AB_CACHE_TTL_S: not a number: {ttl_raw!r}") from None
            if ttl < 0:
                raise ValueError("ASSAY_AB_CACHE_TTL_S must be >= 0")
        return cls(enabled=enabled, cache_ttl_s=ttl)
