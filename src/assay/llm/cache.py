"""The LLM response cache: table ``llm_cache`` in assay's store, keyed by :func:`request_key`.

The key is SHA-256 over (backend, model, messages, params, schema name + version), so a changed
prompt, model tier or schema never hits an old reply. Where it lives (DESIGN.md): by default the
configured store (``assay --db URL`` > ``ASSAY_DB_URL`` > ``$ASSAY_HOME/assay.db``);
``--cache-dir DIR`` puts it in ``DIR/llm_cache.db`` instead. A PostgreSQL store shares one cache
between processes and machines.

What is stored: the reply (text, parsed JSON, finish reason, token usage, model, backend) and the
key's parts that help inspection (backend, model, schema). Never the API key, never the request
headers; the messages only through their hash. Every reply that came back is stored, including
ones the judge later rejects — at ``temperature=0`` asking again would cost tokens for the same
answer; change the model, prompt version or params to ask anew. Transport errors are not stored.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import Column, DateTime, Engine, String, Table, Text, func, select

from assay.llm.base import LLMRequest, LLMResponse, request_key
from assay.storage import init_db, insert_ignore, make_engine, metadata, resolve_db_url

__all__ = ["llm_cache", "ResponseCache", "cache_url", "CACHE_FILE"]

#: File name of the cache database under ``--cache-dir``.
CACHE_FILE = "llm_cache.db"

llm_cache = Table(
    "llm_cache",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("backend", String(64), nullable=False),
    Column("model", String(255), nullable=False),
    Column("schema", String(255), nullable=False),
    Column("response", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), server_default=func.now()),
)


def cache_url(cache_dir: str | Path | None = None, db_url: str | None = None) -> str:
    """The database URL of the cache: ``sqlite:///DIR/llm_cache.db`` for ``cache_dir``, else the
    store's URL by :func:`assay.storage.resolve_db_url` precedence (``db_url`` first)."""
    if cache_dir is not None:
        return f"sqlite:///{Path(cache_dir).expanduser().absolute() / CACHE_FILE}"
    return resolve_db_url(db_url)


class ResponseCache:
    """Get/put LLM replies by request key. Creates the tables on first use (idempotent).

    ``hits``/``misses`` count lookups of this instance. Raises ``OSError``/SQLAlchemy errors when
    the database cannot be opened; ``SchemaVersionError`` when it was made by newer code.
    """

    def __init__(self, engine: Engine):
        self.engine = engine
        self.hits = 0
        self.misses = 0
        init_db(engine)

    @classmethod
    def open(cls, cache_dir: str | Path | None = None, db_url: str | None = None) -> ResponseCache:
        """The cache at :func:`cache_url` ``(cache_dir, db_url)`` (the folder is created)."""
        return cls(make_engine(cache_url(cache_dir, db_url)))

    def get(self, backend: str, request: LLMRequest) -> LLMResponse | None:
        """The stored reply for ``request`` sent to ``backend`` (with ``cached=True``), or ``None``.

        ``backend`` is the backend's name or its cache namespace (name + reply-shaping settings,
        see :class:`assay.llm.client.LLMClient`); it is hashed into the key."""
        key = request_key(backend, request)
        with self.engine.connect() as conn:
            row = conn.execute(select(llm_cache.c.response).where(llm_cache.c.key == key)).first()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return LLMResponse.model_validate({**json.loads(row.response), "cached": True})

    def put(self, backend: str, request: LLMRequest, response: LLMResponse) -> None:
        """Store ``response`` under ``request``'s key; a row already there (a concurrent writer's) stays (no error)."""
        payload = response.model_dump(exclude={"cached"})
        row = {
            "key": request_key(backend, request),
            "backend": backend.split("|", 1)[0][:64],  # the name only: a namespace may hold a URL
            "model": request.model[:255],
            "schema": f"{request.schema_name}:{request.schema_version}"[:255],
            "response": json.dumps(payload, ensure_ascii=False, allow_nan=False),
        }
        with self.engine.begin() as conn:
            insert_ignore(conn, llm_cache, row, ["key"])

    def __len__(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(llm_cache)).scalar_one())
