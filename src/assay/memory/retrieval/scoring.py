"""The composite score: pure scalar rules, one per component, and their weighted sum.

These functions are the reference definitions; :class:`assay.memory.retrieval.index.MemoryIndex`
computes the same numbers for every memory at once with numpy (and is tested to agree).
Every component is in [0, 1]; the weights (:class:`assay.memory.config.Weights`) multiply them
and the products are summed in :data:`COMPONENTS` order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Set

from assay.memory.config import Weights

__all__ = [
    "COMPONENTS",
    "similarity_component",
    "keyword_component",
    "scope_component",
    "recency_component",
    "reliability",
    "bm25_idf",
    "composite",
]

#: Component names in summation order.
COMPONENTS = ("similarity", "keywords", "scope", "confidence", "recency")


def similarity_component(cosine: float) -> float:
    """Cosine similarity of the query and memory embeddings clipped to [0, 1] (a negative
    cosine is as irrelevant as an orthogonal one)."""
    return min(1.0, max(0.0, float(cosine)))


def bm25_idf(df: int, n: int) -> float:
    """Inverse document frequency ``ln(1 + (n − df + 0.5) / (df + 0.5))`` of a term in ``df`` of
    ``n`` memories — the Robertson–Spärck Jones weight as smoothed in Lucene's BM25 (always
    > 0, so a term in every memory still counts a little). ``0 <= df <= n``."""
    if not 0 <= df <= n:
        raise ValueError(f"need 0 <= df <= n, got df={df}, n={n}")
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def keyword_component(query_terms: Set[str], memory_terms: Set[str], idf: Mapping[str, float]) -> float:
    """IDF-weighted share of the query's terms found among the memory's keyword terms:
    ``Σ_{t ∈ Q ∩ K} idf(t) / Σ_{t ∈ Q} idf(t)``, in [0, 1]; 0 for a query without terms.

    ``idf`` maps every query term to its weight (:func:`bm25_idf` over the indexed memories).
    A rare, specific term (a name, an amount) weighs more than a common one.
    """
    total = math.fsum(idf[t] for t in query_terms)
    if total <= 0.0:
        return 0.0
    return min(1.0, math.fsum(idf[t] for t in query_terms & memory_terms) / total)


def scope_component(query_scope: str | None, memory_scope: str | None) -> float:
    """1 when the query has a scope and the memory's equals it, else 0."""
    return 1.0 if query_scope is not None and query_scope == memory_scope else 0.0


def recency_component(age_days: float | None, half_life_days: float) -> float:
    """Exponential decay ``0.5 ** (age / half_life)`` in (0, 1]; a memory from the future (clock
    skew) counts as new; unknown age → 0. Reported only (weight 0 by default)."""
    if age_days is None:
        return 0.0
    if half_life_days <= 0:
        raise ValueError(f"half_life_days must be > 0, got {half_life_days}")
    return 0.5 ** (max(0.0, age_days) / half_life_days)


def reliability(prior: float, n_corroborations: int, n_contradictions: int, strength: float = 2.0) -> float:
    """Posterior mean of a Beta prior worth ``strength`` observations centred on the writer's
    ``prior``, after ``n_corroborations`` (+) and ``n_contradictions`` (−):
    ``(strength·prior + n⁺) / (strength + n⁺ + n⁻)``, in [0, 1]. With ``prior`` 0.5 and
    ``strength`` 2 this is Laplace's rule of succession."""
    if not 0.0 <= prior <= 1.0 or n_corroborations < 0 or n_contradictions < 0 or strength <= 0:
        raise ValueError(
            "need prior in [0, 1], counts >= 0, strength > 0; "
            f"got {prior}, {n_corroborations}, {n_contradictions}, {strength}"
        )
    return (strength * prior + n_corroborations) / (strength + n_corroborations + n_contradictions)


def composite(components: Mapping[str, float], weights: Weights) -> float:
    """``Σ weight_c · component_c`` over :data:`COMPONENTS` in order (absent components count 0)."""
    w = weights.as_dict()
    score = 0.0
    for name in COMPONENTS:
        score += w[name] * float(components.get(name, 0.0))
    return score
