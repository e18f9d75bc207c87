"""``NAME.aggregate.json``: the figures of one run — shareable, never a case id.

Every aggregate is ``{"schema", "kind", "name", "backend", "model", "n", "dims", "baseline",
"notes", "variants": {V: VariantStats}, "lift": {V: {dim: PairedLift}}, "bottom": {dim:
[BottomRow]}, …}``; a single-variant run (the rationality judge) has one variant named ``all``
and no lift. The kinds add their own fields:

- ``eval`` (:class:`EvalAggregateV2`; :class:`EvalAggregateV1` before the coverage headline):
  ``gate_version``, the composite ``weights``, the ``agreement`` of "gate failed" with a human
  label, the faithfulness ``judge`` summary; schema 2 adds ``run_id``, ``coverage_flags`` and the
  per-variant ``breakdown`` by violation kind and slice;
- ``rationality`` (:class:`RationalityAggregateV1`): the ``axes``, the counts of missing,
  rejected and skipped traces, LLM ``usage`` and the ``n_resamples`` used.

Statistics are as :mod:`assay.stats` writes them: floats rounded to 6 places, ``null`` where a
statistic is undefined (no measured case, fewer than 2 for a CI), never NaN.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from assay.results._base import Interval, Number, ResultModel

__all__ = [
    "Aggregate",
    "BottomRow",
    "DimensionStats",
    "EvalAggregateV1",
    "EvalAggregateV2",
    "Histogram",
    "LabelAgreement",
    "PairedLift",
    "RationalityAggregateV1",
    "VariantStats",
]


class DimensionStats(ResultModel):
    """One dimension of one variant (:meth:`assay.stats.Summary.to_dict`): ``mean`` (``None`` when
    no case was measured), sample ``std`` and 95% bootstrap ``ci`` (``None`` below 2 measured
    cases), ``effective_n`` (cases measured; ``None`` scores are left out of the denominator)."""

    mean: Number | None = None
    std: Number | None = None
    ci: Interval | None = None
    effective_n: int | None = None


class Histogram(ResultModel):
    """Counts of measured scores per bin: ``counts[i]`` for ``edges[i] <= score < edges[i+1]``
    (the last bin includes 1.0); ``len(edges) == len(counts) + 1`` when written by assay."""

    edges: list[Number] = Field(default_factory=list)
    counts: list[int] = Field(default_factory=list)


class VariantStats(ResultModel):
    """One variant: ``n`` cases, per-dimension statistics and histograms, and the kind's rates
    (``eval``: ``no_claims_rate``, ``gate_fail_rate``, ``unchecked_rate``: shares of the variant's
    cases, 4 decimals; ``unchecked_rate`` counts the status ``unchecked`` apart from ``no_claims``)
    and counts (``eval``: ``scale_from_display``, quantities the gate matched through the
    displayed-value rule, their scale taken from the source's display; both since gate-6)."""

    n: int | None = None
    no_claims_rate: Number | None = None
    gate_fail_rate: Number | None = None
    unchecked_rate: Number | None = None
    scale_from_display: int | None = None
    dims: dict[str, DimensionStats] = Field(default_factory=dict)
    hist: dict[str, Histogram] = Field(default_factory=dict)


class PairedLift(ResultModel):
    """Mean paired difference (variant − baseline, or run B − run A) over shared case ids with its
    paired bootstrap ``ci`` (:meth:`assay.stats.PairedDiff.to_dict`); ``diff`` ``None`` with no
    pair, ``ci`` ``None`` below 2 pairs."""

    diff: Number | None = None
    ci: Interval | None = None
    n_pairs: int | None = None


class BottomRow(ResultModel):
    """One of the lowest-scoring cases of a dimension, anonymised: rank (1 = lowest), variant,
    slice and score — never the case id; ``key`` (eval schema 2) is the run's salted hash of the
    case, which only the local file (holding the salt and the ids) maps back."""

    rank: int | None = None
    key: str | None = None
    variant: str | None = None
    slice: str | None = None
    score: Number | None = None


class LabelAgreement(ResultModel):
    """Agreement of a binary prediction (``predicted``, e.g. "gate failed") with a human label
    (``label_field`` = ``positive``): what was left out, the confusion matrix and its rates
    (:meth:`assay.stats.Agreement.to_dict`)."""

    label_field: str | None = None
    positive: str | None = None
    predicted: str | None = None
    excluded: dict[str, int] = Field(default_factory=dict)
    no_claims_left_out: int | None = None
    unlabelled_left_out: int | None = None
    tp: int | None = None
    fp: int | None = None
    fn: int | None = None
    tn: int | None = None
    n: int | None = None
    precision: Number | None = None
    recall: Number | None = None
    accuracy: Number | None = None
    kappa: Number | None = None


class Aggregate(ResultModel):
    """An aggregate of any kind: the fields the reports read. ``dims`` is the report order of the
    dimensions; ``gate_version``, ``weights`` and ``agreement`` appear where the kind has them."""

    schema_version: int = Field(alias="schema")
    kind: str
    name: str | None = None
    backend: str | None = None
    model: str | None = None
    gate_version: str | None = None
    n: int | None = None
    dims: list[str] = Field(default_factory=list)
    baseline: str | None = None
    weights: dict[str, Number] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    variants: dict[str, VariantStats] = Field(default_factory=dict)
    lift: dict[str, dict[str, PairedLift]] = Field(default_factory=dict)
    agreement: LabelAgreement | None = None
    bottom: dict[str, list[BottomRow]] = Field(default_factory=dict)


class EvalAggregateV1(Aggregate):
    """``eval`` aggregate, schema 1. ``judge``: the faithfulness judge's summary (counts, reasons,
    usage; no case id), present only when a judge ran."""

    schema_version: Literal[1] = Field(alias="schema")
    kind: Literal["eval"]
    judge: dict[str, Any] | None = None

    key_order: ClassVar[tuple[str, ...]] = (
        "schema",
        "kind",
        "name",
        "backend",
        "model",
        "gate_version",
        "n",
        "dims",
        "baseline",
        "weights",
        "notes",
        "variants",
        "lift",
        "agreement",
        "bottom",
        "judge",
    )


class EvalAggregateV2(EvalAggregateV1):
    """``eval`` aggregate, schema 2: ``dims`` starts ``composite`` (the headline: ``no_claims``
    scores 0, or 1 on an ``expect_refusal`` case), ``composite_answered`` (schema 1's composite)
    and ``coverage`` (share of cases with a checkable claim). ``run_id``: shared by the run's four
    files. ``coverage_flags``: the variants whose coverage differs from the baseline's by more than
    0.10, ``[{"variant", "coverage", "baseline_coverage", "diff"}]``. ``breakdown``: per variant,
    ``{"violations": {kind: cases}, "slices": {slice: {"n", "composite", "coverage"}}}``."""

    schema_version: Literal[2] = Field(alias="schema")  # type: ignore[assignment]  # narrower than V1's 1
    run_id: str | None = None
    coverage_flags: list[dict[str, Any]] = Field(default_factory=list)
    breakdown: dict[str, dict[str, Any]] = Field(default_factory=dict)

    key_order: ClassVar[tuple[str, ...]] = (
        "schema",
        "kind",
        "run_id",
        "name",
        "backend",
        "model",
        "gate_version",
        "n",
        "dims",
        "baseline",
        "weights",
        "notes",
        "variants",
        "coverage_flags",
        "lift",
        "breakdown",
        "agreement",
        "bottom",
        "judge",
    )


class RationalityAggregateV1(Aggregate):
    """``rationality`` aggregate, schema 1: one variant ``all``; ``usage`` of the LLM backend
    (empty for stub and heuristic); ``n_resamples`` of the bootstrap CIs."""

    schema_version: Literal[1] = Field(alias="schema")
    kind: Literal["rationality"]
    axes: list[str] = Field(default_factory=list)
    cases_with_synthesis_llm_call: int = 0
    n_missing_trace: int = 0
    n_rejected: int = 0
    n_skipped: int = 0
    usage: dict[str, Any] = Field(default_factory=dict)
    n_resamples: int | None = None

    key_order: ClassVar[tuple[str, ...]] = (
        "schema",
        "kind",
        "name",
        "backend",
        "model",
        "n",
        "dims",
        "axes",
        "cases_with_synthesis_llm_call",
        "n_missing_trace",
        "n_rejected",
        "n_skipped",
        "usage",
        "n_resamples",
        "baseline",
        "notes",
        "variants",
        "lift",
        "bottom",
    )
