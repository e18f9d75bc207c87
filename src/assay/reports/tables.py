"""The report's tables and captions, built once from an aggregate and drawn by both the markdown and html writers.

Every function takes the aggregate model (:class:`assay.results.Aggregate`; the renderers load a
file's JSON object into it). Every cell is already a string: numbers have 3 decimals, a missing
value (dimension not measured, n < 2, a field the run did not produce) is ``—``. Nothing here
reads a case id, because the aggregate never holds one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.results import Aggregate, DimensionStats, PairedLift, ResultModel, composite_meaning

__all__ = [
    "MISSING",
    "Table",
    "agreement_caption",
    "agreement_tables",
    "bottom_caption",
    "bottom_table",
    "coverage_flagged",
    "coverage_flags_of",
    "dim_label",
    "dimension_table",
    "fmt_ci",
    "fmt_int",
    "fmt_mean",
    "fmt_num",
    "lift_caption",
    "lift_dims",
    "lift_order",
    "lift_plot_dims",
    "lift_row",
    "lift_table",
    "meta_line",
    "no_lift_reason",
    "primary_dim",
    "show_lift",
    "report_dims",
    "title_line",
    "variant_order",
    "variant_stat",
    "variant_table",
]

MISSING = "—"
#: The lift table's dimensions (the plots show every dimension with a lift).
LIFT_DIMS = ("composite", "coverage", "sourcing")
#: Dimensions shown with their CI in the variant table besides the primary: the headline's context.
CI_DIMS = ("composite_answered", "coverage")
#: The mark beside a flagged coverage (differs from the baseline's by more than 10 pp).
FLAG = "⚑"


@dataclass(frozen=True)
class Table:
    """A table of preformatted cells; ``numeric[i]`` says column ``i`` holds numbers (right-aligned)."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]


def report_dims(aggregate: Aggregate) -> list[str]:
    """The dimensions in report order: ``aggregate.dims``, then any others the variants carry."""
    dims = list(aggregate.dims)
    for v in aggregate.variants.values():
        dims += [d for d in v.dims if d not in dims]
    return dims


def primary_dim(aggregate: Aggregate) -> str | None:
    """The dimension variants are ranked by: ``composite`` when present, else the first one."""
    dims = report_dims(aggregate)
    return "composite" if "composite" in dims else (dims[0] if dims else None)


def variant_order(aggregate: Aggregate) -> list[str]:
    """Variant names by primary-dimension mean, best first; unmeasured variants last, then by name."""
    primary = primary_dim(aggregate)

    def key(name: str) -> tuple[bool, float, str]:
        mean = _num(variant_stat(aggregate, name, primary).mean)
        return (mean is None, -(mean or 0.0), name)

    return sorted(aggregate.variants, key=key)


def variant_table(aggregate: Aggregate) -> Table:
    """One row per variant: n, the primary dimension as mean [CI], other dimensions' means, rates.

    A non-primary mean measured on fewer cases than the variant's n shows that count, ``(n=12)``.
    A rate column is shown when any variant has the rate.
    """
    dims = report_dims(aggregate)
    primary = primary_dim(aggregate)
    rates = [
        (k, label)
        for k, label in (
            ("no_claims_rate", "no claims"),
            ("gate_fail_rate", "gate fail"),
            ("unchecked_rate", "unchecked"),
        )
        if any(_given(v, k) for v in aggregate.variants.values())
    ]
    with_ci = {primary, *CI_DIMS}
    headers = ["variant", "n"] + [f"{dim_label(aggregate, d)} [95% CI]" if d in with_ci else d for d in dims]
    headers += [label for _, label in rates]
    flagged = coverage_flagged(aggregate)
    rows = []
    for name in variant_order(aggregate):
        v = aggregate.variants[name]
        n = v.n
        cells = [name, fmt_int(n)]
        for d in dims:
            stat = variant_stat(aggregate, name, d)
            cell = fmt_mean(stat, with_ci=d in with_ci, n=n)
            cells.append(f"{cell} {FLAG}" if d == "coverage" and name in flagged else cell)
        cells += [fmt_num(getattr(v, k)) for k, _ in rates]
        rows.append(tuple(cells))
    numeric = (False,) + (True,) * (len(headers) - 1)
    return Table(tuple(headers), tuple(rows), numeric)


