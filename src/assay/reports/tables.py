"""The report's tables and captions, built once from an aggregate and drawn by both the markdown and html writers.

Every cell is already a string: numbers have 3 decimals, a missing value (dimension not measured,
n < 2, a field the run did not produce) is ``—``. Nothing here reads a case id, because the
aggregate never holds one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MISSING",
    "Table",
    "agreement_caption",
    "agreement_tables",
    "bottom_table",
    "dimension_table",
    "fmt_ci",
    "fmt_int",
    "fmt_mean",
    "fmt_num",
    "lift_caption",
    "lift_dims",
    "lift_order",
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
LIFT_DIMS = ("composite", "sourcing")


@dataclass(frozen=True)
class Table:
    """A table of preformatted cells; ``numeric[i]`` says column ``i`` holds numbers (right-aligned)."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]


def report_dims(aggregate: Mapping[str, Any]) -> list[str]:
    """The dimensions in report order: ``aggregate["dims"]``, then any others the variants carry."""
    dims = list(aggregate.get("dims") or [])
    for v in _variants(aggregate).values():
        dims += [d for d in (v.get("dims") or {}) if d not in dims]
    return dims


def primary_dim(aggregate: Mapping[str, Any]) -> str | None:
    """The dimension variants are ranked by: ``composite`` when present, else the first one."""
    dims = report_dims(aggregate)
    return "composite" if "composite" in dims else (dims[0] if dims else None)


def variant_order(aggregate: Mapping[str, Any]) -> list[str]:
    """Variant names by primary-dimension mean, best first; unmeasured variants last, then by name."""
    primary = primary_dim(aggregate)

    def key(name: str) -> tuple[bool, float, str]:
        mean = _num(variant_stat(aggregate, name, primary).get("mean"))
        return (mean is None, -(mean or 0.0), name)

    return sorted(_variants(aggregate), key=key)


def variant_table(aggregate: Mapping[str, Any]) -> Table:
    """One row per variant: n, the primary dimension as mean [CI], other dimensions' means, rates.

    A non-primary mean measured on fewer cases than the variant's n shows that count, ``(n=12)``.
    """
    dims = report_dims(aggregate)
    primary = primary_dim(aggregate)
    rates = [
        (k, label)
        for k, label in (("no_claims_rate", "no claims"), ("gate_fail_rate", "gate fail"))
        if any(k in v for v in _variants(aggregate).values())
    ]
    headers = ["variant", "n"] + [f"{d} [95% CI]" if d == primary else d for d in dims]
    headers += [label for _, label in rates]
    rows = []
    for name in variant_order(aggregate):
        v = _variants(aggregate)[name]
        n = v.get("n")
        cells = [name, fmt_int(n)]
        for d in dims:
            stat = variant_stat(aggregate, name, d)
            cells.append(fmt_mean(stat, with_ci=d == primary, n=n))
        cells += [fmt_num(v.get(k)) for k, _ in rates]
        rows.append(tuple(cells))
    numeric = (False,) + (True,) * (len(headers) - 1)
    return Table(tuple(headers), tuple(rows), numeric)


def dimension_table(aggregate: Mapping[str, Any]) -> Table | None:
    """For a single-variant run (e.g. the rationality judge's ``all``): one row per dimension with
    mean, 95% CI, std and effective_n of n. ``None`` when the run has several variants."""
    variants = _variants(aggregate)
    if len(variants) != 1:
        return None
    name = next(iter(variants))
    n = variants[name].get("n")
    rows = []
    for d in report_dims(aggregate):
        stat = variant_stat(aggregate, name, d)
        eff = fmt_int(stat.get("effective_n"))
        rows.append(
            (
                d,
                fmt_num(stat.get("mean")),
                fmt_ci(stat.get("ci")) or MISSING,
                fmt_num(stat.get("std")),
                f"{eff} of {fmt_int(n)}" if eff != MISSING else MISSING,
            )
        )
    return Table(("dimension", "mean", "95% CI", "std", "effective_n"), tuple(rows), (False, True, True, True, True))


def show_lift(aggregate: Mapping[str, Any]) -> bool:
    """Whether the report has a lift section: a baseline was named or there are several variants."""
    return bool(aggregate.get("baseline")) or len(_variants(aggregate)) > 1


def lift_dims(aggregate: Mapping[str, Any]) -> list[str]:
    """The dimensions the lift table and plot show: composite and sourcing, where present."""
    present = {d for per_dim in (aggregate.get("lift") or {}).values() for d in (per_dim or {})}
    dims = [d for d in LIFT_DIMS if d in present]
    return dims or [d for d in report_dims(aggregate) if d in present][:2]


def lift_table(aggregate: Mapping[str, Any]) -> Table | None:
    """Paired lift of each variant over the baseline: diff [CI] and pairs per lift dimension.

    ``None`` when the run has no baseline or no lift rows.
    """
    lift = aggregate.get("lift") or {}
    baseline = aggregate.get("baseline")
    names = [n for n in lift_order(aggregate) if n != baseline]
    if not baseline or not names:
        return None
    dims = lift_dims(aggregate)
    headers = ["variant"]
    for d in dims:
        headers += [f"{d} Δ [95% CI]", "pairs"]
    rows = []
    for name in names:
        cells = [name]
        for d in dims:
            row = (lift.get(name) or {}).get(d) or {}
            diff = fmt_num(row.get("diff"), signed=True)
            ci = fmt_ci(row.get("ci"), signed=True)
            cells += [f"{diff} {ci}" if ci and diff != MISSING else diff, fmt_int(row.get("n_pairs"))]
        rows.append(tuple(cells))
    return Table(tuple(headers), tuple(rows), (False,) + (True,) * (len(headers) - 1))


