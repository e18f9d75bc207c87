"""ExperimentStore: experiments as rows, an append-only event log, a candidate queue, promotion.

Every state change is one transaction that starts with a guarded ``UPDATE`` of the experiment's
row (``WHERE name = … AND round = … AND status = …``): on SQLite the first write takes the
database's write lock, on PostgreSQL the row lock, and the second of two racing processes finds
the row changed (its ``UPDATE`` matches nothing) and does nothing — so two ``tick`` jobs promote
once, and one ``promoted`` event is logged. Promotion makes the control's rules the control's
plus B's instruction, under B's version, and takes the oldest queued candidate as the next B
(a new round, re-drawn assignment, its own sequential test); with none queued the experiment
is ``promoted`` (everything control) until :meth:`ExperimentStore.queue` brings one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from assay.memory.experiments.assign import Arm, ExperimentConfig, assign
from assay.memory.experiments.config import ExperimentSettings, GateParams
from assay.memory.experiments.gate import Decision, decide
from assay.memory.experiments.status import ExperimentStatus, experiment_status
from assay.memory.tables import memory_ab_events, memory_ab_experiments, memory_ab_queue
from assay.storage import init_db, make_engine

__all__ = ["ExperimentStore", "ExperimentError", "Event", "UNITS", "STATUSES"]

#: What a unit id names.
UNITS = ("prompt", "session")
#: Experiment statuses.
STATUSES = ("running", "stopped", "promoted")

_E = memory_ab_experiments.c


class ExperimentError(ValueError):
    """A request the store refuses (unknown or duplicate experiment, bad parameter): nothing written."""


@dataclass(frozen=True)
class Event:
    """One row of the event log: ``kind`` (``created``, ``round_started``, ``promoted``,
    ``stopped``, ``candidate_queued``), the ``round`` it belongs to, ``actor``, ``at`` (UTC) and
    the ``figures`` that decided it (JSON object, or ``None``)."""

    id: int
    experiment: str
    round: int
    kind: str
    actor: str
    at: datetime
    figures: dict[str, Any] | None


class ExperimentStore:
    """Write-side experiments on assay's storage (SQLite default, PostgreSQL shared).

    ``url``: a database URL or an Engine (``None``: :func:`assay.storage.resolve_db_url`).
    ``settings``: :class:`~assay.memory.experiments.config.ExperimentSettings` (default: from the
    environment). Configs are cached per instance for ``settings.cache_ttl_s`` seconds, so
    :meth:`assign` reads the database at most once per TTL per experiment. One per thread.
    """

    def __init__(self, url: str | Engine | None = None, *, settings: ExperimentSettings | None = None):
        self.engine = url if isinstance(url, Engine) else make_engine(url)
        init_db(self.engine)
        self.settings = settings or ExperimentSettings.from_env()
        self._cache: dict[str, tuple[float, ExperimentConfig | None]] = {}

    # -- reading ------------------------------------------------------------------------------

    def config(self, name: str, *, fresh: bool = False) -> ExperimentConfig | None:
        """The experiment's config (``None``: unknown), from the cache unless ``fresh`` or older than the TTL."""
        now = time.monotonic()
        hit = self._cache.get(name)
        if not fresh and hit is not None and now - hit[0] < self.settings.cache_ttl_s:
            return hit[1]
        with self.engine.connect() as conn:
            row = conn.execute(select(memory_ab_experiments).where(_E.name == name)).first()
        cfg = None if row is None else _to_config(row)
        self._cache[name] = (now, cfg)
        return cfg

    def names(self, status: str | None = None) -> list[str]:
        """Experiment names (sorted), optionally only those with ``status``."""
        q = select(_E.name).order_by(_E.name)
        if status is not None:
            q = q.where(_E.status == status)
        with self.engine.connect() as conn:
            return list(conn.execute(q).scalars())

    def assign(self, name: str, unit_id: str, *, exclude: bool = False) -> Arm:
        """:func:`~assay.memory.experiments.assign.assign` with the cached config of ``name``
        (control, unstamped, for an unknown experiment or with ``ASSAY_AB_ENABLED=0``)."""
        enabled = self.settings.enabled
        return assign(self.config(name) if enabled else None, unit_id, exclude=exclude, enabled=enabled)

    def events(self, name: str) -> list[Event]:
        """The experiment's event log, oldest first."""
        c = memory_ab_events.c
        with self.engine.connect() as conn:
            rows = conn.execute(select(memory_ab_events).where(c.experiment == name).order_by(c.id)).all()
        return [Event(r.id, r.experiment, r.round, r.kind, r.actor, _utc(r.at), r.figures) for r in rows]

    def queued(self, name: str) -> list[tuple[str, str]]:
        """Candidates still waiting, oldest first: ``[(version, instruction)]``."""
        c = memory_ab_queue.c
        q = select(c.version, c.instruction).where(c.experiment == name, c.taken_round.is_(None)).order_by(c.id)
        with self.engine.connect() as conn:
            return [(r.version, r.instruction) for r in conn.execute(q)]

    def status(self, name: str) -> ExperimentStatus:
        """Per-arm statistics of the current round (:func:`~assay.memory.experiments.status.experiment_status`).
        ``ExperimentError`` for an unknown experiment."""
        return experiment_status(self.engine, self._require(name))

    def evaluate(self, name: str) -> Decision:
        """The gate's decision on the current round now (nothing written)."""
        cfg = self._require(name)
        return decide(experiment_status(self.engine, cfg), cfg.gate)

    # -- writing ------------------------------------------------------------------------------

    def start(
        self,
        name: str,
        *,
        control_version: str,
        control_rules: str,
        candidate_version: str,
        instruction: str,
        allocation: float = 0.5,
        seed: int = 0,
        unit: str = "prompt",
        gate: GateParams | None = None,
        actor: str = "api",
    ) -> ExperimentConfig:
        """Create experiment ``name`` running round 1 (events ``created`` and ``round_started``).
        ``ExperimentError`` for a duplicate name, an allocation outside (0, 1), an unknown
        ``unit``, an empty or over-long (200) name/version, equal versions, an empty instruction."""
        _check_name(name, "name")
        _check_name(control_version, "control version")
        _check_name(candidate_version, "candidate version")
        if candidate_version == control_version:
            raise ExperimentError("the candidate version must differ from the control version")
        if not instruction.strip():
            raise ExperimentError("the instruction must be non-empty")
        if not 0 < allocation < 1:
            raise ExperimentError(f"allocation must be in (0, 1), got {allocation}")
        if unit not in UNITS:
            raise ExperimentError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}")
        params = gate or GateParams()
        now = datetime.now(UTC)
        row = {
            "name": name,
            "status": "running",
            "unit": unit,
            "allocation": float(allocation),
            "seed": int(seed),
            "round": 1,
            "control_version": control_version,
            "control_rules": control_rules,
            "candidate_version": candidate_version,
            "candidate_instruction": instruction,
            "gate": params.to_dict(),
            "started_at": now,
            "round_started_at": now,
            "updated_at": now,
        }
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(memory_ab_experiments).values(**row))
                figures = {k: row[k] for k in ("unit", "allocation", "seed", "control_version", "gate")}
                _log(conn, name, 1, "created", actor, now, figures)
                _log(conn, name, 1, "round_started", actor, now, {"candidate_version": candidate_version})
        except IntegrityError:
            raise ExperimentError(f"experiment {name!r} exists already") from None
        self._cache.pop(name, None)
        return self._require(name)

    def queue(self, name: str, *, version: str, instruction: str, actor: str = "api") -> ExperimentConfig:
        """Queue a candidate (event ``candidate_queued``); when the experiment is ``promoted`` and
        idle, it becomes B at once (a new round). ``ExperimentError`` for an unknown or stopped
        experiment, a version queued before or equal to the control's, an empty instruction."""
        _check_name(version, "version")
        if not instruction.strip():
            raise ExperimentError("the instruction must be non-empty")
        cfg = self._require(name, fresh=True)
        if cfg.status == "stopped":
            raise ExperimentError(f"experiment {name!r} is stopped")
        if version in (cfg.control_version, cfg.candidate_version):
            raise ExperimentError(f"version {version!r} is already the control or the candidate")
        now = datetime.now(UTC)
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(memory_ab_queue).values(
                        experiment=name, version=version, instruction=instruction, actor=actor, queued_at=now
                    )
                )
                _log(conn, name, cfg.round, "candidate_queued", actor, now, {"version": version})
        except IntegrityError:
            raise ExperimentError(f"version {version!r} was queued before for {name!r}") from None
        if cfg.status == "promoted":
            with self.engine.begin() as conn:
                _start_next_round(conn, name, cfg.round, "promoted", actor, now)
        self._cache.pop(name, None)
        return self._require(name)

    def stop(self, name: str, *, actor: str = "api") -> ExperimentConfig:
        """Stop the experiment (event ``stopped``): every assignment control from now on (within
        the cache TTL in other processes). ``ExperimentError`` if unknown; stopping twice is a no-op."""
        cfg = self._require(name, fresh=True)
        if cfg.status != "stopped":
            now = datetime.now(UTC)
            with self.engine.begin() as conn:
                res = conn.execute(
                    update(memory_ab_experiments)
                    .where(_E.name == name, _E.status != "stopped")
                    .values(status="stopped", updated_at=now)
                )
                if res.rowcount:
                    _log(conn, name, cfg.round, "stopped", actor, now, None)
        self._cache.pop(name, None)
        return self._require(name)

    def promote(self, name: str, *, dry_run: bool = False, actor: str = "api") -> Decision:
        """Evaluate the gate on the current round and, when it says promote (and not ``dry_run``),
        promote in one guarded transaction (module docstring). The returned decision's
        ``promoted`` says whether THIS call promoted (False for a dry run, a "no", or a race lost
        to another process). ``ExperimentError`` for an unknown experiment."""
        cfg = self._require(name, fresh=True)
        decision = decide(experiment_status(self.engine, cfg), cfg.gate)
        if dry_run or not decision.promote:
            return decision
        now = datetime.now(UTC)
        with self.engine.begin() as conn:
            new_rules = cfg.control_rules.rstrip("\n") + "\n" + (cfg.candidate_instruction or "")
            res = conn.execute(
                update(memory_ab_experiments)
                .where(
                    _E.name == name,
                    _E.round == cfg.round,
                    _E.status == "running",
                    _E.candidate_version == cfg.candidate_version,
                )
                .values(
                    status="promoted",
                    control_version=cfg.candidate_version,
                    control_rules=new_rules,
                    candidate_version=None,
                    candidate_instruction=None,
                    updated_at=now,
                )
            )
            if res.rowcount != 1:
                return decision.lost_race()
            figures = decision.to_dict() | {"new_control_version": cfg.candidate_version}
            _log(conn, name, cfg.round, "promoted", actor, now, figures)
            _start_next_round(conn, name, cfg.round, "promoted", actor, now)
        self._cache.pop(name, None)
        return decision.done()

    def tick(self, *, actor: str = "tick") -> list[tuple[str, Decision]]:
        """Evaluate every running experiment and promote where the gate says so: ``[(name, decision)]``."""
        out: list[tuple[str, Decision]] = []
        for name in self.names("running"):
            cfg = self.config(name, fresh=True)
            if cfg is not None and cfg.running:
                out.append((name, self.promote(name, actor=actor)))
        return out

    def _require(self, name: str, *, fresh: bool = True) -> ExperimentConfig:
        cfg = self.config(name, fresh=fresh)
        if cfg is None:
            raise ExperimentError(f"unknown experiment {name!r}")
        return cfg


