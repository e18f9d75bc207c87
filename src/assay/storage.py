"""Storage: one SQLAlchemy metadata for every store, an engine factory, and schema creation.

Location precedence (DESIGN.md): the global CLI option ``assay --db URL`` > ``ASSAY_DB_URL`` >
``$ASSAY_HOME/assay.db`` (``ASSAY_HOME`` defaults to ``~/.assay``). SQLite is the embedded
default (WAL journal, foreign keys on, a busy timeout so concurrent writers wait instead of
failing); a ``postgresql+psycopg://`` URL moves the same schema to PostgreSQL. Tables are
created idempotently by :func:`init_db`, which every store calls on first use, so ``assay
init-db`` is never a required step. Dialect-specific SQL lives only in this module and in
:mod:`assay.storage_vector` (pgvector).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

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
    create_engine,
    event,
    func,
    select,
)

__all__ = [
    "SCHEMA_VERSION",
    "metadata",
    "schema_info",
    "resolve_db_url",
    "make_engine",
    "init_db",
    "upsert",
    "insert_ignore",
    "describe_db_error",
    "vector_support",
    "VectorSupport",
    "FloatVector",
    "SchemaVersionError",
    "StorageError",
    "DatabaseUnavailableError",
    "safe_url",
    "decode_json_texts",
]

#: Version of the schema below; bump with a migration when a table changes.
SCHEMA_VERSION = 1

metadata = MetaData()

#: libpq settings of every PostgreSQL connection unless the URL sets them: fail an unreachable
#: server after 10 s (libpq's default waits for the OS, minutes) and name assay in
#: ``pg_stat_activity`` so an operator can tell its sessions apart.
PG_CONNECT_ARGS: dict[str, Any] = {"connect_timeout": 10, "application_name": "assay"}

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


class StorageError(ValueError):
    """The database cannot be used: a malformed URL, a file that is not a database, a server
    that refuses the connection. The message names the URL with its password hidden."""


class SchemaVersionError(StorageError, RuntimeError):
    """The database holds a schema newer than this code understands."""


class DatabaseUnavailableError(StorageError):
    """The database server cannot be reached, or the connection to it was lost mid-run.

    Raised in place of the driver's error by every engine of :func:`make_engine` (one line: the
    URL with its password hidden, and the driver's first line). Work committed before it is
    kept; a rerun once the server is back continues.
    """


def resolve_db_url(cli_url: str | None = None) -> str:
    """The database URL by precedence: ``cli_url`` > ``ASSAY_DB_URL`` > ``$ASSAY_HOME/assay.db``."""
    if cli_url:
        return cli_url
    env = os.environ.get("ASSAY_DB_URL")
    if env:
        return env
    home = Path(os.environ.get("ASSAY_HOME") or Path.home() / ".assay").expanduser()
    return f"sqlite:///{home / 'assay.db'}"


def make_engine(url: str | None = None, *, sqlite_synchronous: str | None = None) -> Engine:
    """An engine for ``url`` (resolved by :func:`resolve_db_url`); creates the SQLite folder.

    ``sqlite_synchronous`` (SQLite only, per connection of this engine): ``None`` keeps SQLite's
    default ``FULL`` (an fsync per commit); ``"NORMAL"`` is SQLite's recommended setting for
    WAL — never corrupts the database, but a power loss (not an application crash) may roll back
    the last commits (https://www.sqlite.org/pragma.html#pragma_synchronous). Meant for stores
    whose rows can be recomputed (caches). Raises ``ValueError`` for another value,
    :class:`StorageError` for a string that is not a database URL, and
    ``ModuleNotFoundError`` with the extra to install when a PostgreSQL driver is missing.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if sqlite_synchronous not in (None, "NORMAL", "FULL"):
        raise ValueError(f"sqlite_synchronous must be None, 'NORMAL' or 'FULL', got {sqlite_synchronous!r}")
    url = resolve_db_url(url)
    try:
        parsed = make_url(url)
        where = safe_url(parsed)
    except ArgumentError:
        raise StorageError(
            "database URL (--db / ASSAY_DB_URL) is not a URL: expected sqlite:///PATH or "
            "postgresql+psycopg://USER@HOST/DB"
        ) from None
    except ValueError:  # SQLAlchemy's int() of a non-numeric port
        raise StorageError(f"database {safe_url(url)}: the port is not a number") from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise StorageError(
            f"database {where}: unsupported database {parsed.get_backend_name()!r}: "
            "use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB"
        )
    if parsed.get_backend_name() == "sqlite" and (
        not parsed.database or parsed.database == ":memory:" or parsed.query.get("mode") == "memory"
    ):
        raise StorageError(
            f"database {where}: an in-memory SQLite database is not supported (each connection would "
            "see an empty one, and everything written is lost): give a file, sqlite:///PATH"
        )
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() not in ("psycopg", "psycopg2"):
        raise StorageError(
            f"database {where}: driver {parsed.get_driver_name()!r} is not supported: use postgresql+psycopg://"
        )
    try:
        return _create_engine(url, sqlite_synchronous)
    except ArgumentError as e:  # SQLAlchemy's message shows a URL's password as ***
        raise StorageError(f"database {where}: {str(e).splitlines()[0]}") from None


def init_db(engine: Engine) -> int:
    """Create every table of :data:`metadata` if missing and record the schema version.

    Idempotent. Returns the schema version. Raises :class:`SchemaVersionError` when the database
    was created by newer code, and :class:`StorageError` when it cannot be opened or is not a
    database (the driver's reason, the URL with its password hidden).
    """
    import importlib

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


def describe_db_error(exc: BaseException, url: Any) -> str:
    """One readable line for a database error: ``database URL: reason``.

    ``url``: a URL string, a SQLAlchemy ``URL`` or an ``Engine``; its password is shown as
    ``***`` (and scrubbed from the reason should the driver echo it). ``reason`` is the
    driver's first non-empty line (``exc.orig`` for SQLAlchemy's wrapped errors).
    """
    from sqlalchemy.engine import make_url

    u = url.url if isinstance(url, Engine) else url
    try:
        u = make_url(u)
        where, secrets = safe_url(u), _secrets(u)
    except Exception:  # noqa: BLE001 - not a URL: describe the error without one
        where, secrets = "(unparseable URL)", []
    orig = getattr(exc, "orig", None) or exc
    lines = [ln.strip() for ln in str(orig).splitlines() if ln.strip()]
    reason = lines[0] if lines else type(orig).__name__
    for secret in secrets:
        reason = reason.replace(secret, "***")
    folder = _sqlite_folder(u) if ("unable to open" in reason or "readonly" in reason) else None
    if folder is not None and not os.access(folder, os.W_OK):
        reason += f" (SQLite must be able to write in {folder}: the database, its -wal and -shm files)"
    return f"database {where}: {reason}"


def safe_url(url: Any) -> str:
    """A database URL (string or SQLAlchemy ``URL``) fit to print: the password of ``user:password@``
    and of a ``password=`` / ``sslpassword=`` query parameter shown as ``***``. A string that is
    not a URL is returned with anything between ``:`` and ``@`` after the scheme masked."""
    from sqlalchemy.engine import make_url

    try:
        u = make_url(url)
    except Exception:  # noqa: BLE001 - not a URL: mask what looks like userinfo
        return re.sub(r"(://[^:/@]+:)[^@]+@", r"\1***@", str(url))
    query = {k: ("***" if _SECRET_PARAM.search(k) else v) for k, v in u.query.items()}
    return u.set(query=query).render_as_string(hide_password=True).replace("%2A%2A%2A", "***")


#: Query parameters of a database URL that hold a secret (libpq's ``password``, ``sslpassword``).
_SECRET_PARAM = re.compile(r"pass(word|wd)?$", re.I)


def _secrets(u: Any) -> list[str]:
    """Every secret in a parsed URL (to scrub from driver messages)."""
    out = [str(u.password)] if u.password else []
    for k, v in u.query.items():
        if _SECRET_PARAM.search(k):
            out.extend([v] if isinstance(v, str) else list(v))
    return [x for x in out if x]


def _sqlite_folder(u: Any) -> Path | None:
    """The folder of a SQLite URL's database file (``None`` for another dialect or in-memory)."""
    try:
        if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:":
            return None
    except AttributeError:
        return None
    return Path(u.database).expanduser().absolute().parent


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
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

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
                row = conn.execute(query).first()
        except DBAPIError as e:
            return VectorSupport(
                "numpy",
                f"pgvector is available but CREATE EXTENSION vector was refused "
                f"({describe_db_error(e, engine).split(': ', 1)[1]}); scoring in process (numpy)",
            )
    return VectorSupport(
        "pgvector", f"pgvector {row.installed_version}: vector column and index in PostgreSQL", row.installed_version
    )


class FloatVector(TypeDecorator):
    """A column type for one float32 vector: ``real[]`` on PostgreSQL, little-endian float32
    bytes elsewhere (SQLite). Binds any 1-d array-like of finite numbers; reads back a
    ``numpy.ndarray`` of ``float32``. Binding a non-1-d or non-finite vector raises ``ValueError``
    (which SQLAlchemy wraps in ``sqlalchemy.exc.StatementError``). (The pgvector ``vector`` column is a separate, optional path: :func:`vector_support`.)
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


#: SQLSTATEs that mean the server went away: admin/crash shutdown, cannot connect now.
_SERVER_GONE = {"57P01", "57P02", "57P03"}


def _unavailable(ctx) -> None:
    """``handle_error`` hook of every engine: connection failures → :class:`DatabaseUnavailableError`.

    Only errors connecting (no connection yet) and disconnects are translated; a pre-ping's
    failure is left to the pool, which reconnects (so a server restarted between two
    transactions is survived transparently). Every other database error passes unchanged.
    """
    if getattr(ctx, "is_pre_ping", False):
        return
    orig = ctx.original_exception
    state = getattr(getattr(orig, "diag", None), "sqlstate", None) or getattr(orig, "sqlstate", None)
    connecting = ctx.connection is None
    if not (connecting or ctx.is_disconnect or state in _SERVER_GONE or str(state or "").startswith("08")):
        return
    from sqlalchemy.exc import InterfaceError, OperationalError

    if not isinstance(ctx.sqlalchemy_exception, (OperationalError, InterfaceError)):
        return
    line = describe_db_error(orig, ctx.engine if ctx.engine is not None else "")
    if connecting:
        raise DatabaseUnavailableError(f"cannot {'open' if ctx.dialect.name == 'sqlite' else 'connect'}: {line}")
    raise DatabaseUnavailableError(
        f"lost the connection: {line}; work committed before is kept, rerun once the server is back"
    )


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # pragma: no cover - exercised via engines
    """Busy timeout first, then WAL. Switching a fresh file to WAL takes an exclusive lock for
    which SQLite does not always call the busy handler, so two processes opening a new database
    at once may see "database is locked" here: retry that, with backoff, for up to ~10 s."""
    import sqlite3

    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA busy_timeout=30000")
    for attempt in range(40):
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or attempt == 39:
                raise
            time.sleep(min(0.025 * (attempt + 1), 0.5))
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


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


def _create_engine(url: str, sqlite_synchronous: str | None) -> Engine:
    """The engine of :func:`make_engine` for a parsed ``url``."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        if sqlite_synchronous:
            event.listen(
                engine, "connect", lambda dbapi_conn, _r: dbapi_conn.execute(f"PRAGMA synchronous={sqlite_synchronous}")
            )
    elif url.startswith("postgresql"):
        from sqlalchemy.engine import make_url

        query = make_url(url).query  # settings written in the URL win over these defaults
        args = {k: v for k, v in PG_CONNECT_ARGS.items() if k not in query}
        try:
            engine = create_engine(url, pool_pre_ping=True, connect_args=args)
        except ModuleNotFoundError as e:
            raise ModuleNotFoundError(
                f"PostgreSQL needs the 'postgres' extra: pip install 'assay[postgres]' ({e})"
            ) from None
    else:
        engine = create_engine(url)
    event.listen(engine, "handle_error", _unavailable)
    return engine


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
