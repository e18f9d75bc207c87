"""Cases: one answer to check, with the data it must be grounded in, and the JSONL loader.

A case file is JSON Lines, one :class:`Case` per line. ``id`` names the question/task and is
shared by every variant's answer to it (variants pair on ``id``); ``(id, variant)`` is unique.
Every malformed line is reported as ``file:line: field: problem`` (:class:`CaseFileError`), and
the loader reads the whole file before returning, so a caller writes nothing on bad input.
"""

from __future__ import annotations

import math
import re
import unicodedata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from assay.claims.citations import CITABLE_ID
from assay.facts import Fact, Snapshot, unique_fact_ids
from assay.jsonl import InputFileError, InputProblem, load_jsonl, parse_model_line

__all__ = ["Case", "CaseFileError", "InputProblem", "load_cases", "parse_case_line"]


class Case(BaseModel):
    """One answer to evaluate.

    ``facts`` build the case's :class:`Snapshot`; ``sources`` are raw passages; ``reference`` is
    a gold answer (text, a number, or a list of numbers/texts) used by completeness.
    ``expect_refusal``: the right answer is to decline (the data cannot answer the question);
    the eval's headline composite then scores a ``no_claims`` answer 1 instead of 0. It is a
    property of the question, not of the answer: a FinanceBench answer labelled ``Refusal`` is
    not one (those questions are answerable).
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
    expect_refusal: StrictBool = False

    @field_validator("id", "variant")
    @classmethod
    def _nonempty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must be a non-empty string")
        if (bad := _control_character(v)) is not None:  # echoed in every report line: no terminal escapes
            raise ValueError(f"contains a control character ({bad}): ids are printed in reports")
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
        for i, f in enumerate(v):  # the pipeline reads the default marker: an id it cannot name is never cited
            if _CITABLE.fullmatch(f.id) is None:
                raise ValueError(
                    f"fact {i} has id {f.id!r}, which no marker can cite: a marker [id] names ids of ASCII letters,"
                    " digits and _ . : - only"
                )
        return unique_fact_ids(v)

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


class CaseFileError(InputFileError):
    """A case file could not be loaded; ``problems`` lists every bad line (first 50 shown)."""


def parse_case_line(text: str, *, file: str, line: int) -> tuple[Case | None, list[InputProblem]]:
    """Parse one JSONL line into a :class:`Case`, or return the problems found on it."""
    return parse_model_line(Case, text, file=file, line=line, what="<case>")


def load_cases(path: str | Path) -> list[Case]:
    """Load a cases JSONL file.

    Blank lines are skipped. Raises :class:`CaseFileError` listing every malformed line, a file
    that is not UTF-8, an empty file, or a duplicate ``(id, variant)`` (naming both lines);
    ``FileNotFoundError`` when the file is missing.
    """
    return [
        case
        for _line, case in load_jsonl(
            path,
            lambda text, file, line: parse_case_line(text, file=file, line=line),
            what="cases",
            key=lambda c: (c.id, c.variant),
            describe_key=lambda k: f"(id, variant) ({k[0]!r}, {k[1]!r})",
            error=CaseFileError,
        )
    ]


_CITABLE = re.compile(CITABLE_ID)


def _control_character(text: str) -> str | None:
    """The first control or format character of ``text`` (Unicode categories Cc and Cf: ESC, a
    newline, a bidirectional override), as its escape (``"\\x1b"``), or None."""
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf"):
            return ascii(ch)[1:-1]
    return None
