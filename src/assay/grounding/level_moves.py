"""Two levels a sentence says moved one way: the stated way must be the way their values go.

"Operating income rose from $118 million in 2018 to $93 million in 2019", "…fell to $93 million
from $118 million", "…was $93 million, up from $118 million": neither number states a change
(each is a level, ``Quantity.direction`` None), so the direction rules on a number never see the
verb, and each level matches its own fact. The sentence is still false: it says the figure rose
while its own two levels fell. :func:`contradicted_levels` reads the three forms in one clause
(the two numbers consecutive, of one unit) and returns the starts of the later-named level of
each pair whose values contradict the verb; :func:`assay.grounding.sentence_rules.sentence_reader`
vetoes every match of such a number (issue 15, a ``direction_word`` hole found by a new user).
The move with a stated change ("decreased by 3% from 20% to 23%") and "a decrease from the
$118 million" keep their rule (:func:`assay.grounding.direction.from_to_contradictions`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay.claims import Quantity

__all__ = ["contradicted_levels", "RISE_VERBS", "FALL_VERBS"]

#: Verbs of a rise and of a fall (any tense) that move a figure "from A to B" / "to B from A".
RISE_VERBS = (
    r"rose|risen|rises?|rising|increased|increases?|increasing|grew|grown|grows?|growing|climbed|climbs?|"
    r"jumped|jumps?|surged|surges?|soared|soars?|expanded|went\s+up|gone\s+up|moved\s+up"
)
FALL_VERBS = (
    r"fell|fallen|falls?|falling|declined|declines?|declining|decreased|decreases?|decreasing|dropped|drops?|"
    r"dipped|dips?|slid|slides?|sank|sunk|sinks?|plunged|plunges?|plummeted|slumped|tumbled|shrank|shrunk|"
    r"shrinks?|contracted|slipped|went\s+down|gone\s+down|moved\s+down"
)
_VERB = rf"\b(?:(?P<up>{RISE_VERBS})|(?P<down>{FALL_VERBS}))\b"
_HEDGE = r"(?:(?:about|approximately|around|roughly|nearly|almost|just|some|the)\s+)?"
#: Before A: the verb, at most 40 characters of its clause, then "from" / "to" right before A.
_BEFORE_FROM = re.compile(_VERB + r"[^.;,\n]{0,40}?\bfrom\s+" + _HEDGE + r"$", re.I)
_BEFORE_TO = re.compile(_VERB + r"[^.;,\n]{0,40}?\bto\s+" + _HEDGE + r"$", re.I)
#: Between A and B: "… to" / "… from" within 40 characters of one clause.
_GAP_TO = re.compile(r"[^.;\n]{0,40}?\bto\s+" + _HEDGE, re.I)
_GAP_FROM = re.compile(r"[^.;\n]{0,40}?\bfrom\s+" + _HEDGE, re.I)
#: Between A (the new level) and B (the old one): ", up from", "(2018: …)" aside.
_GAP_UP_DOWN = re.compile(r"[^.;\n]{0,30}?,?\s*\b(?:(?P<up>up)|(?P<down>down))\s+from\s+" + _HEDGE, re.I)


def contradicted_levels(text: str, offset: int, numbers: Sequence[Quantity]) -> frozenset[int]:
    """Starts (in the answer) of the levels whose stated move contradicts their values (module doc).

    ``text``: the sentence; ``offset``: its start in the answer (the numbers' spans are the
    answer's); ``numbers``: the sentence's quantities in order. Pairs of different units, equal
    values, or a number with a direction or a written sign of its own are not read.
    """
    out: set[int] = set()
    for a, b in zip(numbers, numbers[1:], strict=False):
        if a.unit != b.unit or a.direction is not None or b.direction is not None:
            continue
        if a.explicit_sign or b.explicit_sign:
            continue
        va, vb = a.value * a.scale, b.value * b.scale
        if va == vb:
            continue
        before, gap = text[: a.span[0] - offset], text[a.span[1] - offset : b.span[0] - offset]
        rise: bool | None = None  # the way the sentence says the figure went, from the earlier to the later
        if (m := _BEFORE_FROM.search(before)) and _GAP_TO.fullmatch(gap):
            rise, went_up = m.group("up") is not None, vb > va  # "rose from A to B"
        elif (m := _BEFORE_TO.search(before)) and _GAP_FROM.fullmatch(gap):
            rise, went_up = m.group("up") is not None, va > vb  # "rose to A from B"
        elif m := _GAP_UP_DOWN.fullmatch(gap):
            rise, went_up = m.group("up") is not None, va > vb  # "A, up from B"
        if rise is not None and rise != went_up:
            out.add(b.span[0])
    return frozenset(out)
