"""The store's schema as assay made it BEFORE Alembic: a frozen dump, for the migration tests.

What ``assay.storage.init_db`` executed at commit f6deb2e (the last commit before the schema was
versioned with Alembic; ``SCHEMA_VERSION = 1``): ``metadata.create_all`` statement by statement,
captured with a ``before_cursor_execute`` listener on SQLite and on PostgreSQL, then the
``_record_version`` row in ``schema_info``. It is a copy on purpose: the migration tests build
a pre-Alembic database from it, never from today's code, so a later change of a table definition
cannot make the old database look like the new one. Never edit it. (The statements ended their lines
with ``", "``: the spaces before each line break are left out here, as a source file keeps none.)

Python-side column defaults (``default=0`` and such) are not in DDL: the rows of
:data:`ROWS` give every column a value.
"""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import MetaData, Table, create_engine

#: The ``CREATE`` statements of ``metadata.create_all`` on SQLite (``sqlite_master.sql``, as executed).
SQLITE_DDL: tuple[str, ...] = (
    """CREATE TABLE schema_info (
	id INTEGER NOT NULL,
	version INTEGER NOT NULL,
	created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
	assay_version VARCHAR(32),
	PRIMARY KEY (id)
)""",
    """CREATE TABLE verdict_stores (
	name VARCHAR(200) NOT NULL,
	spec JSON NOT NULL,
	revision INTEGER NOT NULL,
	n INTEGER NOT NULL,
	created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
	PRIMARY KEY (name)
)""",
    """CREATE TABLE llm_cache (
	"key" VARCHAR(64) NOT NULL,
	backend VARCHAR(64) NOT NULL,
	model VARCHAR(255) NOT NULL,
	schema VARCHAR(255) NOT NULL,
	response TEXT NOT NULL,
	created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
	PRIMARY KEY ("key")
)""",
    """CREATE TABLE memo_cache (
	"key" VARCHAR(512) NOT NULL,
	fingerprint VARCHAR(64) NOT NULL,
	gate_version VARCHAR(64) NOT NULL,
	gate_mode VARCHAR(16) NOT NULL,
	synthesis_version TEXT NOT NULL,
	memo TEXT NOT NULL,
	size_bytes INTEGER NOT NULL,
	created_at FLOAT NOT NULL,
	expires_at FLOAT NOT NULL,
	hits INTEGER NOT NULL,
	last_hit_at FLOAT,
	PRIMARY KEY ("key")
)""",
    """CREATE INDEX ix_memo_cache_expires_at ON memo_cache (expires_at)""",
    """CREATE TABLE memo_cache_counts (
	status VARCHAR(32) NOT NULL,
	n INTEGER NOT NULL,
	updated_at FLOAT NOT NULL,
	PRIMARY KEY (status)
)""",
    """CREATE TABLE memory_state (
	name VARCHAR(64) NOT NULL,
	revision INTEGER NOT NULL,
	PRIMARY KEY (name)
)""",
    """CREATE TABLE memories (
	seq INTEGER NOT NULL,
	id VARCHAR(200) NOT NULL,
	text TEXT NOT NULL,
	dedupe_key VARCHAR(64) NOT NULL,
	keywords JSON NOT NULL,
	keywords_source VARCHAR(16) NOT NULL,
	scope VARCHAR(200) NOT NULL,
	layer VARCHAR(64),
	confidence FLOAT NOT NULL,
	confidence_prior FLOAT NOT NULL,
	n_corroborations INTEGER NOT NULL,
	n_contradictions INTEGER NOT NULL,
	created_at DATETIME,
	source_ref VARCHAR(200),
	superseded_by VARCHAR(200),
	is_correction BOOLEAN NOT NULL,
	meta JSON,
	embedding BLOB,
	embedding_model VARCHAR(200),
	revision INTEGER NOT NULL,
	added_at DATETIME DEFAULT CURRENT_TIMESTAMP,
	PRIMARY KEY (seq),
	CONSTRAINT uq_memories_scope_text UNIQUE (scope, dedupe_key),
	UNIQUE (id)
)""",
    """CREATE INDEX ix_memories_revision ON memories (revision)""",
    """CREATE TABLE memory_deliveries (
	id VARCHAR(32) NOT NULL,
	search_id VARCHAR(32) NOT NULL,
	memory_id VARCHAR(200) NOT NULL,
	"query" TEXT NOT NULL,
	rank INTEGER NOT NULL,
	score FLOAT NOT NULL,
	score_components JSON NOT NULL,
	reranker_model VARCHAR(200),
	layer VARCHAR(64),
	scope VARCHAR(200),
	search_scope VARCHAR(200),
	source_ref VARCHAR(200),
	session_id VARCHAR(200),
	arm VARCHAR(64) NOT NULL,
	version VARCHAR(64) NOT NULL,
	created_at DATETIME NOT NULL,
	grade INTEGER,
	hard_negative BOOLEAN,
	graded_at DATETIME,
	engaged BOOLEAN,
	engaged_score FLOAT,
	engaged_method VARCHAR(32),
	engagement_procedure VARCHAR(64),
	lexical_score FLOAT,
	engaged_model VARCHAR(200),
	engaged_at DATETIME,
	PRIMARY KEY (id)
)""",
    """CREATE INDEX ix_memory_deliveries_search ON memory_deliveries (search_id, memory_id)""",
    """CREATE INDEX ix_memory_deliveries_memory ON memory_deliveries (memory_id)""",
    """CREATE TABLE memory_responses (
	search_id VARCHAR(32) NOT NULL,
	prompt TEXT,
	response TEXT NOT NULL,
	recorded_at DATETIME NOT NULL,
	PRIMARY KEY (search_id)
)""",
    """CREATE TABLE verdicts (
	seq INTEGER NOT NULL,
	store VARCHAR(200) NOT NULL,
	id VARCHAR(512) NOT NULL,
	fields JSON NOT NULL,
	decision TEXT NOT NULL,
	rationale TEXT NOT NULL,
	description TEXT NOT NULL,
	created_at DATETIME,
	source TEXT,
	embedding BLOB,
	embedding_model VARCHAR(200),
	added_at DATETIME DEFAULT CURRENT_TIMESTAMP,
	PRIMARY KEY (seq),
	CONSTRAINT uq_verdicts_store_id UNIQUE (store, id),
	FOREIGN KEY(store) REFERENCES verdict_stores (name)
)""",
    """CREATE INDEX ix_verdicts_store_seq ON verdicts (store, seq)""",
)

