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

A move also runs forward in time (:func:`move_order_veto`, gate-13; a new user's false accepts):
"Total net sales rose from $383.3 billion to $394.3 billion [F1, F2]" agrees with its values,
but F1 is FY2023 and F2 FY2022 — the sentence runs the figure backwards and so states a rise
where sales fell. Of a pair (:func:`_moved_pairs`, read for both rules), the level moved to must
be of a later period than every fact of its line item that the level moved from matches; and a
lone level a change moves to ("fell 2.8% to $394.3 billion", "increased to $383.3 billion") is
the item's latest level among the facts the sentence draws on (cited mode: its cited facts), and
the move from the item's latest earlier level goes the stated way. Only facts are judged (a
candidate with a period and a line item); a level with no earlier fact of its item is not.
Korean: "A에서 B로 증가했다" is the pair, "B로 감소했다" the lone level.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from assay.claims import Quantity
from assay.grounding.candidates import Candidate, time_rank
from assay.grounding.labels import line_item
from assay.grounding.lexicon import PRIOR_YEAR
from assay.grounding.match import match
from assay.grounding.sentence_memo import sentence_memo

__all__ = ["contradicted_levels", "stated_moves", "move_order_veto", "Move", "RISE_VERBS", "FALL_VERBS"]

#: Verbs of a rise and of a fall (any tense) that move a figure "from A to B" / "to B from A".
RISE_VERBS = (
    r"rose|risen|rises?|rising|increased|increases?|increasing|grew|grown|grows?|growing|climbed|climbs?|"
    r"jumped|jumps?|surged|surges?|soared|soars?|expanded|went\s+up|gone\s+up|moved\s+up|rebounded|rebounds?|"
    r"recovered|recovers?|improved|improves?|improving|boosted|lifted"
)
FALL_VERBS = (
    r"fell|fallen|falls?|falling|declined|declines?|declining|decreased|decreases?|decreasing|dropped|drops?|"
    r"dipped|dips?|slid|slides?|sank|sunk|sinks?|plunged|plunges?|plummeted|slumped|tumbled|shrank|shrunk|"
    r"shrinks?|contracted|slipped|went\s+down|gone\s+down|moved\s+down|weakened|deteriorated|worsened|cut|slashed|"
    r"trimmed|lowered"
)
_VERB = rf"\b(?:(?P<up>{RISE_VERBS})|(?P<down>{FALL_VERBS}))\b"
_HEDGE = r"(?:(?:about|approximately|around|roughly|nearly|almost|just|some|the)\s+)?"
#: Before A: the verb, at most 40 characters of its clause, then "from" / "to" right before A.
_BEFORE_FROM = re.compile(_VERB + r"[^.;,\n]{0,40}?\bfrom\s+" + _HEDGE + r"$", re.I)
_BEFORE_TO = re.compile(_VERB + r"[^.;,\n]{0,40}?\bto\s+" + _HEDGE + r"$", re.I)
#: Before a lone level: the verb, at most 40 characters of its clause (a change's own figure, "fell
#: 2.8%", decimal point and all), then "to" right before the level.
_LONE_TO = re.compile(_VERB + r"(?:,\s*|[^;,\n]{0,40}?\b)to\s+" + _HEDGE + r"$", re.I)  # "rose, to" too (gate-16)
#: After a lone level: its move from the year before, no figure of it stated ("$97.0 billion, up from the
#: prior year", "…, down from a year earlier"; gate-16, a helper's false accept on a fall): a lone level.
_FROM_PRIOR = re.compile(
    r"\s*(?:\[[^\[\]\n]{1,60}\]\s*)?,?\s*(?:(?P<up>up|higher|an?\s+(?:increase|rise|gain))|(?P<down>down|lower"
    r"|an?\s+(?:decrease|decline|drop|fall)))\s+(?:from|on|over|than|versus|vs\.?|compared\s+(?:with|to))\s+"
    + PRIOR_YEAR,
    re.I,
)
#: Between A and B: "… to" / "… from" within 40 characters of one clause.
_GAP_TO = re.compile(r"[^.;\n]{0,40}?\bto\s+" + _HEDGE, re.I)
_GAP_FROM = re.compile(r"[^.;\n]{0,40}?\bfrom\s+" + _HEDGE, re.I)
#: Korean, "A에서 B로 증가했다" (from A to B, it rose): "에서" between, "로"/"으로" and the verb after B (gate-13).
_KR_GAP = re.compile(r"\s*에서\s*")
_KR_TO = re.compile(
    r"\s*(?:으로|로)\s*(?:(?P<up>증가|늘|상승|성장|확대|개선|올)|(?P<down>감소|줄|하락|축소|악화|떨어|내려))"
)
#: "A로 전년의 B보다 늘었다" (A, more than the year before's B; gate-17): the gap between A and B, and the
#: comparative after B.
_KR_THAN_GAP = re.compile(r"\s*(?:으로|로)\s*,?\s*(?:(?:전년|작년|지난해|전기|이전)\s*(?:의|도)?\s*)?")
_KR_THAN = re.compile(r"\s*보다\s*(?:(?P<up>늘|증가|많|높|컸|상승|개선)|(?P<down>줄|감소|적|낮|작|하락|악화))")
#: Between A and B, a comparison of the two levels: "A exceeded the prior year's B", "A was an improvement on
#: B" (A above B), "A trailed B", "A was below B" (A below B) — gate-17, a helper's false accepts on a fall.
_GAP_COMPARED = re.compile(
    r"[^.;\n]{0,30}?\b(?:(?P<up>exceed(?:ed|s|ing)|topp(?:ed|ing)|surpass(?:ed|ing)|outpac(?:ed|ing)|beat|"
    r"(?:was\s+)?(?:above|ahead\s+of|higher\s+than|more\s+than|greater\s+than)|(?:was\s+)?an?\s+improvement\s+"
    r"(?:on|over|from))|(?P<down>trail(?:ed|ing)|(?:was\s+)?(?:below|behind|lower\s+than|less\s+than)|fell\s+short\s+of|"
    r"(?:was\s+)?an?\s+(?:deterioration|decline|decrease|drop)\s+(?:from|on)))\s+"
    r"(?:(?:the\s+)?(?:prior|previous|preceding|last)\s+year'?s\s+|a\s+year\s+earlier'?s?\s+"
    r"|(?:fiscal\s+(?:year\s+)?|FY\s?)?(?:19|20)\d\d'?s\s+)?" + _HEDGE,
    re.I,
)
#: Between A (the new level) and B (the old one): ", up from", ", an increase from", ", lower from"
#: (gate-13: the noun forms were a backwards move that passed), "(2018: …)" aside.
_GAP_UP_DOWN = re.compile(
    r"[^.;\n]{0,30}?,?\s*\b(?:(?P<up>up|an?\s+(?:increase|rise|gain|jump)|higher|rising|increasing)"
    r"|(?P<down>down|an?\s+(?:decrease|decline|drop|fall|reduction)|lower|falling|declining|decreasing))\s+from\s+"
    + _HEDGE,
    re.I,
)


