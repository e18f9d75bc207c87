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

Dense candidates from elsewhere (pgvector, :mod:`assay.memory.retrieval.vectors`): given ``dense_pool``,
:meth:`MemoryIndex.rank` asks it for the ``N`` memories most similar to the query (keys and
cosine similarities, best first) instead of scoring every candidate. A candidate outside that
pool has similarity ≤ the pool's lowest, so its composite score is at most its other
components (computed here for every candidate: O(n), no vector work) plus ``w_similarity ×``
that floor; the candidates whose bound reaches the pool's ``depth``-th score are scored here
(numpy), the rest cannot enter the top ``depth``. The ranking is therefore the numpy path's
whenever the pool is the true top ``N`` (exact search), and the similarity of a pooled memory
is the pool's (pgvector's float32 arithmetic: equal to numpy's to ~1e-6).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np

from assay.memory.config import Weights
from assay.memory.retrieval.postings import KeywordPostings
from assay.memory.retrieval.prefilter import is_meta_memory
from assay.memory.text import keyword_terms, terms

__all__ = ["MemoryIndex", "IndexRow", "Ranked", "DensePool"]

#: Above this share of rows being candidates, the full matrix–vector product is cheaper than
#: gathering the candidate rows first (a gather copies ``m × dim`` floats).
_GATHER_SHARE = 0.25

#: A dense pool is used only when the candidates are at least this share of the indexed rows (a
#: search restricted to a small scope would see most of the pool filtered out: numpy over its
#: candidates is cheaper), and at most this many rows are asked for (pgvector's ef_search bound).
_POOL_SHARE = 0.5
_POOL_MAX = 1000
#: Slack on the pool's similarity floor: pgvector and numpy round the same cosine differently
#: (float32 accumulation in another order, ≲ 1e-6).
_POOL_SLACK = 1e-5