#: The same on PostgreSQL (SQLAlchemy's postgresql dialect, as executed against PostgreSQL 15).
POSTGRESQL_DDL: tuple[str, ...] = (
    """CREATE TABLE schema_info (
	id SERIAL NOT NULL,
	version INTEGER NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE DEFAULT now(),
	assay_version VARCHAR(32),
	PRIMARY KEY (id)
)""",
    """CREATE TABLE verdict_stores (
	name VARCHAR(200) NOT NULL,
	spec JSON NOT NULL,
	revision INTEGER NOT NULL,
	n INTEGER NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE DEFAULT now(),
	PRIMARY KEY (name)
)""",
    """CREATE TABLE llm_cache (
	key VARCHAR(64) NOT NULL,
	backend VARCHAR(64) NOT NULL,
	model VARCHAR(255) NOT NULL,
	schema VARCHAR(255) NOT NULL,
	response TEXT NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE DEFAULT now(),
	PRIMARY KEY (key)
)""",
    """CREATE TABLE memo_cache (
	key VARCHAR(512) NOT NULL,
	fingerprint VARCHAR(64) NOT NULL,
	gate_version VARCHAR(64) NOT NULL,
	gate_mode VARCHAR(16) NOT NULL,
	synthesis_version TEXT NOT NULL,
	memo TEXT NOT NULL,
	size_bytes INTEGER NOT NULL,
	created_at FLOAT NOT NULL,
	expires_at FLOAT NOT NULL,
	hits INTEGER NOT NULL,
	last_hit_at FLOAT,
	PRIMARY KEY (key)
)""",
    """CREATE INDEX ix_memo_cache_expires_at ON memo_cache (expires_at)""",
    """CREATE TABLE memo_cache_counts (
	status VARCHAR(32) NOT NULL,
	n INTEGER NOT NULL,
	updated_at FLOAT NOT NULL,
	PRIMARY KEY (status)
)""",
    """CREATE TABLE memory_state (
	name VARCHAR(64) NOT NULL,
	revision INTEGER NOT NULL,
	PRIMARY KEY (name)
)""",
    """CREATE TABLE memories (
	seq SERIAL NOT NULL,
	id VARCHAR(200) NOT NULL,
	text TEXT NOT NULL,
	dedupe_key VARCHAR(64) NOT NULL,
	keywords JSON NOT NULL,
	keywords_source VARCHAR(16) NOT NULL,
	scope VARCHAR(200) NOT NULL,
	layer VARCHAR(64),
	confidence FLOAT NOT NULL,
	confidence_prior FLOAT NOT NULL,
	n_corroborations INTEGER NOT NULL,
	n_contradictions INTEGER NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE,
	source_ref VARCHAR(200),
	superseded_by VARCHAR(200),
	is_correction BOOLEAN NOT NULL,
	meta JSON,
	embedding REAL[],
	embedding_model VARCHAR(200),
	revision INTEGER NOT NULL,
	added_at TIMESTAMP WITH TIME ZONE DEFAULT now(),
	PRIMARY KEY (seq),
	CONSTRAINT uq_memories_scope_text UNIQUE (scope, dedupe_key),
	UNIQUE (id)
)""",
    """CREATE INDEX ix_memories_revision ON memories (revision)""",
    """CREATE TABLE memory_deliveries (
	id VARCHAR(32) NOT NULL,
	search_id VARCHAR(32) NOT NULL,
	memory_id VARCHAR(200) NOT NULL,
	query TEXT NOT NULL,
	rank INTEGER NOT NULL,
	score FLOAT NOT NULL,
	score_components JSON NOT NULL,
	reranker_model VARCHAR(200),
	layer VARCHAR(64),
	scope VARCHAR(200),
	search_scope VARCHAR(200),
	source_ref VARCHAR(200),
	session_id VARCHAR(200),
	arm VARCHAR(64) NOT NULL,
	version VARCHAR(64) NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	grade INTEGER,
	hard_negative BOOLEAN,
	graded_at TIMESTAMP WITH TIME ZONE,
	engaged BOOLEAN,
	engaged_score FLOAT,
	engaged_method VARCHAR(32),
	engagement_procedure VARCHAR(64),
	lexical_score FLOAT,
	engaged_model VARCHAR(200),
	engaged_at TIMESTAMP WITH TIME ZONE,
	PRIMARY KEY (id)
)""",
    """CREATE INDEX ix_memory_deliveries_search ON memory_deliveries (search_id, memory_id)""",
    """CREATE INDEX ix_memory_deliveries_memory ON memory_deliveries (memory_id)""",
    """CREATE TABLE memory_responses (
	search_id VARCHAR(32) NOT NULL,
	prompt TEXT,
	response TEXT NOT NULL,
	recorded_at TIMESTAMP WITH TIME ZONE NOT NULL,
	PRIMARY KEY (search_id)
)""",
    """CREATE TABLE verdicts (
	seq SERIAL NOT NULL,
	store VARCHAR(200) NOT NULL,
	id VARCHAR(512) NOT NULL,
	fields JSON NOT NULL,
	decision TEXT NOT NULL,
	rationale TEXT NOT NULL,
	description TEXT NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE,
	source TEXT,
	embedding BYTEA,
	embedding_model VARCHAR(200),
	added_at TIMESTAMP WITH TIME ZONE DEFAULT now(),
	PRIMARY KEY (seq),
	CONSTRAINT uq_verdicts_store_id UNIQUE (store, id),
	FOREIGN KEY(store) REFERENCES verdict_stores (name)
)""",
    """CREATE INDEX ix_verdicts_store_seq ON verdicts (store, seq)""",
)

