"""Write-side experiments (issue 17): the experiment, event-log and candidate-queue tables, and the
experiment stamp on the memory row (``ab_experiment``, ``ab_round``, ``ab_arm``, ``ab_unit``;
nullable — memories written outside an experiment keep ``NULL``; existing rows are untouched),
with covering indexes for the per-arm status queries on ``memories`` and ``memory_deliveries``.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "memory_ab_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("experiment", sa.String(length=200), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("figures", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("memory_ab_events", schema=None) as batch_op:
        batch_op.create_index("ix_memory_ab_events_experiment", ["experiment", "id"], unique=False)

    op.create_table(
        "memory_ab_experiments",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("unit", sa.String(length=16), nullable=False),
        sa.Column("allocation", sa.Float(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("control_version", sa.String(length=200), nullable=False),
        sa.Column("control_rules", sa.Text(), nullable=False),
        sa.Column("candidate_version", sa.String(length=200), nullable=True),
        sa.Column("candidate_instruction", sa.Text(), nullable=True),
        sa.Column("gate", sa.JSON(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("round_started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "memory_ab_queue",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("experiment", sa.String(length=200), nullable=False),
        sa.Column("version", sa.String(length=200), nullable=False),
        sa.Column("instruction", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("taken_round", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("experiment", "version", name="uq_memory_ab_queue_version"),
    )
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ab_experiment", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("ab_round", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("ab_arm", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("ab_unit", sa.String(length=200), nullable=True))
        batch_op.create_index("ix_memories_ab", ["ab_experiment", "ab_round", "ab_arm", "ab_unit", "id"], unique=False)
    with op.batch_alter_table("memory_deliveries", schema=None) as batch_op:
        batch_op.create_index(
            "ix_memory_deliveries_labels",
            ["memory_id", "engagement_procedure", "engaged", "grade", "hard_negative"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("memory_deliveries", schema=None) as batch_op:
        batch_op.drop_index("ix_memory_deliveries_labels")
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.drop_index("ix_memories_ab")
        batch_op.drop_column("ab_unit")
        batch_op.drop_column("ab_arm")
        batch_op.drop_column("ab_round")
        batch_op.drop_column("ab_experiment")

    op.drop_table("memory_ab_queue")
    op.drop_table("memory_ab_experiments")
    with op.batch_alter_table("memory_ab_events", schema=None) as batch_op:
        batch_op.drop_index("ix_memory_ab_events_experiment")

    op.drop_table("memory_ab_events")
