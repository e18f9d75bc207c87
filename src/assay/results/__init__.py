"""Typed result files: ``NAME.local.json`` (per case, with ids) and ``NAME.aggregate.json``
(figures only, never a case id), as pydantic models versioned by their ``schema`` field.

DESIGN.md "Result files" is the contract; these models are its code. A file's model is chosen
by ``kind`` and ``schema`` (:mod:`assay.results.versions`): :func:`load_local` and
:func:`load_aggregate` turn a file's JSON object into its model, and ``model.to_json()`` gives
the same object back (same keys, same order, same numbers), so
:func:`assay.atomic.dumps_json` writes the same bytes.

- :class:`ResultModel`: the base of every model (extra keys kept, ``to_json()`` in file order);
- :mod:`assay.results.local`: :class:`CaseRecord` and the local files of each kind;
- :mod:`assay.results.aggregate`: :class:`DimensionStats`, :class:`Histogram`,
  :class:`VariantStats`, :class:`PairedLift`, :class:`BottomRow`, :class:`LabelAgreement` and the
  aggregates of each kind (:class:`Aggregate` is what the reports read);
- :mod:`assay.results.summarize`: the one aggregation helper (mean/std/CI/effective_n,
  histogram, anonymised bottom-k, paired lift) every judge and experiment uses. It needs
  numpy/scipy (:mod:`assay.stats`), so it is imported from its module, not from here: reading
  a result file stays light.
"""

from __future__ import annotations

from assay.results._base import ResultModel
from assay.results.aggregate import (
    Aggregate,
    BottomRow,
    DimensionStats,
    EvalAggregateV1,
    EvalAggregateV2,
    Histogram,
    LabelAgreement,
    PairedLift,
    RationalityAggregateV1,
    VariantStats,
)
from assay.results.local import (
    CaseRecord,
    EvalCaseRecord,
    EvalCaseRecordV2,
    EvalLocalV1,
    EvalLocalV2,
    LocalFile,
    RationalityCaseRecord,
    RationalityLocalV1,
    case_key,
)
from assay.results.versions import (
    AGGREGATE_SCHEMAS,
    LOCAL_SCHEMAS,
    AnyAggregate,
    AnyLocalFile,
    composite_meaning,
    file_tag,
    load_aggregate,
    load_local,
)

__all__ = [
    "AGGREGATE_SCHEMAS",
    "LOCAL_SCHEMAS",
    "Aggregate",
    "AnyAggregate",
    "AnyLocalFile",
    "BottomRow",
    "CaseRecord",
    "DimensionStats",
    "EvalAggregateV1",
    "EvalAggregateV2",
    "EvalCaseRecord",
    "EvalCaseRecordV2",
    "EvalLocalV1",
    "EvalLocalV2",
    "Histogram",
    "LabelAgreement",
    "LocalFile",
    "PairedLift",
    "RationalityAggregateV1",
    "RationalityCaseRecord",
    "RationalityLocalV1",
    "ResultModel",
    "VariantStats",
    "case_key",
    "composite_meaning",
    "file_tag",
    "load_aggregate",
    "load_local",
]