#: ``_record_version`` of a new database: the one ``schema_info`` row that code wrote.
RECORD_VERSION = "INSERT INTO schema_info (version, assay_version) VALUES (1, '0.1.0')"


_T = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
_SPEC = {
    "fields": {
        "cost_codes": {"kind": "set", "weight": 0.6, "edges": None, "absolute": True, "allow_negative": True},
        "measure_type": {"kind": "category", "weight": 0.25, "edges": None, "absolute": True, "allow_negative": True},
        "claimed_saving": {"kind": "bucket", "weight": 0.15, "edges": None, "absolute": True, "allow_negative": False},
    },
    "embedding": {"weight": 0.0},
}  # the verdict store's DEFAULT_SPEC at that commit

#: Rows for every table but ``schema_info`` (which holds :data:`RECORD_VERSION`'s row), every
#: column given but the autoincremented ``seq`` (1, 2, … in list order, as the old stores left it).
#: ``memories.embedding`` is a float list here: float32 bytes on SQLite and ``real[]`` on
#: PostgreSQL when written (see :func:`fill`).
ROWS: dict[str, list[dict[str, Any]]] = {
    "verdict_stores": [{"name": "default", "spec": _SPEC, "revision": 1, "n": 2, "created_at": _T}],
    "verdicts": [
        {
            "store": "default",
            "id": "v-1",
            "fields": {"cost_codes": ["A1", "B2"], "measure_type": "capex", "claimed_saving": 1200.0},
            "decision": "approved",
            "rationale": "saving verified against the ledger",
            "description": "replace the chillers",
            "created_at": _T,
            "source": "board-2026-11",
            "embedding": b"\x00\x00\x80?\x00\x00\x00@",
            "embedding_model": "hash-64",
            "added_at": _T,
        },
        {
            "store": "default",
            "id": "v-2",
            "fields": {"cost_codes": ["C3"], "measure_type": "opex", "claimed_saving": None},
            "decision": "rejected",
            "rationale": "no baseline",
            "description": "new vendor",
            "created_at": None,
            "source": None,
            "embedding": None,
            "embedding_model": None,
            "added_at": _T,
        },
    ],
    "llm_cache": [
        {
            "key": "a" * 64,
            "backend": "stub",
            "model": "stub-1",
            "schema": "claims@1",
            "response": '{"text": "ok", "parsed": null, "finish_reason": "stop"}',
            "created_at": _T,
        }
    ],
    "memo_cache": [
        {
            "key": "memo:apple-fy2023",
            "fingerprint": "f" * 64,
            "gate_version": "gate-3",
            "gate_mode": "auto",
            "synthesis_version": "synth-1",
            "memo": '{"answer": "Revenue was $383.3B [1]."}',
            "size_bytes": 42,
            "created_at": 1764504000.0,
            "expires_at": 1764507600.0,
            "hits": 3,
            "last_hit_at": 1764505000.5,
        }
    ],
    "memo_cache_counts": [
        {"status": "hit", "n": 3, "updated_at": 1764505000.5},
        {"status": "miss", "n": 1, "updated_at": 1764504000.0},
    ],
    "memory_state": [{"name": "memories", "revision": 2}],
    "memories": [
        {
            "id": "m-1",
            "text": "The FY2023 revenue of Apple was 383.3 billion dollars.",
            "dedupe_key": "d" * 64,
            "keywords": ["apple", "revenue"],
            "keywords_source": "writer",
            "scope": "",
            "layer": "facts",
            "confidence": 0.8,
            "confidence_prior": 0.7,
            "n_corroborations": 2,
            "n_contradictions": 0,
            "created_at": _T,
            "source_ref": "10-K",
            "superseded_by": None,
            "is_correction": False,
            "meta": {"lang": "en"},
            "embedding": [0.6, 0.8, 0.0],
            "embedding_model": "hash-3",
            "revision": 1,
            "added_at": _T,
        },
        {
            "id": "m-2",
            "text": "Use the restated figure.",
            "dedupe_key": "e" * 64,
            "keywords": [],
            "keywords_source": "derived",
            "scope": "team-a",
            "layer": None,
            "confidence": 0.5,
            "confidence_prior": 0.5,
            "n_corroborations": 0,
            "n_contradictions": 1,
            "created_at": None,
            "source_ref": None,
            "superseded_by": "m-1",
            "is_correction": True,
            "meta": None,
            "embedding": None,
            "embedding_model": None,
            "revision": 2,
            "added_at": _T,
        },
    ],
    "memory_deliveries": [
        {
            "id": "del-1",
            "search_id": "s-1",
            "memory_id": "m-1",
            "query": "apple revenue",
            "rank": 1,
            "score": 0.91,
            "score_components": {"dense": 0.9, "lexical": 0.4},
            "reranker_model": None,
            "layer": "facts",
            "scope": None,
            "search_scope": None,
            "source_ref": "10-K",
            "session_id": "sess-1",
            "arm": "control",
            "version": "0.1.0",
            "created_at": _T,
            "grade": 2,
            "hard_negative": False,
            "graded_at": _T,
            "engaged": True,
            "engaged_score": 0.7,
            "engaged_method": "lexical",
            "engagement_procedure": "overlap@1",
            "lexical_score": 0.35,
            "engaged_model": None,
            "engaged_at": _T,
        }
    ],
    "memory_responses": [{"search_id": "s-1", "prompt": "How much?", "response": "383.3B", "recorded_at": _T}],
}


