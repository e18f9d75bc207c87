"""MemoryIndex: the in-memory columns of a store, scored for one query at once with numpy.

Scores are those of :mod:`assay.memory.retrieval.scoring` (same IEEE operations in the same
order, in float64; the cosine is a float32 dot product of unit vectors): similarity from one
matrix–vector product, keywords from an inverted index (term → rows, :mod:`.postings`) with
BM25 IDF over the indexed memories, scope by integer codes, confidence and recency from columns. Candidates
exclude superseded memories, and meta-memories when the prefilter is on (corrections exempt),
and, for a restricted search, memories of other scopes. Order: score descending, ties by
memory id ascending (code-point order); the top k is selected in O(n) with ``np.partition``.

Rows are upserted by the store's row key (``seq``): new rows append, changed rows (keyword
union, supersession, confidence) are updated in place. Memory: ``n × dim`` float32 plus the
texts and keyword postings.

Dense candidates from elsewhere (pgvector, :mod:`.vectors`; the in-process HNSW graph,
:mod:`.ann`): given ``dense_pool``, :meth:`MemoryIndex.rank` asks it for the ``N`` memories most
similar to the query instead of scoring every candidate, and scores only the candidates that its
bound cannot rule out (:mod:`.pooled`: O(N + keyword hits), not O(n)). The ranking is the full
scan's whenever the pool is the true top ``N``; a pooled memory's similarity is the pool's
(pgvector's float32 arithmetic: equal to numpy's to ~1e-6).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np

from assay.memory.config import Weights
from assay.memory.retrieval.columns import Grow, recency_of
from assay.memory.retrieval.pooled import POOL_MAX, DensePool, pooled_rows
from assay.memory.retrieval.postings import KeywordPostings
from assay.memory.retrieval.prefilter import is_meta_memory
from assay.memory.text import keyword_terms, terms

__all__ = ["MemoryIndex", "IndexRow", "Ranked", "DensePool"]

#: Above this share of rows being candidates, the full matrix–vector product is cheaper than
#: gathering the candidate rows first (a gather copies ``m × dim`` floats).
_GATHER_SHARE = 0.25

#: A dense pool is used only when the candidates are at least this share of the indexed rows (a
#: search restricted to a small scope would see most of the pool filtered out: numpy over its
#: candidates is cheaper); at most :data:`~assay.memory.retrieval.pooled.POOL_MAX` rows are asked for.
_POOL_SHARE = 0.5

#: Up to this many tied-or-better rows, the top k is ordered by comparing ids in Python; above
#: it, by a cached rank of every id (rebuilt in O(n log n) after rows are appended).
_SORT_IN_PYTHON = 2048


class IndexRow(NamedTuple):
    """One memory as the index needs it (``vector``: unit-length float32, or ``None``)."""

    seq: int
    id: str
    text: str
    keywords: Sequence[str]
    scope: str | None
    confidence: float
    created_at: datetime | None
    superseded: bool
    is_correction: bool
    vector: np.ndarray | None


class Ranked(NamedTuple):
    """A ranked row: its index position, score and components (``{name: value in [0, 1]}``)."""

    row: int
    score: float
    components: dict[str, float]


class MemoryIndex:
    """Append/update-in-place columns of memories for vectorised scoring (not thread-safe)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.texts: list[str] = []
        self.seqs: list[int] = []
        self._seq = Grow(np.int64)  # self.seqs as an array (row → store key, vectorised)
        self._pos: dict[int, int] = {}
        self._scope_of: list[str | None] = []
        self._scope_codes: dict[str | None, int] = {}
        self._scope = Grow(np.int32)
        self._conf = Grow(np.float64)
        self._created = Grow(np.float64)  # epoch seconds, NaN when unknown
        self._superseded = Grow(np.bool_)
        self._meta = Grow(np.bool_)  # a meta-memory that is not a correction
        self._vec: np.ndarray | None = None
        self._has_vec = Grow(np.bool_)
        self._nonzero = Grow(np.bool_)  # a vector that is not all-zero (the ones a dense pool can hold)
        self._keywords = KeywordPostings()
        self._id_rank: np.ndarray | None = None
        # Kept by upsert: candidate counts ([all, prefilter]) in total and per scope; maxima; scope rows
        self._n_live = [0, 0]
        self._live: list[list[int]] = [[], []]
        self._conf_max = 0.0
        self._created_max = -math.inf
        self._scope_rows: dict[int, tuple[np.ndarray | None, np.ndarray | None]] = {}
        cols = (self._scope, self._conf, self._created, self._superseded, self._meta, self._has_vec, self._nonzero)
        self._columns = (*cols, self._seq)
        self.ann: Any = None  # the HNSW graph over these vectors (assay.memory.retrieval.ann), built on demand
        self.scope_moves = 0  # rows whose scope changed in place (per-scope graphs are rebuilt after one)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def dim(self) -> int | None:
        """Vector dimension, ``None`` before the first vector."""
        return None if self._vec is None else int(self._vec.shape[1])

    def position(self, seq: int) -> int | None:
        """The row position of store key ``seq``, or ``None``."""
        return self._pos.get(seq)

    def vector(self, row: int) -> np.ndarray | None:
        """The unit vector of ``row`` (a view), or ``None`` when it has none."""
        return self._vec[row] if self._vec is not None and self._has_vec.a[row] else None

    def upsert(self, rows: Sequence[IndexRow]) -> None:
        """Add new rows and update known ones (by ``seq``). ``ValueError`` on a vector of another dimension."""
        for r in rows:
            if r.vector is not None and self._vec is not None and r.vector.shape[-1] != self._vec.shape[1]:
                raise ValueError(
                    f"memory {r.id!r}: vector of dimension {r.vector.shape[-1]}, the index holds {self._vec.shape[1]}"
                )
        kw_cache: dict[str, frozenset[str]] = {}  # keywords repeat across memories: tokenise each once
        self._scope_rows.clear()
        for r in rows:
            i = self._pos.get(r.seq)
            if i is None:
                i = len(self.ids)
                self._pos[r.seq] = i
                self.ids.append(r.id)
                self.texts.append(r.text)
                self.seqs.append(r.seq)
                self._scope_of.append(r.scope)  # set below: a new row has not moved
                self._keywords.append()
                for g in self._columns:
                    g.append_zero()
                self._seq.a[i] = r.seq
                self._id_rank = None
                if self._vec is not None and i >= self._vec.shape[0]:
                    self._grow_vec(i + 1)
            else:
                self._tally(i, -1)
            self.texts[i] = r.text
            self.scope_moves, self._scope_of[i] = self.scope_moves + (self._scope_of[i] != r.scope), r.scope
            code = self._scope_codes.get(r.scope)
            if code is None:
                code = self._scope_codes[r.scope] = len(self._scope_codes)
                self._live[0].append(0)
                self._live[1].append(0)
            self._scope.a[i] = code
            self._conf.a[i] = r.confidence
            self._conf_max = max(self._conf_max, r.confidence)
            self._created.a[i] = r.created_at.timestamp() if r.created_at is not None else math.nan
            if r.created_at is not None:
                self._created_max = max(self._created_max, self._created.a[i])
            self._superseded.a[i] = r.superseded
            self._meta.a[i] = (not r.is_correction) and is_meta_memory(r.text)
            self._tally(i, +1)
            kw: set[str] = set()
            for word in r.keywords:
                t = kw_cache.get(word)
                if t is None:
                    t = kw_cache[word] = frozenset(keyword_terms([word]))
                kw |= t
            self._keywords.set(i, kw)
            if r.vector is not None:
                self._set_vector(i, r.vector)

    def candidates(self, *, scope: str | None = None, restrict: bool = False, prefilter: bool = True) -> np.ndarray:
        """Row positions that may be ranked (see the module docstring)."""
        n = len(self)
        mask = ~self._superseded.a[:n]
        if prefilter:
            mask &= ~self._meta.a[:n]
        if restrict:
            code = self._scope_codes.get(scope)
            if code is None:
                return np.zeros(0, dtype=np.int64)
            mask &= self._scope.a[:n] == code
        return np.flatnonzero(mask)

    def rank(
        self,
        query_text: str,
        query_vector: Callable[[], np.ndarray] | np.ndarray | None,
        k: int,
        *,
        weights: Weights,
        ranker: str = "composite",
        scope: str | None = None,
        restrict: bool = False,
        prefilter: bool = True,
        now: float,
        half_life_days: float,
        depth: int | None = None,
        dense_pool: Callable[[np.ndarray, int], DensePool | None] | None = None,
        pool_size: int = 200,
    ) -> list[Ranked]:
        """The top ``k`` candidates for a query, best first, with their components.

        ``query_vector``: the query's unit vector, or a callable returning it (called only when
        there is a candidate and a similarity is needed). ``ranker``: ``"composite"`` (the
        weighted sum) or ``"dense"`` (similarity alone). ``now``: epoch seconds for recency.
        ``depth``: rank this many instead of ``k`` (a reranker's candidate pool), default ``k``.
        ``dense_pool``: ``(query vector, N) -> DensePool`` (pgvector, the HNSW graph), asked for
        ``N = max(depth, dense_pool.pool_size or pool_size)`` memories (more when its bound cannot rule the rest out)
        when the candidates are most of the index and the query vector is not zero; see the
        module docstring. Without it (or when it returns ``None``) every candidate is scored here.
        """
        if ranker not in ("composite", "dense"):
            raise ValueError(f"ranker must be composite or dense here, got {ranker!r}")
        depth = k if depth is None else max(k, depth)
        n_cand = self.candidate_count(scope=scope, restrict=restrict, prefilter=prefilter)
        if n_cand == 0 or depth <= 0:
            return []
        w = weights.as_dict()
        composite = ranker == "composite"
        need_sim = not composite or w["similarity"] > 0
        q: np.ndarray | None = None
        if need_sim:
            q = query_vector() if callable(query_vector) else query_vector
            if q is None:
                raise ValueError("a query vector is needed for the similarity component")
            q = np.asarray(q, dtype=np.float32).reshape(-1)
            n_pool = max(depth, getattr(dense_pool, "pool_size", pool_size))  # a source may ask its own size
            if dense_pool is not None and self._pool_applies(n_cand, q, n_pool):
                got = pooled_rows(
                    self,
                    q,
                    dense_pool,
                    n_pool=n_pool,
                    depth=depth,
                    weights=w,
                    query_terms=terms(query_text) if composite else None,
                    scope=scope,
                    restrict=restrict,
                    prefilter=prefilter,
                    now=now,
                    half_life_days=half_life_days,
                )
                if got is not None:
                    return self._ranked(got.rows, got.sim, got.kw, got.scope_c, depth, w, now, half_life_days)
        cand = self.candidates(scope=scope, restrict=restrict, prefilter=prefilter)
        kw = scope_c = None
        if composite:
            kw = self._keywords.scores(cand, terms(query_text))
            scope_c = self.scope_component(cand, scope)
        sim = self._cosines(cand, q) if q is not None else np.zeros(cand.size)
        return self._ranked(cand, sim, kw, scope_c, depth, w, now, half_life_days)

    def candidate_count(self, *, scope: str | None = None, restrict: bool = False, prefilter: bool = True) -> int:
        """How many rows :meth:`candidates` would return, in O(1) (counts kept by :meth:`upsert`)."""
        if restrict:
            code = self._scope_codes.get(scope)
            return 0 if code is None else self._live[1 if prefilter else 0][code]
        return self._n_live[1 if prefilter else 0]

    def is_candidate(
        self, rows: np.ndarray, *, scope: str | None = None, restrict: bool = False, prefilter: bool = True
    ) -> np.ndarray:
        """Boolean mask over ``rows``: which of them :meth:`candidates` holds (O(len(rows)))."""
        mask = ~(self._superseded.a[rows] | self._meta.a[rows]) if prefilter else ~self._superseded.a[rows]
        if restrict:
            mask &= self._scope.a[rows] == self._scope_codes.get(scope, -1)
        return mask

    def scope_component(self, rows: np.ndarray, scope: str | None) -> np.ndarray:
        """The scope component (float64, 0 or 1) of ``rows`` for a query in ``scope``."""
        code = self._scope_codes.get(scope) if scope is not None else None
        return (self._scope.a[rows] == code).astype(np.float64) if code is not None else np.zeros(rows.size)

    def scope_rows(self, code: int, vectors: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """The rows of scope ``code`` (sorted int64) and, with ``vectors``, a contiguous copy of
        their vectors (else ``None``), cached until the next :meth:`upsert`."""
        rows, vecs = self._scope_rows.get(code, (None, None))
        if rows is None:
            rows = np.flatnonzero(self._scope.a[: len(self)] == code)
        if vectors and vecs is None and self._vec is not None:
            vecs = self._vec[rows]
        self._scope_rows[code] = (rows, vecs)
        return rows, vecs

    def _ranked(
        self,
        cand: np.ndarray,
        sim: np.ndarray,
        kw: np.ndarray | None,
        scope_c: np.ndarray | None,
        depth: int,
        w: dict[str, float],
        now: float,
        half_life_days: float,
    ) -> list[Ranked]:
        """The top ``depth`` of rows ``cand`` given their components (``kw`` ``None``: the dense ranker)."""
        if kw is None or scope_c is None:
            score = sim.copy()
        else:
            score = np.zeros(cand.size)
            score += w["similarity"] * sim
            score += w["keywords"] * kw
            score += w["scope"] * scope_c
            if w["confidence"]:
                score += w["confidence"] * self._conf.a[cand]
            if w["recency"]:
                score += w["recency"] * self._recency(cand, now, half_life_days)
        order = self._top(cand, score, depth)
        rows = cand[order]
        rec = self._recency(rows, now, half_life_days)
        out = []
        for j, (o, r) in enumerate(zip(order, rows, strict=True)):
            comps = {"similarity": float(sim[o])}
            if kw is not None and scope_c is not None:
                comps.update(
                    keywords=float(kw[o]),
                    scope=float(scope_c[o]),
                    confidence=float(self._conf.a[r]),
                    recency=float(rec[j]),
                )
            out.append(Ranked(int(r), float(score[o]), comps))
        return out

    # -- internals ----------------------------------------------------------------------------

    def _cosines(self, cand: np.ndarray, q: np.ndarray) -> np.ndarray:
        n = len(self)
        if self._vec is None:
            return np.zeros(cand.size)
        if q.shape[0] != self._vec.shape[1]:
            raise ValueError(f"query vector of dimension {q.shape[0]}, the index holds {self._vec.shape[1]}")
        if cand.size >= _GATHER_SHARE * n:
            cos = (self._vec[:n] @ q)[cand]
        else:
            cos = self._vec[cand] @ q
        return np.clip(cos.astype(np.float64), 0.0, 1.0)

    def _pool_applies(self, n_cand: int, q: np.ndarray, n_pool: int) -> bool:
        """Whether a dense pool can stand in for scoring every candidate (see the module docstring)."""
        if self._vec is None or n_pool > POOL_MAX or n_cand < _POOL_SHARE * len(self):
            return False
        if q.shape[0] != self._vec.shape[1]:
            raise ValueError(f"query vector of dimension {q.shape[0]}, the index holds {self._vec.shape[1]}")
        return bool(np.isfinite(q).all() and np.any(q))

    def _tally(self, i: int, sign: int) -> None:
        """Count row ``i`` in (``+1``) or out of (``-1``) the candidate counts."""
        if self._superseded.a[i]:
            return
        c = int(self._scope.a[i])
        ok = not self._meta.a[i]
        self._n_live[0] += sign
        self._live[0][c] += sign
        if ok:
            self._n_live[1] += sign
            self._live[1][c] += sign

    def _recency(self, rows: np.ndarray, now: float, half_life_days: float) -> np.ndarray:
        return recency_of(self._created.a[rows], now, half_life_days)

    def _top(self, cand: np.ndarray, score: np.ndarray, k: int) -> np.ndarray:
        """Positions into ``cand`` of the top ``k`` by score desc, then id asc."""
        if k < cand.size:
            kth = np.partition(score, cand.size - k)[cand.size - k]
            sel = np.flatnonzero(score >= kth)
        else:
            sel = np.arange(cand.size)
        if sel.size <= _SORT_IN_PYTHON:  # few rows: compare their ids (no O(n log n) id ranking after an append)
            ids, sc, rows = self.ids, score[sel].tolist(), cand[sel].tolist()
            picked = sorted(range(sel.size), key=lambda j: (-sc[j], ids[rows[j]]))[:k]
            return sel[np.asarray(picked, dtype=np.int64)]
        if self._id_rank is None:
            self._id_rank = np.argsort(np.argsort(np.array(self.ids, dtype=object), kind="stable"), kind="stable")
        idr = self._id_rank[cand]
        order = np.lexsort((idr[sel], -score[sel]))
        return sel[order[:k]]

    def _set_vector(self, i: int, v: np.ndarray) -> None:
        v = np.asarray(v, dtype=np.float32).reshape(-1)
        if self._vec is None:
            self._vec = np.zeros((max(1024, 2 * len(self.ids)), v.shape[0]), dtype=np.float32)
        if i >= self._vec.shape[0]:
            self._grow_vec(i + 1)
        self._vec[i] = v
        self._has_vec.a[i] = True
        self._nonzero.a[i] = bool(np.any(v))

    def _grow_vec(self, rows: int) -> None:
        assert self._vec is not None
        grown = np.zeros((max(rows, 2 * self._vec.shape[0]), self._vec.shape[1]), dtype=np.float32)
        grown[: self._vec.shape[0]] = self._vec
        self._vec = grown
