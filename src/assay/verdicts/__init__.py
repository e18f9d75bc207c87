"""Verdicts: a store of past decisions, retrieved by structural similarity, injected as few-shot precedents.

- :mod:`~assay.verdicts.models`: :class:`Verdict`, :class:`VerdictQuery`, :class:`ScoredVerdict`, JSONL loaders.
- :mod:`~assay.verdicts.spec`: :class:`SimilaritySpec` (field kinds, weights), :data:`DEFAULT_SPEC`.
- :mod:`~assay.verdicts.similarity`: the scalar rule and the vectorised :class:`SimilarityIndex`.
- :mod:`~assay.verdicts.store`: :class:`VerdictStore` on assay's storage (tables in
  :mod:`~assay.verdicts.tables`, statistics in :mod:`~assay.verdicts.stats`); its optional
  embedding term takes an :class:`~assay.embedding.Embedder` (re-exported here).
- :mod:`~assay.verdicts.fewshot`: :func:`few_shot_block` (ExpeL few-shot injection, framework-free).
- :mod:`~assay.verdicts.agents`: Microsoft Agent Framework context provider (``agents`` extra; not imported here).
"""

from assay.embedding import Embedder
from assay.verdicts.fewshot import few_shot_block
from assay.verdicts.models import (
    QueryError,
    ScoredVerdict,
    Verdict,
    VerdictFileError,
    VerdictQuery,
    load_query,
    load_verdicts,
    parse_query,
)
from assay.verdicts.similarity import SimilarityIndex, similarity
from assay.verdicts.spec import DEFAULT_SPEC, FieldSpec, FieldValueError, SimilaritySpec, SpecError, load_spec
from assay.verdicts.store import AddResult, DuplicateVerdictError, VerdictStore, store_sizes

__all__ = [
    "Verdict",
    "VerdictQuery",
    "ScoredVerdict",
    "VerdictFileError",
    "QueryError",
    "load_verdicts",
    "load_query",
    "parse_query",
    "SimilaritySpec",
    "FieldSpec",
    "DEFAULT_SPEC",
    "SpecError",
    "FieldValueError",
    "load_spec",
    "similarity",
    "SimilarityIndex",
    "VerdictStore",
    "AddResult",
    "store_sizes",
    "Embedder",
    "DuplicateVerdictError",
    "few_shot_block",
]
