"""Wording around a number: verbs of change ("grew", "fell", "감소") give a direction, outflow
words ("spent", "capex") a sign, loss words ("loss", "lost", "손실") assert a negative figure,
comparatives ("higher than", "exceeded … by") name a change's base, and "to"/"from" make a
number a level rather than a change.

:class:`WordIndex` finds clause ends, verbs of change, sign words, loss words and number words
of one text in one pass, so each number's look-up is a bisection (not a regex per number).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Literal

from assay.claims.patterns import NUMBER_WORDS

__all__ = ["ChangeBase", "WordIndex", "change_base_at", "direction_after"]

#: How a change names its base (see :attr:`assay.claims.Quantity.change_base`).
ChangeBase = Literal["against_other", "from_base"]


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
        neg: list[tuple[int, int, str]] = []
        #: ``(start, end, lowercased word)`` of every number word ("twelve", "third", "doubled")
        self.number_words: list[tuple[int, int, str]] = []
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
            if w in _NEGATIVE_WORDS:
                neg.append((m.start(), m.end(), w))
            elif prev is not None and prev[1] in _SIGNED_CHANGE and w in _CHANGE_NOUNS:
                # "negative growth of 2.8%": a direction, not a negative figure
                if neg and neg[-1][0] == prev[0]:
                    neg.pop()
                dirs.append((prev[0], m.end(), _SIGNED_CHANGE[prev[1]]))
            if w in NUMBER_WORDS or ("-" in w and w.partition("-")[0] in NUMBER_WORDS):
                self.number_words.append((m.start(), m.end(), w))
            prev = (m.start(), w)
        if not text.isascii():  # Korean loss words: 손실, 순손실, 영업손실, 적자
            for m in _KR_SIGN.finditer(text):
                neg.append((m.start(), m.end(), m.group(0)))
                k = bisect_left(self.sign_starts, m.start())
                self.sign_starts.insert(k, m.start())
                self.sign_ends.insert(k, m.end())
            neg.sort()
        self.dir_starts = [d[0] for d in dirs]
        self.dirs = dirs
        self.neg_starts = [n[0] for n in neg]
        self.neg = neg

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

    def negative_word(self, start: int, end: int, prev_end: int = 0) -> str | None:
        """The loss word asserting that the number at ``[start, end)`` is negative, or None.

        Before it: the last loss word in its clause within 60 characters, after ``prev_end`` (the
        previous number's end: "Net loss was $5 million and revenue was $10 million" gives the
        loss to the first number only). After it: a loss noun within 16 characters ("a $3
        million net loss", "100억원 손실"). Returns the word lowercased (``"loss"``, ``"손실"``)."""
        if self.neg:
            lo = max(_last_before(self.clause_ends, start, max(0, start - 60)), start - 60, prev_end)
            i = bisect_left(self.neg_starts, start) - 1
            if i >= 0 and self.neg[i][0] >= lo and self.neg[i][1] <= start:
                return self.neg[i][2]
        after = _NEGATIVE_AFTER.match(self.text, end, min(len(self.text), end + 20))
        return None if after is None else (after.group("w") or after.group("w2")).lower()


def direction_after(text: str, end: int) -> int | None:
    """+1/−1 for a change noun or comparative right after a number ending at ``end`` ("a 2.8%
    decline", "$11.0 billion lower"; within 24 characters), else None."""
    after_q = _DIRECTION_AFTER.match(text, end, min(len(text), end + 24))
    if after_q is None:
        return None
    return 1 if after_q.group("up") or after_q.group("kup") else -1


def change_base_at(text: str, start: int, end: int) -> tuple[ChangeBase | None, int | None]:
    """How the change at ``[start, end)`` names its base, and the direction its comparison states.

    Base ``"against_other"``: a comparative right after it ("2.9% higher than", "more than",
    "above", "below") or a verb of comparison before it ending in "by" ("exceeded FY2023
    revenue by 2.9%", "trailed … by"). ``"from_base"``: "from", "over", "versus", "vs.",
    "compared with/to", "relative to", "against" right after it, or "대비" before it ("down
    2.8% from fiscal 2022", "전년 대비 12% 감소"). Both mean the base is another figure the
    sentence names; which one is left to the caller (either order). Direction: +1 for "higher/
    greater/more/larger/bigger than", "above", "exceeded/surpassed/outpaced … by"; −1 for
    "lower/less/smaller than", "below", "trailed/lagged/fell short of … by"; else None. Words
    after the number count one space away on its line (a table's next cell is no comparison).
    Returns ``(None, None)`` when the wording names no base."""
    after = _BASE_AFTER.match(text, end, min(len(text), end + 30))
    if after is not None:
        if after.group("up"):
            return "against_other", 1
        if after.group("down"):
            return "against_other", -1
        return "from_base", None
    window = text[max(0, start - 100) : start]
    if "by" in window:
        m = _EXCEEDED_BY.search(window)
        if m is not None:
            return "against_other", (-1 if m.group("less") else 1)
    if "대비" in window[-20:]:
        return "from_base", None
    return None, None


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
#: A change noun or comparative right after the number: "a 2.8% decline", "$11.0 billion lower";
#: Korean change verbs after an optional particle: "12% 감소했다", "5%가 늘었다"
#: (not after 으로/로/에서: "500억원으로 감소" is a level).
_DIRECTION_AFTER = re.compile(
    r"\s*(?:(?:(?P<up>increases?|growth|rise|gains?|higher|jump)"
    r"|(?P<down>decreases?|declines?|drop|fall|reductions?|lower|contraction))\b"
    r"|(?:[이가을를은는의나]\s?|만큼\s?|가량\s?|정도\s?)?(?:(?P<kup>증가|상승|늘|증대|성장|확대|개선|올)"
    r"|(?P<kdown>감소|하락|줄|축소|악화|떨어|내려|내렸)))",
    re.I,
)
#: Loss words asserting a negative figure (before the number, in its clause).
_NEGATIVE_WORDS = frozenset("loss losses lost deficit deficits negative shortfall".split())
#: "negative growth of 2.8%", "positive growth": a signed change, read as a direction.
_SIGNED_CHANGE = {"negative": -1, "positive": 1}
_CHANGE_NOUNS = frozenset("growth change changes return returns".split())
_KR_SIGN = re.compile(r"손실|적자")
#: A loss noun right after the number: "a $3 million net loss", "100억원 손실", "100억원의 적자".
_NEGATIVE_AFTER = re.compile(
    r"\s*(?:(?:net|operating|pre-?tax|comprehensive)\s+)?(?P<w>loss(?:es)?|deficit)\b"
    r"|\s*(?:의\s?)?(?:순|영업|당기순)?(?P<w2>손실|적자)",
    re.I,
)
#: A comparison right after a change: "higher than" (against the other figure) or "from" (a base).
_BASE_AFTER = re.compile(
    r" ?(?:(?P<up>(?:higher|greater|more|larger|bigger) than\b|above\b)|(?P<down>(?:lower|less|smaller) than\b|below\b)"
    r"|(?:from|over|versus|vs\.|vs\b|against|compared (?:with|to)|relative to)\b)",
    re.I,
)
#: "exceeded FY2023 revenue by 2.9%", "trailed the prior year by": a comparison ending in "by".
_EXCEEDED_BY = re.compile(
    r"\b(?:exceed(?:ed|s)?|surpass(?:ed|es)?|outpaced|outperformed|topped|beat|(?P<less>trailed|lagged|fell\s+short\s+of))"
    r"\b[^.;!?\n]{0,80}?\bby\s+(?:about\s+|approximately\s+|roughly\s+|nearly\s+|some\s+|almost\s+)?\Z",
    re.I,
)
