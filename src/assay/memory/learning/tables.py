"""The reranker model registry's tables, on :data:`assay.storage.metadata` (``init_db`` creates them).

- ``reranker_models``: one row per trained reranker (deployed or not): its ``version``, the
  folder that holds it (``path``, on ``host``; ``None`` once a rejected candidate's folder is
  dropped), base model, when it was trained, the labels it was trained on and the snapshot they
  came from (``label_watermark``: the newest grade/engagement time they include;
  ``label_digest``: sha256 of the exported label file), the held-out gate's figures, ``status``
  (``candidate | deployed | rejected | retired``) and ``deployed_at``; a calibrated suppression
  ``floor`` with the labels it came from (``floor_labels``, ``floor_detail``); the model card.
- ``reranker_deployments``: the pointer, one row per host: which ``version`` that host serves and
  which it served before. Deploying and rolling back flip this row in one transaction.
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Float, Integer, String, Table

from assay.storage import metadata

__all__ = ["reranker_deployments", "reranker_models"]

reranker_models = Table(
    "reranker_models",
    metadata,
    Column("version", String(64), primary_key=True),
    Column("path", String(1000)),
    Column("host", String(200), nullable=False),
    Column("base_model", String(200)),
    Column("trained_at", DateTime(timezone=True), nullable=False),
    Column("labels_used", Integer, nullable=False),
    Column("label_watermark", DateTime(timezone=True)),
    Column("label_digest", String(64)),
    Column("heldout_pairs", Integer, nullable=False),
    Column("incumbent", String(200)),
    Column("incumbent_agreement", Float),
    Column("candidate_agreement", Float),
    Column("margin", Float),
    Column("margin_ci_lo", Float),
    Column("margin_ci_hi", Float),
    Column("deploy_margin", Float),
    Column("status", String(16), nullable=False),
    Column("deployed_at", DateTime(timezone=True)),
    Column("floor", Float),
    Column("floor_labels", Integer),
    Column("floor_detail", JSON),
    Column("card", JSON),
)

reranker_deployments = Table(
    "reranker_deployments",
    metadata,
    Column("host", String(200), primary_key=True),
    Column("version", String(64), nullable=False),
    Column("previous_version", String(64)),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
