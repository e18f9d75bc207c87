"""Stated effects: the ``Claim:`` and ``Guard:`` lines of a pull-request body, parsed.

Grammar (one statement per line; anywhere in the text, after optional Markdown list or quote
marks ``-``, ``*``, ``>``; the keyword is case-insensitive):

- ``Claim: [<variant>.]<dimension>=<±delta>[pp]`` — the change head − base on that dimension.
- ``Guard: [<variant>.]<dimension> >= -<margin>[pp]`` — non-inferiority: head − base is not worse
  than ``-margin`` (``>= 0`` allowed: no worse at all).

Units: a bare number is on the score's own scale (``+0.05`` on a [0, 1] axis); ``pp`` means
percentage points, ``+5pp`` = ``+0.05``. The trajectory-judge seed's example
``planner_decomposition=+0.05pp`` is therefore ``+0.0005``: every statement keeps its normalised
value, and a ``pp`` value under 1 pp carries a warning ("did you mean +5pp?").

A dimension is ``[A-Za-z_][A-Za-z0-9_]*``; a variant is everything before the last dot, so variant
names may hold dots and dashes (``gpt-4_oracle``). A claimed change of exactly 0 is refused: "no
change" is a non-inferiority guard, not a claim of an effect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["StatedEffect", "StatementError", "parse_statements"]


class StatementError(ValueError):
    """A ``Claim:``/``Guard:`` line that does not parse: ``str(e)`` is ``line N: problem``;
    ``lineno`` (1-based) and ``problem`` hold the parts."""

    def __init__(self, lineno: int, problem: str) -> None:
        super().__init__(f"line {lineno}: {problem}")
        self.lineno = lineno
        self.problem = problem


@dataclass(frozen=True)
class StatedEffect:
    """One parsed statement.

    ``kind`` is ``"claim"`` or ``"guard"``; ``delta`` the claimed change (claims) or ``-margin``
    (guards), normalised to the score's scale; ``written`` the value as written (``"+5pp"``);
    ``line`` its 1-based line in the input; ``warning`` a note for the reader or ``None``.
    """

    kind: Literal["claim", "guard"]
    dimension: str
    delta: float
    written: str
    line: int
    variant: str | None = None
    warning: str | None = None

    @property
    def label(self) -> str:
        """``variant.dimension`` or ``dimension``, as the statement named it."""
        return f"{self.variant}.{self.dimension}" if self.variant else self.dimension

    @property
    def text(self) -> str:
        """The statement, normalised: ``Claim: composite=+0.05 (+5pp)``."""
        if self.kind == "claim":
            return f"Claim: {self.label}={self.delta:+.4g} ({self.written})"
        return f"Guard: {self.label} >= {self.delta:+.4g} ({self.written})"


_PREFIX = re.compile(r"^\s*(?:[-*>]\s*)*(claim|guard)\s*:\s*(.*?)\s*$", re.IGNORECASE)
_TARGET = r"(?P<target>[^\s=<>]+)"
_NUMBER = r"(?P<sign>[+\-\u2212])?\s*(?P<num>\d+(?:\.\d*)?|\.\d+)\s*(?P<pp>pp)?"
_CLAIM = re.compile(rf"^{_TARGET}\s*=\s*{_NUMBER}$", re.IGNORECASE)
_GUARD = re.compile(rf"^{_TARGET}\s*(?:>=|\u2265)\s*{_NUMBER}$", re.IGNORECASE)
_DIMENSION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_statements(text: str) -> list[StatedEffect]:
    """Every ``Claim:`` and ``Guard:`` line of ``text`` (other lines are ignored), in order.

    Raises:
        StatementError: a line that starts with ``Claim:``/``Guard:`` but does not follow the
            grammar above (``line N: …``): a statement is never guessed.
    """
    found: list[StatedEffect] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        m = _PREFIX.match(raw)
        if not m:
            continue
        kind: Literal["claim", "guard"] = "claim" if m.group(1).lower() == "claim" else "guard"
        body = m.group(2)
        pm = (_CLAIM if kind == "claim" else _GUARD).match(body)
        if pm is None:
            form = "<dimension>=<±delta>[pp]" if kind == "claim" else "<dimension> >= -<margin>[pp]"
            raise StatementError(lineno, f"{kind}: expected `{kind.title()}: {form}`, got {body!r}")
        variant, dimension = _split_target(pm.group("target"), lineno, kind)
        negative = pm.group("sign") in ("-", "\u2212")
        value = float(pm.group("num")) * (-1.0 if negative else 1.0)
        pp = pm.group("pp") is not None
        delta = value / 100.0 if pp else value
        written = f"{'-' if negative else '+'}{pm.group('num')}{'pp' if pp else ''}"
        warning = None
        if kind == "claim":
            if delta == 0.0:
                raise StatementError(
                    lineno, f"claim: a change of 0 is not an effect; state it as `Guard: {dimension} >= -<margin>`"
                )
        elif delta > 0.0:
            raise StatementError(lineno, "guard: the margin must be written as >= -<margin> (or >= 0)")
        if pp and 0.0 < abs(value) < 1.0:
            warning = f"{written} is {delta:+.4g} on the score's scale; did you mean {value * 100:+g}pp?"
        found.append(StatedEffect(kind, dimension, delta, written, lineno, variant, warning))
    return found


def _split_target(target: str, lineno: int, kind: str) -> tuple[str | None, str]:
    variant, _, dimension = target.rpartition(".")
    if not _DIMENSION.match(dimension):
        raise StatementError(lineno, f"{kind}: {dimension!r} is not a dimension name")
    return (variant or None), dimension
