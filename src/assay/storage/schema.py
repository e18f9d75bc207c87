"""The schema: one SQLAlchemy metadata for every store, portable upserts, and its creation.

Every store defines its tables on :data:`metadata` in its own room (``memory/tables.py``,
``cache/store.py``, ``llm/cache.py``, ``verdicts/store.py``). Tables are created idempotently by
:func:`init_db`, which every store calls on first use, so ``assay init-db`` is never a required
step. Dialect-specific SQL lives only in :mod:`assay.storage` (here, :mod:`~assay.storage.engine`
and :mod:`~assay.storage.vector`).
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    DateTime,
    Engine,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    TypeDecorator,
    func,
    select,
)

from assay.storage.engine import SchemaVersionError, StorageError, describe_db_error

__all__ = [
    "SCHEMA_VERSION",
    "metadata",
    "schema_info",
    "init_db",
    "upsert",
    "insert_ignore",
    "FloatVector",
    "decode_json_texts",
    "STORE_MODULES",
]

#: Version of the schema below; bump with a migration when a table changes.
SCHEMA_VERSION = 1

metadata = MetaData()

#: Modules that define store tables on :data:`metadata` (imported by :func:`init_db`).
STORE_MODULES: tuple[str, ...] = ("assay.verdicts.store", "assay.llm.cache", "assay.cache", "assay.memory.tables")

schema_info = Table(
    "schema_info",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), server_default=func.now()),
    Column("assay_version", String(32)),
)


def init_db(engine: Engine) -> int:
    """Create every table of :data:`metadata` if missing and record the schema version.

    Idempotent. Returns the schema version. Raises :class:`SchemaVersionError` when the database
    was created by newer code, and :class:`StorageError` when it cannot be opened or is not a
    database (the driver's reason, the URL with its password hidden).
    """
    from sqlalchemy.exc import DBAPIError

    for mod in STORE_MODULES:
        importlib.import_module(mod)  # each defines its tables on `metadata`
    try:
        return _create_schema(engine)
    except DBAPIError as e:
        raise StorageError(describe_db_error(e, engine)) from None


def upsert(
    conn: Connection,
    table: Table,
    values: Mapping[str, Any],
    key_cols: Sequence[str],
    *,
    update: Mapping[str, Any] | None = None,
) -> None:
    """Insert one row into ``table``, or update the row that already has its ``key_cols`` — atomically.

    ``values``: column → value of the new row (must include ``key_cols``, which need a primary
    key or unique constraint). ``update``: column → value or SQL expression set when the row
    exists (e.g. ``{"n": table.c.n + 1}``); default: every non-key column of ``values``. One
    ``INSERT … ON CONFLICT (…) DO UPDATE`` statement on SQLite (3.24+) and PostgreSQL (9.5+),
    so concurrent writers never fail on a duplicate key nor leave a half-written row (the last
    writer wins). Raises ``NotImplementedError`` for another dialect.
    """
    stmt = _dialect_insert(conn, "upsert")(table).values(dict(values))
    set_ = dict(update) if update is not None else {c: stmt.excluded[c] for c in values if c not in key_cols}
    conn.execute(stmt.on_conflict_do_update(index_elements=[table.c[k] for k in key_cols], set_=set_))


def insert_ignore(conn: Connection, table: Table, values: Mapping[str, Any], key_cols: Sequence[str]) -> bool:
    """Insert one row into ``table`` unless a row with the same ``key_cols`` exists; ``True`` when inserted.

    One ``INSERT … ON CONFLICT (…) DO NOTHING`` statement on SQLite and PostgreSQL: a concurrent
    writer of the same key neither fails nor aborts the surrounding transaction (catching an
    ``IntegrityError`` does on PostgreSQL), and the first writer's row stays. ``key_cols`` need a
    primary key or unique constraint. Raises ``NotImplementedError`` for another dialect.
    """
    stmt = _dialect_insert(conn, "insert_ignore")(table).values(dict(values))
    stmt = stmt.on_conflict_do_nothing(index_elements=[table.c[k] for k in key_cols]).returning(table.c[key_cols[0]])
    return conn.execute(stmt).first() is not None  # RETURNING (SQLite 3.35+): psycopg reports no INSERT rowcount


class FloatVector(TypeDecorator):
    """A column type for one float32 vector: ``real[]`` on PostgreSQL, little-endian float32
    bytes elsewhere (SQLite). Binds any 1-d array-like of finite numbers; reads back a
    ``numpy.ndarray`` of ``float32``. Binding a non-1-d or non-finite vector raises ``ValueError``
    (which SQLAlchemy wraps in ``sqlalchemy.exc.StatementError``). (The pgvector ``vector`` column is a
    separate, optional path: :func:`assay.storage.vector.vector_support`.)
    """

    impl = LargeBinary
    cache_ok = True

    def load_dialect_impl(self, dialect):
        if dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import ARRAY, REAL

            return dialect.type_descriptor(ARRAY(REAL))
        return dialect.type_descriptor(LargeBinary())

    def process_bind_param(self, value, dialect):
        import numpy as np

        if value is None:
            return None
        arr = np.asarray(value, dtype=np.float32)
        if arr.ndim != 1 or not np.isfinite(arr).all():
            raise ValueError(f"a vector must be 1-d and finite, got shape {arr.shape}")
        return arr.tolist() if dialect.name == "postgresql" else arr.astype("<f4").tobytes()

    def process_result_value(self, value, dialect):
        import numpy as np

        if value is None:
            return None
        if dialect.name == "postgresql":
            return np.asarray(value, dtype=np.float32)
        return np.frombuffer(value, dtype="<f4").astype(np.float32)


def decode_json_texts(values: list[Any]) -> list[Any]:
    """JSON texts → objects in one parse (a driver may already have decoded some: kept as is).

    For a JSON column read as text (``type_coerce(col, Text)``): one ``json.loads`` over many
    rows instead of one per row. Used by the memory and verdict stores.
    """
    texts = [v for v in values if isinstance(v, str)]
    if not texts:
        return values
    decoded = iter(json.loads("[" + ",".join(texts) + "]"))
    return [next(decoded) if isinstance(v, str) else v for v in values]


def _dialect_insert(conn: Connection, what: str):
    """The dialect's ``insert`` construct with ``ON CONFLICT`` support (SQLite, PostgreSQL)."""
    name = conn.dialect.name
    if name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    elif name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert  # type: ignore[assignment]
    else:
        raise NotImplementedError(f"{what} is implemented for sqlite and postgresql, not {name}")
    return insert


def _create_schema(engine: Engine) -> int:
    """Create the tables and record or check the schema version (see :func:`init_db`)."""
    from sqlalchemy.exc import DBAPIError

    for attempt in range(1, _SCHEMA_TRIES + 1):
        try:
            with engine.begin() as conn:
                if conn.dialect.name == "postgresql":  # one creator at a time; DDL is transactional there
                    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_SCHEMA_LOCK_KEY})")
                metadata.create_all(conn)
                _check_columns(conn)
                return _record_version(conn)
        except DBAPIError:  # SQLite: another process created a table between check and CREATE
            if attempt == _SCHEMA_TRIES:
                raise
            time.sleep(0.05 * attempt)
    raise AssertionError("unreachable")


