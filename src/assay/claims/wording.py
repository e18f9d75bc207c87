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
from functools import lru_cache
from typing import Literal

from assay.claims.patterns import CLAUSE_END, NUMBER_WORDS

__all__ = ["ChangeBase", "DOWN_WORDS", "UP_WORDS", "WordIndex", "change_base_at", "direction_after"]

#: How a change names its base (see :attr:`assay.claims.Quantity.change_base`).
ChangeBase = Literal["against_other", "from_base"]


class WordIndex:
    """Clause ends, verbs of change, sign, loss and number words of one text, found once (not per
    number).

    Only the words the text holds are looked for: the set of its lowercased words is
    intersected with the lexicons (C-level set operations), and each word found is located with
    its own precompiled, token-bounded pattern — the same tokens as a word-by-word scan
    (``[A-Za-z]+(?:-[A-Za-z]+)*``) without a Python step per word."""

    def __init__(self, text: str):
        self.text = text
        self.ascii = text.isascii()
        # a clause end that is no sentence end is a one-character ";" match (the others end in "\n",
        # a dot or "!"/"?"): its end follows the ";"
        self.clause_ends = ends = [m.end() for m in _CLAUSE_END.finditer(text)]
        self.sentence_ends = [e for e in ends if text[e - 1] != ";"] if ";" in text else ends
        # ASCII-only lowering keeps every offset (str.lower() may change lengths or map the
        # Kelvin sign to "k"); the patterns below then look for plain lowercase literals
        low = text.lower()
        if not self.ascii and _LOWER_CHANGES.search(text):
            low = text.translate(_ASCII_LOWER)  # "İ" (two code points lowered), "K" (Kelvin → "k")
        self._low = low
        dirs: list[tuple[int, int, int]] = []
        signs: list[tuple[int, int]] = []
        neg: list[tuple[int, int, str]] = []
        #: the text's lowercased words (one C-level pass; the lexicons are intersected with it)
        self.tokens = tokens = _tokens(low)
        for w in tokens & _KEYWORDS:
            up, down, sign, loss = _ROLES[w]
            for m in _token_re(w).finditer(low):
                s, e = m.span()
                if up or down:
                    dirs.append((s, e, 1 if up else -1))
                if sign:
                    signs.append((s, e))
                if loss:
                    neg.append((s, e, w))
        for head in tokens & _BIGRAM_HEADS:
            signs.extend(m.span() for m in _BIGRAM_RES[head].finditer(low) if m.group(1) not in _SIGN_WORDS)
        if dirs and ("short" in tokens or "up" in tokens and not tokens.isdisjoint(_MAKE)):
            # "made up 22.2% of", "fell short of $97 billion": no move (gate-17, a helper's false rejects)
            idle = {m.start(m.lastindex or 0) for m in _NOT_A_MOVE.finditer(low)}
            dirs = [d for d in dirs if d[0] not in idle]
        if "negative" in tokens or "positive" in tokens:
            for m in _SIGNED_CHANGE_RE.finditer(low):
                # "negative growth of 2.8%": a direction, not a negative figure
                neg = [n for n in neg if n[0] != m.start()]
                dirs.append((m.start(), m.end(), _SIGNED_CHANGE[m.group(1)]))
        if not self.ascii:  # Korean loss words: 손실, 순손실, 영업손실, 적자
            for m in _KR_SIGN.finditer(text):
                neg.append((m.start(), m.end(), m.group(0)))
                signs.append(m.span())
        dirs.sort()
        signs.sort()
        neg.sort()
        self.sign_starts = [a for a, _ in signs]
        self.sign_ends = [b for _, b in signs]
        self.dir_starts = [d[0] for d in dirs]
        self.dirs = dirs
        self.neg_starts = [n[0] for n in neg]
        self.neg = neg
        self._number_words: list[tuple[int, int, str]] | None = None

    @property
    def number_words(self) -> list[tuple[int, int, str]]:
        """``(start, end, lowercased word)`` of every number word ("twelve", "third", "doubled",
        "twenty-five", "two-thirds", "one-off"), in order; computed on first use."""
        if self._number_words is None:
            found: list[tuple[int, int, str]] = []
            hits = self.tokens & NUMBER_WORDS
            if "-" in self._low:  # "twenty-five", "two-thirds", "one-off"
                hits |= {w for w in self.tokens if "-" in w and w.partition("-")[0] in NUMBER_WORDS}
            for w in hits:
                found.extend((m.start(), m.end(), w) for m in _token_re(w).finditer(self._low))
            self._number_words = sorted(found)
        return self._number_words

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
        stop = min(len(self.text), end + 20)
        if not _may_follow(self.text, end, stop, _NEGATIVE_INITIALS):
            return None
        after = _NEGATIVE_AFTER.match(self.text, end, stop)
        return None if after is None else (after.group("w") or after.group("w2")).lower()


