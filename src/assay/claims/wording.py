"""Wording around a number: verbs of change ("grew", "fell") give a direction, outflow words
("spent", "capex") a sign, and "to"/"from" make a number a level rather than a change.

:class:`WordIndex` finds clause ends, verbs of change and sign words of one text once, so each
number's look-up is a bisection (not a regex per number).
"""

from __future__ import annotations

import re
from bisect import bisect_left

__all__ = ["WordIndex", "direction_after"]


class WordIndex:
    """Clause ends, verbs of change and sign words of one text, found once (not per number)."""

    def __init__(self, text: str):
        self.text = text
        ends = [(m.end(), m.group(0) != ";") for m in _CLAUSE_END.finditer(text)]
        self.clause_ends = [e for e, _ in ends]
        self.sentence_ends = [e for e, sentence in ends if sentence]
        # one pass over the words (word-set look-ups are far cheaper than alternation regexes)
        dirs: list[tuple[int, int, int]] = []
        self.sign_starts: list[int] = []
        self.sign_ends: list[int] = []
        prev: tuple[int, str] | None = None
        for m in _WORD.finditer(text):
            w = m.group(0).lower()
            if w in _UP_WORDS or w in _DOWN_WORDS:
                dirs.append((m.start(), m.end(), 1 if w in _UP_WORDS else -1))
            if w in _SIGN_WORDS:
                self.sign_starts.append(m.start())
                self.sign_ends.append(m.end())
            elif prev is not None and (prev[1], w) in _SIGN_BIGRAMS:
                self.sign_starts.append(prev[0])
                self.sign_ends.append(m.end())
            prev = (m.start(), w)
        self.dir_starts = [d[0] for d in dirs]
        self.dirs = dirs

    def wording(self, start: int) -> tuple[int | None, bool]:
        """Direction (+1/−1) from the last verb of change in the number's clause (within 60
        characters before it), and whether its sentence (within 300 characters) carries an
        outflow sign word before it."""
        lo = max(0, start - 300)
        clause_cut = _last_before(self.clause_ends, start, lo)
        sentence_cut = _last_before(self.sentence_ends, start, lo)
        window_start = max(clause_cut, start - 60)
        direction = None
        i = bisect_left(self.dir_starts, window_start)
        while i < len(self.dirs) and self.dirs[i][1] <= start:
            direction = self.dirs[i][2]
            i += 1
        if direction is not None and _LEVEL_BEFORE.search(self.text, window_start, start):
            direction = None  # "fell to 44.1%", "from $394.3 billion": a level, not the change
        j = bisect_left(self.sign_starts, sentence_cut)
        sign = j < len(self.sign_starts) and self.sign_ends[j] <= start
        return direction, sign


def direction_after(text: str, end: int) -> int | None:
    """+1/−1 for a change noun or comparative right after a number ending at ``end`` ("a 2.8%
    decline", "$11.0 billion lower"; within 24 characters), else None."""
    after_q = _DIRECTION_AFTER.match(text, end, min(len(text), end + 24))
    return None if after_q is None else (1 if after_q.group("up") else -1)


# --- helpers -------------------------------------------------------------------------------


def _last_before(ends: list[int], start: int, lo: int) -> int:
    """The last position in sorted ``ends`` that is < ``start`` and ≥ ``lo`` (else ``lo``)."""
    k = bisect_left(ends, start) - 1
    return ends[k] if k >= 0 and ends[k] >= lo else lo


#: "to"/"from" right before a number: the number is a level ("fell to 44.1%"), not a change.
_LEVEL_BEFORE = re.compile(
    r"\b(?:to|from)\s+(?:(?:about|approximately|around|roughly|nearly|almost|just|some|over|under)\s+)?$", re.I
)
_CLAUSE_END = re.compile(r"[.;!?](?=\s)|\n")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_UP_WORDS = frozenset(
    (
        "grew grow grows growing rose rise rises increase increased increasing up gain gained higher climbed jumped "
        "expanded improved"
    ).split()
)
_DOWN_WORDS = frozenset(
    (
        "fell fall falls decline declined declining decrease decreased decreasing down dropped drop lower shrank "
        "contracted slipped lost reduced reduction"
    ).split()
)
#: Words (and word pairs) whose sentence carries an outflow sign: "capex of $1,577 million".
_SIGN_WORDS = frozenset(
    (
        "spent spend spending paid pay payment payments outflow outflows capex repurchase repurchased repurchases "
        "buyback buybacks loss losses deficit expense expenses cost costs impairment write-down write-downs "
        "writedown writedowns"
    ).split()
)
_SIGN_BIGRAMS = frozenset(
    {
        ("used", "in"),
        ("capital", "expenditure"),
        ("capital", "expenditures"),
        ("purchase", "of"),
        ("purchases", "of"),
        ("dividend", "paid"),
        ("dividends", "paid"),
    }
)
#: A change noun or comparative right after the number: "a 2.8% decline", "$11.0 billion lower".
_DIRECTION_AFTER = re.compile(
    r"\s*(?:(?P<up>increases?|growth|rise|gains?|higher|jump)|(?P<down>decreases?|declines?|drop|fall|reductions?|lower|contraction))\b",
    re.I,
)