def dimension_table(aggregate: Aggregate) -> Table | None:
    """For a single-variant run (e.g. the rationality judge's ``all``): one row per dimension with
    mean, 95% CI, std and effective_n of n. ``None`` when the run has several variants."""
    variants = aggregate.variants
    if len(variants) != 1:
        return None
    name = next(iter(variants))
    n = variants[name].n
    rows = []
    for d in report_dims(aggregate):
        stat = variant_stat(aggregate, name, d)
        eff = fmt_int(stat.effective_n)
        rows.append(
            (
                dim_label(aggregate, d),
                fmt_num(stat.mean),
                fmt_ci(stat.ci) or MISSING,
                fmt_num(stat.std),
                f"{eff} of {fmt_int(n)}" if eff != MISSING else MISSING,
            )
        )
    return Table(("dimension", "mean", "95% CI", "std", "effective_n"), tuple(rows), (False, True, True, True, True))


def show_lift(aggregate: Aggregate) -> bool:
    """Whether the report has a lift section: a baseline was named or there are several variants."""
    return bool(aggregate.baseline) or len(aggregate.variants) > 1


def lift_dims(aggregate: Aggregate) -> list[str]:
    """The dimensions the lift table shows: composite, coverage and sourcing, where present."""
    present = {d for per_dim in aggregate.lift.values() for d in per_dim}
    dims = [d for d in LIFT_DIMS if d in present]
    return dims or [d for d in report_dims(aggregate) if d in present][:2]


def lift_plot_dims(aggregate: Aggregate) -> list[str]:
    """The dimensions with a lift plot: every dimension some variant has a lift on, report order."""
    present = {d for per_dim in aggregate.lift.values() for d in per_dim}
    return [d for d in report_dims(aggregate) if d in present] + sorted(present - set(report_dims(aggregate)))


def lift_table(aggregate: Aggregate) -> Table | None:
    """Paired lift of each variant over the baseline: diff [CI] and pairs per lift dimension.

    ``None`` when the run has no baseline or no lift rows.
    """
    baseline = aggregate.baseline
    names = [n for n in lift_order(aggregate) if n != baseline]
    if not baseline or not names:
        return None
    dims = lift_dims(aggregate)
    headers = ["variant"]
    for d in dims:
        headers += [f"{dim_label(aggregate, d)} Δ [95% CI]", "pairs"]
    rows = []
    for name in names:
        cells = [name]
        for d in dims:
            row = lift_row(aggregate, name, d)
            diff = fmt_num(row.diff, signed=True)
            ci = fmt_ci(row.ci, signed=True)
            cells += [f"{diff} {ci}" if ci and diff != MISSING else diff, fmt_int(row.n_pairs)]
        rows.append(tuple(cells))
    return Table(tuple(headers), tuple(rows), (False,) + (True,) * (len(headers) - 1))


def agreement_tables(aggregate: Aggregate) -> tuple[Table, Table, str] | None:
    """Agreement with human labels: (confusion matrix, metrics, what was left out), or ``None``."""
    agr = aggregate.agreement
    if agr is None or _empty(agr):
        return None
    positive = str(agr.positive) if _given(agr, "positive") else "positive"
    confusion = Table(
        ("", f"human: {positive}", "human: other"),
        (
            ("assay flags", fmt_int(agr.tp), fmt_int(agr.fp)),
            ("assay passes", fmt_int(agr.fn), fmt_int(agr.tn)),
        ),
        (False, True, True),
    )
    metrics = Table(
        ("n", "precision", "recall", "accuracy", "κ"),
        ((fmt_int(agr.n),) + tuple(fmt_num(v) for v in (agr.precision, agr.recall, agr.accuracy, agr.kappa)),),
        (True,) * 5,
    )
    left_out = [f"{label} {fmt_int(count)}" for label, count in agr.excluded.items()]
    if agr.no_claims_left_out:
        left_out.append(f"no claims {fmt_int(agr.no_claims_left_out)}")
    if agr.unlabelled_left_out:
        left_out.append(f"no label {fmt_int(agr.unlabelled_left_out)}")
    left = "left out: " + ", ".join(left_out) if left_out else "nothing left out"
    return confusion, metrics, left


