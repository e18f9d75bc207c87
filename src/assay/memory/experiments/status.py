"""Per-arm statistics of an experiment's current round, read from the stamps and the delivery log.

A memory's arm is the stamp on its row (``ab_arm``, written with the memory); every delivery of
it is joined by ``memory_id``. The delivery log's own ``arm`` column is the *retrieval-side*
label (which ranker served the search) and is not read here. Per arm:

- ``units`` — distinct writing units with at least one stamped memory (the SRM check's counts);
- ``memories_written``; ``findability`` — share of written memories delivered at least once;
- ``engagement`` — engagement rate of delivered memories, **per engagement procedure** (lexical
  and semantic labels are never pooled);
- ``mean_grade`` (0–3) and ``hard_negative_share`` over graded deliveries.

Every figure is a ratio mean with its variance clustered by the writing unit
(:func:`assay.stats.sequential.cluster_totals` of the per-unit totals the database sums): its
``ci95`` is the fixed-sample normal 95% interval (for reading one look); each B − A difference
also carries the anytime-valid confidence sequence (:func:`assay.stats.sequential.diff_cs`) that
the gate decides on. Units of excluded memories are counted apart and never enter a figure. No
memory, unit or session id is in the output.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import Engine, and_, case, exists, func, select

from assay.memory.experiments.assign import EXCLUDED, ExperimentConfig
from assay.memory.tables import memories, memory_deliveries
from assay.stats.sequential import ClusteredMean, cluster_totals, diff_cs, naive_halfwidth, srm_log_bayes_factor

__all__ = ["MetricStats", "DiffStats", "ArmStats", "SRMCheck", "ExperimentStatus", "experiment_status", "ARMS"]

ARMS = ("A", "B")


@dataclass(frozen=True)
class MetricStats:
    """One arm's figure: ``mean`` (``None`` without rows), clustered ``ci95`` ``[lo, hi]`` (``None``
    with fewer than two units), ``n`` rows and ``n_units`` writing units."""

    mean: float | None
    ci95: tuple[float, float] | None
    n: int
    n_units: int

    @classmethod
    def of(cls, m: ClusteredMean) -> MetricStats:
        """From a :class:`~assay.stats.sequential.ClusteredMean`."""
        ci = None
        if m.mean is not None and m.variance is not None:
            hw = float(naive_halfwidth(m.variance))
            ci = (m.mean - hw, m.mean + hw)
        return cls(m.mean, ci, m.n, m.n_units)


@dataclass(frozen=True)
class DiffStats:
    """B − A: ``estimate``, fixed 95% ``ci95``, anytime-valid ``cs`` ``[lower, upper]`` at the gate's
    alpha, ``t`` (the CS's time in rows); ``None`` fields until both arms have two units."""

    estimate: float | None
    ci95: tuple[float, float] | None
    cs: tuple[float, float] | None
    t: float


@dataclass(frozen=True)
class ArmStats:
    """One arm's figures (module docstring); ``engagement`` is keyed by procedure."""

    units: int
    memories_written: int
    deliveries: int
    findability: MetricStats
    engagement: dict[str, MetricStats]
    mean_grade: MetricStats
    hard_negative_share: MetricStats


@dataclass(frozen=True)
class SRMCheck:
    """Sample-ratio check on stamped units: ``units_a``/``units_b``, planned ``allocation`` to B,
    observed share, ``log_bayes_factor`` (:func:`~assay.stats.sequential.srm_log_bayes_factor`)
    against ``threshold`` = log(1/srm_alpha); ``mismatch`` blocks promotion."""

    units_a: int
    units_b: int
    allocation: float
    observed_share: float | None
    log_bayes_factor: float
    threshold: float
    mismatch: bool


@dataclass(frozen=True)
class ExperimentStatus:
    """The current round's statistics: identity, ``arms`` (A, B), ``excluded_memories``,
    ``diffs`` (metric key → :class:`DiffStats`; keys ``findability``, ``engagement:<procedure>``,
    ``mean_grade``, ``hard_negative_share``), ``srm``. :meth:`to_dict` is JSON-ready, id-free."""

    name: str
    status: str
    round: int
    control_version: str
    candidate_version: str | None
    allocation: float
    unit: str
    arms: dict[str, ArmStats]
    excluded_memories: int
    diffs: dict[str, DiffStats]
    srm: SRMCheck
    gate: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (tuples as lists)."""
        return _jsonable(asdict(self))


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, float):
        return round(v, 6)
    return v


def experiment_status(engine: Engine, config: ExperimentConfig) -> ExperimentStatus:
    """Aggregate the stamps and deliveries of ``config``'s current round per writing unit in the
    database (two ``GROUP BY`` queries: rows never leave it) and compute the figures (module
    docstring). 100,000 deliveries: median 1.6 s on SQLite on a loaded 2-core box
    (``benchmarks/bench_ab_speed.py``; the covering indexes of revision 0002 keep it index-only)."""
    m, d = memories.c, memory_deliveries.c
    where = (m.ab_experiment == config.name, m.ab_round == config.round)
    delivered = exists().where(d.memory_id == m.id)
    mem_q = (
        select(m.ab_arm, m.ab_unit, func.count().label("n"), func.sum(case((delivered, 1), else_=0)).label("found"))
        .where(*where)
        .group_by(m.ab_arm, m.ab_unit)
    )
    labelled = and_(d.engaged.is_not(None), d.engagement_procedure.is_not(None))
    del_q = (
        select(
            m.ab_arm,
            m.ab_unit,
            d.engagement_procedure,
            func.count().label("rows"),
            func.sum(case((labelled, 1), else_=0)).label("n_eng"),
            func.sum(case((and_(labelled, d.engaged.is_(True)), 1), else_=0)).label("y_eng"),
            func.count(d.grade).label("n_grade"),
            func.coalesce(func.sum(d.grade), 0).label("s_grade"),
            func.sum(case((and_(d.grade.is_not(None), d.hard_negative.is_(True)), 1), else_=0)).label("y_hard"),
        )
        .select_from(memory_deliveries.join(memories, m.id == d.memory_id))
        .where(*where)
        .group_by(m.ab_arm, m.ab_unit, d.engagement_procedure)
    )
    with engine.connect() as conn:
        mem_rows = conn.execute(mem_q).all()
        del_rows = conn.execute(del_q).all()
    params = config.gate
    excluded = sum(int(r.n) for r in mem_rows if r.ab_arm == EXCLUDED)
    procedures = sorted({r.engagement_procedure for r in del_rows if r.engagement_procedure and int(r.n_eng or 0)})
    means: dict[str, dict[str, ClusteredMean]] = {}
    arms: dict[str, ArmStats] = {}
    for arm in ARMS:
        mrows = [r for r in mem_rows if r.ab_arm == arm]
        found = cluster_totals([int(r.found or 0) for r in mrows], [int(r.n) for r in mrows])
        drows = [r for r in del_rows if r.ab_arm == arm]
        t = _UnitTotals(drows)
        eng = {p: t.mean("y_eng", "n_eng", p) for p in procedures}
        grade = t.mean("s_grade", "n_grade")
        hard = t.mean("y_hard", "n_grade")
        means[arm] = {"findability": found, "mean_grade": grade, "hard_negative_share": hard}
        means[arm].update({f"engagement:{p}": v for p, v in eng.items()})
        arms[arm] = ArmStats(
            units=len(mrows),
            memories_written=sum(int(r.n) for r in mrows),
            deliveries=t.rows,
            findability=MetricStats.of(found),
            engagement={p: MetricStats.of(v) for p, v in eng.items()},
            mean_grade=MetricStats.of(grade),
            hard_negative_share=MetricStats.of(hard),
        )
    diffs = {}
    for key in means["A"]:
        cs = diff_cs(means["A"][key], means["B"][key], alpha=params.alpha, t_opt=params.t_opt)
        bounds = None if cs.lower is None or cs.upper is None else (cs.lower, cs.upper)
        diffs[key] = DiffStats(cs.estimate, cs.naive, bounds, cs.t)
    return ExperimentStatus(
        name=config.name,
        status=config.status,
        round=config.round,
        control_version=config.control_version,
        candidate_version=config.candidate_version,
        allocation=config.allocation,
        unit=config.unit,
        arms=arms,
        excluded_memories=excluded,
        diffs=diffs,
        srm=srm_check(arms["A"].units, arms["B"].units, config.allocation, params.srm_alpha),
        gate=params.to_dict(),
    )


class _UnitTotals:
    """The per-(unit, procedure) rows of one arm as columns; :meth:`mean` sums them per unit."""

    _COLS = ("ab_unit", "engagement_procedure", "rows", "n_eng", "y_eng", "n_grade", "s_grade", "y_hard")

    def __init__(self, rows: list[Any]):
        cols = list(zip(*rows, strict=True)) if rows else [()] * (1 + len(self._COLS))
        by_name = dict(zip(("ab_arm", *self._COLS), cols, strict=True))
        codes: dict[str, int] = {}
        self.unit = np.fromiter((codes.setdefault(u, len(codes)) for u in by_name["ab_unit"]), np.int64, len(rows))
        self.n_units = len(codes)
        self.procedure = np.asarray(by_name["engagement_procedure"], dtype=object)
        self.cols = {k: np.asarray(by_name[k], dtype=np.float64) for k in self._COLS[2:]}
        self.rows = int(self.cols["rows"].sum())

    def mean(self, y: str, n: str, procedure: str | None = None) -> ClusteredMean:
        keep = np.ones(self.unit.size, bool) if procedure is None else self.procedure == procedure
        yu = np.bincount(self.unit[keep], weights=self.cols[y][keep], minlength=self.n_units)
        nu = np.bincount(self.unit[keep], weights=self.cols[n][keep], minlength=self.n_units)
        return cluster_totals(yu, nu)


def srm_check(units_a: int, units_b: int, allocation: float, srm_alpha: float) -> SRMCheck:
    """The sequential SRM test on unit counts (:class:`SRMCheck`)."""
    n = units_a + units_b
    lbf = float(srm_log_bayes_factor(units_b, n, allocation))
    threshold = float(np.log(1 / srm_alpha))
    return SRMCheck(units_a, units_b, allocation, units_b / n if n else None, lbf, threshold, lbf >= threshold)