@dataclass(frozen=True)
class Move:
    """A level the sentence moves a figure to: ``way`` +1 (a rise) / −1 (a fall), ``earlier`` the
    level it moves from when the sentence states it (a pair), else None (a lone level)."""

    way: int
    earlier: Quantity | None = None


@sentence_memo
def stated_moves(text: str, offset: int, numbers: tuple[Quantity, ...]) -> dict[int, Move]:
    """Start (in the answer) of each level the sentence moves a figure to → its :class:`Move`
    (module doc; the pairs of :func:`_moved_pairs`, and a lone level after a verb of change and
    "to": "increased to $383.3 billion", "fell 2.8% to $394.3 billion"). Pure, memoised."""
    pairs = _moved_pairs(text, offset, numbers)
    out = {to.span[0]: Move(way, earlier) for to, earlier, way in pairs}
    paired = {earlier.span[0] for _, earlier, _ in pairs}
    for q in numbers:
        if q.span[0] in out or q.span[0] in paired or q.direction is not None or q.explicit_sign:
            continue
        if m := _LONE_TO.search(text, 0, q.span[0] - offset):
            out[q.span[0]] = Move(1 if m.group("up") else -1)  # "increased to B", "fell 2.8% to B"
        elif m := _FROM_PRIOR.match(text, q.span[1] - offset):
            out[q.span[0]] = Move(1 if m.group("up") else -1)  # "B, up from the prior year"
        elif not text.isascii() and (m := _KR_TO.match(text, q.span[1] - offset)):
            out[q.span[0]] = Move(1 if m.group("up") else -1)  # "B로 증가했다"
    return out


