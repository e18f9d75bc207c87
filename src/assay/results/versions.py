"""Which result files exist, by ``kind`` and ``schema``, and how a file's JSON object is loaded.

A file's model is chosen by its ``kind`` and ``schema`` fields together (the tag ``kind/schema``,
e.g. ``eval/1``). A change of meaning is a new schema number with its own model, added to the
unions below beside the old one, so readers load every schema written so far; writers write the
newest. Today: ``eval/2`` (the coverage headline), ``eval/1`` (read: its ``composite`` is
the answered-only composite, see :func:`composite_meaning`) and ``rationality/1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Discriminator, Tag, TypeAdapter

from assay.results.aggregate import Aggregate, EvalAggregateV1, EvalAggregateV2, RationalityAggregateV1
from assay.results.local import EvalLocalV1, EvalLocalV2, LocalFile, RationalityLocalV1

__all__ = [
    "AGGREGATE_SCHEMAS",
    "LOCAL_SCHEMAS",
    "AnyAggregate",
    "AnyLocalFile",
    "composite_meaning",
    "file_tag",
    "load_aggregate",
    "load_local",
]


def file_tag(data: Any) -> str:
    """``"kind/schema"`` of a result file's JSON object or model (``"eval/1"``)."""
    if isinstance(data, Mapping):
        return f"{data.get('kind')}/{data.get('schema')}"
    return f"{getattr(data, 'kind', None)}/{getattr(data, 'schema_version', None)}"


#: Every aggregate model a reader accepts, chosen by ``kind/schema``.
AnyAggregate = Annotated[
    Annotated[EvalAggregateV2, Tag("eval/2")]
    | Annotated[EvalAggregateV1, Tag("eval/1")]
    | Annotated[RationalityAggregateV1, Tag("rationality/1")],
    Discriminator(file_tag),
]
#: Every local-file model a reader accepts, chosen by ``kind/schema``.
AnyLocalFile = Annotated[
    Annotated[EvalLocalV2, Tag("eval/2")]
    | Annotated[EvalLocalV1, Tag("eval/1")]
    | Annotated[RationalityLocalV1, Tag("rationality/1")],
    Discriminator(file_tag),
]
#: The ``kind/schema`` tags of the known files.
AGGREGATE_SCHEMAS: tuple[str, ...] = ("eval/2", "eval/1", "rationality/1")
LOCAL_SCHEMAS: tuple[str, ...] = ("eval/2", "eval/1", "rationality/1")

_AGGREGATE: TypeAdapter[EvalAggregateV2 | EvalAggregateV1 | RationalityAggregateV1] = TypeAdapter(AnyAggregate)
_LOCAL: TypeAdapter[EvalLocalV2 | EvalLocalV1 | RationalityLocalV1] = TypeAdapter(AnyLocalFile)


def composite_meaning(data: Any) -> str | None:
    """What a result file's ``composite`` is: ``"headline"`` (eval schema 2: a ``no_claims``
    answer scores 0, or 1 on an ``expect_refusal`` case), ``"answered"`` (eval schema 1: the
    rubric composite of answers with claims, ``no_claims`` left out; schema 2 calls it
    ``composite_answered``), ``None`` for other kinds (the rationality composite)."""
    tag = file_tag(data)
    return {"eval/2": "headline", "eval/1": "answered"}.get(tag)


def load_aggregate(data: Mapping[str, Any] | Aggregate) -> Aggregate:
    """The model of an aggregate file's JSON object (a model is returned as it is).

    Raises ``pydantic.ValidationError`` (a ``ValueError``) naming the field when a value has the
    wrong type, or when ``kind``/``schema`` name no known file (:data:`AGGREGATE_SCHEMAS`).
    """
    if isinstance(data, Aggregate):
        return data
    return _AGGREGATE.validate_python(data)


def load_local(data: Mapping[str, Any] | LocalFile) -> LocalFile:
    """The model of a local file's JSON object (a model is returned as it is).

    Raises ``pydantic.ValidationError`` (a ``ValueError``) naming the field when a record or value
    has the wrong type, or when ``kind``/``schema`` name no known file (:data:`LOCAL_SCHEMAS`).
    """
    if isinstance(data, LocalFile):
        return data
    return _LOCAL.validate_python(data)