def create_legacy_database(url: str) -> None:
    """A database as the pre-Alembic code left it after its first ``init_db``: every table, one
    ``schema_info`` row (version 1). Plain SQLAlchemy and the frozen DDL; no assay code."""
    engine = create_engine(url)
    try:
        ddl = SQLITE_DDL if engine.dialect.name == "sqlite" else POSTGRESQL_DDL
        with engine.begin() as conn:
            for stmt in ddl:
                conn.exec_driver_sql(stmt)
            conn.exec_driver_sql(RECORD_VERSION)
    finally:
        engine.dispose()


def fill(url: str) -> None:
    """Insert :data:`ROWS` through tables reflected from the database (not assay's definitions)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            reflected = MetaData()
            reflected.reflect(conn)
            for name, rows in ROWS.items():  # verdict_stores first: verdicts reference it
                conn.execute(Table(name, reflected).insert(), [_as_written(name, r, engine.dialect.name) for r in rows])
    finally:
        engine.dispose()


def _as_written(table: str, row: dict[str, Any], dialect: str) -> dict[str, Any]:
    """``row`` with ``memories.embedding`` as the pre-Alembic ``FloatVector`` wrote it."""
    vec = row.get("embedding") if table == "memories" else None
    if vec is None:
        return row
    return {**row, "embedding": list(vec) if dialect == "postgresql" else struct.pack(f"<{len(vec)}f", *vec)}