def bottom_caption(aggregate: Aggregate) -> str:
    """The bottom-k section's heading (``k`` = the most rows any dimension has)."""
    k = max((len(rows) for rows in aggregate.bottom.values()), default=0)
    return f"Bottom {k} per dimension (below 1.0)"


def bottom_table(aggregate: Aggregate) -> Table | None:
    """The lowest-scoring rows per dimension, anonymised as ``#1/#2/#3`` + variant + slice + score,
    with the run's salted case ``key`` (eval schema 2) beside them when the rows carry one.
    Dimensions where every case scored 1.0 have no rows (the aggregate leaves them out)."""
    bottom = aggregate.bottom
    dims = [d for d in report_dims(aggregate) if bottom.get(d)] + [
        d for d in bottom if bottom.get(d) and d not in report_dims(aggregate)
    ]
    keyed = any(row.key for d in dims for row in bottom[d])
    rows = []
    for d in dims:
        for i, row in enumerate(bottom[d]):
            rank = row.rank if _given(row, "rank") else i + 1
            cells = [dim_label(aggregate, d) if i == 0 else "", f"#{rank}"]
            cells += [row.key or MISSING] if keyed else []
            cells += [
                str(row.variant) if _given(row, "variant") else MISSING,
                MISSING if row.slice is None else str(row.slice),
                fmt_num(row.score),
            ]
            rows.append(tuple(cells))
    if not rows:
        return None
    headers = ("dimension", "rank", *(("key",) if keyed else ()), "variant", "slice", "score")
    return Table(headers, tuple(rows), (False,) * (len(headers) - 1) + (True,))


def dim_label(aggregate: Aggregate, dim: str) -> str:
    """How a dimension is named in headers: an eval schema-1 ``composite`` is the answered-only
    composite (``no_claims`` left out), so it is labelled so; every other name as it is."""
    if dim == "composite" and composite_meaning(aggregate) == "answered":
        return "composite (answered only, schema 1)"
    return dim


def coverage_flags_of(aggregate: Aggregate) -> list[dict[str, Any]]:
    """The aggregate's ``coverage_flags`` (eval schema 2), ``[]`` when it has none."""
    flags = getattr(aggregate, "coverage_flags", None) or []
    return [f for f in flags if isinstance(f, dict)]


def coverage_flagged(aggregate: Aggregate) -> set[str]:
    """The variants whose coverage differs from the baseline's by more than 10 pp."""
    return {str(f.get("variant")) for f in coverage_flags_of(aggregate)}


def title_line(aggregate: Aggregate) -> str:
    """``demo · eval · backend stub · gate gate-1 · n=40``."""
    parts = [
        str(aggregate.name or "assay report"),
        str(aggregate.kind or "eval"),
        f"backend {aggregate.backend or MISSING}",
    ]
    if aggregate.gate_version:
        parts.append(f"gate {aggregate.gate_version}")
    parts.append(f"n={aggregate.n if _given(aggregate, 'n') else MISSING}")
    return " · ".join(parts)


def meta_line(aggregate: Aggregate) -> str:
    """Model, baseline and composite weights on one line."""
    parts = [f"model: {aggregate.model or MISSING}", f"baseline: {aggregate.baseline or MISSING}"]
    weights = aggregate.weights
    if weights:
        parts.append("composite weights: " + ", ".join(f"{d} {fmt_num(w)}" for d, w in weights.items()))
    return " · ".join(parts)