def agreement_tables(aggregate: Mapping[str, Any]) -> tuple[Table, Table, str] | None:
    """Agreement with human labels: (confusion matrix, metrics, what was left out), or ``None``."""
    agr = aggregate.get("agreement")
    if not agr:
        return None
    positive = str(agr.get("positive", "positive"))
    confusion = Table(
        ("", f"human: {positive}", "human: other"),
        (
            ("assay flags", fmt_int(agr.get("tp")), fmt_int(agr.get("fp"))),
            ("assay passes", fmt_int(agr.get("fn")), fmt_int(agr.get("tn"))),
        ),
        (False, True, True),
    )
    metrics = Table(
        ("n", "precision", "recall", "accuracy", "κ"),
        ((fmt_int(agr.get("n")),) + tuple(fmt_num(agr.get(k)) for k in ("precision", "recall", "accuracy", "kappa")),),
        (True,) * 5,
    )
    left_out = [f"{label} {fmt_int(count)}" for label, count in (agr.get("excluded") or {}).items()]
    if agr.get("no_claims_left_out"):
        left_out.append(f"no claims {fmt_int(agr['no_claims_left_out'])}")
    if agr.get("unlabelled_left_out"):
        left_out.append(f"no label {fmt_int(agr['unlabelled_left_out'])}")
    left = "left out: " + ", ".join(left_out) if left_out else "nothing left out"
    return confusion, metrics, left


def bottom_table(aggregate: Mapping[str, Any]) -> Table | None:
    """The lowest-scoring rows per dimension, anonymised as ``#1/#2/#3`` + variant + slice + score."""
    bottom = aggregate.get("bottom") or {}
    dims = [d for d in report_dims(aggregate) if bottom.get(d)] + [
        d for d in bottom if bottom.get(d) and d not in report_dims(aggregate)
    ]
    rows = []
    for d in dims:
        for i, row in enumerate(bottom[d]):
            rank = row.get("rank", i + 1)
            rows.append(
                (
                    d if i == 0 else "",
                    f"#{rank}",
                    str(row.get("variant", MISSING)),
                    MISSING if row.get("slice") is None else str(row["slice"]),
                    fmt_num(row.get("score")),
                )
            )
    if not rows:
        return None
    return Table(("dimension", "rank", "variant", "slice", "score"), tuple(rows), (False, False, False, False, True))


def title_line(aggregate: Mapping[str, Any]) -> str:
    """``demo · eval · backend stub · gate gate-1 · n=40``."""
    parts = [
        str(aggregate.get("name") or "assay report"),
        str(aggregate.get("kind") or "eval"),
        f"backend {aggregate.get('backend') or MISSING}",
    ]
    if aggregate.get("gate_version"):
        parts.append(f"gate {aggregate['gate_version']}")
    parts.append(f"n={aggregate.get('n', MISSING)}")
    return " · ".join(parts)


def meta_line(aggregate: Mapping[str, Any]) -> str:
    """Model, baseline and composite weights on one line."""
    parts = [f"model: {aggregate.get('model') or MISSING}", f"baseline: {aggregate.get('baseline') or MISSING}"]
    weights = aggregate.get("weights") or {}
    if weights:
        parts.append("composite weights: " + ", ".join(f"{d} {fmt_num(w)}" for d, w in weights.items()))
    return " · ".join(parts)


def lift_caption(aggregate: Mapping[str, Any]) -> str:
    """The lift section's heading."""
    baseline = aggregate.get("baseline")
    return f"Lift vs {baseline} (paired)" if baseline else "Lift"


def no_lift_reason(aggregate: Mapping[str, Any]) -> str:
    """Why there is no lift table."""
    if not aggregate.get("baseline"):
        return "No baseline variant, so no lift was computed."
    if len(_variants(aggregate)) < 2:
        return "The baseline is the only variant, so there is nothing to compare it with."
    return "No variant shares case ids with the baseline, so no paired lift was computed."


def agreement_caption(aggregate: Mapping[str, Any]) -> str:
    """The agreement section's heading: which label field and which label counts as positive."""
    agr = aggregate.get("agreement") or {}
    return f"Agreement with {agr.get('label_field', 'human labels')} (positive = {agr.get('positive', MISSING)})"


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


def fmt_mean(stat: Mapping[str, Any], *, with_ci: bool, n: Any) -> str:
    """A dimension's mean, optionally with its CI, and its effective_n when below ``n``."""
    mean = fmt_num(stat.get("mean"))
    if mean == MISSING:
        return MISSING
    ci = fmt_ci(stat.get("ci")) if with_ci else ""
    text = f"{mean} {ci}" if ci else mean
    eff, total = _num(stat.get("effective_n")), _num(n)
    if eff is not None and total is not None and eff < total:
        text += f" (n={int(eff)})"
    return text


def lift_order(aggregate: Mapping[str, Any]) -> list[str]:
    """The variants of the lift section: in :func:`variant_order`, then any others by name."""
    lift = aggregate.get("lift") or {}
    ranked = [n for n in variant_order(aggregate) if n in lift]
    return ranked + sorted(n for n in lift if n not in ranked)


def _variants(aggregate: Mapping[str, Any]) -> Mapping[str, Mapping[str, Any]]:
    return aggregate.get("variants") or {}


def variant_stat(aggregate: Mapping[str, Any], variant: str, dim: str | None) -> Mapping[str, Any]:
    """``aggregate["variants"][variant]["dims"][dim]`` (mean, std, ci, effective_n), ``{}`` when absent."""
    if dim is None:
        return {}
    return ((_variants(aggregate).get(variant) or {}).get("dims") or {}).get(dim) or {}


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None
