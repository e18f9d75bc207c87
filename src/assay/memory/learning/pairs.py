"""Training and held-out pairs from exported labels: grade pairs, a grouped seeded split, weak pairs.

Input is the JSONL of ``assay memory export-labels`` (:mod:`assay.memory.feedback.export`); only these
keys are read (others are ignored)::

    query_id, query, memory_id, memory_text, grade (0-3 | null), engaged (bool | null),
    engaged_score (float | null), scope, score, score_components, reranker_model

- :func:`grade_pairs`: within each query, ``(better, worse)`` for every two graded memories
  whose grades differ by at least ``min_gap`` (default 2: train and evaluate only on clearly
  ordered pairs — 3 vs 1 or 0, 2 vs 0). A query whose grades are all tied, or that has one
  memory, gives no pair.
- :func:`split_groups`: held-out groups drawn with a seeded shuffle, grouped by query or by
  scope (use scope when queries share memories, e.g. one conversation): no query — or, by
  scope, no scope — is on both sides.
- :func:`engagement_pairs`: weak ``(engaged, not engaged)`` pairs of the TRAIN groups only,
  merged after the split so the held-out set stays pure agent grades. A weak pair is left out
  where the grades already order the two memories (a grade pair) or contradict it.
- :func:`build_dataset`: all of it, with counts for the model card.

Every pair carries the composite score of each side (``score_components["composite"]``, else
``score`` when no reranker ordered the delivery), so the deploy gate can score the composite
incumbent on exactly the same pairs.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, field_validator

from assay.memory.models import load_jsonl

__all__ = [
    "TooFewLabelsError",
    "LabelRecord",
    "Item",
    "Pair",
    "Dataset",
    "load_labels",
    "items_by_query",
    "grade_pairs",
    "split_groups",
    "engagement_pairs",
    "build_dataset",
    "group_key",
]


class TooFewLabelsError(ValueError):
    """The labels are valid but too few to train or calibrate on (no grade pair, one group,
    a split with an empty side, no graded delivery): the CLI exits 3 ("done, but the
    measurement is incomplete"), not 2 (bad input)."""


SplitBy = Literal["query", "scope"]


class LabelRecord(BaseModel):
    """One exported label line (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    query_id: str
    query: str
    memory_id: str
    memory_text: str | None = None
    grade: int | None = None
    engaged: bool | None = None
    engaged_score: float | None = None
    scope: str | None = None
    score: float | None = None
    score_components: dict[str, Any] | None = None
    reranker_model: str | None = None

    @field_validator("query_id", "query", "memory_id")
    @classmethod
    def _nonblank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must be a non-empty string")
        return v

    @field_validator("grade")
    @classmethod
    def _grade(cls, v: int | None) -> int | None:
        if v is not None and not 0 <= v <= 3:
            raise ValueError(f"grade must be 0-3, got {v}")
        return v

    def composite(self) -> float | None:
        """The composite score at delivery: ``score_components["composite"]`` when a reranker
        ordered the delivery, else ``score``; ``None`` when unknown."""
        c = (self.score_components or {}).get("composite")
        if isinstance(c, (int, float)) and math.isfinite(c):
            return float(c)
        if self.reranker_model is None and self.score is not None and math.isfinite(self.score):
            return float(self.score)
        return None


@dataclass(frozen=True)
class Item:
    """One labelled (query, memory) of a query: text, grade, engagement, composite score."""

    memory_id: str
    text: str
    grade: int | None
    engaged: bool | None
    engaged_score: float | None
    composite: float | None


@dataclass(frozen=True)
class Pair:
    """``pos`` should rank above ``neg`` for ``query``; ``source`` is ``"grade"`` or ``"engagement"``;
    ``group`` is the split group (query id or scope)."""

    query_id: str
    group: str
    query: str
    pos: Item
    neg: Item
    source: str = "grade"


@dataclass
class Dataset:
    """Train pairs (grade + weak), held-out pairs (grades only) and the counts behind them."""

    train: list[Pair]
    heldout: list[Pair]
    weak: list[Pair]
    stats: dict[str, Any] = field(default_factory=dict)


def load_labels(path: str | Path) -> list[LabelRecord]:
    """The label records of a JSONL file. Raises :class:`~assay.memory.models.MemoryFileError`
    listing every bad line (``file:line: field: problem``), ``FileNotFoundError`` when missing."""
    return [r for _, r in load_jsonl(path, LabelRecord, what="label")]


def group_key(rec_query_id: str, scope: str | None, by: SplitBy) -> str:
    """The split group of a query: its id, or its scope (``""`` for no scope)."""
    if by == "query":
        return rec_query_id
    if by == "scope":
        return scope or ""
    raise ValueError(f"split_by must be 'query' or 'scope', got {by!r}")


def items_by_query(
    records: Sequence[LabelRecord],
) -> tuple[dict[str, tuple[str, str | None, list[Item]]], dict[str, int]]:
    """``{query_id: (query, scope, [Item])}`` (items by memory id) and skip counts.

    A memory labelled twice in one query keeps its last line (counted); a line without the
    memory's text (memory deleted) is skipped (counted). A query id used with two different
    query texts or scopes is an error (``ValueError``): the file is not one export.
    """
    out: dict[str, tuple[str, str | None, dict[str, Item]]] = {}
    skipped: dict[str, int] = defaultdict(int)
    for r in records:
        if r.memory_text is None or not r.memory_text.strip():
            skipped["memory text missing (memory no longer stored)"] += 1
            continue
        q = out.setdefault(r.query_id, (r.query, r.scope, {}))
        if (q[0], q[1]) != (r.query, r.scope):
            raise ValueError(f"query_id {r.query_id!r} appears with two different queries or scopes")
        if r.memory_id in q[2]:
            skipped["memory labelled twice in one query (last kept)"] += 1
        q[2][r.memory_id] = Item(r.memory_id, r.memory_text, r.grade, r.engaged, r.engaged_score, r.composite())
    return {k: (v[0], v[1], sorted(v[2].values(), key=lambda i: i.memory_id)) for k, v in out.items()}, dict(skipped)


def grade_pairs(query_id: str, query: str, items: Sequence[Item], *, min_gap: int = 2, group: str = "") -> list[Pair]:
    """Every ``(better, worse)`` pair of graded items whose grades differ by ≥ ``min_gap``
    (``min_gap >= 1``; ``ValueError`` otherwise). Tied grades or a single item → ``[]``."""
    if min_gap < 1:
        raise ValueError(f"min_gap must be >= 1, got {min_gap}")
    graded = [i for i in items if i.grade is not None]
    return [Pair(query_id, group, query, a, b) for a in graded for b in graded if a.grade - b.grade >= min_gap]  # type: ignore[operator]


def split_groups(groups: Sequence[str], *, holdout: float = 0.2, seed: int = 0) -> tuple[set[str], set[str]]:
    """``(train, heldout)`` groups: a seeded shuffle of the sorted distinct groups, the first
    ``max(1, round(holdout · n))`` held out (at least one left to train on).

    ``ValueError`` for fewer than 2 groups or ``holdout`` outside (0, 1).
    """
    uniq = sorted(set(groups))
    if len(uniq) < 2:
        raise TooFewLabelsError(f"need at least 2 groups to hold some out, got {len(uniq)}")
    if not 0.0 < holdout < 1.0:
        raise ValueError(f"holdout must be in (0, 1), got {holdout}")
    n_out = min(len(uniq) - 1, max(1, round(holdout * len(uniq))))
    perm = np.random.default_rng(seed).permutation(len(uniq))
    held = {uniq[i] for i in perm[:n_out]}
    return set(uniq) - held, held


def engagement_pairs(
    queries: dict[str, tuple[str, str | None, list[Item]]],
    groups: dict[str, str],
    train_groups: set[str],
    *,
    min_gap: int = 2,
    min_pos: float = 0.0,
    max_pairs: int = 5000,
    seed: int = 0,
) -> list[Pair]:
    """Weak ``(engaged, not engaged)`` pairs within the queries of ``train_groups`` only.

    A positive is an engaged item with ``engaged_score >= min_pos`` (an engaged item without a
    score counts only when ``min_pos <= 0``); a negative is an item labelled not engaged. A
    pair is left out when both items are graded and the grades either already order them (gap
    ≥ ``min_gap``: a grade pair) or order them the other way. At most ``max_pairs`` (a seeded
    sample, so weak labels cannot drown the grades); ``max_pairs=0`` gives none.
    """
    out: list[Pair] = []
    for qid in sorted(queries):
        g = groups[qid]
        if g not in train_groups:
            continue
        query, _scope, items = queries[qid]
        pos = [
            i
            for i in items
            if i.engaged is True
            and (i.engaged_score if i.engaged_score is not None else (0.0 if min_pos <= 0 else -1.0)) >= min_pos
        ]
        neg = [i for i in items if i.engaged is False]
        for p in pos:
            for n in neg:
                if p.grade is not None and n.grade is not None and (p.grade < n.grade or p.grade - n.grade >= min_gap):
                    continue
                out.append(Pair(qid, g, query, p, n, source="engagement"))
    if len(out) > max_pairs:
        keep = np.sort(np.random.default_rng(seed).choice(len(out), size=max_pairs, replace=False))
        out = [out[i] for i in keep]
    return out


def build_dataset(
    records: Sequence[LabelRecord],
    *,
    min_gap: int = 2,
    split_by: SplitBy = "query",
    holdout: float = 0.2,
    seed: int = 0,
    engagement: bool = False,
    engagement_max_pairs: int = 5000,
    engagement_min_pos: float = 0.0,
) -> Dataset:
    """Grade pairs → grouped seeded split → weak pairs merged into the train side only.

    Groups are drawn among the queries that give at least one grade pair (a held-out query
    without pairs would measure nothing). ``ValueError`` (a one-line reason) when there are no
    grade pairs, too few groups to split, or no pair on one side.
    """
    queries, skipped = items_by_query(records)
    groups = {qid: group_key(qid, scope, split_by) for qid, (_q, scope, _i) in queries.items()}
    by_query = {
        qid: grade_pairs(qid, q, items, min_gap=min_gap, group=groups[qid]) for qid, (q, _s, items) in queries.items()
    }
    with_pairs = sorted(qid for qid, ps in by_query.items() if ps)
    if not with_pairs:
        raise TooFewLabelsError(
            f"no grade pairs: no query has two memories whose grades differ by >= {min_gap} (--min-gap)"
        )
    train_g, held_g = split_groups([groups[q] for q in with_pairs], holdout=holdout, seed=seed)
    train = [p for q in with_pairs if groups[q] in train_g for p in by_query[q]]
    held = [p for q in with_pairs if groups[q] in held_g for p in by_query[q]]
    weak = (
        engagement_pairs(
            queries,
            groups,
            train_g,
            min_gap=min_gap,
            min_pos=engagement_min_pos,
            max_pairs=engagement_max_pairs,
            seed=seed,
        )
        if engagement
        else []
    )
    if not train or not held:
        raise TooFewLabelsError("the split left no grade pair on one side; add labels or change --split-by/--seed")
    digest = hashlib.sha256(json.dumps(sorted(held_g)).encode("utf-8")).hexdigest()[:16]
    stats = {
        "labels": len(records),
        "queries": len(queries),
        "queries_with_pairs": len(with_pairs),
        "train_queries": sum(1 for q in with_pairs if groups[q] in train_g),
        "heldout_queries": sum(1 for q in with_pairs if groups[q] in held_g),
        "train_groups": len(train_g),
        "heldout_groups": len(held_g),
        "heldout_groups_sha256_16": digest,
        "train_pairs": len(train),
        "heldout_pairs": len(held),
        "weak_pairs": len(weak),
        "skipped": skipped,
    }
    return Dataset(train=train + weak, heldout=held, weak=weak, stats=stats)
