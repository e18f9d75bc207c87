"""The replay harness's records and its one settings dataclass.

A :class:`Session` is an ordered list of :class:`Turn` (``id``, ``speaker``, ``text``) with a
``cohort`` (default: the session id) — the unit every CI resamples. A :class:`Question` is a later
query of a cohort with the ``evidence`` turn ids that answer it (LoCoMo's QA), the findability
backtest's ground truth. A :class:`Memory` is what a writing prompt (an arm) produced from one
session, with the turn ids it came from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.jsonl import read_utf8

__all__ = ["Turn", "Session", "Question", "Memory", "ReplaySettings", "load_sessions", "load_questions"]


class Turn(BaseModel):
    """One turn of a session: its id (unique in the cohort), the speaker and the text."""

    model_config = ConfigDict(frozen=True)
    id: str = Field(min_length=1)
    speaker: str = ""
    text: str


class Session(BaseModel):
    """An ordered list of turns; ``cohort`` groups sessions (one user, one conversation)."""

    model_config = ConfigDict(frozen=True)
    id: str = Field(min_length=1)
    turns: tuple[Turn, ...]
    cohort: str | None = None
    date: str | None = None

    @property
    def cluster(self) -> str:
        """The cohort, or the session id when none is named."""
        return self.cohort or self.id


class Question(BaseModel):
    """A later query of ``cohort`` and the turn ids (``evidence``) holding its answer."""

    model_config = ConfigDict(frozen=True)
    id: str
    cohort: str
    text: str
    evidence: tuple[str, ...] = Field(min_length=1)


class Memory(BaseModel):
    """A generated memory: ``text`` and the ``source_turns`` it was written from."""

    model_config = ConfigDict(frozen=True)
    id: str
    session: str
    cohort: str
    text: str
    source_turns: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReplaySettings:
    """Settings of one replay run, with their rationale.

    - ``k`` = 10: the findability backtest's cut-off, the depth a memory tool injects (and the
      recall@10 that ``assay memory eval`` reports).
    - ``dedup_cosine`` = 0.95: two memories whose embeddings' cosine is at least this are
      duplicates even when their dedupe keys differ (MiniLM puts paraphrases with one changed
      word above 0.95 and distinct facts about one person well below it); equal
      :func:`assay.memory.text.dedupe_key` is always a duplicate.
    - ``max_memories`` = 64: a cap on one session's memories from a generator (a runaway reply).
    - ``generator_max_tokens`` = 1024: the completion cap of one LLM generation call.
    """

    k: int = 10
    dedup_cosine: float = 0.95
    max_memories: int = 64
    generator_max_tokens: int = 1024
    n_resamples: int = 10_000
    seed: int = 0


def load_sessions(path: str | Path) -> list[Session]:
    """Sessions from JSONL, one a line: ``{"id", "turns": [{"id", "speaker"?, "text"}], "cohort"?,
    "date"?}``. Raises ``ValueError`` ``file:line: field: problem`` (also for a duplicate session id)."""
    out: list[Session] = []
    for n, obj in _jsonl(path):
        try:
            out.append(Session.model_validate(obj))
        except ValidationError as e:
            raise ValueError(f"{path}:{n}: {_loc(e)}") from None
        if sum(s.id == out[-1].id for s in out) > 1:
            raise ValueError(f"{path}:{n}: id: duplicate session id {out[-1].id!r}")
    return out


def load_questions(path: str | Path) -> list[Question]:
    """Questions from JSONL: ``{"id", "cohort", "text", "evidence": [turn ids]}`` a line."""
    out: list[Question] = []
    for n, obj in _jsonl(path):
        try:
            out.append(Question.model_validate(obj))
        except ValidationError as e:
            raise ValueError(f"{path}:{n}: {_loc(e)}") from None
    return out


def _jsonl(path: str | Path) -> list[tuple[int, object]]:
    rows = []
    for n, line in enumerate(read_utf8(Path(path)).splitlines(), 1):
        if line.strip():
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: <json>: {e.msg}") from None
    return rows


def _loc(e: ValidationError) -> str:
    err = e.errors()[0]
    return f"{'.'.join(map(str, err['loc'])) or '<line>'}: {err['msg']}"