def direction_after(text: str, end: int) -> int | None:
    """+1/−1 for a change noun or comparative right after a number ending at ``end`` ("a 2.8%
    decline", "$11.0 billion lower"; within 24 characters), else None."""
    stop = min(len(text), end + 24)
    if not _may_follow(text, end, stop, _DIRECTION_INITIALS):
        return None  # (the common case: no change word starts after the whitespace)
    after_q = _DIRECTION_AFTER.match(text, end, stop)
    if after_q is None:
        return None
    return 1 if after_q.group("up") or after_q.group("kup") else -1


def change_base_at(text: str, start: int, end: int) -> tuple[ChangeBase | None, int | None]:
    """How the change at ``[start, end)`` names its base, and the direction its comparison states.

    Base ``"against_other"``: a comparative right after it ("2.9% higher than", "more than",
    "above", "below", "ahead of", "behind"; the subject's period may stand before "than": "higher in FY2022 than")
    or a verb of comparison before it ending in "by" ("exceeded FY2023
    revenue by 2.9%", "trailed … by"). ``"from_base"``: "from", "over", "versus", "vs.",
    "compared with/to", "relative to", "against" right after it, or "대비" before it ("down
    2.8% from fiscal 2022", "전년 대비 12% 감소"); "against_other" too for a base with 보다 before it and
    a comparative after it ("2023년보다 2.9% 많았다" +1, "… 적었다/낮았다" −1). Both mean the base is another figure the
    sentence names; which one is left to the caller (either order). Direction: +1 for "higher/
    greater/more/larger/bigger than", "above", "exceeded/surpassed/outpaced … by"; −1 for
    "lower/less/smaller than", "below", "trailed/lagged/fell short of … by"; else None. Words
    after the number count one space away on its line (a table's next cell is no comparison).
    Returns ``(None, None)`` when the wording names no base."""
    stop = min(len(text), end + 30)
    first = text[end + 1 : end + 2] if text[end : end + 1] == " " and end + 1 < stop else text[end:stop][:1]
    after = _BASE_AFTER.match(text, end, stop) if _may_start(first, _BASE_INITIALS) else None
    if after is not None:
        if after.group("up"):
            return "against_other", 1
        if after.group("down"):
            return "against_other", -1
        return "from_base", None
    lo = max(0, start - 100)
    if text.find("by", lo, start) != -1:  # = "by" in text[lo:start], without the slice
        m = _EXCEEDED_BY.search(text[lo:start])
        if m is not None:
            return "against_other", (-1 if m.group("less") else 1)
    if not text.isascii() and text.find("대비", max(lo, start - 20), start) != -1:
        return "from_base", None
    if not text.isascii() and text.find("보다", max(lo, start - 30), start) != -1:
        m = _KR_COMPARATIVE.match(text, end, stop)  # "2023 회계연도보다 2.9% 많았다": more than the base
        if m is not None:
            return "against_other", (1 if m.group("more") else -1)
    return None, None


# --- helpers -------------------------------------------------------------------------------


def _tokens(low: str) -> set[str]:
    """``set(_WORD.findall(low))``: on ASCII text, the whitespace-split chunks of ``low`` with
    every character but letters and "-" made a space (C-level passes, ~3× faster than one
    regex match per word); a chunk with a hyphen ("write-down", "-a", "a--b") is split by the
    pattern itself (no token crosses a chunk's bounds, so the same tokens)."""
    if not low.isascii():
        return set(_WORD.findall(low))
    words = set(low.translate(_NOT_WORD_CHARS).split())
    hyphened = [w for w in words if "-" in w]
    if hyphened:
        words.difference_update(hyphened)
        for w in hyphened:
            words.update(_WORD.findall(w))
    return words


def _may_follow(text: str, end: int, stop: int, initials: frozenset[str]) -> bool:
    """Cheap pre-check of a ``\\s*``-led pattern matched at ``end`` (up to ``stop``) whose every
    branch starts with a letter: the first non-whitespace character of ``text[end:stop]`` may
    start one (``str.isspace()`` is re's ``\\s``, checked over all of Unicode)."""
    return _may_start(text[end:stop].lstrip()[:1], initials)


def _may_start(first: str, initials: frozenset[str]) -> bool:
    """Whether ``first`` (one character, or "" at the end) may start a case-insensitive branch
    whose ASCII initials are ``initials`` (lowercase). Any non-ASCII character may (Korean
    words, and the four code points ``re.I`` folds onto ASCII letters: "İ", "ı", "ſ", "K")."""
    return bool(first) and (not first.isascii() or first.lower() in initials)


