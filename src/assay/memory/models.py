"""Memory records and the contracts between memory's rooms: the JSONL input line, the stored memory,
a search hit, the file loader, and the ``Reranker`` / ``Embedder`` / ``StoreView`` Protocols.

A memories file is JSON Lines, one memory a line::

    {"id": str (optional; default "m" + 16 hex of SHA-256 over scope and text),
     "text": str, "keywords": [str] (optional; derived from the text when absent or empty),
     "scope": str (optional), "layer": str (optional), "confidence": float in [0, 1] (default 0.5),
     "created_at": ISO-8601 (optional; default: insertion time), "source_ref": str (optional:
     the generation prompt version that wrote it), "is_correction": bool (default false),
     "supersedes": [memory ids] (optional), "embedding": [float] (optional, precomputed),
     "meta": {...} (optional, kept as is)}

Every problem is reported as ``file:line: field: problem`` (:class:`MemoryFileError`); the
loader reads the whole file before returning, so nothing is inserted from a file with a bad line.

The Protocols are how the rooms talk without importing each other upwards: retrieval serves the
:class:`Reranker` it is given (learning decides which one), feedback and learning read a store
through :class:`StoreView`, and every embedder is an :class:`~assay.embedding.Embedder` (one
contract for memory and verdicts, defined in :mod:`assay.embedding`).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import Engine

from assay.embedding import Embedder
from assay.jsonl import InputFileError, InputProblem, as_utc, bad_string, parse_model_line
from assay.jsonl import load_jsonl as _load_jsonl
from assay.memory.config import MemorySettings
from assay.memory.text import dedupe_key

__all__ = [
    "MemoryIn",
    "Memory",
    "SearchHit",
    "MemoryFileError",
    "Reranker",
    "Embedder",
    "StoreView",
    "load_memories",
    "parse_memory_line",
    "default_memory_id",
    "now_utc",
]


class MemoryIn(BaseModel):
    """One memory as written by an agent or an importer (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = Field(default=None, max_length=200)
    text: str
    keywords: tuple[str, ...] = ()
    scope: str | None = Field(default=None, max_length=200)
    layer: str | None = Field(default=None, max_length=64)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    created_at: datetime | None = None
    source_ref: str | None = Field(default=None, max_length=200)
    is_correction: bool = False
    supersedes: tuple[str, ...] = ()
    embedding: tuple[float, ...] | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must be a non-empty string")
        return v

    @field_validator("id", "text", "keywords", "scope", "layer", "source_ref", "supersedes", "meta")
    @classmethod
    def _storable(cls, v: Any) -> Any:
        """The file loader rejects these already (assay.jsonl); this covers ``MemoryStore.add(dicts)``:
        a NUL or a lone surrogate would be stored by SQLite and refused by PostgreSQL."""
        bad = bad_string(v)
        if bad is not None:
            raise ValueError(f"{bad[0] + ': ' if bad[0] else ''}{bad[1]}")
        return v

    @field_validator("id", "scope", "layer", "source_ref")
    @classmethod
    def _nonblank(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("must be a non-empty string when given")
        return v

    @field_validator("keywords")
    @classmethod
    def _keywords(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k.strip() for k in v if k.strip()))

    @field_validator("embedding")
    @classmethod
    def _finite(cls, v: tuple[float, ...] | None) -> tuple[float, ...] | None:
        if v is not None:
            if not v:
                raise ValueError("must be a non-empty list of numbers")
            if not all(math.isfinite(x) for x in v):
                raise ValueError("must hold finite numbers only")
        return v

    @field_validator("created_at")
    @classmethod
    def _utc(cls, v: datetime | None) -> datetime | None:
        return as_utc(v)

    def memory_id(self) -> str:
        """The given id, else :func:`default_memory_id` of scope and text."""
        return self.id if self.id is not None else default_memory_id(self.text, self.scope)


class Memory(BaseModel):
    """A stored memory.

    ``confidence`` is the current value, moved by corroboration and contradiction
    (:func:`assay.memory.retrieval.scoring.reliability` of ``confidence_prior`` and the counts) and
    surfaced as :attr:`reliability`. ``keywords_source`` is ``"writer"`` or ``"derived"``.
    ``superseded_by`` names the correction that replaced it (excluded from search).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    keywords: tuple[str, ...]
    keywords_source: str
    scope: str | None
    layer: str | None
    confidence: float
    confidence_prior: float
    n_corroborations: int
    n_contradictions: int
    created_at: datetime | None
    source_ref: str | None
    superseded_by: str | None
    is_correction: bool
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def reliability(self) -> float:
        """The memory's current confidence in [0, 1] (reported, weight 0 in ranking)."""
        return self.confidence


class SearchHit(BaseModel):
    """One delivered (or, in evaluation, ranked) memory.

    ``score``: the composite score (or the reranker's score when a reranker ordered the
    list). ``components``: the composite's components in [0, 1] — present when the search
    was called with ``explain=True`` (always logged with the delivery). ``delivery_id`` is
    ``None`` for rankings that are not logged.
    """

    model_config = ConfigDict(frozen=True)

    memory: Memory
    rank: int
    score: float
    components: dict[str, float] | None = None
    delivery_id: str | None = None
    search_id: str | None = None
    reranker_model: str | None = None


class MemoryFileError(InputFileError):
    """A memories (or queries) file could not be loaded; ``problems`` lists every bad line (first 50 shown)."""


@runtime_checkable
class Reranker(Protocol):
    """A second-stage ranker: how a reranker plugs into search and evaluation.

    - ``model: str`` — recorded as ``reranker_model`` with every delivery it orders, so labels
      and statistics are grouped by it;
    - ``rerank(query, memories) -> scores`` — one finite score per memory, higher is better (a
      cross-encoder's logit, a student model's probability).

    Search hands it the composite top ``MemorySettings.rerank_depth`` (50) and delivers its top k
    (:mod:`assay.memory.retrieval.search`); ``assay memory evaluate --ranker reranker --reranker
    NAME`` measures it against the same relevance labels as the other rankers. Training data for
    a reranker comes from the delivery log through ``assay memory export-labels``.

    Optional: ``rerank_pool(query, hits, k) -> hits`` — when present, search hands it the
    composite hits themselves and delivers what it returns (floors, a blend with the composite, a
    fallback to composite order on failure: :mod:`assay.memory.learning.rerankers`). Which
    reranker a store serves is decided in :mod:`assay.memory.learning.resolution`.
    """

    model: str

    def rerank(self, query: str, memories: Sequence[Memory]) -> Sequence[float]: ...


class StoreView(Protocol):
    """What feedback and learning read of a memory store: its database ``engine``, its
    ``settings`` and its ``embedder`` (a :class:`~assay.memory.MemoryStore` is one)."""

    @property
    def engine(self) -> Engine: ...

    @property
    def settings(self) -> MemorySettings: ...

    @property
    def embedder(self) -> Embedder: ...


def default_memory_id(text: str, scope: str | None) -> str:
    """``"m"`` + the first 16 hex digits of SHA-256 over ``scope`` and the text's duplicate key:
    re-adding the same text without an id is idempotent."""
    return "m" + hashlib.sha256(f"{scope or ''}\x1f{dedupe_key(text)}".encode()).hexdigest()[:16]


def now_utc() -> datetime:
    """The current time, timezone-aware UTC (every timestamp memory writes: ``created_at``,
    deliveries, grades, engagement)."""
    return datetime.fromtimestamp(time.time(), tz=UTC)


def parse_memory_line(text: str, *, file: str, line: int) -> tuple[MemoryIn | None, list[InputProblem]]:
    """Parse one JSONL line into a :class:`MemoryIn`, or return the problems found on it."""
    return parse_model_line(MemoryIn, text, file=file, line=line, what="<memory>")


def load_memories(path: str | Path) -> list[tuple[int, MemoryIn]]:
    """``[(line number, memory)]`` of a memories JSONL file; blank lines skipped.

    Raises :class:`MemoryFileError` for every malformed line, a file that is not UTF-8 or has
    no memory; ``FileNotFoundError`` when missing. Duplicate ids are checked by the store.
    """
    return load_jsonl(path, MemoryIn, what="memory")


def load_jsonl(
    path: str | Path, model: type[BaseModel], *, what: str, unique_id: bool = False
) -> list[tuple[int, Any]]:
    """Every line of a JSONL file validated as ``model``: ``[(line, record)]`` (see :func:`load_memories`).

    ``unique_id``: also report a record whose ``id`` repeats an earlier line's.
    """
    return _load_jsonl(
        path,
        lambda text, file, line: parse_model_line(model, text, file=file, line=line, what=f"<{what}>"),
        what=what,
        key=(lambda rec: rec.id) if unique_id else None,
        describe_key=lambda k: f"id {k!r}",
        error=MemoryFileError,
    )
