"""The schema: one SQLAlchemy metadata for every store, portable upserts, and its versioning.

Every store defines its tables on :data:`metadata` in its own room (``memory/tables.py``,
``cache/store.py``, ``llm/cache.py``, ``verdicts/store.py``). The schema in a database is
versioned by Alembic revisions (:mod:`assay.storage.migrations`): :func:`init_db`, which every
store calls when it opens, creates a new database or upgrades an older one in place, so
``assay init-db`` is never a required step. Dialect-specific SQL lives only in
:mod:`assay.storage` (here, :mod:`~assay.storage.engine` and :mod:`~assay.storage.vector`).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
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
from sqlalchemy.exc import DBAPIError

from assay import __version__
from assay.storage.engine import SchemaVersionError, StorageError, describe_db_error

__all__ = [
    "SCHEMA_VERSION",
    "HEAD_REVISION",
    "metadata",
    "schema_info",
    "init_db",
    "upsert",
    "insert_ignore",
    "FloatVector",
    "decode_json_texts",
    "STORE_MODULES",
    "store_metadata",
]

#: The schema version this code makes: the number of its newest Alembic revision (``0001`` is
#: version 1). ``init_db`` returns it, ``assay init-db`` prints it, and ``schema_info`` records it
#: for the assay releases before Alembic, which refuse a database whose version is newer than
#: theirs. Bump it with every new revision (a test checks the two agree).
SCHEMA_VERSION = 4

#: The revision id of :data:`SCHEMA_VERSION` (what ``alembic_version`` holds at this code's schema).
HEAD_REVISION = f"{SCHEMA_VERSION:04d}"

metadata = MetaData()

#: Modules that define store tables on :data:`metadata` (imported by :func:`store_metadata`).
STORE_MODULES: tuple[str, ...] = (
    "assay.verdicts.store",
    "assay.llm.cache",
    "assay.cache",
    "assay.memory.tables",
    "assay.memory.learning.tables",
    "assay.server.tables",
)

#: The pre-Alembic record of the schema version, one row per upgrade (kept: older releases read it).
schema_info = Table(
    "schema_info",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), server_default=func.now()),
    Column("assay_version", String(32)),
)


def init_db(engine: Engine) -> int:
    """Create the schema in a new database or upgrade an older one in place; returns :data:`SCHEMA_VERSION`.

    Idempotent, and cheap on a database already at this code's revision (two small queries:
    every store calls it when it opens). Otherwise, under the schema lock — ``BEGIN IMMEDIATE``
    on SQLite, an advisory lock on PostgreSQL, so concurrent callers (processes too) wait for the
    first and then find the work done — Alembic runs the missing revisions in one transaction:
    all of them on a new database; on a database made before Alembic (``schema_info`` but no
    ``alembic_version``) revision ``0001`` checks the tables it finds and creates the missing
    ones, then the later revisions run. ``schema_info`` gets a row when the version rises.

    Raises :class:`SchemaVersionError` when a newer assay migrated the database (a revision
    this code does not ship, or a newer ``schema_info`` version) or a table of assay's name
    lacks columns; :class:`StorageError` when it cannot be opened or is not a database (the
    driver's reason, the URL with its password hidden); :class:`DatabaseUnavailableError`
    when the server cannot be reached.
    """
    try:
        with engine.connect() as conn:
            if _revisions(conn) == [HEAD_REVISION]:
                return SCHEMA_VERSION
        return _upgrade(engine)
    except DBAPIError as e:
        raise StorageError(describe_db_error(e, engine)) from None


def store_metadata() -> MetaData:
    """:data:`metadata` with every store's tables on it (imports :data:`STORE_MODULES`): the schema
    the newest revision must create, which ``revision --autogenerate`` compares a database with."""
    for name in STORE_MODULES:
        importlib.import_module(name)
    return metadata


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


def _upgrade(engine: Engine) -> int:
    """The slow path of :func:`init_db`: run the missing revisions under the schema lock."""
    from assay.storage import migrations  # Alembic: ~0.5 s of imports, paid only when a database needs it

    with _schema_lock(engine) as conn:
        found = _revisions(conn)
        if found != [HEAD_REVISION]:  # else another caller upgraded it while this one waited
            _refuse_newer(conn, found, migrations.known_revisions())
            migrations.upgrade(conn)
            _record_version(conn)
    return SCHEMA_VERSION


#: PostgreSQL's advisory lock key of schema changes ("assay").
_SCHEMA_LOCK_KEY = 0x6173736179

#: Alembic's table of the revision a database is at.
_ALEMBIC_TABLE = "alembic_version"


@contextmanager
def _schema_lock(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that holds the schema lock, committed when the block ends.

    SQLite: ``BEGIN IMMEDIATE`` takes the write lock at once (another process waits for it on
    the busy timeout, then reads what the first one committed). PostgreSQL: a transaction-scoped
    advisory lock. DDL is transactional on both, so a failed upgrade leaves nothing behind.
    """
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif conn.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_SCHEMA_LOCK_KEY})")
        yield conn
        conn.commit()


def _revisions(conn: Connection) -> list[str]:
    """The revision ids in ``alembic_version`` (empty: a new or pre-Alembic database)."""
    if not conn.dialect.has_table(conn, _ALEMBIC_TABLE):
        return []
    return list(conn.exec_driver_sql(f"SELECT version_num FROM {_ALEMBIC_TABLE}").scalars())


def _refuse_newer(conn: Connection, found: list[str], known: frozenset[str]) -> None:
    """Raise :class:`SchemaVersionError` when a newer assay migrated the database: a revision this
    code does not ship, or (before Alembic) a ``schema_info`` version above :data:`SCHEMA_VERSION`."""
    newer: str | int | None = next((r for r in found if r not in known), None)
    if not found and conn.dialect.has_table(conn, schema_info.name):
        last = conn.execute(select(schema_info.c.version).order_by(schema_info.c.id.desc()).limit(1)).scalar()
        newer = last if last is not None and last > SCHEMA_VERSION else None
    if newer is not None:
        shown = int(newer) if isinstance(newer, str) and newer.isdigit() else newer  # "0002" is version 2
        raise SchemaVersionError(
            f"database schema version {shown} is newer than this assay ({SCHEMA_VERSION}); upgrade assay"
        )


def _record_version(conn: Connection) -> None:
    """Add a ``schema_info`` row for :data:`SCHEMA_VERSION` unless the last one says it already."""
    last = conn.execute(select(schema_info.c.version).order_by(schema_info.c.id.desc()).limit(1)).scalar()
    if last is None or last < SCHEMA_VERSION:
        conn.execute(schema_info.insert().values(version=SCHEMA_VERSION, assay_version=__version__))
