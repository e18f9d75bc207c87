"""The memory store's vector path: where the dense candidates of a search come from.

Chosen once, at a store's start-up (:func:`open_vector_path`):

- ``numpy`` (SQLite; PostgreSQL without pgvector; or ``MemorySettings.vector_path="numpy"``):
  the in-process :class:`~assay.memory.retrieval.index.MemoryIndex` scores every candidate's cosine with
  one matrix–vector product.
- ``pgvector`` (PostgreSQL where :func:`assay.storage.vector_support` finds or creates the
  extension): the store keeps ``memory_vectors(seq → memories.seq, embedding vector(dim))``
  (:class:`assay.storage.vector.VectorMirror`: why a separate table, the backfill, the
  HNSW/``vector_cosine_ops`` index or none for pgvector < 0.5) and each search asks PostgreSQL
  for the top ``max(depth, settings.pgvector_candidates)`` memories by cosine similarity
  (``1 − cosine distance``). The index turns them into the composite ranking exactly as on the
  numpy path (:meth:`~assay.memory.retrieval.index.MemoryIndex.rank`, ``dense_pool``), so composite
  scoring, reranking and the delivery log are one code path.

Which memories are mirrored: those whose stored vector belongs to the store's embedder
(``embedding_model``), has its dimension and is not all-zero (a zero vector's similarity is 0
on the numpy path and undefined in pgvector; it is never a dense candidate). The ``real[]``
column stays the source of truth; every write of vectors updates the mirror in the same
transaction (:func:`sync_vectors`), whether the store searches with pgvector or not, so stores
on both paths can share one database. The in-process index still holds the vectors: it scores
the few memories the SQL top-k cannot rule out (keyword or scope matches whose similarity lies
below the pool) and is the per-query fallback (query vector all-zero, a search restricted to a
small scope, a short HNSW scan).

The extension going away under a running store (``DROP EXTENSION vector CASCADE``, the mirror
table dropped) does not break it: the failing statement (the top-k query, or the mirror update
inside a savepoint of the writer's transaction) switches that store to numpy for the rest of
its life (:meth:`VectorPath.disable`); the next start-up rebuilds the mirror from ``real[]``
when pgvector is back. Stores sharing a database must share an embedder (their vectors must
be comparable anyway); one of another dimension rebuilds the mirror at its start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import numpy as np
from sqlalchemy.exc import DBAPIError

from assay.memory.config import MemorySettings
from assay.memory.retrieval.identity import stored_names
from assay.memory.retrieval.index import DensePool
from assay.memory.tables import memories
from assay.storage import describe_db_error, vector_support
from assay.storage.vector import VectorMirror

__all__ = ["VectorPath", "open_vector_path", "sync_vectors", "MIRROR_TABLE"]

#: The mirror table's name (see the module docstring).
MIRROR_TABLE = "memory_vectors"


#: SQLSTATEs that mean the mirror or the extension is gone: undefined table, column, object
#: (the ``vector`` type), function (``<=>``).
_GONE = {"42P01", "42703", "42704", "42883"}


@dataclass
class VectorPath:
    """The vector path of one store: ``path`` (``"pgvector"`` or ``"numpy"``), one line of
    ``detail``, the installed pgvector ``version`` (``None`` without it), the mirror's ``index``
    kind (``"hnsw"``, ``"none"``, or ``None`` without a mirror) and the ``mirror`` itself
    (kept in sync whenever pgvector is present, even when this store searches with numpy).
    Mutable only through :meth:`disable`."""

    path: Literal["pgvector", "numpy"]
    detail: str
    version: str | None = None
    index: str | None = None
    mirror: Any = None

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "detail", "pgvector": version | None, "index": "hnsw" | "none" | None}``
        (no ids: safe to share)."""
        return {"path": self.path, "detail": self.detail, "pgvector": self.version, "index": self.index}

    def dense_source(
        self, engine: Any, settings: MemorySettings
    ) -> Callable[[np.ndarray, int], DensePool | None] | None:
        """The callable :meth:`~assay.memory.retrieval.index.MemoryIndex.rank` takes as
        ``dense_pool``, or ``None`` on the numpy path."""
        if self.path != "pgvector" or self.mirror is None:
            return None
        return partial(_pool, self, engine, settings.pgvector_exact)

    def disable(self, exc: BaseException) -> None:
        """Switch to numpy for good (this store's life): the mirror or the extension is gone (``exc`` says how)."""
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        self.path, self.mirror, self.index = "numpy", None, None
        self.detail = (
            f"pgvector became unusable while the store ran ({reason}); scoring in process (numpy) until restarted"
        )


