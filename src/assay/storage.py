"""Storage: one SQLAlchemy metadata for every store, an engine factory, and schema creation.

Location precedence (DESIGN.md): the global CLI option ``assay --db URL`` > ``ASSAY_DB_URL`` >
``$ASSAY_HOME/assay.db`` (``ASSAY_HOME`` defaults to ``~/.assay``). SQLite is the embedded
default (WAL journal, foreign keys on, a busy timeout so concurrent writers wait instead of
failing); a ``postgresql+psycopg://`` URL moves the same schema to PostgreSQL. Tables are
created idempotently by :func:`init_db`, which every store calls on first use, so ``assay
init-db`` is never a required step. Dialect-specific SQL lives only in this module.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import Column, DateTime, Engine, Integer, MetaData, String, Table, create_engine, event, func, select

__all__ = ["SCHEMA_VERSION", "metadata", "schema_info", "resolve_db_url", "make_engine", "init_db", "SchemaVersionError"]

#: Version of the schema below; bump with a migration when a table changes.
SCHEMA_VERSION = 1

metadata = MetaData()

#: Modules that define store tables on :data:`metadata` (imported by :func:`init_db`).
STORE_MODULES: tuple[str, ...] = ()

schema_info = Table(
    "schema_info",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), server_default=func.now()),
    Column("assay_version", String(32)),
)


class SchemaVersionError(RuntimeError):
    """The database holds a schema newer than this code understands."""


def resolve_db_url(cli_url: str | None = None) -> str:
    """The database URL by precedence: ``cli_url`` > ``ASSAY_DB_URL`` > ``$ASSAY_HOME/assay.db``."""
    if cli_url:
        return cli_url
    env = os.environ.get("ASSAY_DB_URL")
    if env:
        return env
    home = Path(os.environ.get("ASSAY_HOME") or Path.home() / ".assay").expanduser()
    return f"sqlite:///{home / 'assay.db'}"


def make_engine(url: str | None = None) -> Engine:
    """An engine for ``url`` (resolved by :func:`resolve_db_url`); creates the SQLite folder.

    Raises ``ModuleNotFoundError`` with the extra to install when a PostgreSQL driver is missing.
    """
    url = resolve_db_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql"):
        try:
            return create_engine(url, pool_pre_ping=True)
        except ModuleNotFoundError as e:
            raise ModuleNotFoundError(f"PostgreSQL needs the 'postgres' extra: pip install 'assay[postgres]' ({e})") from None
    return create_engine(url)


def init_db(engine: Engine) -> int:
    """Create every table of :data:`metadata` if missing and record the schema version.

    Idempotent. Returns the schema version. Raises :class:`SchemaVersionError` when the database
    was created by newer code.
    """
    import importlib

    from assay import __version__

    for mod in STORE_MODULES:
        importlib.import_module(mod)  # each defines its tables on `metadata`
    metadata.create_all(engine)

    with engine.begin() as conn:
        row = conn.execute(select(schema_info.c.version).order_by(schema_info.c.id.desc())).first()
        if row is None:
            conn.execute(schema_info.insert().values(version=SCHEMA_VERSION, assay_version=__version__))
            return SCHEMA_VERSION
        if row.version > SCHEMA_VERSION:
            raise SchemaVersionError(f"database schema version {row.version} is newer than this assay ({SCHEMA_VERSION}); upgrade assay")
        if row.version < SCHEMA_VERSION:
            conn.execute(schema_info.insert().values(version=SCHEMA_VERSION, assay_version=__version__))
    return SCHEMA_VERSION


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # pragma: no cover - exercised via engines
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()
