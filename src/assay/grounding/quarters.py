"""A quarter named next to a number must be its figure's quarter (issue 15, ``period_swap``; read
by :func:`assay.grounding.forms.read_forms`, judged by :func:`quarter_veto`).

The period rule (:mod:`assay.grounding.acceptable`) judges years only: "Q2 2023 revenue was $120
million [F6]" on F6 = Q3 2023 named 2023, F6's year, and passed (a new user's false accept).
Rule, as conservative as the year rule: each quarter the sentence names (:func:`~assay.claims.periods.find_periods`:
"Q2 2023", "2Q23", "second quarter of 2023", "2023년 2분기") goes to the nearest number of its
clause (a one-number sentence gets every quarter named); a candidate whose period is a quarter
(:func:`~assay.claims.periods.period_key` ``"2023Q3"``) is vetoed (``period_mismatch``) when no
quarter given to the number is its own; a derivation whose operands are all quarters, when a
quarter given to the number is none of its operands'. A candidate of no quarter (a year, no
period, a passage number) is never judged, nor a number no quarter is given to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from assay.claims import Quantity
from assay.claims.periods import find_periods, period_key
from assay.grounding.candidates import Candidate
from assay.grounding.lexicon import CLAUSE
from assay.grounding.operands import period_owner

__all__ = ["named_quarters", "quarter_veto"]

#: Every quarter form of :func:`~assay.claims.periods.find_periods` holds one of these.
_MAY_QUARTER = re.compile(r"Q[1-4]|[1-4]Q|quarter|분기", re.I)


def named_quarters(text: str, offset: int, numbers: Sequence[Quantity]) -> dict[int, frozenset[str]]:
    """Number start (in the answer) → the quarter keys the sentence gives it (module doc)."""
    if not _MAY_QUARTER.search(text):
        return {}  # no quarter form: find_periods is the costly part of a sentence's read
    quarters = [p for p in find_periods(text) if "Q" in p.key]
    if not quarters or not numbers:
        return {}
    if len(numbers) == 1:
        return {numbers[0].span[0]: frozenset(p.key for p in quarters)}
    cuts = [0, *(m.end() for m in CLAUSE.finditer(text)), len(text) + 1]
    spans = [(q.span[0] - offset, q.span[1] - offset) for q in numbers]
    out: dict[int, set[str]] = {}
    for p in quarters:
        k = period_owner(text, spans, p.span[0], p.span[1], cuts)
        if k is not None:
            out.setdefault(numbers[k].span[0], set()).add(p.key)
    return {k: frozenset(v) for k, v in out.items()}


@lru_cache(maxsize=4096)
def _quarter(period: str | None) -> str | None:
    key = period_key(period)
    return key if key is not None and "Q" in key else None


def quarter_veto(q: Quantity, c: Candidate, named: dict[int, frozenset[str]]) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when the quarters given to ``q`` are not ``c``'s (module doc)."""
    mine = named.get(q.span[0])
    if not mine:
        return None
    keys = [_quarter(o.period) for o in c.operands or (c,)]
    own = {k for k in keys if k is not None}
    if len(own) < len(set(keys)):
        return None  # an operand of no quarter: not judged
    off = not (own & mine) if c.op is None else bool(mine - own)
    if not off:
        return None
    said, of = ", ".join(sorted(mine)), ", ".join(sorted(own))
    return "period_mismatch", f"the sentence names {said}, but {c.ref} is of {of}"
