"""Behavioural engagement — the primary label: did the agent's response use a delivered memory?

Per delivered memory, given the response to the turn and the prompt it answered:

1. Lexical (:func:`lexical_engagement`): the memory's distinctive terms ``D`` (content terms of
   its text and keywords, :func:`~assay.memory.text.distinctive_terms`) and the response's
   new terms ``R`` (content terms of the response minus those of the prompt — echoing the
   question shows nothing), both without the prompt's terms. ``engaged_score`` is the overlap
   coefficient ``|D ∩ R| / min(|D|, |R|)`` (Szymkiewicz–Simpson: fair to a three-word answer
   and to a long note alike); engaged when ``|D ∩ R| ≥ 1`` and the coefficient is ≥
   ``lexical_min_overlap`` (0.5), or when ``|D ∩ R| ≥ lexical_min_terms`` (2).
   ``engaged_method="lexical"``. Terms are Unicode-aware (Hangul/CJK bigrams: ``매출은`` and
   ``매출`` overlap).
2. Semantic second chance, only where lexical says no: cosine of the memory's and the
   response's embeddings ≥ ``semantic_threshold`` (0.55) → engaged; ``engaged_method=
   "semantic"`` either way, ``engaged_score`` = the cosine, ``lexical_score`` kept.

Each labelled delivery also records its ``engagement_procedure``: ``"lexical"`` (no semantic
chance), ``"lexical+semantic"``, or ``"lexical+semantic-backfill"`` (lexical live, semantic
later by :mod:`assay.memory.feedback.backfill`). Rates are computed per procedure, never pooled
(:func:`engagement_rate` refuses a mix).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import select, update

from assay.memory.config import MemorySettings
from assay.memory.feedback.deliveries import UnknownSearchError, deliveries_of, write_with_retry
from assay.memory.models import StoreView, now_utc
from assay.memory.tables import memories, memory_deliveries, memory_responses
from assay.memory.text import distinctive_terms, terms
from assay.storage import upsert

__all__ = [
    "LexicalResult",
    "Label",
    "EngagementReport",
    "lexical_engagement",
    "label_engagement",
    "engage",
    "engagement_rate",
    "memory_rows",
    "PROCEDURES",
]

#: The engagement procedures a delivery can be labelled by.
PROCEDURES = ("lexical", "lexical+semantic", "lexical+semantic-backfill")


@dataclass(frozen=True)
class LexicalResult:
    """``engaged``, ``score`` (overlap coefficient in [0, 1]) and the shared terms."""

    engaged: bool
    score: float
    overlap: frozenset[str]


@dataclass(frozen=True)
class Label:
    """One delivery's engagement label (see the module docstring)."""

    engaged: bool
    score: float
    method: str
    lexical_score: float


@dataclass
class EngagementReport:
    """What :func:`engage` labelled: ``n`` deliveries, ``engaged`` per method, ``relabelled``
    (had a label before), ``skipped`` (memory no longer stored), the ``procedure``."""

    search_id: str
    procedure: str
    n: int = 0
    engaged: dict[str, int] = field(default_factory=dict)
    relabelled: int = 0
    skipped: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "search_id": self.search_id,
            "procedure": self.procedure,
            "n": self.n,
            "engaged": dict(self.engaged),
            "relabelled": self.relabelled,
            "skipped": self.skipped,
        }


def lexical_engagement(
    memory_text: str,
    keywords: Sequence[str],
    response: str,
    prompt: str = "",
    *,
    min_overlap: float = 0.5,
    min_terms: int = 2,
) -> LexicalResult:
    """Lexical engagement of one memory with a response (step 1 of the module docstring)."""
    p = terms(prompt) if prompt else set()
    d = distinctive_terms(memory_text, keywords) - p
    r = terms(response) - p
    shared = d & r
    denom = min(len(d), len(r))
    score = len(shared) / denom if denom else 0.0
    engaged = bool(shared) and (score >= min_overlap or len(shared) >= min_terms)
    return LexicalResult(engaged, score, frozenset(shared))


def label_engagement(
    memory_text: str,
    keywords: Sequence[str],
    response: str,
    prompt: str = "",
    *,
    settings: MemorySettings,
    memory_vector: np.ndarray | None = None,
    response_vector: np.ndarray | None = None,
) -> Label:
    """Lexical label, then the semantic second chance when both unit vectors are given."""
    lex = lexical_engagement(
        memory_text,
        keywords,
        response,
        prompt,
        min_overlap=settings.lexical_min_overlap,
        min_terms=settings.lexical_min_terms,
    )
    if lex.engaged or memory_vector is None or response_vector is None:
        return Label(lex.engaged, lex.score, "lexical", lex.score)
    cos = float(np.clip(np.dot(memory_vector, response_vector), -1.0, 1.0))
    return Label(cos >= settings.semantic_threshold, cos, "semantic", lex.score)