def move_order_veto(
    q: Quantity,
    c: Candidate,
    move: Move,
    facts: Iterable[Candidate],
    named_years: frozenset[int] = frozenset(),
    moves: int = 1,
) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when the level ``q`` a sentence moves a figure to, matched
    by fact ``c``, runs against time or against the stated way (module doc); else None.

    ``facts``: the facts the sentence draws on (cited mode: its cited facts; uncited: the
    snapshot's), read only for ``c``'s line item, of ``c``'s granularity (a quarter is never
    ordered against a fiscal year). The latest-level test of a lone level is made only when the
    sentence states one move (``moves``) and names no year for the level (``named_years``: "rose
    to $394.3 billion in fiscal 2022, then fell to …" tells the year each move reaches); the way
    test only on two positive levels (a loss or an outflow stored negative "rises" as it grows)."""
    rank = time_rank(c) if c.op is None and c.origin == "fact" else None
    if rank is None:
        return None
    item = line_item(c.label)
    kin = [(r, f) for f in facts if f.origin == "fact" and line_item(f.label) == item and (r := time_rank(f))]
    kin = [(r, f) for r, f in kin if r[0] == rank[0] and (r[2] == 0) == (rank[2] == 0)]
    if move.earlier is not None:
        froms = [r for r, f in kin if match(move.earlier, [f]).matched]
        if froms and min(froms) >= rank:
            return (
                "period_mismatch",
                f"the sentence moves the figure to {c.ref}'s level from a level of its period or later",
            )
        return None
    if moves == 1 and not named_years and any(r > rank for r, _ in kin):
        return (
            "period_mismatch",
            f"the sentence moves the figure to {c.ref}'s level, but a later level of {item!r} is drawn on",
        )
    earlier = [(r, f) for r, f in kin if r < rank]
    if earlier:
        prev = max(earlier, key=lambda rf: rf[0])[1]
        if 0 < c.value != prev.value > 0 and (c.value > prev.value) != (move.way > 0):
            way = "rose" if move.way > 0 else "fell"
            return (
                "period_mismatch",
                f"the sentence says {item!r} {way} to {c.ref}'s level; from {prev.ref} it went the other way",
            )
    return None


def contradicted_levels(text: str, offset: int, numbers: Sequence[Quantity]) -> frozenset[int]:
    """Starts (in the answer) of the levels whose stated move contradicts their values (module doc):
    of each pair of :func:`_moved_pairs` whose way is not the way from the earlier level to the
    later one, the later-named number.

    ``text``: the sentence; ``offset``: its start in the answer (the numbers' spans are the
    answer's); ``numbers``: the sentence's quantities in order. Pairs of different units, equal
    values, or a number with a direction or a written sign of its own are not read.
    """
    out: set[int] = set()
    for to, earlier, way in _moved_pairs(text, offset, tuple(numbers)):
        v_to, v_earlier = to.value * to.scale, earlier.value * earlier.scale
        if v_to != v_earlier and (way > 0) != (v_to > v_earlier):
            out.add(max(to.span[0], earlier.span[0]))
    return frozenset(out)


@sentence_memo
def _moved_pairs(text: str, offset: int, numbers: tuple[Quantity, ...]) -> tuple[tuple[Quantity, Quantity, int], ...]:
    """``(to, earlier, way)`` of each pair of consecutive levels the sentence moves (or compares) one
    way (+1 / −1): "rose from A to B", "rose to A from B", "A, up from B", "A exceeded B", "A에서 B로
    증가했다", "A로 전년의 B보다 늘었다" — one clause, one unit, neither number with a direction or a
    written sign of its own. Pure, memoised."""
    out: list[tuple[Quantity, Quantity, int]] = []
    for a, b in zip(numbers, numbers[1:], strict=False):
        if a.unit != b.unit or a.direction is not None or b.direction is not None or a.explicit_sign or b.explicit_sign:
            continue
        before, gap = text[: a.span[0] - offset], text[a.span[1] - offset : b.span[0] - offset]
        if (m := _BEFORE_FROM.search(before)) and _GAP_TO.fullmatch(gap):
            out.append((b, a, 1 if m.group("up") else -1))  # "rose from A to B"
        elif (m := _BEFORE_TO.search(before)) and _GAP_FROM.fullmatch(gap):
            out.append((a, b, 1 if m.group("up") else -1))  # "rose to A from B"
        elif m := _GAP_UP_DOWN.fullmatch(gap) or _GAP_COMPARED.fullmatch(gap):
            out.append((a, b, 1 if m.group("up") else -1))  # "A, up from B", "A exceeded B"
        elif _KR_GAP.fullmatch(gap) and (m := _KR_TO.match(text, b.span[1] - offset)):
            out.append((b, a, 1 if m.group("up") else -1))  # "A에서 B로 증가했다"
        elif _KR_THAN_GAP.fullmatch(gap) and (m := _KR_THAN.match(text, b.span[1] - offset)):
            out.append((a, b, 1 if m.group("up") else -1))  # "A로 전년의 B보다 늘었다"
    return tuple(out)
