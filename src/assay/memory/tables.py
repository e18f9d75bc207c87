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
- Write-side experiments (:mod:`assay.memory.experiments`): ``memory_ab_experiments`` (one row
  per experiment: status, the control's version and rules, the candidate's version and
  instruction, allocation, seed, round, the gate's parameters), ``memory_ab_events`` (the
  append-only log: who, when, what, the figures that decided it), ``memory_ab_queue`` (candidate
  instructions, ``taken_round`` set when one becomes B). A memory written inside a running
  experiment carries ``ab_experiment``, ``ab_round``, ``ab_arm`` (``A``, ``B`` or ``excluded``)
  and ``ab_unit`` (the writing unit) on its own row: stamped in the insert itself, so no stamp
  can be lost between two writes, and joined to the delivery log by ``memory_id``.

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

__all__ = [
    "memory_state",
    "memories",
    "memory_deliveries",
    "memory_responses",
    "memory_ab_experiments",
    "memory_ab_events",
    "memory_ab_queue",
]

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
    Column("ab_experiment", String(200)),
    Column("ab_round", Integer),
    Column("ab_arm", String(16)),
    Column("ab_unit", String(200)),
    UniqueConstraint("scope", "dedupe_key", name="uq_memories_scope_text"),
    Index("ix_memories_revision", "revision"),
    # covering for the experiment status queries (assay.memory.experiments.status)
    Index("ix_memories_ab", "ab_experiment", "ab_round", "ab_arm", "ab_unit", "id"),
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
    # covering for the per-arm labels of write-side experiments: no random row reads (revision 0002)
    Index("ix_memory_deliveries_labels", "memory_id", "engagement_procedure", "engaged", "grade", "hard_negative"),
)

memory_responses = Table(
    "memory_responses",
    metadata,
    Column("search_id", String(32), primary_key=True),
    Column("prompt", Text),
    Column("response", Text, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
)

memory_ab_experiments = Table(
    "memory_ab_experiments",
    metadata,
    Column("name", String(200), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("unit", String(16), nullable=False),
    Column("allocation", Float, nullable=False),
    Column("seed", Integer, nullable=False),
    Column("round", Integer, nullable=False),
    Column("control_version", String(200), nullable=False),
    Column("control_rules", Text, nullable=False),
    Column("candidate_version", String(200)),
    Column("candidate_instruction", Text),
    Column("gate", JSON, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("round_started_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

memory_ab_events = Table(
    "memory_ab_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("experiment", String(200), nullable=False),
    Column("round", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("actor", String(200), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("figures", JSON),
    Index("ix_memory_ab_events_experiment", "experiment", "id"),
)

memory_ab_queue = Table(
    "memory_ab_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("experiment", String(200), nullable=False),
    Column("version", String(200), nullable=False),
    Column("instruction", Text, nullable=False),
    Column("actor", String(200), nullable=False),
    Column("queued_at", DateTime(timezone=True), nullable=False),
    Column("taken_round", Integer),
    UniqueConstraint("experiment", "version", name="uq_memory_ab_queue_version"),
)
