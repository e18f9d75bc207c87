"""Verdicts, queries and retrieval results, and the JSONL / JSON loaders for them.

A verdicts file is JSON Lines, one verdict a line::

    {"id": str, "fields": {...}, "decision": str, "rationale": str, "description": str,
     "created_at": ISO-8601 (optional), "source": str (optional)}

``fields`` are checked against the store's :class:`~assay.verdicts.spec.SimilaritySpec` (every
spec field required, none unknown). A query file is ``{"fields": {...}, "description": str
(optional)}``; its fields may be a subset of the spec's (absent fields score 0). Every problem is
reported as ``file:line: field: problem``; the loaders read the whole file before returning, so a
caller inserts nothing from a file with any bad line.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.jsonl import InputFileError, InputProblem, as_utc, json_object, load_jsonl, read_utf8, validation_problems
from assay.verdicts.spec import FieldValueError, SimilaritySpec

__all__ = [
    "Verdict",
    "VerdictQuery",
    "ScoredVerdict",
    "VerdictFileError",
    "QueryError",
    "parse_verdict_line",
    "load_verdicts",
    "load_query",
    "parse_query",
]


class Verdict(BaseModel):
    """One past decision on a proposal.

    ``fields`` hold the structured description similarity is computed over (canonical form
    after :meth:`SimilaritySpec.validate_fields`); ``description`` is the proposal's free text,
    ``rationale`` why ``decision`` was taken. ``created_at`` is normalised to UTC (a value
    without an offset is read as UTC).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(max_length=512)  # the column width (portable to PostgreSQL)
    fields: dict[str, Any]
    decision: str
    rationale: str
    description: str
    created_at: datetime | None = None
    source: str | None = None

    @field_validator("id", "decision")
    @classmethod
    def _nonempty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must be a non-empty string")
        return v

    @field_validator("created_at")
    @classmethod
    def _utc(cls, v: datetime | None) -> datetime | None:
        return as_utc(v)

    def to_json(self) -> dict[str, Any]:
        """The JSONL form of this verdict (``created_at`` as ISO-8601, absent optionals left out)."""
        return self.model_dump(mode="json", exclude_none=True)


class VerdictQuery(BaseModel):
    """What to retrieve precedents for: structured ``fields`` (a subset of the spec's) and,
    for a spec with an embedding term, the new proposal's ``description``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fields: dict[str, Any] = Field(default_factory=dict)
    description: str | None = None


class ScoredVerdict(BaseModel):
    """A retrieved verdict: ``score`` in [0, 1] (weighted sum of ``components``), ``rank`` from 1.

    ``components`` maps each spec field (and ``embedding`` when its weight is > 0) to its
    unweighted similarity in [0, 1].
    """

    model_config = ConfigDict(frozen=True)

    verdict: Verdict
    score: float
    components: dict[str, float]
    rank: int

    def summary(self) -> dict[str, Any]:
        """``{"id", "score", "components", "decision"}`` — the ``verdicts search --json`` record."""
        return {
            "id": self.verdict.id,
            "score": self.score,
            "components": dict(self.components),
            "decision": self.verdict.decision,
        }


class QueryError(ValueError):
    """A query does not fit the spec: ``where: field: problem``."""

    def __init__(self, where: str, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{where}: {field}: {problem}")


class VerdictFileError(InputFileError):
    """A verdicts or query file could not be loaded; ``problems`` lists every bad line (first 50 shown)."""


def parse_verdict_line(
    text: str, spec: SimilaritySpec, *, file: str, line: int
) -> tuple[Verdict | None, list[InputProblem]]:
    """Parse one JSONL line into a :class:`Verdict` with canonical fields, or return its problems."""
    obj, problems = json_object(text, file=file, line=line)
    if obj is None:
        return None, problems
    if isinstance(obj.get("fields"), Mapping):  # canonicalise first: no copy of the model after
        try:
            obj["fields"] = spec.validate_fields(obj["fields"])
        except FieldValueError as e:
            problems.append(InputProblem(file=file, line=line, field=e.field, problem=e.problem))
    try:
        v = Verdict.model_validate(obj)
    except ValidationError as e:
        problems.extend(_problems(e, file=file, line=line))
    return (None, problems) if problems else (v, [])


def load_verdicts(path: str | Path, spec: SimilaritySpec) -> list[tuple[int, Verdict]]:
    """Load a verdicts JSONL file as ``[(line, verdict)]`` (blank lines skipped).

    Raises :class:`VerdictFileError` listing every bad line (:func:`parse_verdict_line`), a
    duplicate ``id`` (naming both lines), bytes that are not UTF-8 or a file with no verdicts;
    ``FileNotFoundError`` if missing.
    """
    return load_jsonl(
        path,
        lambda text, file, line: parse_verdict_line(text, spec, file=file, line=line),
        what="verdicts",
        key=lambda v: v.id,
        describe_key=lambda k: f"id {k!r}",
        error=VerdictFileError,
    )


def parse_query(obj: Any, spec: SimilaritySpec, *, where: str = "query") -> VerdictQuery:
    """Validate a query (a mapping or :class:`VerdictQuery`) against ``spec``.

    Returns the query with canonical fields (absent/null ones dropped). Raises
    :class:`QueryError` ``where: field: problem`` for an unknown field, a wrong type, a negative
    amount the spec forbids, or a missing ``description`` when the spec has an embedding term.
    """
    if isinstance(obj, VerdictQuery):
        obj = obj.model_dump()
    if not isinstance(obj, Mapping):
        raise QueryError(where, "<query>", f"expected a JSON object with 'fields', got {type(obj).__name__}")
    try:
        q = VerdictQuery.model_validate(obj)
        fields = spec.validate_fields(q.fields, partial=True)
    except ValidationError as e:
        p = _problems(e, file=where, line=0)[0]
        raise QueryError(where, p.field, p.problem) from None
    except FieldValueError as e:
        raise QueryError(where, e.field, e.problem) from None
    if spec.embedding.weight > 0 and not (q.description or "").strip():
        raise QueryError(where, "description", "required: the spec's embedding term has weight > 0")
    return q.model_copy(update={"fields": fields})


def load_query(path: str | Path, spec: SimilaritySpec) -> VerdictQuery:
    """Load a query JSON file (see :func:`parse_query`); syntax errors name ``file:line``."""
    obj, problems = json_object(read_utf8(path, VerdictFileError), file=str(path), line=1)
    if obj is None:
        raise VerdictFileError(problems)
    return parse_query(obj, spec, where=str(path))


# --- helpers -------------------------------------------------------------------------------


def _problems(e: ValidationError, *, file: str, line: int) -> list[InputProblem]:
    return validation_problems(e, file=file, line=line, what="<verdict>")
