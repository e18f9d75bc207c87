"""The reranker model registry: every trained reranker, and which one each host serves.

A model's life: ``retrain`` (:mod:`assay.memory.learning.retrain`) trains a candidate into its own
folder under the models directory, registers it (:func:`register`) with the labels it came
from and the gate's figures, and — when it beats the incumbent — :func:`deploy` flips this
host's pointer to it. Deploying and rolling back (:func:`rollback`) are one transaction each
(the pointer row and the statuses together), and only ever point at a folder that is fully
written (it was renamed into place before it was registered) and present on this host: readers
see the old model or the new one, never a half. Every delivery records ``reranker_model``, the
served model's version, so stats by model version work as before.

Statuses: ``candidate`` (registered, not deployed anywhere yet), ``deployed`` (some host's
pointer names it), ``rejected`` (the gate said no; its folder is not kept unless asked), and
``retired`` (it served once; no pointer names it now — a rollback target).

A floor calibrated on the model's graded deliveries is stored on its row (:func:`set_floor`)
with the labels it came from; search applies it when ``apply_floor`` is on, and a rollback brings
back the older model together with its own floor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Engine, select, update

from assay.memory.learning.rerankers import CARD_NAME
from assay.memory.learning.tables import reranker_deployments, reranker_models
from assay.storage import init_db, upsert

__all__ = [
    "ModelRecord",
    "ModelStatus",
    "RegistryError",
    "deploy",
    "deployed_model",
    "get_model",
    "list_models",
    "register",
    "rollback",
    "set_floor",
]

ModelStatus = Literal["candidate", "deployed", "rejected", "retired"]


class RegistryError(ValueError):
    """A registry request that cannot be done: an unknown version (the known ones are named), a
    folder this host does not have, a rollback to a model that never passed the gate."""


@dataclass(frozen=True)
class ModelRecord:
    """One row of ``reranker_models`` (see :mod:`assay.memory.learning.tables` for the columns)."""

    version: str
    path: str | None
    host: str
    base_model: str | None
    trained_at: datetime
    labels_used: int
    label_watermark: datetime | None
    label_digest: str | None
    heldout_pairs: int
    incumbent: str | None
    incumbent_agreement: float | None
    candidate_agreement: float | None
    margin: float | None
    margin_ci_lo: float | None
    margin_ci_hi: float | None
    deploy_margin: float | None
    status: ModelStatus
    deployed_at: datetime | None = None
    floor: float | None = None
    floor_labels: int | None = None
    floor_detail: dict[str, Any] | None = None
    card: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (datetimes as ISO 8601 text)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.isoformat() if isinstance(v, datetime) else v
        return out

    def folder_ready(self) -> bool:
        """Whether this host holds the model's folder (its card and config are there)."""
        if not self.path:
            return False
        folder = Path(self.path)
        return (folder / CARD_NAME).is_file() and (folder / "config.json").is_file()


def register(engine: Engine, record: ModelRecord) -> None:
    """Insert (or replace, by version) the model's row. ``status`` should be ``candidate`` or
    ``rejected``: a model becomes ``deployed`` through :func:`deploy` only."""
    init_db(engine)
    with engine.begin() as conn:
        upsert(conn, reranker_models, _row(record), ["version"])


def get_model(engine: Engine, version: str) -> ModelRecord:
    """The model of ``version``. Raises :class:`RegistryError` naming the known versions."""
    init_db(engine)
    with engine.connect() as conn:
        row = conn.execute(select(reranker_models).where(reranker_models.c.version == version)).mappings().first()
    if row is None:
        known = ", ".join(m.version for m in list_models(engine)) or "none"
        raise RegistryError(f"no reranker model {version!r} in the registry (known: {known})")
    return _record(row)


def list_models(engine: Engine) -> list[ModelRecord]:
    """Every registered model, newest first."""
    init_db(engine)
    with engine.connect() as conn:
        rows = conn.execute(select(reranker_models).order_by(reranker_models.c.trained_at.desc())).mappings().all()
    return [_record(r) for r in rows]