@lru_cache(maxsize=1024)
def _token_re(word: str) -> re.Pattern[str]:
    """``word`` (lowercase) as a whole token of an ASCII-lowered text: not inside a longer word or
    a hyphen chain. The literal comes first (sre scans for it in C), the bounds are looked
    behind and ahead of it."""
    w = re.escape(word)
    return re.compile(w + r"(?<![a-z]" + w + r")(?<![a-z]-" + w + r")" + _TOKEN_END)


def _last_before(ends: list[int], start: int, lo: int) -> int:
    """The last position in sorted ``ends`` that is < ``start`` and ≥ ``lo`` (else ``lo``)."""
    k = bisect_left(ends, start) - 1
    return ends[k] if k >= 0 and ends[k] >= lo else lo


#: "to"/"from" right before a number: the number is a level ("fell to 44.1%"), not a change; so is
#: a base after "compared with/to", "versus", "vs.", "against" ("decreased to $383.3 billion, compared
#: with $394.3 billion": gate-13, the base took the verb's direction).
_LEVEL_BEFORE = re.compile(
    r"\b(?:to|from|compared\s+(?:with|to)|versus|vs\.?|against)\s+"
    r"(?:(?:about|approximately|around|roughly|nearly|almost|just|some|over|under)\s+)?$",
    re.I,
)
_CLAUSE_END = re.compile(CLAUSE_END)  # (patterns.CLAUSE_END: clause and sentence ends)
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
#: Every ASCII character but letters and "-", to a space (:func:`_tokens`).
_NOT_WORD_CHARS = str.maketrans({chr(i): " " for i in range(128) if not (chr(i).isalpha() or chr(i) == "-")})
_UP_WORDS = frozenset(
    (
        "grew grow grows growing rose rise rises increase increased increasing up gained higher climbed jumped "
        "expanded improved surged soared rallied spiked boosted lifted widened widening"
    ).split()
)
_DOWN_WORDS = frozenset(
    (
        "fell fall falls decline declined declining decrease decreased decreasing down dropped drop lower shrank "
        "contracted slipped lost reduced reduction plunged plummeted slumped tumbled slid sank sunk dipped eroded "
        "weakened deteriorated retreated softened cut slashed trimmed lowered narrowed narrowing"
    ).split()
)
#: The verbs and words of change the reader gives a direction (public: the grounding rules read the
#: same vocabulary, e.g. a negated change, :mod:`assay.grounding.forms`).
UP_WORDS, DOWN_WORDS = _UP_WORDS, _DOWN_WORDS
#: Words (and word pairs) whose sentence carries an outflow sign: "capex of $1,577 million".
_SIGN_WORDS = frozenset(
    (
        "spent spend spending paid pay payment payments outflow outflows capex repurchase repurchased repurchases "
        "buyback buybacks loss losses deficit expense expenses cost costs impairment write-down write-downs "
        "writedown writedowns"
    ).split()
)
#: A change noun or comparative right after the number: "a 2.8% decline", "$11.0 billion lower";
#: Korean change verbs after an optional particle: "12% 감소했다", "5%가 늘었다"
#: (not after 으로/로/에서: "500억원으로 감소" is a level).
_DIRECTION_AFTER = re.compile(
    r"\s*(?:(?:(?P<up>increases?|growth|rise|gains?|higher|jump)"
    r"|(?P<down>decreases?|declines?|drop|fall|reductions?|lower|contraction))\b"
    r"|(?:[이가을를은는의나]\s?|만큼\s?|가량\s?|정도\s?)?(?:(?P<kup>증가|상승|늘|증대|성장|확대|개선|올|급증|급등)"
    r"|(?P<kdown>감소|하락|줄|축소|악화|떨어|내려|내렸|급감|급락|역성장|뒷걸음)))",
    re.I,
)
#: A Korean comparative right after a number whose base stands before it with 보다 ("2023년보다 2.9%
#: 많았다/높았다", "… 적었다/낮았다"): whole endings, so "적자" (a deficit) is none.
_KR_COMPARATIVE = re.compile(
    r"\s*(?:[이가]\s?|만큼\s?|가량\s?|정도\s?)?(?:(?P<more>많았|많은|많다|많게|높았|높은|높다|높게|컸|큰|크다)"
    r"|(?P<less>적었|적은|적다|적게|낮았|낮은|낮다|낮게|작았|작은|작다))"
)
#: Loss words asserting a negative figure (before the number, in its clause).
_NEGATIVE_WORDS = frozenset("loss losses lost deficit deficits negative shortfall".split())
#: "negative growth of 2.8%", "positive growth": a signed change, read as a direction.
_SIGNED_CHANGE = {"negative": -1, "positive": 1}
_KR_SIGN = re.compile(r"손실|적자")
_TOKEN_START = r"(?<![a-z])(?<![a-z]-)"
_TOKEN_END = r"(?![a-z])(?!-[a-z])"
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
#: The only code points whose str.lower() is longer or ASCII (checked over all of Unicode).
_LOWER_CHANGES = re.compile("[\u0130\u212a]")
#: Word pairs with an outflow sign, as adjacent tokens (anything but letters between them).
_BIGRAM_RES = {
    # = _TOKEN_START + head + …, the literal first and its bounds looked behind it (as _token_re: sre
    # scans for the literal in C instead of trying the look-behinds at every position)
    head: re.compile(
        head
        + r"(?<![a-z]"
        + head
        + r")(?<![a-z]-"
        + head
        + r")"
        + _TOKEN_END
        + r"[^a-z]+("
        + "|".join(tails)
        + r")"
        + _TOKEN_END
    )
    for head, tails in (
        ("used", ["in"]),
        ("capital", ["expenditures", "expenditure"]),
        ("purchase", ["of"]),
        ("purchases", ["of"]),
        ("dividend", ["paid"]),
        ("dividends", ["paid"]),
    )
}
_SIGNED_CHANGE_RE = re.compile(
    _TOKEN_START
    + r"(negative|positive)"
    + _TOKEN_END
    + r"[^A-Za-z]+(?:growth|changes|change|returns|return)"
    + _TOKEN_END,
    re.I | re.A,
)
#: A loss noun right after the number: "a $3 million net loss", "100억원 손실", "100억원의 적자".
_NEGATIVE_AFTER = re.compile(
    r"\s*(?:(?:net|operating|pre-?tax|comprehensive)\s+)?(?P<w>loss(?:es)?|deficit)\b"
    r"|\s*(?:의\s?)?(?:순|영업|당기순)?(?P<w2>손실|적자)",
    re.I,
)
#: A comparison right after a change: "higher than" (against the other figure) or "from" (a base).
#: The subject's period between a comparative and its "than": "2.9% higher in FY2022 than in FY2023".
_SUBJECT_PERIOD = r"(?: (?:in|for|during) (?:the )?(?:fiscal (?:year )?|FY ?|CY ?)?(?:19|20)?\d\d)?"
_BASE_AFTER = re.compile(
    r" ?(?:(?P<up>(?:higher|greater|more|larger|bigger)" + _SUBJECT_PERIOD + r" than\b|above\b|ahead of\b)"
    r"|(?P<down>(?:lower|less|smaller)" + _SUBJECT_PERIOD + r" than\b|below\b|behind\b)"
    r"|(?:from|over|versus|vs\.|vs\b|against|compared (?:with|to)|relative to)\b)",
    re.I,
)
#: Words of change that state no move in these phrases: "made up" (a share), "fell short of" (a bound).
_NOT_A_MOVE = re.compile(r"\b(?:made|make|makes|making)\s+(up)\b|\b(fell|falls?|falling|came)\s+(?:just\s+)?short\b")
_MAKE = frozenset(("made", "make", "makes", "making"))
#: "exceeded FY2023 revenue by 2.9%", "trailed the prior year by": a comparison ending in "by".
_EXCEEDED_BY = re.compile(
    r"\b(?:exceed(?:ed|s)?|surpass(?:ed|es)?|outpaced|outperformed|topped|beat|(?P<less>trailed|lagged|fell\s+short\s+of))"
    r"\b[^.;!?\n]{0,80}?\bby\s+(?:about\s+|approximately\s+|roughly\s+|nearly\s+|some\s+|almost\s+)?\Z",
    re.I,
)
#: Every word the index looks for, with its roles (up, down, sign, loss).
_ROLES = {
    w: (w in _UP_WORDS, w in _DOWN_WORDS, w in _SIGN_WORDS, w in _NEGATIVE_WORDS)
    for w in _UP_WORDS | _DOWN_WORDS | _SIGN_WORDS | _NEGATIVE_WORDS
}
_KEYWORDS = frozenset(_ROLES)
#: The ASCII initials (lowercase) of the branches of :data:`_DIRECTION_AFTER`,
#: :data:`_NEGATIVE_AFTER` and :data:`_BASE_AFTER`: a first letter outside them matches none.
_DIRECTION_INITIALS = frozenset("igrhjdflc")
_NEGATIVE_INITIALS = frozenset("noplcd")
_BASE_INITIALS = frozenset("hgmlbasfovcr")
_BIGRAM_HEADS = frozenset(_BIGRAM_RES)
