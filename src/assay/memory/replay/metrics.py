"""Deterministic replay metrics: dedup, the findability backtest, the heuristic cold read, B−A CIs.

- **dedup rate** (:func:`dedup_flags`): a memory is a duplicate when an earlier memory of the same
  arm and cohort (or one already in the store, ``existing``) has the same
  :func:`assay.memory.text.dedupe_key`, or an embedding cosine ≥ ``dedup_cosine``.
- **findability** (:func:`findability`): per question, the arm's memories of the question's
  cohort ranked by cosine to the question (the retriever: dense cosine with the run's embedder);
  recall@k = share of the question's evidence turns that some top-k memory was written from. A
  fact no memory kept scores 0 (it cannot be found).
- **heuristic cold read** (:func:`heuristic_cold_read`): the deterministic baseline of the
  self-sufficiency judge.
- **B − A** (:func:`diff_ci`): mean paired difference with a percentile bootstrap CI over
  cohorts (:func:`assay.stats.bootstrap_ci` with ``clusters``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from assay.memory.replay.models import Memory, Question
from assay.memory.text import dedupe_key, terms
from assay.stats import bootstrap_ci

__all__ = ["MIN_CONTENT_TERMS", "dedup_flags", "findability", "heuristic_cold_read", "rate_ci", "diff_ci"]

#: Content terms a memory needs to carry a fact on its own (who + what + one detail).
MIN_CONTENT_TERMS = 4
_OPENERS = re.compile(
    r"^\W*(i|i'm|i've|me|my|we|our|us|you|your|he|she|him|her|his|they|them|their|it|its|this|that|these|those"
    r"|there|here|yes|no|yeah|ok|okay|same|thanks|thank)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = {"i", "i'm", "i've", "me", "my", "we", "our", "us"}


def dedup_flags(
    memories: Sequence[Memory], vectors: np.ndarray, threshold: float, existing: np.ndarray | None = None
) -> list[bool]:
    """One flag per memory (in order): duplicate of an earlier memory of the same cohort, or of a
    row of ``existing`` (unit vectors of memories already stored). ``vectors``: unit rows,
    shape ``(len(memories), dim)``."""
    flags: list[bool] = []
    seen_keys: dict[str, set[str]] = {}
    rows: dict[str, list[int]] = {}
    for i, m in enumerate(memories):
        key = dedupe_key(m.text)
        keys = seen_keys.setdefault(m.cohort, set())
        prior = rows.setdefault(m.cohort, [])
        dup = key in keys
        if not dup and prior:
            dup = bool(np.max(vectors[prior] @ vectors[i]) >= threshold)
        if not dup and existing is not None and len(existing):
            dup = bool(np.max(existing @ vectors[i]) >= threshold)
        flags.append(dup)
        keys.add(key)
        prior.append(i)
    return flags


def findability(
    questions: Sequence[Question],
    q_vectors: np.ndarray,
    memories: Sequence[Memory],
    m_vectors: np.ndarray,
    k: int,
) -> list[float]:
    """recall@k per question (module docstring); ``q_vectors``/``m_vectors`` unit rows. Ties in
    cosine keep the memories' order (a stable sort), so the result is deterministic."""
    by_cohort: dict[str, list[int]] = {}
    for i, m in enumerate(memories):
        by_cohort.setdefault(m.cohort, []).append(i)
    out = []
    for qi, q in enumerate(questions):
        idx = by_cohort.get(q.cohort, [])
        evidence = set(q.evidence)
        if not idx:
            out.append(0.0)
            continue
        scores = m_vectors[idx] @ q_vectors[qi]
        top = [idx[j] for j in np.argsort(-scores, kind="stable")[:k]]
        covered = set().union(*(memories[j].source_turns for j in top)) & evidence
        out.append(len(covered) / len(evidence))
    return out


def heuristic_cold_read(text: str) -> int:
    """1 when ``text`` has ≥ :data:`MIN_CONTENT_TERMS` content terms and does not open with a pronoun
    or deictic word whose referent is in the session ("he", "this", "that", "yes"…), else 0. After a
    ``Speaker:`` label (or a date, then a label) a first-person opener is resolved by the name."""
    body = text
    m = re.match(r"^\s*(?:[^:]{1,40}\d:\s*)?([A-Z][^:]{0,39}):\s*(.*)$", text, re.DOTALL)
    named = m is not None
    if m is not None:
        body = m.group(2)
    if len(terms(body)) < MIN_CONTENT_TERMS:
        return 0
    opener = _OPENERS.match(body)
    if opener is None:
        return 1
    return 1 if (named and opener.group(1).lower() in _FIRST_PERSON) else 0


def rate_ci(values: Sequence[float], clusters: Sequence[Hashable], n_resamples: int, seed: int) -> dict[str, object]:
    """``{"value", "ci", "n"}``: the mean of ``values`` and its cohort-clustered 95 % bootstrap CI."""
    if not values:
        return {"value": None, "ci": None, "n": 0}
    ci = bootstrap_ci(list(values), clusters=list(clusters), n_resamples=n_resamples, seed=seed)
    return {
        "value": round(float(np.mean(values)), 6),
        "ci": None if ci is None else [round(ci[0], 6), round(ci[1], 6)],
        "n": len(values),
    }


def diff_ci(
    a: Mapping[str, float], b: Mapping[str, float], clusters: Mapping[str, Hashable], n_resamples: int, seed: int
) -> dict[str, object]:
    """B − A over the keys both have: ``{"value", "ci", "n"}``, the CI resampling ``clusters``."""
    keys = sorted(a.keys() & b.keys())
    diffs = [b[k] - a[k] for k in keys]
    return rate_ci(diffs, [clusters[k] for k in keys], n_resamples, seed)
