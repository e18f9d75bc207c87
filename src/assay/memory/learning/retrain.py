"""``retrain``: the label-volume-gated retrain, the beat-the-incumbent gate, and a registry deploy.

One run, cron-able and idempotent (``assay memory retrain``):

1. Count the labels (grades and engagement labels of the delivery log) newer than the deployed
   model's snapshot (its ``label_watermark``; every label when nothing is deployed). Below
   ``min_new_labels``: nothing to do.
2. Take the retrain lock, so two runs never train at once: a PostgreSQL session advisory lock on
   PostgreSQL (held on its own connection for the run), a file lock beside the models directory
   on SQLite. A second run waits with ``wait=True``, else it returns ``locked`` at once.
3. Export the labelled deliveries (the same records ``assay memory export-labels`` writes),
   train a student into a new folder ``<models_dir>/<version>``, and score the incumbent (the
   deployed version, or what serves without one) and the candidate on the SAME held-out pairs
   (:func:`assay.memory.learning.deploy.train_and_deploy`); it passes when the margin reaches
   ``deploy_margin`` and its 95% CI lies above 0 (see :func:`retrain`).
4. Register the candidate with its labels and figures; when it passes the gate (and not
   ``dry_run``), flip this host's pointer to it (:func:`assay.memory.learning.registry.deploy`).
   A rejected candidate's folder is removed unless ``keep_rejected``.

The version is the card's ``model_id`` (``student-<UTC time>-<hash>``), which is also what
deliveries record as ``reranker_model`` (with ``-int8`` when quantised).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Engine, func, or_, select, text

from assay.memory.config import RerankerSettings, host_id
from assay.memory.feedback.export import export_labels
from assay.memory.learning.deploy import DEFAULT_DEPLOY_MARGIN, DEFAULT_TRAIN_CONFIG, train_and_deploy
from assay.memory.learning.pairs import SplitBy
from assay.memory.learning.registry import ModelRecord, deploy, deployed_model, register
from assay.memory.learning.resolution import DeviceFacts
from assay.memory.learning.train import TrainConfig
from assay.memory.models import StoreView
from assay.memory.tables import memory_deliveries

__all__ = ["DEFAULT_MIN_NEW_LABELS", "RetrainReport", "RetrainStatus", "count_new_labels", "retrain", "retrain_lock"]

#: Labels needed since the deployed model's snapshot before a retrain is worth its cost: a few
#: hundred held-out pairs are what the 0.02 deploy margin is measured against (deploy.py), and 200
#: new labels change the pair set by enough to move the agreement beyond that noise.
DEFAULT_MIN_NEW_LABELS = 200

RetrainStatus = Literal["nothing_to_do", "locked", "deployed", "rejected", "would_deploy", "would_reject"]


class RetrainLocked(Exception):
    """Another retrain holds the lock (raised inside :func:`retrain_lock` without ``wait``)."""


@dataclass(frozen=True)
class RetrainReport:
    """What one run did: ``status``, the label counts, the version trained (if any), the gate's
    decision (``GateDecision.to_dict()``), and one line for a person."""

    status: RetrainStatus
    new_labels: int
    min_new_labels: int
    message: str
    version: str | None = None
    incumbent_version: str | None = None
    decision: dict[str, Any] | None = None
    labels_used: int = 0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 deployed (or would be), nothing to do, or locked; 1 trained and rejected by the gate."""
        return 1 if self.status in ("rejected", "would_reject") else 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def count_new_labels(engine: Engine, since: datetime | None) -> tuple[int, datetime | None]:
    """``(n, watermark)``: deliveries graded or engagement-labelled after ``since`` (all labelled
    deliveries when ``None``), and the newest label time in the log (``None`` without labels)."""
    d = memory_deliveries.c
    labelled = or_(d.graded_at.is_not(None), d.engaged_at.is_not(None))
    newer = labelled if since is None else or_(d.graded_at > since, d.engaged_at > since)
    with engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(memory_deliveries).where(newer)).scalar_one()
        g, e = conn.execute(select(func.max(d.graded_at), func.max(d.engaged_at))).one()
    marks = [_aware(x) for x in (g, e) if x is not None]
    return int(n), (max(marks) if marks else None)


@contextlib.contextmanager
def retrain_lock(engine: Engine, models_dir: Path, *, wait: bool) -> Iterator[None]:
    """Hold the retrain lock for the block (see the module docstring). Raises
    :class:`RetrainLocked` when another run holds it and ``wait`` is false."""
    if engine.dialect.name == "postgresql":
        key = zlib.crc32(b"assay.memory.retrain")  # fits PostgreSQL's bigint key
        with engine.connect() as conn:
            if wait:
                conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
            elif not conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar_one():
                raise RetrainLocked
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                conn.commit()
        return
    from filelock import FileLock, Timeout

    models_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(str(engine.url).encode()).hexdigest()[:12]
    lock = FileLock(str(models_dir / f".retrain-{digest}.lock"))
    try:
        lock.acquire(timeout=-1 if wait else 0)
    except Timeout:
        raise RetrainLocked from None
    try:
        yield
    finally:
        lock.release()


