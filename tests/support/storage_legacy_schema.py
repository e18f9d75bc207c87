"""The store's schema as assay made it BEFORE Alembic: a frozen dump, for the migration tests.

``storage_legacy_schema.sqlite.sql`` and ``storage_legacy_schema.postgresql.sql`` (beside this
file) hold what ``assay.storage.init_db`` executed at commit f6deb2e (the last commit before
the schema was versioned with Alembic; ``SCHEMA_VERSION = 1``): ``metadata.create_all``
statement by statement, captured with a ``before_cursor_execute`` listener on SQLite and on
PostgreSQL 15, then the ``_record_version`` row in ``schema_info``. They are a copy on purpose:
the migration tests build a pre-Alembic database from them, never from today's code, so a later
change of a table definition cannot make the old database look like the new one. Never edit them.

Python-side column defaults (``default=0`` and such) are not in DDL: the rows of
:data:`ROWS` give every column a value.
"""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import MetaData, Table, create_engine


def dump(dialect: str) -> tuple[str, ...]:
    """The statements of the frozen dump of ``dialect`` (``"sqlite"`` or ``"postgresql"``), in order:
    every ``CREATE``, then the ``schema_info`` row."""
    text = Path(__file__).with_name(f"storage_legacy_schema.{dialect}.sql").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("--"))
    return tuple(stmt.strip().removesuffix(";") for stmt in body.split(";\n") if stmt.strip())


#: The ``CREATE`` statements on SQLite, as ``sqlite_master.sql`` keeps them.
SQLITE_DDL: tuple[str, ...] = tuple(s for s in dump("sqlite") if s.startswith("CREATE"))

_T = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
_SPEC = {
    "fields": {
        "cost_codes": {"kind": "set", "weight": 0.6, "edges": None, "absolute": True, "allow_negative": True},
        "measure_type": {"kind": "category", "weight": 0.25, "edges": None, "absolute": True, "allow_negative": True},
        "claimed_saving": {"kind": "bucket", "weight": 0.15, "edges": None, "absolute": True, "allow_negative": False},
    },
    "embedding": {"weight": 0.0},
}  # the verdict store's DEFAULT_SPEC at that commit

#: Rows for every table but ``schema_info`` (which holds the dump's own row), every
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
        with engine.begin() as conn:
            for stmt in dump(engine.dialect.name):
                conn.exec_driver_sql(stmt)
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
