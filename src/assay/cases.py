"""Cases: one answer to check, with the data it must be grounded in, and the JSONL loader.

A case file is JSON Lines, one :class:`Case` per line. ``id`` names the question/task and is
shared by every variant's answer to it (variants pair on ``id``); ``(id, variant)`` is unique.
Every malformed line is reported as ``file:line: field: problem`` (:class:`CaseFileError`), and
the loader reads the whole file before returning, so a caller writes nothing on bad input.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.facts import Fact, Snapshot

__all__ = ["Case", "CaseFileError", "InputProblem", "load_cases", "parse_case_line"]


class Case(BaseModel):
    """One answer to evaluate.

    ``facts`` build the case's :class:`Snapshot`; ``sources`` are raw passages; ``reference`` is
    a gold answer (text, a number, or a list of numbers/texts) used by completeness.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    answer: str
    question: str | None = None
    facts: tuple[Fact, ...] = ()
    sources: tuple[str, ...] = ()
    reference: str | float | list[str | float] | None = None
    variant: str = "default"
    slice: str | None = None
    trace: dict[str, Any] | str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id", "variant")
    @classmethod
    def _nonempty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must be a non-empty string")
        return v

    @field_validator("reference", mode="before")
    @classmethod
    def _finite_reference(cls, v: object) -> object:
        vals = v if isinstance(v, list) else [v]
        for x in vals:
            if isinstance(x, float) and not math.isfinite(x):
                raise ValueError(f"must be finite, got {x!r}")
        return v

    @field_validator("facts")
    @classmethod
    def _unique_fact_ids(cls, v: tuple[Fact, ...]) -> tuple[Fact, ...]:
        seen: set[str] = set()
        for f in v:
            if f.id in seen:
                raise ValueError(f"duplicate fact id {f.id!r}")
            seen.add(f.id)
        return v

    def snapshot(self) -> Snapshot:
        """The case's data as a :class:`Snapshot` (facts + sources)."""
        return Snapshot(facts=self.facts, sources=self.sources)

    def get_field(self, dotted: str) -> Any:
        """Value at a dotted path such as ``meta.human_label``; ``None`` when absent."""
        obj: Any = self
        for part in dotted.split("."):
            if isinstance(obj, BaseModel):
                obj = getattr(obj, part, None)
            elif isinstance(obj, dict):
                obj = obj.get(part)
            else:
                return None
        return obj


class InputProblem(BaseModel):
    """One problem in an input file: where, which field, what is wrong."""

    file: str
    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.problem}"


class CaseFileError(ValueError):
    """A case file could not be loaded; ``problems`` lists every bad line (first 50 shown)."""

    def __init__(self, problems: list[InputProblem]):
        self.problems = problems
        shown = "\n".join(str(p) for p in problems[:50])
        more = f"\n… and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(shown + more)


def parse_case_line(text: str, *, file: str, line: int) -> tuple[Case | None, list[InputProblem]]:
    """Parse one JSONL line into a :class:`Case`, or return the problems found on it."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except ValueError as e:
        return None, [InputProblem(file=file, line=line, field="<json>", problem=str(e))]
    if not isinstance(obj, dict):
        return None, [InputProblem(file=file, line=line, field="<json>", problem="expected a JSON object")]
    try:
        return Case.model_validate(obj), []
    except ValidationError as e:
        problems = []
        for err in e.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "<case>"
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "missing":
                msg = "required field is missing"
            problems.append(InputProblem(file=file, line=line, field=loc, problem=msg))
        return None, problems


def load_cases(path: str | Path) -> list[Case]:
    """Load a cases JSONL file.

    Blank lines are skipped. Raises :class:`CaseFileError` listing every malformed line, a file
    that is not UTF-8, an empty file, or a duplicate ``(id, variant)`` (naming both lines);
    ``FileNotFoundError`` when the file is missing.
    """
    p = Path(path)
    name = str(path)
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise CaseFileError([InputProblem(file=name, line=line, field="<bytes>", problem=f"not valid UTF-8 ({e.reason} at byte {e.start})")]) from None
    cases: list[Case] = []
    problems: list[InputProblem] = []
    first_line: dict[tuple[str, str], int] = {}
    # JSON Lines are separated by "\n" only: str.splitlines() would also cut at U+2028, U+2029
    # and U+0085, which JSON allows raw inside strings (json.dumps(ensure_ascii=False) writes them).
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        case, probs = parse_case_line(line, file=name, line=lineno)
        problems.extend(probs)
        if case is None:
            continue
        key = (case.id, case.variant)
        if key in first_line:
            problems.append(InputProblem(file=name, line=lineno, field="id", problem=f"duplicate (id, variant) ({case.id!r}, {case.variant!r}); first at line {first_line[key]}"))
            continue
        first_line[key] = lineno
        cases.append(case)
    if not cases and not problems:
        problems.append(InputProblem(file=name, line=0, field="<file>", problem="empty file: no cases"))
    if problems:
        raise CaseFileError(problems)
    return cases


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")
