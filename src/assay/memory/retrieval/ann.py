"""The in-process approximate index: HNSW (hnswlib) dense candidates above a size threshold.

On the numpy path (SQLite; PostgreSQL without pgvector) every search scores every candidate's
cosine — O(n·dim), ~9 ms at 100,000 × 384. Above ``MemorySettings.ann_threshold`` memories,
:func:`ann_source` hands :meth:`~assay.memory.retrieval.index.MemoryIndex.rank` a ``dense_pool``
backed by an HNSW graph instead: the graph proposes the ``N = max(depth, 16)`` nearest
vectors (row positions; :attr:`GraphPool.pool_size`, 4× more when the bound asks) at the beam
``MemorySettings.ann_ef_search``, their cosines are recomputed exactly here (numpy, the index's
own float32 vectors), and the index's pooled ranking (:mod:`assay.memory.retrieval.pooled`, the
same code path as pgvector's) scores the composite over the pooled rows plus the few the pool's
bound cannot rule out (keyword hits, a small query scope; a large one has its own graph, below)
— O(N + keyword hits) per query, not O(n). Rankings therefore equal the exact path's whenever
the graph's top ``N`` is the true top ``N``, i.e. up to the graph's recall. Measured
(``benchmarks/bench_ann_scale.py --million``: 1,000,000 × 384 clustered, composite top-10 vs
the exact path, 200 queries per kind, M 32 / ef_construction 200, ef 100, probe 16, scope pool
32, a 2-core host at load 1–2.6, two runs): recall@10 0.994 / 1.0 / 1.0 for plain, scoped and
keyword queries; p50 1.37 / 1.45 / 2.13 ms and 1.15 / 1.53 / 2.29 ms (CPU within 0.01 ms of it)
against 224–312 ms exact — plain and scoped within the issue's 2 ms, keyword not (ef 200 without
the probe: 2.2 / 3.6 / 5.9 ms CPU). Graph 1,812 MB (the vectors alone 1,536 MB), built in
3,060 s on 2 threads of a loaded host, plus 36 MB per 20,000-row scope graph; its M 16 / 100
predecessor plateaued at recall 0.984 with nodes the search could not reach. At 100,000 (graph
181 MB, 407 s on 2 threads at load 5; scopes of 2,000 rows are scanned): recall@10 1.0 for
every kind, p50 1.16 / 1.77 / 2.09 ms against 22 ms exact. Where the time goes (cProfile and
per-part CPU p50 at 1,000,000): the global graph's search is most of a plain query (1.10 ms
at ef 100, 1.38 at ef 200); a scoped query's probe and scope graph take 0.3–0.45 ms each; a
keyword query adds the exact cosines of its ~1,000 posting hits (a gather of 1.5 MB from
DRAM: 0.54–0.57 ms; in cache-sized chunks 0.61 ms, from an int8 copy 0.46 ms before the exact
pass it would still need, from a float16 one 1.8 ms), and the Python around them is ≈ 0.5 ms. On PostgreSQL with
pgvector, pgvector's HNSW stays the index.

Why hnswlib (over usearch or faiss): in the issue's measurement on 100,000 × 384 clustered
vectors it answered top-10 in 0.17 ms p50 at recall 1.0 (usearch 0.50 ms); it is one wheel with
no dependencies (faiss-cpu is ~30 MB and its wheels lag new Pythons), supports incremental
``add_items`` with ``resize_index``, and its inner-product space on unit vectors is cosine.
Its last release (0.8.0) is from 2023: the graph is small, stable code, but a later switch to
usearch would touch only this module.

Sync with the store: the graph lives beside the in-process index (``MemoryIndex.ann``) and is
brought up to it before each query — the index itself follows the store revision, and a row's
vector is written once per store (the store's embedder is fixed), so appending the rows added
since the last sync is enough. Superseded and filtered memories stay in the graph: the pooled
ranking drops non-candidates, and a search restricted to a small scope is scored in numpy
(the pool is used only when the candidates are most of the index).

Per-scope graphs: a query's scope earns ``w_scope``, so its top ``depth`` can sit deep in the
global order, where the global graph's recall is poor; a scope with more rows than
:data:`~assay.memory.retrieval.pooled.SCOPE_SCAN` therefore gets its own graph over its rows
(:meth:`AnnIndex.scope_graph`, built on the first query that needs it, synced like the global
one, started again after a row changed scope in place: ``MemoryIndex.scope_moves``), asked
through :meth:`GraphPool.scoped` with the beam ``ef`` = the pool asked for (≥ ``SCOPE_POOL`` = 32:
on a 20,000-row scope graph its top 10 was recalled fully at ef 32, 64, 100 and 200, 200 queries,
1,000,000-row benchmark data). Before them, at 1,000,000 rows the scoped and keyword queries
grew the global pool to 800–1,000 and still lost the scope rows the graph missed there (recall@10
0.975 / 0.980 at any ``ef_search``: the pool size, not the beam, set ``ef``). Such a query asks
the global graph first through :meth:`GraphPool.probe`, at the narrow beam ``ann_ef_probe``:
its rows only have to show that nothing outside the scope and the hits reaches the top ``depth``
(:class:`~assay.memory.retrieval.pooled.ProbePool`); when one does, the query is ranked again
at the full beam. A query whose scope is small enough to be scanned does not probe: at
100,000 rows (scopes of 2,000, a handful of them near the query) the scope rarely settles the
top 10 alone, and probe + re-run took 3.4 ms of CPU p50 against 2.4 ms for the full beam.

Memory: hnswlib keeps its own copy of the vectors plus ``2·M`` links per element (≈ 1.8 kB per
384-d memory at M = 32), and each per-scope graph the same again for its rows (a 20,000-row
scope: 36 MB). Building is paid on the first search above the threshold (then only the new
rows are added), a scope's graph on the first query that needs it.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from assay.memory.config import MemorySettings
from assay.memory.retrieval.index import DensePool, MemoryIndex
from assay.memory.retrieval.pooled import SCOPE_POOL

__all__ = ["AnnIndex", "GraphPool", "ann_source", "ann_available"]

log = logging.getLogger(__name__)


def ann_available() -> bool:
    """Whether hnswlib (the ``ann`` extra) is importable."""
    try:
        import hnswlib  # noqa: F401
    except ImportError:
        return False
    return True


class AnnIndex:
    """An HNSW graph over the vectors of one :class:`MemoryIndex`, keyed by row position.

    ``m`` / ``ef_construction``: HNSW's graph degree and build beam (see
    :class:`~assay.memory.config.MemorySettings`); ``threads``: hnswlib's build threads.
    """

    def __init__(
        self,
        dim: int,
        *,
        m: int,
        ef_construction: int,
        threads: int = 1,
        ef_search: int = 200,
        scope_code: int | None = None,
    ):
        import hnswlib

        self.dim = dim
        self._g = hnswlib.Index(space="ip", dim=dim)
        self._capacity = 1024
        self._g.init_index(
            max_elements=self._capacity, M=m, ef_construction=ef_construction, allow_replace_deleted=False
        )
        self._g.set_num_threads(threads)
        self.synced = 0  # row positions [0, synced) have been considered
        self.ef_search = ef_search  # the search beam: max(this, the pool asked for)
        self.scope_code = scope_code  # a graph of one scope's rows only (None: every row)
        self.scope_moves = 0  # the index's scope_moves when this scope's graph was started
        self.scopes: dict[int, AnnIndex] = {}  # the per-scope graphs, beside the global one
        self._params = {"m": m, "ef_construction": ef_construction, "threads": threads, "ef_search": ef_search}

    def __len__(self) -> int:
        return int(self._g.get_current_count())

    def sync(self, index: MemoryIndex) -> int:
        """Add the rows of ``index`` appended since the last sync (those with a non-zero vector);
        returns how many were added."""
        n = len(index)
        if n <= self.synced or index._vec is None:
            return 0
        pos = np.arange(self.synced, n)
        keep = index._nonzero.a[self.synced : n]
        if self.scope_code is not None:
            keep = keep & (index._scope.a[self.synced : n] == self.scope_code)
        pos = pos[keep]
        self.synced = n
        if pos.size == 0:
            return 0
        need = len(self) + pos.size
        if need > self._capacity:
            self._capacity = max(need, 2 * self._capacity)
            self._g.resize_index(self._capacity)
        self._g.add_items(index._vec[pos], pos)
        return int(pos.size)

    def search(self, index: MemoryIndex, q: np.ndarray, n: int, ef: int | None = None) -> DensePool:
        """The graph's ``n`` nearest rows to unit vector ``q``, re-scored exactly (numpy cosine of
        the index's vectors), best first, as store keys and similarities; the beam is
        ``max(n, ef or self.ef_search)``."""
        k = min(n, len(self))
        if k == 0:
            return DensePool(np.zeros(0, dtype=np.int64), np.zeros(0))
        self._g.set_ef(max(k, ef or self.ef_search))
        # one query: one thread (hnswlib starts ``num_threads`` std::threads per call otherwise)
        labels, _dist = self._g.knn_query(q.reshape(1, -1), k=k, num_threads=1)
        pos = labels[0].astype(np.int64)
        assert index._vec is not None
        sims = (index._vec[pos] @ q).astype(np.float64)
        order = np.argsort(-sims, kind="stable")
        rows = pos[order]
        return DensePool(index._seq.a[rows], sims[order], rows)

    def scope_graph(self, index: MemoryIndex, code: int) -> AnnIndex:
        """The graph of scope ``code``'s rows (built on first use, started again after a row
        changed scope in place: ``index.scope_moves``), synced with ``index``."""
        sub = self.scopes.get(code)
        if sub is None or sub.scope_moves != index.scope_moves:
            sub = self.scopes[code] = self.new_scope_graph(code)
            sub.scope_moves = index.scope_moves
        sub.sync(index)
        return sub

    def new_scope_graph(self, code: int) -> AnnIndex:
        """An empty graph for scope ``code``'s rows, with this graph's parameters except the
        beam: a scope's graph is small, its ``ef`` is the pool asked for (≥ ``SCOPE_POOL``)."""
        return AnnIndex(self.dim, scope_code=code, **(self._params | {"ef_search": SCOPE_POOL}))


