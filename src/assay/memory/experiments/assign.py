"""Assignment: a pure, reproducible function of an experiment's config and a unit id.

``u = first 8 bytes of SHA-256("assay-ab/v1" ␟ name ␟ round ␟ seed ␟ unit_id)`` as an unsigned
big-endian integer over 2**64, in [0, 1); the unit gets B when ``u < allocation``. No
``random()``, no clock, no database write: the same unit gets the same arm in every process and
on every platform (SHA-256 is specified bit for bit, FIPS 180-4), for the whole round, and an
auditor can recompute every assignment from the stamps. A new round re-draws every unit
(``round`` is hashed), so units of one round say nothing about the next. Counts per arm are
never kept here: they are derived from the stamped memories.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from assay.memory.experiments.config import GateParams

__all__ = ["Arm", "ExperimentConfig", "assign", "unit_draw", "control_only", "EXCLUDED"]

#: ``ab_arm`` stamped on memories of an excluded unit (sub-agents): control's rules, never counted.
EXCLUDED = "excluded"

_SEP = "\x1f"
_PREFIX = "assay-ab/v1"


@dataclass(frozen=True)
class ExperimentConfig:
    """What assignment needs of an experiment (cached by
    :class:`~assay.memory.experiments.store.ExperimentStore`): ``name``, ``status``
    (``running``/``stopped``/``promoted``), ``round`` (1 for the first candidate, +1 per
    promotion), ``seed``, ``allocation`` to B in (0, 1), ``unit`` (``prompt`` or ``session``:
    which id the caller passes), the control's ``control_version``/``control_rules``, the
    candidate's ``candidate_version``/``candidate_instruction`` (``None`` when none is queued),
    ``gate`` parameters and ``round_started_at``."""

    name: str
    status: str
    round: int
    seed: int
    allocation: float
    unit: str
    control_version: str
    control_rules: str
    candidate_version: str | None
    candidate_instruction: str | None
    gate: GateParams
    round_started_at: datetime | None = None

    @property
    def running(self) -> bool:
        """A round is live: status ``running`` with a candidate."""
        return self.status == "running" and self.candidate_version is not None


@dataclass(frozen=True)
class Arm:
    """One unit's arm: ``name`` ``"A"`` (control) or ``"B"`` (candidate); ``version`` (the arm's
    version string, ``None`` when no experiment is known); ``instruction`` (B's one extra
    instruction, else ``None``); ``rules`` (the control's rules text, ``None`` when unknown: the
    writer's rules are the control's plus ``instruction``); and the stamp — ``experiment`` and
    ``round`` (``None`` outside a running experiment: nothing is stamped), ``excluded`` (an
    excluded unit: control's rules, stamped ``excluded``, never counted), the ``unit`` id."""

    name: Literal["A", "B"]
    version: str | None
    instruction: str | None
    rules: str | None
    unit: str
    experiment: str | None = None
    round: int | None = None
    excluded: bool = False

    @property
    def stamped(self) -> bool:
        """Memories written under this arm get the experiment's stamp."""
        return self.experiment is not None

    @property
    def stamp_arm(self) -> str:
        """The ``ab_arm`` value: ``"A"``, ``"B"`` or ``"excluded"``."""
        return EXCLUDED if self.excluded else self.name

    def to_json(self) -> dict[str, str | None]:
        """The pinned CLI line: ``{"unit", "arm", "version", "instruction"}``."""
        return {"unit": self.unit, "arm": self.name, "version": self.version, "instruction": self.instruction}


def unit_draw(name: str, round_: int, seed: int, unit_id: str) -> float:
    """The unit's uniform draw in [0, 1): SHA-256 of the tagged, ␟-joined fields (module docstring)."""
    key = _SEP.join((_PREFIX, name, str(round_), str(seed), unit_id)).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2.0**64


def control_only(unit_id: str, config: ExperimentConfig | None = None) -> Arm:
    """The control arm, unstamped: no experiment (``config`` ``None``: version unknown) or one
    that is not running / switched off."""
    if config is None:
        return Arm("A", None, None, None, unit_id)
    return Arm("A", config.control_version, None, config.control_rules, unit_id)


def assign(config: ExperimentConfig | None, unit_id: str, *, exclude: bool = False, enabled: bool = True) -> Arm:
    """The arm of ``unit_id`` (non-empty string) in ``config``'s current round.

    Control, unstamped, when ``config`` is ``None``, not :attr:`~ExperimentConfig.running`, or
    ``enabled`` is False (``ASSAY_AB_ENABLED=0``). ``exclude``: control's rules, stamped
    ``excluded`` (never counted). Otherwise B when :func:`unit_draw` ``< allocation``.
    ``ValueError`` for an empty unit id. Pure: no I/O, ~2 µs.
    """
    if not unit_id:
        raise ValueError("unit_id must be a non-empty string")
    if config is None or not enabled or not config.running:
        return control_only(unit_id, config)
    name, rnd, rules = config.name, config.round, config.control_rules
    if exclude:
        return Arm("A", config.control_version, None, rules, unit_id, name, rnd, excluded=True)
    if unit_draw(name, rnd, config.seed, unit_id) < config.allocation:
        return Arm("B", config.candidate_version, config.candidate_instruction, rules, unit_id, name, rnd)
    return Arm("A", config.control_version, None, rules, unit_id, name, rnd)