def retrain(
    store: StoreView,
    models_dir: str | Path,
    *,
    host: str | None = None,
    min_new_labels: int = DEFAULT_MIN_NEW_LABELS,
    dry_run: bool = False,
    wait: bool = False,
    keep_rejected: bool = False,
    config: TrainConfig = DEFAULT_TRAIN_CONFIG,
    settings: RerankerSettings | None = None,
    split_by: SplitBy = "query",
    holdout: float = 0.2,
    engagement: bool = False,
    deploy_margin: float = DEFAULT_DEPLOY_MARGIN,
    require_ci: bool = True,
    device_facts: DeviceFacts | None = None,
    on_step: Callable[[int, int, float], None] | None = None,
) -> RetrainReport:
    """One retrain run (see the module docstring). ``host`` defaults to :func:`host_id`.

    The gate here is stricter than ``assay memory train``'s: with ``require_ci`` (default) the
    candidate must also beat the incumbent beyond noise — the lower bound of the 95% paired
    bootstrap CI of the margin (queries resampled) above 0. An unattended loop retrains often, and
    a margin of a few held-out queries clears 0.02 by chance (measured: shuffled grades on 96
    labels gave +0.143 with a CI reaching below 0).

    Raises ``ValueError`` for unusable labels (as :func:`train_and_deploy`) and for
    ``min_new_labels < 1``; the lock, the folder and the registry are left consistent on any error.
    """
    if min_new_labels < 1:
        raise ValueError(f"min_new_labels must be >= 1, got {min_new_labels}")
    engine = store.engine
    host = host or host_id()
    root = Path(models_dir)
    incumbent = deployed_model(engine, host)
    since = incumbent.label_watermark if incumbent is not None else None
    n_new, _ = count_new_labels(engine, since)
    if n_new < min_new_labels:
        return RetrainReport(
            "nothing_to_do",
            n_new,
            min_new_labels,
            f"{n_new} new label(s) since {'the deployed model' if incumbent else 'the start'} "
            f"< {min_new_labels}: nothing to do",
            incumbent_version=incumbent.version if incumbent else None,
        )
    try:
        with retrain_lock(engine, root, wait=wait):
            return _train(
                store, root, host, incumbent, n_new, min_new_labels, dry_run, keep_rejected, require_ci,
                dict(config=config, settings=settings, split_by=split_by, holdout=holdout, engagement=engagement,
                     deploy_margin=deploy_margin, device_facts=device_facts, on_step=on_step),
            )  # fmt: skip
    except RetrainLocked:
        return RetrainReport(
            "locked", n_new, min_new_labels, "another retrain run holds the lock: nothing done (exit 0)"
        )


def _train(
    store: StoreView,
    root: Path,
    host: str,
    incumbent: ModelRecord | None,
    n_new: int,
    min_new_labels: int,
    dry_run: bool,
    keep_rejected: bool,
    require_ci: bool,
    opts: dict[str, Any],
) -> RetrainReport:
    engine = store.engine
    # A run that waited for the lock may find the work done: count again under the lock.
    current = deployed_model(engine, host)
    if current is not None and (incumbent is None or current.version != incumbent.version):
        n_new, _ = count_new_labels(engine, current.label_watermark)
        incumbent = current
        if n_new < min_new_labels:
            return RetrainReport(
                "nothing_to_do", n_new, min_new_labels,
                f"another run deployed {current.version} meanwhile; {n_new} newer label(s) < {min_new_labels}",
                incumbent_version=current.version,
            )  # fmt: skip
    _, watermark = count_new_labels(engine, None)
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".retrain-") as tmp:
        labels = Path(tmp) / "labels.jsonl"
        n_labels = export_labels(store, labels)
        digest = hashlib.sha256(labels.read_bytes()).hexdigest()
        staging, rejected = Path(tmp) / "candidate", Path(tmp) / "rejected"
        rep = train_and_deploy(
            labels,
            staging,
            incumbent_dir=incumbent.path if incumbent is not None and incumbent.folder_ready() else None,
            keep_candidate=rejected if keep_rejected and not dry_run else None,
            **opts,
        )
        version = str(rep.card["model_id"])
        ci = rep.decision.margin_ci
        passed = rep.decision.deployed and (not require_ci or (ci is not None and ci[0] > 0))
        target = root / version
        if not dry_run and (passed or keep_rejected):
            kept = staging if staging.exists() else rejected
            if kept.exists():  # fully written and carded: renamed into place before it is registered
                os.replace(kept, target)
    d = rep.decision
    record = ModelRecord(
        version=version,
        path=str(target) if target.exists() else None,
        host=host,
        base_model=rep.card.get("base_model"),
        trained_at=datetime.now(UTC),
        labels_used=n_labels,
        label_watermark=watermark,
        label_digest=digest,
        heldout_pairs=d.n_pairs,
        incumbent=d.incumbent,
        incumbent_agreement=d.incumbent_agreement,
        candidate_agreement=d.candidate_agreement,
        margin=d.margin,
        margin_ci_lo=d.margin_ci[0] if d.margin_ci else None,
        margin_ci_hi=d.margin_ci[1] if d.margin_ci else None,
        deploy_margin=d.deploy_margin,
        status="candidate" if passed else "rejected",
        card=rep.card,
    )
    if dry_run:
        status: RetrainStatus = "would_deploy" if passed else "would_reject"
    else:
        register(engine, record)
        if passed:
            deploy(engine, version, host)
        status = "deployed" if passed else "rejected"
    ci_text = f"CI [{d.margin_ci[0]:+.3f}, {d.margin_ci[1]:+.3f}]" if d.margin_ci else "no CI"
    line = (
        f"candidate {version}: held-out agreement {d.candidate_agreement:.3f} vs {d.incumbent} "
        f"{d.incumbent_agreement:.3f} (margin {d.margin:+.3f}, {ci_text}; needs {d.deploy_margin:+.3f}"
        f"{' and a CI above 0' if require_ci else ''}) → {status}"
    )
    return RetrainReport(
        status, n_new, min_new_labels, line, version=version,
        incumbent_version=incumbent.version if incumbent else None, decision=d.to_dict(), labels_used=n_labels,
    )  # fmt: skip


def _aware(v: datetime) -> datetime:
    return v.replace(tzinfo=UTC) if v.tzinfo is None else v
