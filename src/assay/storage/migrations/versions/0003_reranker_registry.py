"""The reranker model registry: trained models and the per-host deployment pointer (issue 20).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 13:48:11.371428
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reranker_deployments",
        sa.Column("host", sa.String(length=200), nullable=False),
        sa.Column("version", sa.String(length=64), nullable=False),
        sa.Column("previous_version", sa.String(length=64), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("host"),
    )
    op.create_table(
        "reranker_models",
        sa.Column("version", sa.String(length=64), nullable=False),
        sa.Column("path", sa.String(length=1000), nullable=True),
        sa.Column("host", sa.String(length=200), nullable=False),
        sa.Column("base_model", sa.String(length=200), nullable=True),
        sa.Column("trained_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("labels_used", sa.Integer(), nullable=False),
        sa.Column("label_watermark", sa.DateTime(timezone=True), nullable=True),
        sa.Column("label_digest", sa.String(length=64), nullable=True),
        sa.Column("heldout_pairs", sa.Integer(), nullable=False),
        sa.Column("incumbent", sa.String(length=200), nullable=True),
        sa.Column("incumbent_agreement", sa.Float(), nullable=True),
        sa.Column("candidate_agreement", sa.Float(), nullable=True),
        sa.Column("margin", sa.Float(), nullable=True),
        sa.Column("margin_ci_lo", sa.Float(), nullable=True),
        sa.Column("margin_ci_hi", sa.Float(), nullable=True),
        sa.Column("deploy_margin", sa.Float(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("deployed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("floor", sa.Float(), nullable=True),
        sa.Column("floor_labels", sa.Integer(), nullable=True),
        sa.Column("floor_detail", sa.JSON(), nullable=True),
        sa.Column("card", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("version"),
    )


def downgrade() -> None:
    op.drop_table("reranker_models")
    op.drop_table("reranker_deployments")