def open_vector_path(engine: Any, settings: MemorySettings, embedder: Callable[[], Any]) -> VectorPath:
    """Detect pgvector on ``engine`` and set up the mirror for the vectors of ``embedder()`` (its
    ``model`` and ``dim``; called only where pgvector is present).

    SQLite: ``numpy`` without a query. PostgreSQL: :func:`assay.storage.vector_support` (tries
    ``CREATE EXTENSION vector`` when it is available); with pgvector, the mirror is created or
    caught up (:meth:`~assay.storage.vector.VectorMirror.ensure`; the first time on a populated
    store this is the backfill from ``real[]``). A refusal (no privilege) falls back to ``numpy``
    and says why in ``detail``. Raises :class:`assay.storage.DatabaseUnavailableError` when the
    server cannot be reached.
    """
    vs = vector_support(engine)
    if vs.path != "pgvector" and "refused" in vs.detail:  # another store may have created it at the same moment
        again = vector_support(engine, create=False)
        vs = again if again.path == "pgvector" else vs
    if vs.path != "pgvector":
        return VectorPath("numpy", vs.detail)
    emb = embedder()
    dim = int(emb.dim)
    mirror = VectorMirror(
        memories,
        key="seq",
        source="embedding",
        dim=dim,
        name=MIRROR_TABLE,
        version=vs.version,
        eligible=memories.c.embedding_model.in_(stored_names(emb.model)),
    )
    try:
        status = mirror.ensure(engine)
    except DBAPIError as e:
        reason = describe_db_error(e, engine).split(": ", 1)[-1]
        return VectorPath(
            "numpy",
            f"pgvector {vs.version} is installed but the {MIRROR_TABLE} table could not be set up "
            f"({reason}); scoring in process (numpy)",
            vs.version,
        )
    where = f"{MIRROR_TABLE}, vector({dim}), " + (
        "HNSW index (vector_cosine_ops), approximate"
        if status.index == "hnsw"
        else "no index (pgvector < 0.5): exact scan"
    )
    if settings.pgvector_exact:
        where += "; exact search (index bypassed, settings.pgvector_exact)"
    if settings.vector_path == "numpy":
        return VectorPath(
            "numpy",
            f"settings.vector_path='numpy': scored in process (numpy); pgvector {vs.version} is installed "
            f"and {where} is kept in sync",
            vs.version,
            status.index,
            mirror,
        )
    return VectorPath(
        "pgvector",
        f"pgvector {vs.version}: dense top-k in PostgreSQL ({where}) as cosine similarity",
        vs.version,
        status.index,
        mirror,
    )


def sync_vectors(vp: VectorPath, conn: Any, where: Any) -> None:
    """Update the mirror for the ``memories`` rows matching ``where`` inside the writer's
    transaction (no-op without a mirror), in a savepoint: a mirror or extension that is gone
    disables the pgvector path instead of failing the write; any other error propagates."""
    if vp.mirror is None:
        return
    try:
        with conn.begin_nested():
            vp.mirror.sync(conn, where)
    except DBAPIError as e:
        if _sqlstate(e) not in _GONE:
            raise
        vp.disable(e)


def _pool(vp: VectorPath, engine: Any, exact: bool, q: np.ndarray, n: int) -> DensePool | None:
    """The SQL top-``n``; ``None`` (the index scores in process) once the mirror or extension is gone."""
    if vp.mirror is None:
        return None
    try:
        seqs, sims = vp.mirror.top_k(engine, q, n, exact=exact)
    except DBAPIError as e:
        if _sqlstate(e) not in _GONE:
            raise
        vp.disable(e)
        return None
    return DensePool(seqs, sims)


def _sqlstate(e: BaseException) -> str | None:
    orig = getattr(e, "orig", None)
    return getattr(getattr(orig, "diag", None), "sqlstate", None) or getattr(orig, "sqlstate", None)
