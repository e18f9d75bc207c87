"""The verdict store's tables, on :data:`assay.storage.metadata` (created idempotently by ``init_db``).

- ``verdict_stores``: one row per named store — its similarity spec (fixed at creation), a
  ``revision`` bumped by every insert transaction and the verdict count.
- ``verdicts``: one row per verdict (``seq`` surrogate key, ``(store, id)`` unique), the
  canonical fields as JSON, the texts, and the description embedding (float32 bytes) when the
  spec has an embedding term.

Only portable SQLAlchemy Core types; dialect specifics live in :mod:`assay.storage`.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
)

from assay.storage import metadata

__all__ = ["verdict_stores", "verdicts_table"]

verdict_stores = Table(
    "verdict_stores",
    metadata,
    Column("name", String(200), primary_key=True),
    Column("spec", JSON, nullable=False),
    Column("revision", Integer, nullable=False, default=0),
    Column("n", Integer, nullable=False, default=0),
    Column("created_at", DateTime(timezone=True), server_default=func.now()),
)

verdicts_table = Table(
    "verdicts",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("store", String(200), ForeignKey("verdict_stores.name"), nullable=False),
    Column("id", String(512), nullable=False),
    Column("fields", JSON, nullable=False),
    Column("decision", Text, nullable=False),
    Column("rationale", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("created_at", DateTime(timezone=True)),
    Column("source", Text),
    Column("embedding", LargeBinary),
    Column("embedding_model", String(200)),
    Column("added_at", DateTime(timezone=True), server_default=func.now()),
    UniqueConstraint("store", "id", name="uq_verdicts_store_id"),
    Index("ix_verdicts_store_seq", "store", "seq"),
)