def lift_caption(aggregate: Aggregate) -> str:
    """The lift section's heading."""
    baseline = aggregate.baseline
    return f"Lift vs {baseline} (paired)" if baseline else "Lift"


def no_lift_reason(aggregate: Aggregate) -> str:
    """Why there is no lift table."""
    if not aggregate.baseline:
        return "No baseline variant, so no lift was computed."
    if len(aggregate.variants) < 2:
        return "The baseline is the only variant, so there is nothing to compare it with."
    return "No variant shares case ids with the baseline, so no paired lift was computed."


def agreement_caption(aggregate: Aggregate) -> str:
    """The agreement section's heading: which label field and which label counts as positive."""
    agr = aggregate.agreement
    field = agr.label_field if agr is not None and _given(agr, "label_field") else "human labels"
    positive = agr.positive if agr is not None and _given(agr, "positive") else MISSING
    return f"Agreement with {field} (positive = {positive})"


def fmt_num(x: Any, *, signed: bool = False) -> str:
    """``x`` with 3 decimals (``+`` for positives when ``signed``); ``—`` for None/NaN/inf/non-numbers."""
    v = _num(x)
    if v is None:
        return MISSING
    if abs(v) < 5e-4:
        return "0.000"
    return f"{v:+.3f}" if signed else f"{v:.3f}"


def fmt_ci(ci: Any, *, signed: bool = False) -> str:
    """``[lo, hi]`` with 3 decimals, or ``""`` when there is no CI."""
    if not isinstance(ci, Sequence) or isinstance(ci, str) or len(ci) != 2:
        return ""
    lo, hi = (fmt_num(x, signed=signed) for x in ci)
    return "" if MISSING in (lo, hi) else f"[{lo}, {hi}]"


def fmt_int(x: Any) -> str:
    """An integer count, or ``—``."""
    v = _num(x)
    return MISSING if v is None else str(int(v))


def fmt_mean(stat: DimensionStats, *, with_ci: bool, n: Any) -> str:
    """A dimension's mean, optionally with its CI, and its effective_n when below ``n``."""
    mean = fmt_num(stat.mean)
    if mean == MISSING:
        return MISSING
    ci = fmt_ci(stat.ci) if with_ci else ""
    text = f"{mean} {ci}" if ci else mean
    eff, total = _num(stat.effective_n), _num(n)
    if eff is not None and total is not None and eff < total:
        text += f" (n={int(eff)})"
    return text


def lift_order(aggregate: Aggregate) -> list[str]:
    """The variants of the lift section: in :func:`variant_order`, then any others by name."""
    lift = aggregate.lift
    ranked = [n for n in variant_order(aggregate) if n in lift]
    return ranked + sorted(n for n in lift if n not in ranked)


def variant_stat(aggregate: Aggregate, variant: str, dim: str | None) -> DimensionStats:
    """``aggregate.variants[variant].dims[dim]`` (mean, std, ci, effective_n); all ``None`` when absent."""
    v = aggregate.variants.get(variant)
    if dim is None or v is None:
        return _NO_STATS
    return v.dims.get(dim) or _NO_STATS


def lift_row(aggregate: Aggregate, variant: str, dim: str) -> PairedLift:
    """``aggregate.lift[variant][dim]`` (diff, ci, n_pairs); all ``None`` when absent."""
    return aggregate.lift.get(variant, {}).get(dim) or _NO_LIFT


_NO_STATS = DimensionStats()
_NO_LIFT = PairedLift()


def _given(model: ResultModel, key: str) -> bool:
    """Whether the file had ``key`` (``null`` included), as the reports read a missing key apart."""
    return key in model.model_fields_set or key in (model.model_extra or {})


def _empty(model: ResultModel) -> bool:
    """Whether the file's object was ``{}``."""
    return not model.model_fields_set and not model.model_extra


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None