def engage(
    store: StoreView, search_id: str, response: str, *, prompt: str | None = None, semantic: bool | None = None
) -> EngagementReport:
    """Label every delivery of ``search_id`` against the agent's ``response`` and record the response.

    ``prompt``: what the response answered (default: the search's logged context window).
    ``semantic``: the second chance (default ``settings.semantic_engagement``; needs the
    embedder). Raises ``ValueError`` for a blank response, :class:`UnknownSearchError` for a
    search without deliveries. Labelling the same search again overwrites (``relabelled``).
    """
    if not response.strip():
        raise ValueError("empty response: nothing to label engagement against")
    rows = deliveries_of(store.engine, search_id)
    if not rows:
        raise UnknownSearchError(f"unknown search id {search_id!r}: no deliveries were logged under it")
    s = store.settings
    semantic = s.semantic_engagement if semantic is None else semantic
    prompt = rows[0].query if prompt is None else prompt
    procedure = "lexical+semantic" if semantic else "lexical"
    mems = memory_rows(store, [r.memory_id for r in rows], vectors=semantic)
    response_vec = store.embedder.embed([response])[0] if semantic else None
    report = EngagementReport(search_id=search_id, procedure=procedure)
    labels: dict[str, Label] = {}
    for r in rows:
        m = mems.get(r.memory_id)
        if m is None:
            report.skipped += 1
            continue
        lab = label_engagement(
            m["text"],
            m["keywords"],
            response,
            prompt,
            settings=s,
            memory_vector=m.get("vector"),
            response_vector=response_vec,
        )
        labels[r.id] = lab
        report.relabelled += r.engaged is not None
    report.n = len(labels)
    report.engaged = dict(Counter(lab.method for lab in labels.values() if lab.engaged))
    model = store.embedder.model if semantic else None

    def write(conn: Any) -> None:
        now = now_utc()
        for did, lab in labels.items():
            conn.execute(
                update(memory_deliveries)
                .where(memory_deliveries.c.id == did)
                .values(
                    engaged=lab.engaged,
                    engaged_score=lab.score,
                    engaged_method=lab.method,
                    engagement_procedure=procedure,
                    lexical_score=lab.lexical_score,
                    engaged_model=model if lab.method != "lexical" else None,
                    engaged_at=now,
                )
            )
        upsert(
            conn,
            memory_responses,
            {"search_id": search_id, "prompt": prompt, "response": response, "recorded_at": now},
            ["search_id"],
        )

    write_with_retry(store.engine, write)
    return report


def engagement_rate(labels: Sequence[Mapping[str, Any]]) -> float | None:
    """Share of engaged among labelled deliveries (``{"engaged", "engagement_procedure"}``
    mappings; unlabelled ones ignored); ``None`` when none is labelled. Raises ``ValueError``
    when the labels come from more than one procedure — a pooled rate would mix methods."""
    labelled = [x for x in labels if x.get("engaged") is not None]
    procs = {x.get("engagement_procedure") for x in labelled}
    if len(procs) > 1:
        raise ValueError(
            f"engagement labels from several procedures ({', '.join(sorted(map(str, procs)))}): "
            "report the rate per procedure, not pooled"
        )
    return sum(bool(x["engaged"]) for x in labelled) / len(labelled) if labelled else None


def memory_rows(store: StoreView, ids: list[str], *, vectors: bool) -> dict[str, dict[str, Any]]:
    """``{id: {"text", "keywords", "vector"?}}`` of stored memories; vectors of another model re-encoded."""
    c = memories.c
    with store.engine.connect() as conn:
        rows = conn.execute(select(c.id, c.text, c.keywords, c.embedding, c.embedding_model).where(c.id.in_(ids))).all()
    out = {r.id: {"text": r.text, "keywords": list(r.keywords or ())} for r in rows}
    if vectors:
        model = store.embedder.model
        stale = [r for r in rows if r.embedding is None or r.embedding_model != model]
        fresh: np.ndarray | list[np.ndarray] = store.embedder.embed([r.text for r in stale]) if stale else []
        for r, v in zip(stale, fresh, strict=True):
            out[r.id]["vector"] = np.asarray(v, dtype=np.float32)
        for r in rows:
            if r.embedding is not None and r.embedding_model == model:
                out[r.id]["vector"] = np.asarray(r.embedding, dtype=np.float32)
    return out