class DensePool(NamedTuple):
    """Dense candidates found outside the index: store keys ``seqs`` (int64) best first and
    their cosine similarities ``sims`` (float64, [−1, 1]); fewer than asked = all there are."""

    seqs: np.ndarray
    sims: np.ndarray


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
        self._pos: dict[int, int] = {}
        self._scope_of: list[str | None] = []
        self._scope_codes: dict[str | None, int] = {}
        self._scope = _Grow(np.int32)
        self._conf = _Grow(np.float64)
        self._created = _Grow(np.float64)  # epoch seconds, NaN when unknown
        self._superseded = _Grow(np.bool_)
        self._meta = _Grow(np.bool_)  # a meta-memory that is not a correction
        self._vec: np.ndarray | None = None
        self._has_vec = _Grow(np.bool_)
        self._nonzero = _Grow(np.bool_)  # a vector that is not all-zero (the ones a dense pool can hold)
        self._keywords = KeywordPostings()
        self._id_rank: np.ndarray | None = None
        self.ann: Any = None  # the HNSW graph over these vectors (assay.memory.retrieval.ann), built on demand

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
        for r in rows:
            i = self._pos.get(r.seq)
            if i is None:
                i = len(self.ids)
                self._pos[r.seq] = i
                self.ids.append(r.id)
                self.texts.append(r.text)
                self.seqs.append(r.seq)
                self._scope_of.append(None)
                self._keywords.append()
                for g in (
                    self._scope,
                    self._conf,
                    self._created,
                    self._superseded,
                    self._meta,
                    self._has_vec,
                    self._nonzero,
                ):
                    g.append_zero()
                self._id_rank = None
                if self._vec is not None and i >= self._vec.shape[0]:
                    self._grow_vec(i + 1)
            self.texts[i] = r.text
            self._scope_of[i] = r.scope
            self._scope.a[i] = self._scope_codes.setdefault(r.scope, len(self._scope_codes))
            self._conf.a[i] = r.confidence
            self._created.a[i] = r.created_at.timestamp() if r.created_at is not None else math.nan
            self._superseded.a[i] = r.superseded
            self._meta.a[i] = (not r.is_correction) and is_meta_memory(r.text)
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
        ``dense_pool``: ``(query vector, N) -> DensePool`` (pgvector), asked for ``N =
        max(depth, pool_size)`` memories when the candidates are most of the index and the query
        vector is not zero; see the module docstring. Without it (or when it returns ``None``)
        every candidate is scored here.
        """
        if ranker not in ("composite", "dense"):
            raise ValueError(f"ranker must be composite or dense here, got {ranker!r}")
        cand = self.candidates(scope=scope, restrict=restrict, prefilter=prefilter)
        depth = k if depth is None else max(k, depth)
        if cand.size == 0 or depth <= 0:
            return []
        w = weights.as_dict()
        need_sim = ranker == "dense" or w["similarity"] > 0
        kw = scope_c = None
        if ranker == "composite":
            kw = self._keywords.scores(cand, terms(query_text))
            code = self._scope_codes.get(scope) if scope is not None else None
            scope_c = (self._scope.a[cand] == code).astype(np.float64) if code is not None else np.zeros(cand.size)
        sim = np.zeros(cand.size)
        if need_sim:
            q = query_vector() if callable(query_vector) else query_vector
            if q is None:
                raise ValueError("a query vector is needed for the similarity component")
            q = np.asarray(q, dtype=np.float32).reshape(-1)
            n_pool = max(depth, pool_size)
            if dense_pool is not None and self._pool_applies(cand, q, n_pool):
                keep, sim = self._pooled(cand, q, dense_pool, n_pool, depth, w, kw, scope_c, now, half_life_days)
                if keep is not None:
                    cand = cand[keep]
                    if kw is not None and scope_c is not None:
                        kw, scope_c = kw[keep], scope_c[keep]
            else:
                sim = self._cosines(cand, q)
        if ranker == "dense":
            score = sim.copy()
        else:
            assert kw is not None and scope_c is not None
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

    def _pool_applies(self, cand: np.ndarray, q: np.ndarray, n_pool: int) -> bool:
        """Whether a dense pool can stand in for scoring every candidate (see the module docstring)."""
        if self._vec is None or n_pool > _POOL_MAX or cand.size < _POOL_SHARE * len(self):
            return False
        if q.shape[0] != self._vec.shape[1]:
            raise ValueError(f"query vector of dimension {q.shape[0]}, the index holds {self._vec.shape[1]}")
        return bool(np.isfinite(q).all() and np.any(q))

    def _pooled(
        self,
        cand: np.ndarray,
        q: np.ndarray,
        dense_pool: Callable[[np.ndarray, int], DensePool | None],
        n_pool: int,
        depth: int,
        w: dict[str, float],
        kw: np.ndarray | None,
        scope_c: np.ndarray | None,
        now: float,
        half_life_days: float,
    ) -> tuple[np.ndarray | None, np.ndarray]:
        """``(keep, sim)``: which candidates can reach the top ``depth`` (``None``: all) and their
        clipped similarities — the pool's for pooled memories, numpy's for the others kept."""
        n = len(self)
        pool = dense_pool(q, n_pool)
        if pool is None:  # the source is gone (pgvector dropped): score every candidate here
            return None, self._cosines(cand, q)
        pos = np.fromiter((self._pos.get(int(s), -1) for s in pool.seqs), dtype=np.int64, count=len(pool.seqs))
        where = np.full(n, -1, dtype=np.int64)
        where[cand] = np.arange(cand.size)
        ci = np.where(pos >= 0, where[np.maximum(pos, 0)], -1)
        hit = ci >= 0
        sim = np.zeros(cand.size)
        sim[ci[hit]] = np.clip(np.asarray(pool.sims, dtype=np.float64)[hit], 0.0, 1.0)
        in_pool = np.zeros(cand.size, dtype=bool)
        in_pool[ci[hit]] = True
        if len(pool.seqs) < n_pool:  # the pool is every mirrored vector: the rest are zero (similarity 0) …
            if int(np.count_nonzero(pos >= 0)) >= int(np.count_nonzero(self._nonzero.a[:n])):
                return None, sim
            return None, self._cosines(cand, q)  # … unless the scan ran short or the mirror lags: score here
        w_sim = 1.0 if kw is None else w["similarity"]
        rest = np.zeros(cand.size)
        if kw is not None and scope_c is not None:
            rest += w["keywords"] * kw + w["scope"] * scope_c
            if w["confidence"]:
                rest += w["confidence"] * self._conf.a[cand]
            if w["recency"]:
                rest += w["recency"] * self._recency(cand, now, half_life_days)
        floor = float(np.clip(pool.sims[-1], 0.0, 1.0)) + _POOL_SLACK
        known = (w_sim * sim + rest)[in_pool]
        thr = np.partition(known, known.size - depth)[known.size - depth] if known.size >= depth else -np.inf
        need = ~in_pool & (rest + w_sim * floor >= thr - _POOL_SLACK)
        if need.any():
            sim[need] = self._cosines(cand[need], q)
        keep = in_pool | need
        return keep, sim[keep]

    def _recency(self, rows: np.ndarray, now: float, half_life_days: float) -> np.ndarray:
        age_days = np.maximum(0.0, (now - self._created.a[rows]) / 86400.0)
        out = np.power(0.5, age_days / half_life_days)
        return np.where(np.isnan(out), 0.0, out)

    def _top(self, cand: np.ndarray, score: np.ndarray, k: int) -> np.ndarray:
        """Positions into ``cand`` of the top ``k`` by score desc, then id asc."""
        if self._id_rank is None:
            self._id_rank = np.argsort(np.argsort(np.array(self.ids, dtype=object), kind="stable"), kind="stable")
        idr = self._id_rank[cand]
        if k < cand.size:
            kth = np.partition(score, cand.size - k)[cand.size - k]
            sel = np.flatnonzero(score >= kth)
        else:
            sel = np.arange(cand.size)
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


class _Grow:
    """A 1-D numpy array with amortised O(1) append; ``a`` is the backing array (use ``a[:n]``)."""

    def __init__(self, dtype: Any):
        self.a = np.zeros(1024, dtype=dtype)
        self.n = 0

    def append_zero(self) -> None:
        if self.n == self.a.shape[0]:
            grown = np.zeros(2 * self.a.shape[0], dtype=self.a.dtype)
            grown[: self.n] = self.a
            self.a = grown
        self.n += 1
