"""Grades: the agent's own judgement of each delivered memory, parsed and written to the log.

The grade field is a list of ``id:grade`` entries separated by commas, semicolons or
whitespace — ``"m12:3, m7:0!"``. ``grade`` is an integer 0–3 (0 useless … 3 essential); a
trailing ``!`` marks a hard negative — a memory that looked relevant and misled — and is
allowed on grades 0 and 1 only (a hard negative cannot be useful). Ids may contain colons: the
grade is what follows the last one. Malformed entries are reported and skipped, never guessed:
no colon, an empty id, a grade outside 0–3 or not an integer, ``!`` on 2 or 3, and an id
graded twice with different values (both skipped; an exact repeat counts once). Valid grades
are written to the deliveries of the given ``search_id``; ids that search did not deliver are
reported as unknown and skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import update

from assay.memory.feedback.deliveries import UnknownSearchError, deliveries_of, write_with_retry
from assay.memory.models import StoreView, now_utc
from assay.memory.tables import memory_deliveries

__all__ = ["Grade", "GradeParse", "GradeReport", "parse_grades", "apply_grades"]

_SEP = re.compile(r"[,;\s]+")
_GRADE = re.compile(r"([0-3])(!?)")


@dataclass(frozen=True)
class Grade:
    """One parsed entry: ``memory_id``, ``grade`` in 0–3, ``hard_negative``."""

    memory_id: str
    grade: int
    hard_negative: bool


@dataclass
class GradeParse:
    """``grades`` (valid, first-seen order) and ``malformed`` (``"entry: problem"`` strings)."""

    grades: list[Grade] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)


@dataclass
class GradeReport:
    """What :func:`apply_grades` did: ``applied`` deliveries graded (``regraded`` of them had a
    grade before), ``malformed`` entries and ``unknown`` ids (not delivered by that search)."""

    search_id: str
    applied: int = 0
    regraded: int = 0
    malformed: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (counts and the skipped entries)."""
        return {
            "search_id": self.search_id,
            "applied": self.applied,
            "regraded": self.regraded,
            "malformed": list(self.malformed),
            "unknown": list(self.unknown),
        }


def parse_grades(text: str) -> GradeParse:
    """Parse a grade field (see the module docstring). Never raises for content; ``""`` → no grades."""
    out = GradeParse()
    seen: dict[str, Grade] = {}
    conflicted: set[str] = set()
    normalised = re.sub(r"\s*:\s*", ":", text.strip())
    for entry in (e for e in _SEP.split(normalised) if e):
        mid, colon, g = entry.rpartition(":")
        if not colon:
            out.malformed.append(f"{entry}: expected id:grade")
            continue
        if not mid:
            out.malformed.append(f"{entry}: empty memory id")
            continue
        m = _GRADE.fullmatch(g)
        if m is None:
            out.malformed.append(f"{entry}: grade must be an integer 0-3, optionally followed by '!'")
            continue
        grade = Grade(mid, int(m.group(1)), bool(m.group(2)))
        if grade.hard_negative and grade.grade > 1:
            out.malformed.append(f"{entry}: '!' (hard negative) only goes with grade 0 or 1")
            continue
        prev = seen.get(mid)
        if prev is not None and prev != grade:
            out.malformed.append(f"{entry}: {mid} graded twice with different values")
            conflicted.add(mid)
            continue
        seen.setdefault(mid, grade)
    for mid in conflicted:
        out.malformed.append(
            f"{mid}:{seen[mid].grade}{'!' if seen[mid].hard_negative else ''}: {mid} graded twice with different values"
        )
    out.grades = [g for mid, g in seen.items() if mid not in conflicted]
    return out


def apply_grades(store: StoreView, search_id: str, text: str) -> GradeReport:
    """Parse ``text`` and write its grades to the deliveries of ``search_id`` (one transaction).

    Raises ``ValueError`` for a blank grade field, or a ``search_id`` with no deliveries (a
    ``LookupError`` subclass: :class:`~assay.memory.feedback.deliveries.UnknownSearchError`).
    Malformed entries and ids the search did not deliver are skipped and counted in the report.
    """
    if not text.strip():
        raise ValueError("empty grade field: expected entries like 'm12:3, m7:0!'")
    rows = deliveries_of(store.engine, search_id)
    if not rows:
        raise UnknownSearchError(f"unknown search id {search_id!r}: no deliveries were logged under it")
    parsed = parse_grades(text)
    report = GradeReport(search_id=search_id, malformed=parsed.malformed)
    delivered = {r.memory_id: r for r in rows}
    todo = []
    for g in parsed.grades:
        r = delivered.get(g.memory_id)
        if r is None:
            report.unknown.append(g.memory_id)
            continue
        todo.append(g)
        report.regraded += r.grade is not None
    if todo:
        now = now_utc()

        def write(conn: Any) -> None:
            for g in todo:
                conn.execute(
                    update(memory_deliveries)
                    .where(memory_deliveries.c.search_id == search_id, memory_deliveries.c.memory_id == g.memory_id)
                    .values(grade=g.grade, hard_negative=g.hard_negative, graded_at=now)
                )

        write_with_retry(store.engine, write)
    report.applied = len(todo)
    return report
