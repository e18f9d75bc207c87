"""The store's schema as it was when assay adopted Alembic: every table of assay 0.1.0.

A frozen copy, written out table by table: later changes to the stores' table definitions never
change what this revision means (they come as new revisions). It is exactly the DDL that
``metadata.create_all`` issued before Alembic, on SQLite and on PostgreSQL.

A database made before Alembic (it has ``schema_info`` and the tables, but no
``alembic_version``) is recognised here: a table that exists already is kept and checked for
every column it must have (``SchemaVersionError`` naming the missing ones: a table of that name
made by something else), a missing one is created (the old code created tables as they were
added), and Alembic then records this revision. Nothing of such a database is rewritten.

Revision ID: 0001
Revises: (none)
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from assay.storage.engine import SchemaVersionError

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: ``FloatVector`` as DDL: float32 bytes on SQLite, ``real[]`` on PostgreSQL.
_FLOAT_VECTOR = sa.LargeBinary().with_variant(postgresql.ARRAY(sa.REAL()), "postgresql")


def upgrade() -> None:
    ddl = _Adopting(op.get_bind())
    ddl.create_table(
        "schema_info",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.Column("assay_version", sa.String(32)),
        sa.PrimaryKeyConstraint("id"),
    )
    ddl.create_table(
        "verdict_stores",
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("name"),
    )
    ddl.create_table(
        "llm_cache",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("backend", sa.String(64), nullable=False),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("schema", sa.String(255), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("key"),
    )
    ddl.create_table(
        "memo_cache",
        sa.Column("key", sa.String(512), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("gate_version", sa.String(64), nullable=False),
        sa.Column("gate_mode", sa.String(16), nullable=False),
        sa.Column("synthesis_version", sa.Text(), nullable=False),
        sa.Column("memo", sa.Text(), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.Column("last_hit_at", sa.Float()),
        sa.PrimaryKeyConstraint("key"),
    )
    ddl.create_index("ix_memo_cache_expires_at", "memo_cache", ["expires_at"])
    ddl.create_table(
        "memo_cache_counts",
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("status"),
    )
    ddl.create_table(
        "memory_state",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    ddl.create_table(
        "memories",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("id", sa.String(200), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("dedupe_key", sa.String(64), nullable=False),
        sa.Column("keywords", sa.JSON(), nullable=False),
        sa.Column("keywords_source", sa.String(16), nullable=False),
        sa.Column("scope", sa.String(200), nullable=False),
        sa.Column("layer", sa.String(64)),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("confidence_prior", sa.Float(), nullable=False),
        sa.Column("n_corroborations", sa.Integer(), nullable=False),
        sa.Column("n_contradictions", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True)),
        sa.Column("source_ref", sa.String(200)),
        sa.Column("superseded_by", sa.String(200)),
        sa.Column("is_correction", sa.Boolean(), nullable=False),
        sa.Column("meta", sa.JSON()),
        sa.Column("embedding", _FLOAT_VECTOR),
        sa.Column("embedding_model", sa.String(200)),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("scope", "dedupe_key", name="uq_memories_scope_text"),
        sa.UniqueConstraint("id"),
    )
    ddl.create_index("ix_memories_revision", "memories", ["revision"])
    ddl.create_table(
        "memory_deliveries",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("search_id", sa.String(32), nullable=False),
        sa.Column("memory_id", sa.String(200), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("score_components", sa.JSON(), nullable=False),
        sa.Column("reranker_model", sa.String(200)),
        sa.Column("layer", sa.String(64)),
        sa.Column("scope", sa.String(200)),
        sa.Column("search_scope", sa.String(200)),
        sa.Column("source_ref", sa.String(200)),
        sa.Column("session_id", sa.String(200)),
        sa.Column("arm", sa.String(64), nullable=False),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("grade", sa.Integer()),
        sa.Column("hard_negative", sa.Boolean()),
        sa.Column("graded_at", sa.DateTime(timezone=True)),
        sa.Column("engaged", sa.Boolean()),
        sa.Column("engaged_score", sa.Float()),
        sa.Column("engaged_method", sa.String(32)),
        sa.Column("engagement_procedure", sa.String(64)),
        sa.Column("lexical_score", sa.Float()),
        sa.Column("engaged_model", sa.String(200)),
        sa.Column("engaged_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("id"),
    )
    ddl.create_index("ix_memory_deliveries_search", "memory_deliveries", ["search_id", "memory_id"])
    ddl.create_index("ix_memory_deliveries_memory", "memory_deliveries", ["memory_id"])
    ddl.create_table(
        "memory_responses",
        sa.Column("search_id", sa.String(32), nullable=False),
        sa.Column("prompt", sa.Text()),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("search_id"),
    )
    ddl.create_table(
        "verdicts",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("store", sa.String(200), nullable=False),
        sa.Column("id", sa.String(512), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("decision", sa.Text(), nullable=False),
        sa.Column("rationale", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True)),
        sa.Column("source", sa.Text()),
        sa.Column("embedding", sa.LargeBinary()),
        sa.Column("embedding_model", sa.String(200)),
        sa.Column("added_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("store", "id", name="uq_verdicts_store_id"),
        sa.ForeignKeyConstraint(["store"], ["verdict_stores.name"]),
    )
    ddl.create_index("ix_verdicts_store_seq", "verdicts", ["store", "seq"])


def downgrade() -> None:
    """Drop every table of this revision (and so every row in them)."""
    for name in (
        "verdicts",
        "memory_responses",
        "memory_deliveries",
        "memories",
        "memory_state",
        "memo_cache_counts",
        "memo_cache",
        "llm_cache",
        "verdict_stores",
        "schema_info",
    ):
        op.drop_table(name)


class _Adopting:
    """``op.create_table`` / ``op.create_index`` that keep what a pre-Alembic database holds.

    A table that exists is checked for its columns instead of created; an index on such a table
    is created only if missing (``IF NOT EXISTS``, SQLite and PostgreSQL).
    """

    def __init__(self, bind: sa.Connection):
        self._inspector = sa.inspect(bind)
        self._present = set(self._inspector.get_table_names())

    def create_table(self, name: str, *elements: sa.schema.SchemaItem) -> None:
        if name not in self._present:
            op.create_table(name, *elements)
            return
        have = {c["name"] for c in self._inspector.get_columns(name)}
        missing = [e.name for e in elements if isinstance(e, sa.Column) and e.name not in have]
        if missing:
            raise SchemaVersionError(
                f"table {name} exists but lacks column(s) {', '.join(missing)}: it was not made by this "
                "assay; use another database (--db) or drop the table"
            )

    def create_index(self, name: str, table: str, columns: list[str]) -> None:
        op.create_index(name, table, columns, if_not_exists=True if table in self._present else None)