def deployed_model(engine: Engine, host: str, *, init: bool = True) -> ModelRecord | None:
    """The model ``host``'s pointer names, or ``None`` when the host has none. ``init=False``
    skips :func:`init_db` (for a store that has opened the database already: the search path)."""
    if init:
        init_db(engine)
    with engine.connect() as conn:
        version = conn.execute(
            select(reranker_deployments.c.version).where(reranker_deployments.c.host == host)
        ).scalar_one_or_none()
    if version is None:
        return None
    with engine.connect() as conn:
        row = conn.execute(select(reranker_models).where(reranker_models.c.version == version)).mappings().first()
    return None if row is None else _record(row)


def deploy(engine: Engine, version: str, host: str, *, now: datetime | None = None) -> ModelRecord:
    """Point ``host`` at ``version`` in one transaction: the pointer row, the model's status
    ``deployed`` and ``deployed_at``, and the previously served model's status ``retired`` when
    no other host still serves it.

    Raises:
        RegistryError: an unknown version, a ``rejected`` model, or a model whose folder this
            host does not have (a host never follows a pointer to a folder it lacks).
    """
    model = get_model(engine, version)
    if model.status == "rejected":
        raise RegistryError(f"{version}: rejected by the gate; only a model that passed it can serve")
    if not model.folder_ready():
        raise RegistryError(f"{version}: its folder {model.path} is not on this host ({host})")
    when = now or datetime.now(UTC)
    with engine.begin() as conn:
        previous = conn.execute(
            select(reranker_deployments.c.version).where(reranker_deployments.c.host == host).with_for_update()
        ).scalar_one_or_none()
        upsert(
            conn,
            reranker_deployments,
            {"host": host, "version": version, "previous_version": previous, "updated_at": when},
            ["host"],
        )
        conn.execute(
            update(reranker_models)
            .where(reranker_models.c.version == version)
            .values(status="deployed", deployed_at=when)
        )
        if previous is not None and previous != version:
            still = conn.execute(
                select(reranker_deployments.c.host).where(reranker_deployments.c.version == previous)
            ).first()
            if still is None:
                conn.execute(
                    update(reranker_models).where(reranker_models.c.version == previous).values(status="retired")
                )
    return get_model(engine, version)


def rollback(engine: Engine, version: str, host: str) -> ModelRecord:
    """Serve ``version`` again on ``host`` (a model that served before: ``retired`` or
    ``deployed``); the model it replaces is retired. The older model's floor comes back with it.

    Raises:
        RegistryError: as :func:`deploy`, and for a model that never served (``candidate``).
    """
    model = get_model(engine, version)
    if model.status == "candidate":
        raise RegistryError(f"{version}: never deployed; roll back to a model that served (status retired)")
    return deploy(engine, version, host)


def set_floor(engine: Engine, version: str, floor: float | None, *, labels: int, detail: Mapping[str, Any]) -> None:
    """Store a calibrated suppression floor on ``version``'s row, with the number of graded
    deliveries it came from and the calibration's figures (``detail``). ``None`` clears it."""
    get_model(engine, version)
    with engine.begin() as conn:
        conn.execute(
            update(reranker_models)
            .where(reranker_models.c.version == version)
            .values(floor=floor, floor_labels=labels, floor_detail=dict(detail))
        )


def _row(r: ModelRecord) -> dict[str, Any]:
    return {f.name: getattr(r, f.name) for f in fields(r)}


def _record(row: Any) -> ModelRecord:
    def aware(v: Any) -> Any:  # SQLite hands back naive datetimes; the store writes UTC
        return v.replace(tzinfo=UTC) if isinstance(v, datetime) and v.tzinfo is None else v

    return ModelRecord(**{f.name: aware(row[f.name]) for f in fields(ModelRecord)})
