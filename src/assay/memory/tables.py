"""The memory's tables, on :data:`assay.storage.metadata` (created idempotently by ``init_db``).

- ``memory_state``: one row per named counter; ``memories`` holds the store revision, bumped by
  every transaction that writes memories, so an in-process index reloads only changed rows.
- ``memories``: one row per memory. ``scope`` is ``''`` for "no scope" (so the unique
  ``(scope, dedupe_key)`` also holds for unscoped memories on every database); ``embedding``
  is the unit vector (:class:`~assay.storage.FloatVector`: float32 bytes on SQLite, ``real[]``
  on PostgreSQL) with its ``embedding_model``;
  ``revision`` is the store revision of the row's last write.
- ``memory_deliveries``: the delivery log — one row per delivered memory, grouped by
  ``search_id``, with the ranking's provenance and, later, its labels (grade, engagement).
- ``memory_responses``: the agent's response (and the prompt it answered) per ``search_id``,
  kept so engagement can be re-scored (``assay memory backfill``).

Only portable SQLAlchemy Core types; dialect specifics live in :mod:`assay.storage`.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
)

from assay.storage import FloatVector, metadata

__all__ = ["memory_state", "memories", "memory_deliveries", "memory_responses"]

memory_state = Table(
    "memory_state",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("revision", Integer, nullable=False, default=0),
)

memories = Table(
    "memories",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("id", String(200), nullable=False, unique=True),
    Column("text", Text, nullable=False),
    Column("dedupe_key", String(64), nullable=False),
    Column("keywords", JSON, nullable=False),
    Column("keywords_source", String(16), nullable=False),
    Column("scope", String(200), nullable=False, default=""),
    Column("layer", String(64)),
    Column("confidence", Float, nullable=False),
    Column("confidence_prior", Float, nullable=False),
    Column("n_corroborations", Integer, nullable=False, default=0),
    Column("n_contradictions", Integer, nullable=False, default=0),
    Column("created_at", DateTime(timezone=True)),
    Column("source_ref", String(200)),
    Column("superseded_by", String(200)),
    Column("is_correction", Boolean, nullable=False, default=False),
    Column("meta", JSON),
    Column("embedding", FloatVector),
    Column("embedding_model", String(200)),
    Column("revision", Integer, nullable=False),
    Column("added_at", DateTime(timezone=True), server_default=func.now()),
    UniqueConstraint("scope", "dedupe_key", name="uq_memories_scope_text"),
    Index("ix_memories_revision", "revision"),
)

memory_deliveries = Table(
    "memory_deliveries",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("search_id", String(32), nullable=False),
    Column("memory_id", String(200), nullable=False),
    Column("query", Text, nullable=False),
    Column("rank", Integer, nullable=False),
    Column("score", Float, nullable=False),
    Column("score_components", JSON, nullable=False),
    Column("reranker_model", String(200)),
    Column("layer", String(64)),
    Column("scope", String(200)),
    Column("search_scope", String(200)),
    Column("source_ref", String(200)),
    Column("session_id", String(200)),
    Column("arm", String(64), nullable=False),
    Column("version", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("grade", Integer),
    Column("hard_negative", Boolean),
    Column("graded_at", DateTime(timezone=True)),
    Column("engaged", Boolean),
    Column("engaged_score", Float),
    Column("engaged_method", String(32)),
    Column("engagement_procedure", String(64)),
    Column("lexical_score", Float),
    Column("engaged_model", String(200)),
    Column("engaged_at", DateTime(timezone=True)),
    Index("ix_memory_deliveries_search", "search_id", "memory_id"),
    Index("ix_memory_deliveries_memory", "memory_id"),
)

memory_responses = Table(
    "memory_responses",
    metadata,
    Column("search_id", String(32), primary_key=True),
    Column("prompt", Text),
    Column("response", Text, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
)