def _check_columns(conn: Connection) -> None:
    """Raise :class:`SchemaVersionError` when a table of :data:`metadata` exists without some of
    its columns (``create_all`` skips existing tables: a foreign or older table would otherwise
    pass ``init-db`` and fail at its first query)."""
    from sqlalchemy import inspect

    insp = inspect(conn)
    for table in metadata.sorted_tables:
        have = {c["name"] for c in insp.get_columns(table.name)}
        missing = [c.name for c in table.columns if c.name not in have]
        if missing:
            raise SchemaVersionError(
                f"table {table.name} exists but lacks column(s) {', '.join(missing)}: it was not made by this "
                "assay; use another database (--db) or drop the table"
            )


#: Tries of :func:`_create_schema` (SQLite's check-then-CREATE races another creator at most
#: once per table; the retry sees the table) and PostgreSQL's advisory lock key ("assay").
_SCHEMA_TRIES = 5
_SCHEMA_LOCK_KEY = 0x6173736179


def _record_version(conn: Connection) -> int:
    """Record :data:`SCHEMA_VERSION` in a new database or check an existing one's."""
    from assay import __version__

    row = conn.execute(select(schema_info.c.version).order_by(schema_info.c.id.desc())).first()
    if row is None:
        conn.execute(schema_info.insert().values(version=SCHEMA_VERSION, assay_version=__version__))
        return SCHEMA_VERSION
    if row.version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"database schema version {row.version} is newer than this assay ({SCHEMA_VERSION}); upgrade assay"
        )
    if row.version < SCHEMA_VERSION:
        conn.execute(schema_info.insert().values(version=SCHEMA_VERSION, assay_version=__version__))
    return SCHEMA_VERSION
