"""Eval aggregate pieces beside the per-dimension statistics: coverage flags, the per-variant
breakdown by violation kind and by slice, and the agreement of "gate failed" with a human label.

Pure functions of the local case records (JSON objects as :mod:`assay.evaluate` writes them) or of
the variant statistics; their output holds no case id (slices and violation kinds are labels of
the data set, not of a case).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from assay.results.aggregate import VariantStats
from assay.stats import agreement

__all__ = ["COVERAGE_GAP", "NO_SLICE", "breakdown", "coverage_flags", "label_agreement"]

#: Coverage difference from the baseline's above which a variant is flagged (issue 16: 10 pp).
COVERAGE_GAP = 0.10
#: The breakdown's name for records without a slice.
NO_SLICE = "(no slice)"

Record = Mapping[str, Any]


def coverage_flags(
    variants: Mapping[str, VariantStats], baseline: str | None, *, gap: float = COVERAGE_GAP, dim: str = "coverage"
) -> list[dict[str, Any]]:
    """The variants whose mean ``dim`` (coverage, in [0, 1]) differs from the baseline's by more
    than ``gap``: ``[{"variant", "coverage", "baseline_coverage", "diff"}]`` (``diff`` = variant −
    baseline, 4 decimals), variants by name. Empty without a baseline or when a side has no mean.
    A variant with a lower coverage answered fewer cases, so its headline composite and its
    answered-only composite tell different stories; a higher one is flagged too (the baseline is
    then the one saying less)."""
    base = variants.get(baseline) if baseline is not None else None
    base_mean = _mean(base, dim)
    if base_mean is None:
        return []
    flags = []
    for name in sorted(variants):
        mean = _mean(variants[name], dim)
        if name == baseline or mean is None:
            continue
        diff = mean - base_mean
        if abs(diff) > gap + 1e-12:
            flags.append({"variant": name, "coverage": mean, "baseline_coverage": base_mean, "diff": round(diff, 4)})
    return flags


def breakdown(records: Sequence[Record]) -> dict[str, dict[str, Any]]:
    """Per variant (sorted): ``{"violations": {kind: cases with at least one violation of that
    kind}, "slices": {slice: {"n", "composite", "coverage"}}}``; slice means are over the slice's
    measured cases, 6 decimals (``None`` when none was measured: at 4, a mean of 0.213533 stored as
    0.2135 printed as 0.213 beside the variant table's 0.214); kinds and slices sorted, records
    without a slice under :data:`NO_SLICE`."""
    by_variant: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_variant[r["variant"]].append(r)
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(by_variant):
        rs = by_variant[name]
        kinds: Counter[str] = Counter()
        for r in rs:
            kinds.update({str(v.get("kind")) for v in r.get("violations") or ()})
        slices: dict[str, list[Record]] = defaultdict(list)
        for r in rs:
            slices[NO_SLICE if r.get("slice") is None else str(r["slice"])].append(r)
        out[name] = {
            "violations": dict(sorted(kinds.items())),
            "slices": {
                s: {"n": len(group), "composite": _share(group, "composite"), "coverage": _share(group, "coverage")}
                for s, group in sorted(slices.items())
            },
        }
    return out


def label_agreement(
    records: Sequence[Record], label_field: str | None, positive: str | None, exclude_labels: Collection[str] = ()
) -> dict[str, Any] | None:
    """Agreement of "gate failed" with the records' ``label`` (``== positive`` is a positive),
    :func:`assay.stats.agreement`; ``None`` without a label field or positive value. Unlabelled,
    excluded and ``no_claims`` records are left out and counted."""
    if not label_field or positive is None:
        return None
    excluded: dict[str, int] = defaultdict(int)
    no_claims = unlabelled = 0
    predicted: list[bool] = []
    actual: list[bool] = []
    for r in records:
        label = r["label"]
        if label is None:
            unlabelled += 1
        elif label in exclude_labels:
            excluded[label] += 1
        elif r["status"] == "no_claims":
            no_claims += 1
        else:
            predicted.append(r["status"] == "fail")
            actual.append(label == positive)
    result = agreement(predicted, actual).to_dict()
    return {
        "label_field": label_field,
        "positive": positive,
        "predicted": "gate failed",
        "excluded": dict(excluded),
        "no_claims_left_out": no_claims,
        "unlabelled_left_out": unlabelled,
        **result,
    }


def _mean(stats: VariantStats | None, dim: str) -> float | None:
    d = stats.dims.get(dim) if stats is not None else None
    return None if d is None or d.mean is None else float(d.mean)


def _share(records: Sequence[Record], dim: str) -> float | None:
    values = [r["scores"].get(dim) for r in records if r["scores"].get(dim) is not None]
    return round(sum(values) / len(values), 6) if values else None
