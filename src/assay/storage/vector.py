"""Vectors in PostgreSQL: which path a store takes (:func:`vector_support`) and the pgvector mirror.

:func:`vector_support` says, at a store's start-up, whether an engine can use pgvector. A store
that found pgvector keeps a *mirror table*

    ``<name>(<key> integer PRIMARY KEY REFERENCES <parent>(<key>) ON DELETE CASCADE,
    embedding vector(<dim>) NOT NULL)``

of its parent table's :class:`~assay.storage.schema.FloatVector` column (``real[]`` on
PostgreSQL), with an HNSW index on ``vector_cosine_ops`` when pgvector is 0.5 or newer
(:func:`pgvector_index_kind`; older versions get no index: the top-k is then an exact scan in
the server — ivfflat is not used, because its lists are trained on the rows present when the
index is built, and a mirror is usually created while the store is still empty, see pgvector's
README "IVFFlat").

Why a separate table and not a column added to the parent with ``ALTER TABLE``: the shared
schema (:data:`assay.storage.metadata`, created on SQLite and on PostgreSQL without pgvector)
never mentions the ``vector`` type; the dimension is fixed by the embedder known only at a
store's start-up; and the mirror can be dropped and rebuilt without touching the parent's
rows. The parent's ``real[]`` column stays the source of truth: the mirror is derived data,
rebuilt from it (:meth:`VectorMirror.ensure`) whenever its definition does not match (missing,
another dimension, its column dropped with ``DROP EXTENSION vector CASCADE``), so a store keeps
working in process (numpy) when the extension is gone and gets the mirror back when it returns.

Similarity everywhere is ``1 − (a <=> b)``: pgvector's cosine distance turned back into the
cosine similarity in [−1, 1] (the same number, to float32 rounding, as a dot product of unit
vectors) — a distance never leaves this module.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    Table,
    and_,
    case,
    cast,
    delete,
    exists,
    false,
    func,
    literal,
    not_,
    select,
    text,
)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.types import UserDefinedType

from assay.storage.engine import describe_db_error

__all__ = [
    "vector_support",
    "VectorSupport",
    "PgVector",
    "VectorMirror",
    "MirrorStatus",
    "pgvector_index_kind",
    "HNSW_MIN_VERSION",
    "HNSW_MAX_EF_SEARCH",
]

#: First pgvector release with the HNSW access method (0.5.0, 2023-08).
HNSW_MIN_VERSION = (0, 5, 0)

#: A write that brings at least this many rows, and at least as many as the mirror holds, drops
#: the HNSW index and builds it again after the rows are in: measured on 20,000 384-d rows
#: (2 cores), 40 s inserting into the index row by row vs 4 s loading then building.
BULK_REBUILD_MIN = 5000

#: pgvector's upper bound of ``hnsw.ef_search``; an HNSW scan returns at most that many rows.
HNSW_MAX_EF_SEARCH = 1000


@dataclass(frozen=True)
class VectorSupport:
    """Which vector path a store uses on an engine (see :func:`vector_support`).

    ``path``: ``"pgvector"`` (a ``vector`` column and index in PostgreSQL) or ``"numpy"``
    (vectors stored with the row — ``real[]`` on PostgreSQL, float32 bytes on SQLite — and
    scored in process). ``detail``: one line saying why. ``version``: the pgvector version.
    """

    path: Literal["pgvector", "numpy"]
    detail: str
    version: str | None = None


def vector_support(engine: Engine, *, create: bool = True) -> VectorSupport:
    """Detect (at a store's start-up) whether ``engine`` can use pgvector.

    SQLite: always ``numpy``. PostgreSQL: ``pgvector`` when the ``vector`` extension is
    installed in the database; when it is only available (``pg_available_extensions``) and
    ``create`` is true, ``CREATE EXTENSION IF NOT EXISTS vector`` is tried first (needs the
    CREATE privilege on the database; a refusal falls back to ``numpy`` and says why). Debian's
    PostgreSQL 15 ships no pgvector package, so there the answer is ``numpy``. Raises
    :class:`DatabaseUnavailableError` when the server cannot be reached.
    """
    if engine.dialect.name != "postgresql":
        return VectorSupport(
            "numpy", f"{engine.dialect.name}: vectors are stored with the row and scored in process (numpy)"
        )
    query = text("SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'")
    with engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        return VectorSupport(
            "numpy", "PostgreSQL without the pgvector extension: vectors stored as real[] and scored in process (numpy)"
        )
    if row.installed_version is None:
        if not create:
            return VectorSupport(
                "numpy", "pgvector is available but not created in this database (CREATE EXTENSION vector)"
            )
        try:
            with engine.begin() as conn:
                conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
                row = conn.execute(query).one()  # the extension exists now
        except DBAPIError as e:
            return VectorSupport(
                "numpy",
                f"pgvector is available but CREATE EXTENSION vector was refused "
                f"({describe_db_error(e, engine).split(': ', 1)[1]}); scoring in process (numpy)",
            )
    return VectorSupport(
        "pgvector", f"pgvector {row.installed_version}: vector column and index in PostgreSQL", row.installed_version
    )


def pgvector_index_kind(version: str | None) -> Literal["hnsw", "none"]:
    """``"hnsw"`` for pgvector ≥ 0.5 (HNSW, ``vector_cosine_ops``), else ``"none"`` (exact scan; see the
    module docstring)."""
    if not version:
        return "none"
    parts = []
    for p in version.split(".")[:3]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits or 0))
    return "hnsw" if tuple(parts + [0] * (3 - len(parts))) >= HNSW_MIN_VERSION else "none"


class PgVector(UserDefinedType):
    """The pgvector column type ``vector(dim)`` (DDL and casts only: assay never reads it back)."""

    cache_ok = True

    def __init__(self, dim: int):
        self.dim = int(dim)

    def get_col_spec(self, **_kw: Any) -> str:
        return f"vector({self.dim})"


@dataclass(frozen=True)
class MirrorStatus:
    """What :meth:`VectorMirror.ensure` found or did: ``created`` (the table was new or rebuilt),
    ``rows_added`` (parent rows copied in: the backfill, or rows a writer without the mirror left),
    ``index``: ``"hnsw"`` or ``"none"``."""

    created: bool
    rows_added: int
    index: Literal["hnsw", "none"]


class VectorMirror:
    """A pgvector mirror of ``parent.<source>`` (a ``FloatVector`` column) keyed by ``parent.<key>`` (integer).

    ``dim``: the vector dimension. ``eligible``: an optional portable boolean expression over the
    parent's columns naming the rows to mirror (e.g. ``memories.c.embedding_model == model``);
    rows whose vector is NULL, of another dimension or all-zero (cosine undefined) are never
    mirrored. ``version``: the installed pgvector version (decides the index kind). Nothing
    touches the database until :meth:`ensure`.
    """

    def __init__(
        self, parent: Table, *, key: str, source: str, dim: int, name: str, version: str | None, eligible: Any = None
    ):
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        self.parent, self.key, self.source, self.dim, self.name = parent, key, source, int(dim), name
        self.index_kind = pgvector_index_kind(version)
        self.vtype = PgVector(self.dim)
        self.table = Table(
            name,
            MetaData(),
            Column(key, Integer, ForeignKey(parent.c[key], ondelete="CASCADE"), primary_key=True),
            Column("embedding", self.vtype, nullable=False),
        )
        self._extra = eligible
        self._lock = zlib.crc32(f"assay:{name}".encode())

    def ensure(self, engine: Engine) -> MirrorStatus:
        """Create (or rebuild) the mirror, copy in the parent rows it lacks, and create its index.

        One transaction under an advisory lock, so concurrent start-ups wait for the first one.
        The first call on a populated parent is the backfill (one ``INSERT … SELECT`` in the
        server, then the index is built over the loaded rows, as pgvector recommends); later
        calls only add rows that a writer without the mirror left (an anti-join over the keys).
        Raises SQLAlchemy's ``DBAPIError`` when the server refuses (caller decides the fallback).
        """
        with engine.begin() as conn:
            conn.execute(select(func.pg_advisory_xact_lock(self._lock)))
            exists_now = conn.execute(select(func.to_regclass(self.name))).scalar() is not None
            created = False
            if exists_now and self._column_type(conn) != f"vector({self.dim})":
                self.table.drop(conn)
                exists_now = False
            if not exists_now:
                self.table.create(conn)
                created = True
            added = self._copy(conn, self._eligible(), missing_only=True)
            if self.index_kind == "hnsw":
                self._create_index(conn)
        return MirrorStatus(created=created, rows_added=added, index=self.index_kind)

    def sync(self, conn: Connection, where: Any) -> None:
        """Bring the mirror rows of the parent rows matching ``where`` (a portable boolean
        expression) up to date inside the caller's transaction: upsert the eligible ones (a row
        whose vector did not change is left alone), delete the others. A bulk write
        (:data:`BULK_REBUILD_MIN`) rebuilds the HNSW index in the same transaction; concurrent
        searches wait for it (the table is locked while its index is rebuilt)."""
        rebuild = False
        if (
            self.index_kind == "hnsw"
        ):  # a bulk load: rebuild the index over all rows instead (pgvector: build after loading)
            incoming = conn.execute(select(func.count()).select_from(self.parent).where(where)).scalar_one()
            rebuild = incoming >= BULK_REBUILD_MIN and incoming >= self.count(conn)
            if rebuild:
                conn.execute(text(f"DROP INDEX IF EXISTS {self.name}_hnsw"))
        self._copy(conn, and_(where, self._eligible()), missing_only=False)
        stale = select(self.parent.c[self.key]).where(where, not_(func.coalesce(self._eligible(), false())))
        conn.execute(delete(self.table).where(self.table.c[self.key].in_(stale)))
        if rebuild:
            self._create_index(conn)

    def top_k(
        self, engine: Engine, query: np.ndarray, n: int, *, exact: bool = False, ef_search: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` mirrored rows most similar to ``query``, best first: ``(keys int64, similarities float64)``.

        Similarity = ``1 − cosine distance`` = cosine similarity in [−1, 1] (``query`` need not
        be unit-length; it must not be all-zero, whose cosine is undefined: ``ValueError``).
        With the HNSW index the search is approximate: ``hnsw.ef_search`` is set for this query to
        ``max(ef_search, n)`` (an HNSW scan returns at most ``ef_search`` rows), so ``n`` may be at
        most :data:`HNSW_MAX_EF_SEARCH`. ``exact``: bypass the index (``enable_indexscan`` off for
        this query): a full scan and sort in the server, exactly the top ``n``. Fewer than ``n``
        rows come back only when the mirror holds fewer (or an HNSW scan ran short).
        """
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise ValueError(f"query vector of dimension {q.shape[0]}, the mirror holds vector({self.dim})")
        if not np.isfinite(q).all() or not np.any(q):
            raise ValueError("the query vector must be finite and not all-zero (cosine undefined)")
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        hnsw = self.index_kind == "hnsw" and not exact
        if hnsw and n > HNSW_MAX_EF_SEARCH:
            raise ValueError(
                f"n must be <= {HNSW_MAX_EF_SEARCH} with the HNSW index (pgvector's ef_search bound), got {n}"
            )
        qvec = cast(literal(_vector_text(q)), self.vtype)
        dist = self.table.c.embedding.op("<=>", return_type=Float())(qvec)
        stmt = select(self.table.c[self.key], (literal(1.0) - dist).label("similarity")).order_by(dist).limit(n)
        with engine.begin() as conn:
            if hnsw:
                ef = min(HNSW_MAX_EF_SEARCH, max(n, ef_search or 0))
                conn.execute(select(func.set_config("hnsw.ef_search", str(ef), True)))
            elif exact:
                conn.execute(select(func.set_config("enable_indexscan", "off", True)))
            rows = conn.execute(stmt).all()
        keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        sims = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
        return keys, sims

    def explain(self, engine: Engine, query: np.ndarray, n: int) -> str:
        """The server's plan of :meth:`top_k` (first line names the scan: ``Index Scan using …_hnsw`` or a sort)."""
        lit = _vector_text(np.asarray(query, dtype=np.float32).reshape(-1))
        with engine.connect() as conn:
            plan = (
                conn.execute(
                    text(
                        f"EXPLAIN SELECT {self.key} FROM {self.name} "
                        f"ORDER BY embedding <=> CAST(:q AS vector({self.dim})) LIMIT :n"
                    ),
                    {"q": lit, "n": int(n)},
                )
                .scalars()
                .all()
            )
        return "\n".join(
            line.split("(embedding <=>")[0].rstrip() for line in plan
        )  # the plan, without the query vector

    def count(self, conn: Connection) -> int:
        """Rows in the mirror."""
        return int(conn.execute(select(func.count()).select_from(self.table)).scalar_one())

    # -- internals ----------------------------------------------------------------------------

    def _eligible(self) -> Any:
        """Parent rows to mirror: ``eligible`` and a non-NULL, ``dim``-long, non-zero vector. The
        cast sits inside CASE so a vector of another length is never cast (PostgreSQL does not
        promise to evaluate AND's operands in order)."""
        col = self.parent.c[self.source]
        shaped = case(
            (func.array_length(col, 1) == self.dim, func.vector_norm(cast(col, self.vtype)) > 0), else_=false()
        )
        return shaped if self._extra is None else and_(self._extra, shaped)

    def _copy(self, conn: Connection, where: Any, *, missing_only: bool) -> int:
        from sqlalchemy.dialects.postgresql import insert

        p, mv = self.parent, self.table
        sel = select(p.c[self.key], cast(p.c[self.source], self.vtype)).where(where)
        if missing_only:
            sel = sel.where(~exists().where(mv.c[self.key] == p.c[self.key]))
        stmt = insert(mv).from_select([self.key, "embedding"], sel)
        if missing_only:
            stmt = stmt.on_conflict_do_nothing(index_elements=[mv.c[self.key]])
        else:
            stmt = stmt.on_conflict_do_update(
                index_elements=[mv.c[self.key]],
                set_={"embedding": stmt.excluded.embedding},
                where=mv.c.embedding.is_distinct_from(stmt.excluded.embedding),
            )
        done = stmt.returning(mv.c[self.key]).cte(
            "done"
        )  # counted in the server (SQLAlchemy reports no rowcount for INSERT … SELECT)
        return int(conn.execute(select(func.count()).select_from(done)).scalar_one())

    def _create_index(self, conn: Connection) -> None:
        """HNSW over cosine distance with pgvector's default build parameters (m = 16, ef_construction = 64)."""
        conn.execute(
            text(f"CREATE INDEX IF NOT EXISTS {self.name}_hnsw ON {self.name} USING hnsw (embedding vector_cosine_ops)")
        )

    def _column_type(self, conn: Connection) -> str | None:
        """``format_type`` of the mirror's ``embedding`` column (``None`` when it has none)."""
        return conn.execute(
            text(
                "SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                "WHERE a.attrelid = to_regclass(:t) AND a.attname = 'embedding' AND NOT a.attisdropped"
            ),
            {"t": self.name},
        ).scalar()


def _vector_text(q: np.ndarray) -> str:
    """pgvector's text form of a vector: ``[x1,x2,…]`` (each float32 written exactly)."""
    return "[" + ",".join(repr(float(x)) for x in q) + "]"
