"""The pooled ranking (assay.memory.retrieval.pooled): with an exact pool it is the full scan's
ranking on random indexes — keyword-heavy and scoped queries, superseded and meta rows included —
and it reads O(pool + keyword hits) rows, never every candidate, for the reference weights."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay.memory.retrieval.pooled as pooled_module
from assay.memory.config import Weights
from assay.memory.retrieval.index import DensePool, IndexRow, MemoryIndex
from assay.memory.retrieval.postings import KeywordPostings
from ranking_checks import assert_same_ranking

DIM = 8
T0 = datetime(2024, 1, 1, tzinfo=UTC)
NOW = datetime(2024, 6, 1, tzinfo=UTC).timestamp()
WORDS = [f"w{i}" for i in range(12)]  # a small vocabulary: queries hit many rows
WEIGHTS = [
    Weights(),
    Weights(keywords=0.6),  # keyword-heavy: hits far below the pool's floor can win
    Weights(scope=0.3),  # scope-heavy: the scope's rows are a class of their own
    Weights(confidence=0.2, recency=0.1, scope=0.1),
]


def _rows(rng: np.random.Generator, n: int, start: int = 0) -> list[IndexRow]:
    vecs = rng.normal(size=(n, DIM)).astype(np.float32)
    if n > 4:
        vecs[rng.integers(0, n, n // 4)] = vecs[rng.integers(0, n, n // 4)]  # duplicates: exact ties
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs[rng.integers(0, n, max(1, n // 20))] = 0.0  # zero vectors: similarity 0, never pooled
    out = []
    for i in range(n):
        j = start + i
        out.append(
            IndexRow(
                j + 1,
                f"m{int(rng.integers(0, 50)):02d}-{j}",
                "remember to save memories" if rng.uniform() < 0.05 else f"note {j}",
                list(rng.choice(WORDS, int(rng.integers(0, 4)))),
                f"s{int(rng.integers(0, 4))}" if rng.uniform() < 0.9 else None,
                float(rng.uniform()),
                None if rng.uniform() < 0.1 else T0 + timedelta(days=int(rng.integers(0, 150))),
                bool(rng.uniform() < 0.1),
                bool(rng.uniform() < 0.02),
                None if rng.uniform() < 0.03 else vecs[i],
            )
        )
    return out


def _exact_pool(index: MemoryIndex, calls: list[int], with_rows: bool = False):
    def pool(q: np.ndarray, size: int) -> DensePool:  # the exact top `size` among non-zero vectors
        calls.append(size)
        n = len(index)
        have = np.flatnonzero(index._nonzero.a[:n])
        sims = (index._vec[:n] @ q)[have].astype(np.float64)  # numpy's full-scan arithmetic: identical ties
        order = np.argsort(-sims, kind="stable")[:size]
        rows = have[order]  # with_rows: positions given, as the in-process graph gives them
        return DensePool(np.asarray(index.seqs)[rows], sims[order], rows if with_rows else None)

    return pool


class _ExactScopedPool:
    """An exact dense pool with the ``scoped`` method of the in-process graph (per-scope pools)."""

    def __init__(self, index: MemoryIndex, calls: list[int], with_rows: bool):
        self.index, self.calls, self.scoped_calls = index, calls, []
        self.pool = _exact_pool(index, calls, with_rows)
        self.with_rows = with_rows

    def __call__(self, q: np.ndarray, size: int) -> DensePool:
        return self.pool(q, size)

    def scoped(self, q: np.ndarray, size: int, code: int) -> DensePool:
        self.scoped_calls.append(size)
        index, n = self.index, len(self.index)
        have = np.flatnonzero(index._nonzero.a[:n] & (index._scope.a[:n] == code))
        sims = (index._vec[:n] @ q)[have].astype(np.float64)
        order = np.argsort(-sims, kind="stable")[:size]
        rows = have[order]
        return DensePool(np.asarray(index.seqs)[rows], sims[order], rows if self.with_rows else None)


class _ProbedPool(_ExactScopedPool):
    """With the graph's ``probe``: the exact pool missing its ``drop`` nearest rows (a narrow
    beam that lost them; ``drop`` 0: an exact probe)."""

    def __init__(self, index: MemoryIndex, calls: list[int], with_rows: bool, drop: int = 0):
        super().__init__(index, calls, with_rows)
        self.drop, self.probe_calls = drop, []

    def probe(self, q: np.ndarray, size: int) -> DensePool:
        self.probe_calls.append(size)
        got = _exact_pool(self.index, [], self.with_rows)(q, size + self.drop)
        return DensePool(*(None if x is None else x[self.drop :] for x in got))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.one_of(st.integers(20, 200), st.integers(600, 1500)),
    updates=st.integers(0, 40),
    n_queries=st.integers(1, 6),
)
def test_the_pooled_ranking_is_the_full_scans(seed, n, updates, n_queries):
    rng = np.random.default_rng(seed)
    index = MemoryIndex()
    index.upsert(_rows(rng, n))
    if updates:  # supersede / rescope / re-keyword some rows in place
        again = _rows(rng, updates)
        pick = rng.choice(n, size=min(updates, n), replace=False)
        index.upsert(
            [r._replace(seq=int(p) + 1, id=index.ids[p], vector=None) for r, p in zip(again, pick, strict=False)]
        )
    calls: list[int] = []
    if seed % 6 == 0:  # a source with per-scope pools and an (exact) probe: the in-process graph
        pool = _ProbedPool(index, calls, with_rows=bool(seed % 4))
    elif seed % 3 == 0:  # a source with per-scope pools
        pool = _ExactScopedPool(index, calls, with_rows=bool(seed % 2))
    else:
        pool = _exact_pool(index, calls, with_rows=bool(seed % 2))
    for _ in range(n_queries):
        q = rng.normal(size=DIM).astype(np.float32)
        q /= np.linalg.norm(q)
        restrict = bool(rng.uniform() < 0.2)
        scope = f"s{int(rng.integers(0, 5))}" if restrict or rng.uniform() < 0.6 else None
        kw = dict(
            weights=WEIGHTS[int(rng.integers(0, len(WEIGHTS)))],
            ranker="dense" if rng.uniform() < 0.2 else "composite",
            scope=scope,
            restrict=restrict,
            prefilter=bool(rng.uniform() < 0.8),
            now=NOW,
            half_life_days=30.0,
            depth=[None, 25][int(rng.integers(0, 2))],
        )
        q_text = " ".join(rng.choice(WORDS, int(rng.integers(0, 4)))) or "note"
        k = int(rng.integers(1, 12))
        full = index.rank(q_text, q, k + 30, **(kw | {"depth": None}))  # and the rows just below
        pool_max = [pooled_module.POOL_MAX, int(rng.integers(40, 120))][int(rng.integers(0, 2))]
        scan = [pooled_module.SCOPE_SCAN, 0][int(rng.integers(0, 2))]  # 0: a deeper pool before the scope scan
        with (  # a low cap: the scope scan, the fallback
            mock.patch.object(pooled_module, "POOL_MAX", pool_max),
            mock.patch.object(pooled_module, "SCOPE_SCAN", scan),
            mock.patch.object(pooled_module, "SCOPE_POOL", int(rng.integers(1, 70))),  # 1: the bound asks again
        ):
            pooled = index.rank(q_text, q, k, dense_pool=pool, pool_size=int(rng.integers(1, 40)), **kw)
        assert_same_ranking(pooled, full, max(k, kw["depth"] or k))


def test_a_pooled_ranking_touches_no_row_outside_the_pool_and_the_hits(monkeypatch):
    rng = np.random.default_rng(11)
    n = 5000
    rows = _rows(rng, n)
    index = MemoryIndex()
    index.upsert(rows)
    calls: list[int] = []
    pool = _exact_pool(index, calls)
    q = index.vector(int(np.flatnonzero(index._nonzero.a[:n])[0])).copy()
    cosines = index._cosines
    scored: list[int] = []

    def counting(cand, qv):
        scored.append(cand.size)
        return cosines(cand, qv)

    full = index.rank("w3", q, 10, weights=Weights(), scope="s1", now=NOW, half_life_days=30.0)
    monkeypatch.setattr(index, "candidates", lambda **_: pytest.fail("the pooled path listed every candidate"))
    monkeypatch.setattr(index, "_cosines", counting)
    pooled = index.rank("w3", q, 10, weights=Weights(), scope="s1", now=NOW, half_life_days=30.0, dense_pool=pool)
    assert [r.row for r in pooled] == [r.row for r in full]
    assert calls == [200] and sum(scored) <= len(index._keywords._rows["w3"])  # hits re-scored, nothing else


def test_a_large_scope_is_ranked_from_its_own_pool_not_a_scan(monkeypatch):
    rng = np.random.default_rng(5)
    index = MemoryIndex()
    rows = _rows(rng, 6000)  # a rare scope (1/12 of the rows): few of its rows in the global pool
    index.upsert([r._replace(scope="rare") if i % 12 == 0 else r for i, r in enumerate(rows)])
    calls: list[int] = []
    pool = _ExactScopedPool(index, calls, with_rows=True)
    monkeypatch.setattr(pooled_module, "SCOPE_SCAN", 100)  # its 500 rows are a "large" scope
    monkeypatch.setattr(pooled_module, "SCOPE_POOL", 1)  # the first scope pool (2·depth): often too shallow
    scanned: list[int] = []
    scope_rows = index.scope_rows
    monkeypatch.setattr(index, "scope_rows", lambda *a, **k: scanned.append(1) or scope_rows(*a, **k))
    weights = [Weights(), Weights(scope=0.3), Weights(confidence=0.3, recency=0.2, scope=0.2)]
    for j in range(24):
        q = rng.normal(size=DIM).astype(np.float32)
        q /= np.linalg.norm(q)
        kw = dict(weights=weights[j % 3], scope="rare", now=NOW, half_life_days=30.0)
        full = index.rank("note", q, 40, **kw)
        calls.clear()
        pooled = index.rank("note", q, 10, dense_pool=pool, **kw)
        assert_same_ranking(pooled, full, 10)
        if j % 3 < 2:  # similarity, keywords and scope only: the global pool is not deepened for the scope
            assert calls == [200]
    assert pool.scoped_calls and not scanned  # the scope's pool, never a scan of the scope
    assert pool.scoped_calls.count(20) < len(pool.scoped_calls)  # and its bound asked again at times


def test_the_probe_decides_only_when_the_scope_and_the_hits_do(monkeypatch):
    rng = np.random.default_rng(9)
    index = MemoryIndex()
    rows = _rows(rng, 6000)
    q = rng.normal(size=DIM).astype(np.float32)
    q /= np.linalg.norm(q)
    far = -q  # the scope "near" holds the query's best matches, the scope "far" only its worst
    index.upsert(
        [
            r._replace(scope="near", vector=(q + 0.3 * r.vector) / np.linalg.norm(q + 0.3 * r.vector))
            if i % 12 == 0 and r.vector is not None
            else r._replace(scope="far", vector=far)
            if i % 12 == 1
            else r
            for i, r in enumerate(rows)
        ]
    )
    monkeypatch.setattr(pooled_module, "SCOPE_SCAN", 100)  # 500 rows each: large scopes, their own pools
    kw = dict(weights=Weights(scope=0.3), now=NOW, half_life_days=30.0)
    # the scope's rows decide the top 10: the probe (missing its 3 nearest rows, of the scope)
    # is enough, the scope's rows coming from the scope's own pool
    calls: list[int] = []
    pool = _ProbedPool(index, calls, with_rows=True, drop=3)
    pooled = index.rank("note", q, 10, dense_pool=pool, scope="near", **kw)
    assert_same_ranking(pooled, index.rank("note", q, 40, scope="near", **kw), 10)
    assert pool.probe_calls == [200] and calls == [] and pool.scoped_calls
    # rows outside the scope decide it: the lossy probe's rows reach the top 10, ranked again at the full beam
    calls.clear()
    pool = _ProbedPool(index, calls, with_rows=True, drop=3)
    pooled = index.rank("note", q, 10, dense_pool=pool, scope="far", **kw)
    assert_same_ranking(pooled, index.rank("note", q, 40, scope="far", **kw), 10)
    assert pool.probe_calls == [200] and calls == [200]


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 200), rounds=st.integers(1, 4))
def test_the_candidate_counts_follow_upserts(seed, n, rounds):
    rng = np.random.default_rng(seed)
    index = MemoryIndex()
    for r in range(rounds):
        index.upsert(_rows(rng, n, start=0 if r % 2 else r * n))  # odd rounds: the same seqs, updated
        for prefilter in (True, False):
            assert index.candidate_count(prefilter=prefilter) == index.candidates(prefilter=prefilter).size
            for s in ("s0", "s1", "s3", None, "absent"):
                got = index.candidate_count(scope=s, restrict=True, prefilter=prefilter)
                assert got == index.candidates(scope=s, restrict=True, prefilter=prefilter).size
                rows = np.arange(len(index))
                mask = index.is_candidate(rows, scope=s, restrict=True, prefilter=prefilter)
                listed = index.candidates(scope=s, restrict=True, prefilter=prefilter)
                assert np.array_equal(np.flatnonzero(mask), listed)


@settings(max_examples=80, deadline=None)
@given(
    row_terms=st.lists(st.sets(st.sampled_from(WORDS), max_size=4), min_size=1, max_size=60),
    query=st.sets(st.sampled_from([*WORDS, "absent"]), max_size=5),
)
def test_posting_hits_are_the_nonzero_scores_bit_for_bit(row_terms, query):
    p = KeywordPostings()
    for i, t in enumerate(row_terms):
        p.append()
        p.set(i, t)
    full = p.scores(np.arange(len(row_terms)), query)
    rows, scores = p.hits(query)
    assert rows.tolist() == np.flatnonzero(full).tolist()
    assert scores.tolist() == full[rows].tolist()  # the same additions in the same order: equal, not close
