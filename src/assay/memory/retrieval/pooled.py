"""The pooled ranking: the composite top ``depth`` from a dense pool, in time independent of n.

A dense pool (pgvector's top ``N``, or the in-process HNSW graph's: :mod:`.ann`) names the ``N``
memories most similar to the query, best first; every memory outside it has a similarity at most
the pool's lowest, ``floor``. So a memory outside the pool can enter the top ``depth`` only if
``w_sim · floor + rest ≥ thr``, where ``rest`` is its other components (keywords, scope,
confidence, recency, weighted) and ``thr`` the ``depth``-th best score among the pooled
candidates. :func:`pooled_rows` applies that bound without touching every row:

- keywords are nonzero only on the rows of the query terms' postings
  (:meth:`~assay.memory.retrieval.postings.KeywordPostings.hits`, O(Σ df)): those rows get
  their exact ``rest`` and are kept when it reaches the bound;
- every other row has ``rest ≤ w_scope·[row in the query's scope] + w_conf·max confidence +
  w_rec·max recency`` (column maxima kept by the index's upsert, O(1)); for the default weights
  (confidence and recency 0) that is 0 outside the query's scope and ``w_scope`` inside it;
- a class whose bound still reaches ``thr`` asks the pool again for 4× the memories (a lower
  floor), up to :data:`POOL_MAX`; the rows of the query's scope are scored one by one at once
  when they are few (:data:`SCOPE_SCAN`); a larger scope is asked of the source's own pool of
  that scope when it has one (``dense_pool.scoped``, :class:`ScopedPool`: the in-process graph
  keeps one HNSW graph per large scope), 4× deeper while its floor's bound reaches the
  ``depth``-th best score, else (or past :data:`POOL_MAX`) scanned after the deeper global pool
  (the scope's rows: cached per index revision; their vectors gathered); and when the rows of
  every scope could still reach ``thr`` (large confidence/recency weights, near-ties at the
  floor) the caller scores every candidate (``None``).

The probe: for a query whose large scope has its own pool, the global pool's only task is to show
that no row outside the scope and the keyword hits reaches the top ``depth`` (that row must beat
the scope's best by ``w_scope`` in weighted similarity). A source with a ``probe`` (the graph:
the same HNSW search with a narrower beam) is asked that first; when a probed row outside the
scope and the hits does reach the final top ``depth`` (a query whose scope holds no good match
ranks like an unscoped one), the query is ranked again from the full-beam pool, so the probe's
lower recall bears only on queries whose top ``depth`` it leaves to the scope and the hits.

A scope's own pool matters for an approximate source: the scope's top ``depth`` lies deep in
the global order (a scope of 1/50 of the rows: its 10th best is near global rank 500), and a
graph's recall of a deep pool at ``ef = N`` is poor — at 1,000,000 clustered vectors the scoped
recall@10 was 0.975 with the global pool grown to 800 (``benchmarks/bench_ann_scale.py``); the
scope's own graph answers its top ``2·depth`` at the recall of a 20,000-row graph.

Candidates are tested per row (superseded, meta-memory, scope: O(1) each) and counted by the
index in O(1), so a query costs O(N + Σ df) plus the pool itself. The kept rows are then scored
by the same formula as the full scan, so the ranking is the full scan's whenever the pool is the
true top ``N`` (for the graph: up to its recall); ``tests/memory/retrieval/test_pooled.py``
checks it on random indexes against an exact pool.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from typing import Any, NamedTuple, Protocol

import numpy as np

from assay.memory.retrieval.columns import recency_of

__all__ = ["DensePool", "Pooled", "ProbePool", "ScopedPool", "pooled_rows", "POOL_MAX", "POOL_SLACK", "SCOPE_POOL"]

#: At most this many memories are asked of a pool (pgvector's ``hnsw.ef_search`` bound).
POOL_MAX = 1000
#: Slack on the pool's similarity floor: pgvector and numpy round the same cosine differently
#: (float32 accumulation in another order, ≲ 1e-6).
POOL_SLACK = 1e-5

#: A query's scope with at most this many candidates is scored row by row when the pool's bound
#: cannot rule its rows out (a gather of ≤ 4,096 vectors costs about what a 4× deeper HNSW
#: search does); a larger one first asks the pool for more.
SCOPE_SCAN = 4096

#: A large scope's own dense pool is first asked for this many rows (at least ``2·depth``): its
#: bound needs rows beyond the top ``depth`` to rise above the scope's floor. 32 (the in-process
#: scope graph's beam too): at 1,000,000 rows (scopes of 20,000, ``bench_ann_scale.py
#: --million``, 200 queries) scoped and keyword recall@10 was 1.0 at 32 and 64 and 0.999 at 20;
#: the scope graph's top 32 cost 0.26 ms of CPU p50 against 0.50 ms for its top 64.
SCOPE_POOL = 32

#: The index these functions read (a :class:`~assay.memory.retrieval.index.MemoryIndex`; not
#: imported: the index imports this module).
MemoryIndex = Any


class DensePool(NamedTuple):
    """Dense candidates found outside the index: store keys ``seqs`` (int64) best first and
    their cosine similarities ``sims`` (float64, [−1, 1]); fewer than asked = all there are.
    ``rows``: the same memories' index positions when the source knows them (the in-process
    graph), saving the key → position look-ups."""

    seqs: np.ndarray
    sims: np.ndarray
    rows: np.ndarray | None = None


class ScopedPool(Protocol):
    """The optional ``scoped`` method of a dense pool: ``(query vector, N, scope code) ->`` the
    ``N`` memories of that scope most similar to the query, as a :class:`DensePool` (``None``:
    not available). The in-process graph has it (one HNSW graph per large scope,
    :mod:`.ann`); a source without it gets a deeper global pool, then a scan of the scope."""

    def __call__(self, q: np.ndarray, n: int, code: int, /) -> DensePool | None: ...


class ProbePool(Protocol):
    """The optional ``probe`` method of a dense pool: ``(query vector, N) ->`` the source's
    ``N`` nearest memories found at a lower cost and recall (the in-process graph: a narrower
    HNSW beam, ``MemorySettings.ann_ef_probe``), asked first by a query whose large scope has
    its own pool (see the module docstring: such a query's top ``depth`` is decided by
    its scope's rows and the keyword hits unless a row outside both reaches it)."""

    def __call__(self, q: np.ndarray, n: int, /) -> DensePool | None: ...


class Pooled(NamedTuple):
    """The rows that can reach the top ``depth`` (int64 positions) and their components: clipped
    similarity, keywords and scope (``None`` for the dense ranker), float64 each."""

    rows: np.ndarray
    sim: np.ndarray
    kw: np.ndarray | None
    scope_c: np.ndarray | None


def pooled_rows(
    index: MemoryIndex,
    q: np.ndarray,
    dense_pool: Callable[[np.ndarray, int], DensePool | None],
    *,
    n_pool: int,
    depth: int,
    weights: dict[str, float],
    query_terms: Set[str] | None,
    scope: str | None,
    restrict: bool,
    prefilter: bool,
    now: float,
    half_life_days: float,
    probe: bool = True,
) -> Pooled | None:
    """The candidates of ``index`` that can reach the top ``depth`` for unit query vector ``q``
    (see the module docstring), or ``None`` when the pool cannot rule enough out (the source is
    gone, it holds every vector, or its bound reaches every scope): then score every candidate.

    ``query_terms``: the query's terms for the composite ranker, ``None`` for the dense one.
    ``weights``: :meth:`~assay.memory.config.Weights.as_dict`. ``now``: epoch seconds.
    ``probe``: a query whose large scope has its own pool may ask the source's cheaper
    ``dense_pool.probe`` first (:class:`ProbePool`); ``False``: never (the re-run after a probe
    row reached the top ``depth``).
    """
    composite = query_terms is not None
    w = weights
    w_sim = w["similarity"] if composite else 1.0
    sel = {"scope": scope, "restrict": restrict, "prefilter": prefilter}
    code = index._scope_codes.get(scope) if scope is not None else None
    hit_rows, hit_kw = np.zeros(0, dtype=np.int64), np.zeros(0)
    extra = 0.0  # the bound on weighted confidence + recency of any row
    if composite:
        assert query_terms is not None
        hit_rows, hit_kw = index._keywords.hits(query_terms)
        keep = index.is_candidate(hit_rows, **sel)
        hit_rows, hit_kw = hit_rows[keep], hit_kw[keep]
        conf_max, newest = index._conf_max, index._created_max  # kept by upsert (largest ever set)
        rec_max = 0.0 if newest == -np.inf else float(recency_of(np.array([newest]), now, half_life_days)[0])
        extra = (w["confidence"] * conf_max if w["confidence"] else 0.0) + (
            w["recency"] * rec_max if w["recency"] else 0.0
        )
    # Restricted: every candidate is of the scope (scope component 1). Otherwise the scope's rows
    # are a class of their own, with a bound higher by w_scope.
    other_bound = extra + (w["scope"] if composite and restrict and code is not None else 0.0)
    scope_class = composite and not restrict and code is not None and w["scope"] > 0
    small = scope_class and index.candidate_count(scope=scope, restrict=True, prefilter=prefilter) <= SCOPE_SCAN
    scoped = getattr(dense_pool, "scoped", None) if scope_class and not small else None
    probe_pool = getattr(dense_pool, "probe", None) if probe and scoped is not None else None
    while True:
        pool = (probe_pool or dense_pool)(q, n_pool)
        if pool is None or len(pool.seqs) < n_pool:  # gone, or the pool is every vector (n is small)
            return None
        rows = _positions(index, pool)
        sims = np.clip(np.asarray(pool.sims, dtype=np.float64), 0.0, 1.0)
        ok = rows >= 0
        ok[ok] = index.is_candidate(rows[ok], **sel)
        p_rows, p_sim = rows[ok], sims[ok]
        p_kw, p_scope = _keywords_of(p_rows, hit_rows, hit_kw), index.scope_component(p_rows, scope)
        p_score = w_sim * p_sim
        if composite:
            p_score = p_score + _rest(index, p_rows, p_kw, p_scope, w, now, half_life_days)
        if p_score.size >= depth:
            thr = float(np.partition(p_score, p_score.size - depth)[p_score.size - depth])
        else:
            thr = -np.inf
        floor = float(np.clip(pool.sims[-1], 0.0, 1.0)) + POOL_SLACK
        lim = thr - POOL_SLACK - w_sim * floor  # a memory outside the pool is needed when its rest >= lim
        trig_other = other_bound >= lim
        trig_scope = scope_class and extra + w["scope"] >= lim
        if not (trig_other or trig_scope) or n_pool >= POOL_MAX:
            break
        if not trig_other and (small or scoped is not None):
            break  # scoring the scope's few rows, or asking the scope's own pool, beats a deeper pool
        n_pool, probe_pool = min(POOL_MAX, 4 * n_pool), None  # a deeper pool: at the source's full beam
    if trig_other:
        return None
    if probe_pool is not None:  # the probe's floor bounds only the rows outside the scope and the hits
        floor = 1.0 + POOL_SLACK
        lim = thr - POOL_SLACK - w_sim * floor
        trig_scope = extra + w["scope"] >= lim
    out = ~_member(hit_rows, np.sort(p_rows)) if hit_rows.size else np.zeros(0, dtype=bool)
    x_rows, x_kw = hit_rows[out], hit_kw[out]
    x_scope = index.scope_component(x_rows, scope)
    x_rest = _rest(index, x_rows, x_kw, x_scope, w, now, half_life_days)
    need = x_rest >= lim
    x_rows, x_kw, x_scope, x_rest = x_rows[need], x_kw[need], x_scope[need], x_rest[need]
    x_sim = index._cosines(x_rows, q) if x_rows.size else np.zeros(0)
    got = None
    if trig_scope and scoped is not None and code is not None:  # the scope's own pool, its bound met
        x_score = w_sim * x_sim + x_rest
        taken = np.sort(np.concatenate([p_rows, hit_rows]))
        known = np.concatenate([p_score, x_score])
        got = _scope_pool(index, q, scoped, code, sel, depth, known, taken, w, w_sim, floor, extra, now, half_life_days)
    if got is not None:
        s_rows, s_sim = got
        s_kw, s_scope = np.zeros(s_rows.size), np.ones(s_rows.size)
        x_rows, x_sim = np.concatenate([x_rows, s_rows]), np.concatenate([x_sim, s_sim])
        x_kw, x_scope = np.concatenate([x_kw, s_kw]), np.concatenate([x_scope, s_scope])
    elif trig_scope:  # the scope's rows outside the pool and the hits: scored one by one
        s_rows, s_vecs = index.scope_rows(code, vectors=small)  # a small scope's vectors: one contiguous block
        keep = index.is_candidate(s_rows, **sel) & ~_member(s_rows, np.sort(p_rows)) & ~_member(s_rows, hit_rows)
        s_kw, s_scope = np.zeros(s_rows.size), np.ones(s_rows.size)
        keep &= _rest(index, s_rows, s_kw, s_scope, w, now, half_life_days) >= lim
        if s_vecs is not None:
            s_sim = np.clip((s_vecs @ q)[keep].astype(np.float64), 0.0, 1.0)
        else:
            s_sim = index._cosines(s_rows[keep], q)
        x_rows, x_sim = np.concatenate([x_rows, s_rows[keep]]), np.concatenate([x_sim, s_sim])
        x_kw, x_scope = np.concatenate([x_kw, s_kw[keep]]), np.concatenate([x_scope, s_scope[keep]])
    rows_all = np.concatenate([p_rows, x_rows])
    sim_all = np.concatenate([p_sim, x_sim])
    if probe_pool is not None:  # the probe's rows outside the scope and the hits must not reach the top depth
        outside = p_score[(p_scope == 0) & (p_kw == 0)]
        top = float(outside.max()) + POOL_SLACK if outside.size else np.inf
        x_score = w_sim * x_sim + _rest(index, x_rows, x_kw, x_scope, w, now, half_life_days) if outside.size else x_sim
        if outside.size and np.count_nonzero(p_score > top) + np.count_nonzero(x_score > top) < depth:
            return pooled_rows(  # fewer than depth rows above the best probed one: it reaches the top depth
                index,
                q,
                dense_pool,
                n_pool=n_pool,
                depth=depth,
                weights=w,
                query_terms=query_terms,
                scope=scope,
                restrict=restrict,
                prefilter=prefilter,
                now=now,
                half_life_days=half_life_days,
                probe=False,
            )
    if not composite:
        return Pooled(rows_all, sim_all, None, None)
    return Pooled(rows_all, sim_all, np.concatenate([p_kw, x_kw]), np.concatenate([p_scope, x_scope]))


def _scope_pool(
    index: MemoryIndex,
    q: np.ndarray,
    scoped: ScopedPool,
    code: int,
    sel: dict[str, Any],
    depth: int,
    known: np.ndarray,
    taken: np.ndarray,
    w: dict[str, float],
    w_sim: float,
    floor: float,
    extra: float,
    now: float,
    half_life_days: float,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows of scope ``code`` that can reach the top ``depth`` beside the ``known`` scores
    (of the rows ``taken``: the dense pool's candidates and the keyword hits), from the scope's
    own dense pool, and their clipped similarities; ``None`` when that pool cannot rule the
    rest of the scope out within :data:`POOL_MAX` rows (or is gone): then scan the scope.

    A row of the scope outside both pools and the hits scores at most ``w_sim · min(floor,
    scope floor) + w_scope + extra``; the scope's pool is asked for :data:`SCOPE_POOL` rows
    (at least ``2·depth``), 4× more while that bound reaches the ``depth``-th best score.
    """
    n = max(SCOPE_POOL, 2 * depth)
    while True:
        sp = scoped(q, n, code)
        if sp is None or len(sp.seqs) < n:  # gone, or the scope's pool is every vector of it
            return None
        rows = _positions(index, sp)
        sims = np.clip(np.asarray(sp.sims, dtype=np.float64), 0.0, 1.0)
        ok = rows >= 0
        ok[ok] = index.is_candidate(rows[ok], **sel) & (index._scope.a[rows[ok]] == code)
        ok &= ~_member(rows, taken)
        s_rows, s_sim = rows[ok], sims[ok]
        ones = np.ones(s_rows.size)
        s_score = w_sim * s_sim + _rest(index, s_rows, 0.0 * ones, ones, w, now, half_life_days)
        scores = np.concatenate([known, s_score])
        thr = float(np.partition(scores, scores.size - depth)[scores.size - depth]) if scores.size >= depth else -np.inf
        bound = w_sim * (min(floor, float(sims[-1])) + POOL_SLACK) + w["scope"] + extra
        if bound < thr - POOL_SLACK:
            return s_rows, s_sim
        if n >= POOL_MAX:
            return None
        n = min(POOL_MAX, 4 * n)


def _member(rows: np.ndarray, sorted_rows: np.ndarray) -> np.ndarray:
    """Boolean mask over ``rows``: which of them are in ``sorted_rows`` (ascending int64), in
    O(len(rows) · log len(sorted_rows)): ``np.isin`` took 0.22 ms for 1,000 keyword hits
    against a pool of 64, this 0.04 ms."""
    if sorted_rows.size == 0:
        return np.zeros(rows.size, dtype=bool)
    at = np.minimum(np.searchsorted(sorted_rows, rows), sorted_rows.size - 1)
    return sorted_rows[at] == rows


def _positions(index: MemoryIndex, pool: DensePool) -> np.ndarray:
    """The pool's row positions (−1 for a store key the index does not hold)."""
    if pool.rows is not None:
        return np.asarray(pool.rows, dtype=np.int64)
    get = index._pos.get
    return np.fromiter((get(int(s), -1) for s in pool.seqs), dtype=np.int64, count=len(pool.seqs))


def _keywords_of(rows: np.ndarray, hit_rows: np.ndarray, hit_kw: np.ndarray) -> np.ndarray:
    """The keyword component of ``rows`` given the sorted posting hits (0 off them)."""
    if hit_rows.size == 0:
        return np.zeros(rows.size)
    at = np.minimum(np.searchsorted(hit_rows, rows), hit_rows.size - 1)
    return np.where(hit_rows[at] == rows, hit_kw[at], 0.0)


def _rest(
    index: MemoryIndex,
    rows: np.ndarray,
    kw: np.ndarray,
    scope_c: np.ndarray,
    w: dict[str, float],
    now: float,
    half_life_days: float,
) -> np.ndarray:
    """The weighted components other than similarity of ``rows`` (float64)."""
    rest = w["keywords"] * kw + w["scope"] * scope_c
    if w["confidence"]:
        rest += w["confidence"] * index._conf.a[rows]
    if w["recency"]:
        rest += w["recency"] * index._recency(rows, now, half_life_days)
    return rest
