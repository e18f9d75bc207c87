"""What a sentence says about a change's direction beyond its words (issue 15, used by
:mod:`assay.grounding.acceptable`): a direction its own "from A to B" figures contradict, a number
that is only what something is compared to, and ratios whose operand is itself a change."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay.claims import Quantity
from assay.claims.patterns import CLAUSE_END
from assay.grounding.candidates import Candidate, period_rank

__all__ = [
    "COMPARED",
    "A_CHANGE",
    "from_to_contradictions",
    "change_ratio_direction",
    "shifted_level",
]

_CLAUSE = re.compile(CLAUSE_END)  # (patterns.CLAUSE_END: clause and sentence ends)


_NO_NUMBERS: frozenset[int] = frozenset()


def from_to_contradictions(text: str, offset: int, numbers: Sequence[Quantity]) -> frozenset[int]:
    """Starts of the numbers stated with a direction that their clause's "from A … to B" (the next
    two numbers, same unit) contradicts: "decreased by 3% from 20% in FY2021 to 23% in FY2022";
    and of a level B that the figure before it is said to have moved away from, the wrong way:
    "$93 million, which was an increase from the $118 million" (B's direction, from the change
    word before it, says the earlier figure rose to A; A < B says it fell)."""
    if len(numbers) < 2:
        return _NO_NUMBERS
    out = set()
    for a, b in zip(numbers, numbers[1:], strict=False):
        if b.direction is None or b.explicit_sign or a.unit != b.unit:
            continue
        va, vb = a.value * a.scale, b.value * b.scale
        if va != vb and _AWAY_FROM.fullmatch(text, a.span[1] - offset, b.span[0] - offset):
            if (va > vb) != (b.direction > 0):
                out.add(b.span[0])
    for i, q in enumerate(numbers[:-2]):
        a, b = numbers[i + 1], numbers[i + 2]
        if q.direction is None or q.explicit_sign or a.unit != b.unit or a.value == b.value:
            continue
        between, gap = text[q.span[1] - offset : a.span[0] - offset], text[a.span[1] - offset : b.span[0] - offset]
        if _FROM.search(between) and _TO.match(gap) and not _CLAUSE.search(between + " " + gap):
            if (b.value * b.scale > a.value * a.scale) != (q.direction > 0):
                out.add(q.span[0])
    return frozenset(out)


#: "lower than the growth rate of 3.6%": the number is what is compared to, it states no direction.
COMPARED = re.compile(r"\b(?:higher|lower|more|less|greater|smaller|slower|faster)\s+than\b[^.;]{0,40}$", re.I)
A_CHANGE = re.compile(r"\b(?:change|adjust\w*|effect|impact|increase|decrease|variance|difference)\b", re.I)


def change_ratio_direction(c: Candidate) -> int | None:
    """The direction of a ratio ``c`` = change ÷ base: the sign of its one operand that is itself a
    change ("… | Increase (Decrease)" = −874, "… | Adjustments") over a positive base; None when
    no operand is a change (a ratio of two levels states no change: −55 ÷ −74 is no "74% rise")."""
    changes = [o for o in c.operands if A_CHANGE.search(o.label)]
    bases = [o for o in c.operands if not A_CHANGE.search(o.label)]
    if len(changes) != 1 or len(bases) != 1 or changes[0].value == 0 or bases[0].value == 0:
        return None
    return 1 if (changes[0].value > 0) == (bases[0].value > 0) else -1


#: Between a level and the level it moved from: ", which was a decrease from the ", ", an increase from ".
_AWAY_FROM = re.compile(
    r",?\s+(?:which\s+(?:was|is|represents|represented|reflects|reflected)\s+)?(?:an?\s+)?(?:\w+\s+)?"
    r"(?:increase|decrease|rise|decline|drop|reduction)\s+from\s+(?:the\s+)?(?:[A-Za-z]+\s+){0,2}",
    re.I,
)
_FROM = re.compile(r"\bfrom\s+(?:the\s+)?(?:\S+\s+){0,3}$", re.I)
_TO = re.compile(r"^(?:\s+\S+){0,5}?\s+to\s+(?:the\s+)?$", re.I)


def shifted_level(c: Candidate) -> int | None:
    """The year of the level in a sum/difference of a level and its own row's change column
    ("Net sales | 2018" + "Net sales | $ change"): the result is another period's level, so a
    sentence naming only that year states something false; else None."""
    if c.op not in ("a+b", "a-b") or len(c.operands) != 2:
        return None
    changes = [o for o in c.operands if A_CHANGE.search(o.label.split(" | ", 1)[-1]) or o.label.endswith("| $")]
    levels = [o for o in c.operands if o not in changes]
    if len(changes) != 1 or len(levels) != 1 or changes[0].label.split(" | ")[0] != levels[0].label.split(" | ")[0]:
        return None
    r = period_rank(levels[0].period)
    return r[0] if r else None
