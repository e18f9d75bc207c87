"""Storage: where the store lives, its one schema, and vectors in PostgreSQL.

- :mod:`assay.storage.engine` — URL precedence (``--db`` > ``ASSAY_DB_URL`` >
  ``$ASSAY_HOME/assay.db``), the engine factory (SQLite pragmas, PostgreSQL connect settings),
  one-line error descriptions with passwords hidden.
- :mod:`assay.storage.schema` — the one :data:`metadata` every store defines its tables on,
  :class:`FloatVector`, the portable :func:`upsert` / :func:`insert_ignore`, and :func:`init_db`
  (creates or upgrades a database; the schema version).
- :mod:`assay.storage.migrations` — the Alembic revisions and how they run (``README.md`` there
  says how to add one); ``python -m assay.storage`` is Alembic's command line for developers.
- :mod:`assay.storage.vector` — :func:`vector_support` and the pgvector mirror.

Dialect-specific SQL lives only in this package. The names below are re-exported so that
``from assay.storage import make_engine, init_db, upsert, …`` keeps working.
"""

from assay.storage.engine import (
    PG_CONNECT_ARGS,
    DatabaseUnavailableError,
    SchemaVersionError,
    StorageError,
    describe_db_error,
    make_engine,
    resolve_db_url,
    safe_url,
)
from assay.storage.schema import (
    HEAD_REVISION,
    SCHEMA_VERSION,
    STORE_MODULES,
    FloatVector,
    decode_json_texts,
    init_db,
    insert_ignore,
    metadata,
    schema_info,
    store_metadata,
    upsert,
)
from assay.storage.vector import VectorSupport, vector_support

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
    "PG_CONNECT_ARGS",
    "STORE_MODULES",
    "HEAD_REVISION",
    "store_metadata",
]