def _start_next_round(conn: Connection, name: str, round_: int, status: str, actor: str, now: datetime) -> None:
    """Inside a transaction that holds the experiment's row: the oldest queued candidate becomes B."""
    q = memory_ab_queue.c
    nxt = conn.execute(
        select(q.id, q.version, q.instruction)
        .where(q.experiment == name, q.taken_round.is_(None))
        .order_by(q.id)
        .limit(1)
    ).first()
    if nxt is None:
        return
    res = conn.execute(
        update(memory_ab_experiments)
        .where(_E.name == name, _E.round == round_, _E.status == status)
        .values(
            status="running",
            round=round_ + 1,
            candidate_version=nxt.version,
            candidate_instruction=nxt.instruction,
            round_started_at=now,
            updated_at=now,
        )
    )
    if res.rowcount != 1:
        return
    conn.execute(update(memory_ab_queue).where(q.id == nxt.id).values(taken_round=round_ + 1))
    _log(conn, name, round_ + 1, "round_started", actor, now, {"candidate_version": nxt.version})


def _log(
    conn: Connection, name: str, round_: int, kind: str, actor: str, at: datetime, figures: dict[str, Any] | None
) -> None:
    conn.execute(
        insert(memory_ab_events).values(experiment=name, round=round_, kind=kind, actor=actor, at=at, figures=figures)
    )


def _check_name(v: str, what: str) -> None:
    if not v or not v.strip() or len(v) > 200:
        raise ExperimentError(f"{what} must be a non-empty string of at most 200 characters")


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def _to_config(r: Any) -> ExperimentConfig:
    return ExperimentConfig(
        name=r.name,
        status=r.status,
        round=int(r.round),
        seed=int(r.seed),
        allocation=float(r.allocation),
        unit=r.unit,
        control_version=r.control_version,
        control_rules=r.control_rules,
        candidate_version=r.candidate_version,
        candidate_instruction=r.candidate_instruction,
        gate=GateParams.from_dict(r.gate or {}),
        round_started_at=_utc(r.round_started_at) if r.round_started_at else None,
    )
