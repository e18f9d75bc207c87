"""The eval report's sections beyond the variant and lift tables (issue 16): coverage flags, the
per-variant breakdown by violation kind and by slice, the run id, and how a dimension is labelled.

Like :mod:`assay.reports.tables`, every function takes the aggregate model and returns preformatted
cells; an aggregate without the section's field (schema 1, the rationality judge) gives ``None``.
"""

from __future__ import annotations

from typing import Any

from assay.reports.tables import (
    FLAG,
    MISSING,
    Table,
    coverage_flagged,
    coverage_flags_of,
    dim_label,
    fmt_int,
    fmt_num,
    variant_order,
)
from assay.results import Aggregate

__all__ = [
    "FLAG",
    "coverage_caption",
    "coverage_flagged",
    "coverage_table",
    "dim_label",
    "run_id",
    "slice_table",
    "violation_table",
]


def run_id(aggregate: Aggregate) -> str | None:
    """The run id the four report files share (eval schema 2), ``None`` when the file has none."""
    value = getattr(aggregate, "run_id", None) or (aggregate.model_extra or {}).get("run_id")
    return str(value) if value else None


def coverage_caption(aggregate: Aggregate) -> str:
    """The coverage section's heading."""
    return f"{FLAG} Coverage differs from {aggregate.baseline or 'the baseline'}'s by more than 10 pp"


def coverage_table(aggregate: Aggregate) -> Table | None:
    """The flagged variants: coverage, the baseline's, the difference in percentage points."""
    flags = coverage_flags_of(aggregate)
    if not flags:
        return None
    rows = tuple(
        (
            str(f.get("variant")),
            fmt_num(f.get("coverage")),
            fmt_num(f.get("baseline_coverage")),
            _pp(f.get("diff")),
        )
        for f in flags
    )
    return Table(("variant", "coverage", "baseline coverage", "Δ (pp)"), rows, (False, True, True, True))


def violation_table(aggregate: Aggregate) -> Table | None:
    """Per variant (report order), the cases with at least one violation of each kind (columns:
    kinds seen in any variant). ``None`` when no variant has a violation or there is no breakdown."""
    per_variant = {n: dict(b.get("violations") or {}) for n, b in _breakdown(aggregate).items()}
    kinds = sorted({k for v in per_variant.values() for k in v})
    if not kinds:
        return None
    names = [n for n in variant_order(aggregate) if n in per_variant]
    names += sorted(n for n in per_variant if n not in names)
    rows = []
    for name in names:
        n = aggregate.variants[name].n if name in aggregate.variants else None
        rows.append((name, fmt_int(n), *(fmt_int(per_variant[name].get(k, 0)) for k in kinds)))
    return Table(("variant", "n", *kinds), tuple(rows), (False, True, *(True,) * len(kinds)))


def slice_table(aggregate: Aggregate) -> Table | None:
    """Per variant (report order) and slice: n, the headline composite and the coverage means.
    ``None`` when there is no breakdown or every case is in one unnamed slice."""
    per_variant = {n: dict(b.get("slices") or {}) for n, b in _breakdown(aggregate).items()}
    if not any(per_variant.values()) or all(len(s) <= 1 and "(no slice)" in s for s in per_variant.values()):
        return None
    names = [n for n in variant_order(aggregate) if n in per_variant]
    names += sorted(n for n in per_variant if n not in names)
    rows = []
    for name in names:
        for i, (sl, stats) in enumerate(per_variant[name].items()):
            stats = stats if isinstance(stats, dict) else {}
            rows.append(
                (
                    name if i == 0 else "",
                    sl,
                    fmt_int(stats.get("n")),
                    fmt_num(stats.get("composite")),
                    fmt_num(stats.get("coverage")),
                )
            )
    return Table(("variant", "slice", "n", "composite", "coverage"), tuple(rows), (False, False, True, True, True))


def _breakdown(aggregate: Aggregate) -> dict[str, dict[str, Any]]:
    value = getattr(aggregate, "breakdown", None) or {}
    return {str(k): v for k, v in value.items() if isinstance(v, dict)}


def _pp(diff: Any) -> str:
    text = fmt_num(diff, signed=True)
    return MISSING if text == MISSING else f"{float(diff) * 100:+.0f}"