class GraphPool:
    """The ``dense_pool`` of one index's HNSW graph: called as ``(q, N)`` the global graph's
    top ``N``, and :meth:`scoped` one scope's (:class:`~assay.memory.retrieval.pooled.ScopedPool`)."""

    #: The first pool asked of the graph (``MemoryIndex.rank`` takes it over ``pgvector_candidates``):
    #: the pooled bound asks 4× more when it cannot rule the rest out, keyword hits are scored
    #: exactly and a large scope has its own graph, so for the reference weights a pool a little
    #: deeper than the top 10 settles it (the 16th similarity below the 10th); the beam, not the
    #: pool, sets the graph's cost and recall (``ef = max(16, ann_ef_search)``), and 16 rows
    #: re-scored cost a quarter of 64.
    pool_size = 16

    def __init__(self, index: MemoryIndex, graph: AnnIndex, ef_probe: int = 32):
        self.index, self.graph, self.ef_probe = index, graph, ef_probe

    def __call__(self, q: np.ndarray, n: int) -> DensePool | None:
        self.graph.sync(self.index)
        if len(self.graph) < n:  # fewer vectors than asked: the pool would be every vector; numpy is exact
            return None
        return self.graph.search(self.index, q, n)

    def probe(self, q: np.ndarray, n: int) -> DensePool | None:
        """The global graph's top ``n`` at the narrow beam ``ef_probe``
        (:class:`~assay.memory.retrieval.pooled.ProbePool`: asked first by a query whose large
        scope has its own graph; ranked again from :meth:`__call__` when a probed row
        matters)."""
        self.graph.sync(self.index)
        if len(self.graph) < n:
            return None
        return self.graph.search(self.index, q, n, ef=self.ef_probe)

    def scoped(self, q: np.ndarray, n: int, code: int) -> DensePool | None:
        """The top ``n`` of scope ``code`` (fewer: all of its vectors) from that scope's graph."""
        return self.graph.scope_graph(self.index, code).search(self.index, q, n)


def ann_source(index: MemoryIndex, settings: MemorySettings) -> GraphPool | None:
    """A ``dense_pool`` for :meth:`MemoryIndex.rank` backed by the index's HNSW graph, or ``None``
    (score in numpy) below ``settings.ann_threshold`` memories, with the threshold ``None``, or
    without hnswlib (logged once per index)."""
    threshold = settings.ann_threshold
    if threshold is None or len(index) < threshold or index.dim is None:
        return None
    state: Any = index.ann
    if state is None:
        if not ann_available():
            log.warning("ann_threshold is set but hnswlib is not installed (the 'ann' extra): scoring in numpy")
            index.ann = False
            return None
        state = index.ann = AnnIndex(
            index.dim,
            m=settings.ann_m,
            ef_construction=settings.ann_ef_construction,
            threads=settings.ann_threads,
            ef_search=settings.ann_ef_search,
        )
    if state is False:
        return None
    return GraphPool(index, state, settings.ann_ef_probe)
