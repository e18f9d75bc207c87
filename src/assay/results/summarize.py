"""The one aggregation helper: local case records in, the aggregate's statistics out.

Every judge and experiment that writes an aggregate uses it (eval, the rationality judge, and
those to come: a pairwise judge, A/B arms), so the figures mean the same everywhere:

- :func:`summarize_variants`: per variant, ``n``, the shares of records meeting named
  predicates (rates), and per dimension the mean, std, 95% bootstrap CI and ``effective_n``
  (:func:`assay.stats.summarize`) and a 10-bin histogram; plus the anonymised bottom-k rows;
- :func:`paired_lift`: the paired lift of every variant over a baseline, on shared case ids
  (:func:`assay.stats.paired_bootstrap`);
- :func:`histogram`, :func:`bottom_rows`: the two pieces on their own.

Records are the local file's case records as JSON objects (``{"id", "variant", "slice",
"scores": {dim: float | None}, …}``; ``CaseRecord.to_json()`` for a model). ``None`` scores are
not measured: left out of every denominator, never a 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.results.aggregate import BottomRow, DimensionStats, Histogram, PairedLift, VariantStats
from assay.stats import paired_bootstrap, summarize

__all__ = ["HIST_EDGES", "VariantSummaries", "bottom_rows", "histogram", "paired_lift", "summarize_variants"]

#: Bin edges of every histogram: ten bins of width 0.1 over [0, 1] (1.0 falls in the last bin).
HIST_EDGES: tuple[float, ...] = tuple(round(i / 10, 1) for i in range(11))

Record = Mapping[str, Any]


@dataclass(frozen=True)
class VariantSummaries:
    """What :func:`summarize_variants` returns: ``variants`` (name → statistics, in the order
    asked or sorted by name) and ``bottom`` (dimension → lowest rows, over all records)."""

    variants: dict[str, VariantStats]
    bottom: dict[str, list[BottomRow]]


def summarize_variants(
    records: Sequence[Record],
    dims: Sequence[str],
    *,
    variant_key: str = "variant",
    variants: Sequence[str] | None = None,
    rates: Mapping[str, Callable[[Record], bool]] | None = None,
    counts: Mapping[str, Callable[[Record], int]] | None = None,
    n_resamples: int = 10_000,
    seed: int = 0,
    bottom_k: int = 3,
    bottom_dims: Sequence[str] | None = None,
    key_field: str | None = None,
) -> VariantSummaries:
    """Per-variant statistics of ``records`` on ``dims``, and the bottom ``bottom_k`` per dimension.

    Args:
        records: case records (JSON objects) with ``scores`` and ``variant_key``.
        dims: the dimensions, in report order (a record without a dimension counts as ``None``).
        variant_key: the record field that names the variant (``"variant"``; an A/B arm's field).
        variants: the variants to report, in this order, even when a variant has no record
            (``("all",)`` for a single-variant judge); default: every variant in the records,
            sorted by name.
        rates: field name → predicate; each variant gets ``round(share of its records meeting
            it, 4)`` under that name (``None`` for a variant without records). The rates
            :class:`~assay.results.VariantStats` names (eval's ``no_claims_rate``,
            ``gate_fail_rate``, ``unchecked_rate``) are written before ``dims``; another name is
            kept as an extra key.
        counts: field name → per-record count; each variant gets the sum over its records (0 for
            a variant without records), as the rates are written (eval's ``scale_from_display``).
        n_resamples, seed: bootstrap settings of :func:`assay.stats.summarize`.
        bottom_k: rows per dimension in ``bottom`` (:func:`bottom_rows`).
        bottom_dims: the dimensions ``bottom`` covers (default: ``dims``).
        key_field: the record field holding the anonymised case key shown in ``bottom`` rows.

    Returns:
        :class:`VariantSummaries`.

    Raises:
        ValueError: a score is NaN/±inf/non-numeric (:func:`assay.stats.summarize`).
    """
    by_variant = _group(records, variant_key)
    names = sorted(by_variant) if variants is None else list(variants)
    out: dict[str, VariantStats] = {}
    for name in names:
        rs = by_variant.get(name, [])
        fields: dict[str, Any] = {"n": len(rs)}
        for rate, predicate in (rates or {}).items():
            fields[rate] = round(sum(predicate(r) for r in rs) / len(rs), 4) if rs else None
        for count, per_record in (counts or {}).items():
            fields[count] = sum(per_record(r) for r in rs)
        columns = {d: [r["scores"].get(d) for r in rs] for d in dims}
        fields["dims"] = {
            d: DimensionStats(**summarize(columns[d], n_resamples=n_resamples, seed=seed).to_dict()) for d in dims
        }
        fields["hist"] = {d: histogram(columns[d]) for d in dims}
        out[name] = VariantStats.model_validate(fields)
    bottom = bottom_rows(
        records, dims if bottom_dims is None else bottom_dims, bottom_k, variant_key=variant_key, key_field=key_field
    )
    return VariantSummaries(variants=out, bottom=bottom)


def paired_lift(
    records: Sequence[Record],
    dims: Sequence[str],
    baseline: str,
    *,
    variant_key: str = "variant",
    id_key: str = "id",
    n_resamples: int = 10_000,
    seed: int = 0,
) -> dict[str, dict[str, PairedLift]]:
    """Paired lift (variant − ``baseline``) of every other variant per dimension, on shared ids.

    Pairs are the ``id_key`` values both variants scored (``None`` on either side drops the
    pair); the CI resamples pairs (:func:`assay.stats.paired_bootstrap`). Variants sorted by name.

    Raises:
        ValueError: ``baseline`` is not a variant of ``records`` (the message lists the variants).
    """
    by_variant = _group(records, variant_key)
    if baseline not in by_variant:
        raise ValueError(f"baseline variant {baseline!r} not in the cases (variants: {', '.join(sorted(by_variant))})")
    base = {d: {r[id_key]: r["scores"].get(d) for r in by_variant[baseline]} for d in dims}
    lift: dict[str, dict[str, PairedLift]] = {}
    for name in sorted(by_variant):
        if name == baseline:
            continue
        lift[name] = {
            d: PairedLift(
                **paired_bootstrap(
                    {r[id_key]: r["scores"].get(d) for r in by_variant[name]},
                    base[d],
                    n_resamples=n_resamples,
                    seed=seed,
                ).to_dict()
            )
            for d in dims
        }
    return lift


def histogram(values: Iterable[float | None]) -> Histogram:
    """Counts of the measured ``values`` (in [0, 1]; ``None`` skipped) in the bins of :data:`HIST_EDGES`."""
    counts = [0] * (len(HIST_EDGES) - 1)
    for v in values:
        if v is not None:
            counts[min(int(v * 10), 9)] += 1
    return Histogram(edges=list(HIST_EDGES), counts=counts)


def bottom_rows(
    records: Sequence[Record],
    dims: Sequence[str],
    k: int,
    *,
    variant_key: str = "variant",
    key_field: str | None = None,
) -> dict[str, list[BottomRow]]:
    """The ``k`` lowest-scoring records per dimension as rank + variant + slice + score (no id).

    Ordered by score, then variant name; ties beyond that keep the records' order. Records not
    measured on a dimension, and records scoring the maximum 1.0 (nothing to look at), are left
    out, so a dimension where every case scores 1.0 has no rows and no entry. ``key_field``: the
    record field with the case's anonymised key (:func:`assay.results.case_key`), copied into
    each row as ``key``; never the id itself.
    """
    out: dict[str, list[BottomRow]] = {}
    for d in dims:
        below = [r for r in records if r["scores"].get(d) is not None and r["scores"][d] < 1.0]
        if not below:
            continue
        scored = sorted(below, key=_by_score(d, variant_key))
        out[d] = [
            BottomRow(
                rank=i + 1,
                **({"key": r.get(key_field)} if key_field else {}),
                variant=r[variant_key],
                slice=r.get("slice"),
                score=r["scores"][d],
            )
            for i, r in enumerate(scored[:k])
        ]
    return out


# --- helpers -------------------------------------------------------------------------------


def _by_score(dim: str, variant_key: str) -> Callable[[Record], tuple[Any, Any]]:
    return lambda r: (r["scores"][dim], r[variant_key])


def _group(records: Iterable[Record], variant_key: str) -> dict[str, list[Record]]:
    by_variant: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_variant[r[variant_key]].append(r)
    return by_variant
