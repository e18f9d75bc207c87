"""The gate's word lists (issue 15): loss and profit words, sum and cross-period licences, and the
question words that carry a sign; each compiled once as a case-insensitive, word-bounded regex.

Used by :mod:`assay.grounding.context`; extend a list only with the sentence that needs it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from assay.claims.patterns import CLAUSE_DOT
from assay.claims.wording import DOWN_WORDS, UP_WORDS
from assay.grounding.sentence_memo import sentence_memo

__all__ = [
    "LOSS_WORDS",
    "PROSE_SENTENCE_END",
    "GAIN_WORDS",
    "SUM_WORDS",
    "CROSS_PERIOD_WORDS",
    "QUESTION_SIGN_WORDS",
    "LOSS",
    "GAIN",
    "POLARITY",
    "SUM",
    "CROSS",
    "QSIGN",
    "PRIOR_YEAR",
    "RESPECTIVELY",
    "licences",
    "text_licences",
    "CLAUSE",
    "stated_sign_at",
    "question_carries_sign",
    "sub_questions",
    "total_over_years",
    "may_name",
    "may_sum",
    "may_cross",
    "may_polar",
    "CHANGE_WORDS",
    "COMPARISON_WORDS",
    "CHANGE",
    "COMPARISON",
]

LOSS_WORDS = ("net loss", "operating loss", "losses", "loss", "lost", "deficit", "negative", "손실", "적자")
GAIN_WORDS = (
    "net income",
    "operating income",
    "income from operations",
    "net profit",
    "net earnings",
    "profits",
    "profit",
    "gains",
    "gain",
    "earned",
    "profitable",
    "흑자",
)
SUM_WORDS = ("combined", "together", "in total", "total of", "sum", "altogether", "for both", "합계", "합산", "합친")
CROSS_PERIOD_WORDS = (
    "over the two years",
    "over two years",
    "over the two fiscal years",
    "over the two periods",
    "two-year total",
    "across both years",
    "in both years combined",
    "cumulative",
    "cumulatively",
    "both years",
    "2년 합계",
    "누적",
    "within two years",
    "within three years",
    "within 2 years",
    "within 3 years",
    "within 5 years",
    "over the next",
)
#: Words of a question that license a magnitude-only match of a negative figure ("What was
#: the net loss", "How much was spent on"): the outflow and loss vocabulary of the answer's own
#: sign wording (:mod:`assay.claims.wording`) plus the decrease words.
QUESTION_SIGN_WORDS = (
    "loss",
    "losses",
    "lost",
    "deficit",
    "spent",
    "spend",
    "paid",
    "payment",
    "payments",
    "outflow",
    "outflows",
    "used in",
    "capex",
    "capital expenditure",
    "repurchase",
    "expense",
    "expenses",
    "cost",
    "costs",
    "decrease",
    "decline",
    "impairment",
    "write-down",
    "purchase of",
    "purchases of",
    "dividends paid",
)


#: Words that state a change (gate-12, :func:`~assay.grounding.change_amount.difference_veto`): with one
#: in a number's clause, or in the question, a difference of two periods may back it. Whole words
#: (``words_regex``): "Moreover", "upon", "turnover", "savings" license nothing; the direction words of
#: :mod:`assay.claims.wording` are added where the list is used.
CHANGE_WORDS = (
    "change changes changed changing difference differences differed differs gap gaps variance variances delta "
    "movement movements moved swing swings swung shift shifts shifted growth expansion contraction slump slumped "
    "dip dips plunge erosion eroded deterioration eased sagged tanked shed shrink shrunk widened widening narrowed "
    "narrowing improvement worsened reversal reversed recovered rebounded added adds additional incremental "
    "increment shortfall cut cuts raised year-over-year year-on-year yoy y/y"
).split() + [
    "net increase",
    "net decrease",
    "gave back",
    "증가",
    "감소",
    "증감",
    "차이",
    "차액",
    "격차",
    "변동",
    "늘었",
]
CHANGE_WORDS += ["늘어", "늘린", "줄었", "줄어", "줄인", "상승", "하락", "증대", "축소", "대비"]
#: Words that state a comparison with another figure: they license a difference in the number's own
#: clause (not in the question: "compared to analyst consensus" states no change of the figure).
COMPARISON_WORDS = (
    "than exceed exceeds exceeded exceeding outpaced outstripped surpassed topped beat trailed trails lagged "
    "behind above below compared versus vs vs. between"
).split() + ["ahead of", "short of", "shy of", "보다 적", "보다 많"]


#: Words a list entry must not be followed by to count: "negative growth of 2.8%" states a
#: direction (a fall), not a negative figure (as :func:`assay.claims.lexicons.negative_word`).
NOT_BEFORE = {"negative": r"(?!\s+(?:growth|change|changes|return|returns)\b)"}


def words_regex(words: tuple[str, ...]) -> re.Pattern[str]:
    """One regex matching any of ``words`` (longest first) on word boundaries, ignoring case
    (an entry of :data:`NOT_BEFORE` only when its guard holds). A Korean word needs no left
    boundary: it ends compound nouns ("영업손실", "순손실", "매출 합계"), as the reader reads it
    (:mod:`assay.claims.wording`)."""

    def alt(ws: list[str]) -> str:
        return "|".join(re.escape(w) + NOT_BEFORE.get(w, "") for w in sorted(ws, key=len, reverse=True))

    latin = [w for w in words if w.isascii()]
    other = [w for w in words if not w.isascii()]
    parts = [r"(?<![\w])(?:" + alt(latin) + r")(?![A-Za-z])"] if latin else []
    parts += [r"(?:" + alt(other) + r")"] if other else []
    return re.compile("|".join(parts), re.I)


LOSS = words_regex(LOSS_WORDS)
POLARITY = words_regex(LOSS_WORDS + GAIN_WORDS)
GAIN = words_regex(GAIN_WORDS)
SUM = words_regex(SUM_WORDS)
CROSS = words_regex(CROSS_PERIOD_WORDS)
QSIGN = words_regex(QUESTION_SIGN_WORDS)
#: The direction words of the reader count as change words (imported late: claims → grounding only).
#: The year before the one a sentence speaks of, not named: "the prior (fiscal) year", "the previous
#: year", "last year", "a year earlier / ago / before", "the year before", "year-ago" (a comparison's
#: base, :mod:`~assay.grounding.comparison`; a level's move from it, :mod:`~assay.grounding.level_moves`).
PRIOR_YEAR = (
    r"(?:(?:the|a|its)\s+)?(?:(?:prior|previous|preceding|last)\s+(?:fiscal\s+)?year|year\s+(?:before|earlier|ago)"
    r"|year-ago)\b"
)
CHANGE = words_regex(tuple(CHANGE_WORDS) + tuple(sorted(UP_WORDS | DOWN_WORDS)))
COMPARISON = words_regex(tuple(COMPARISON_WORDS))


#: Clause cuts of a sentence: ". " (not an abbreviation's: ``CLAUSE_DOT``), ";", a line break,
#: ", but/while/and/versus/compared".
#: "respectively" (or "respective"): a sentence pairing its periods or items with its numbers in order.
#: A sentence's end inside a line of prose: ". " before a capital or an opening bracket (not "U.S. dollars").
PROSE_SENTENCE_END = re.compile(r"(?<=[a-z0-9)%][.;!?])\s+(?=[A-Z(\u2022])")
RESPECTIVELY = re.compile(r"\brespective(?:ly)?\b", re.I)
CLAUSE = re.compile(
    r";(?=\s)|!(?=\s)|\?(?=\s)|"  # (?:[;!?]|DOT)(?=\s) with a literal first in each branch: sre skips in C
    + CLAUSE_DOT
    + r"(?=\s)|,\s(?=while|whereas|but|and(?!\s+(?:FY\s?)?(?:19|20)\d\d)|versus|compared)|\n"
)
_TWO_YEARS = re.compile(r"(?:19|20)\d{2}\D{1,12}(?:19|20)\d{2}")
_TOTAL = re.compile(r"\btotal\b", re.I)


def may_name(words: tuple[str, ...], text: str) -> bool:
    """False only when :func:`words_regex` of ``words`` (lower-case entries) cannot match ``text``:
    an ASCII text whose lower case holds none of the ASCII entries (a match needs its entry as a
    substring; under ``re.I`` an ASCII text matches no non-ASCII entry). Any other text: True."""
    if not text.isascii():
        return True
    return any(map(text.lower().__contains__, _ascii_entries(words)))


@lru_cache(maxsize=64)
def _ascii_entries(words: tuple[str, ...]) -> tuple[str, ...]:
    """The ASCII entries of a word list (the lists are module constants: one entry each)."""
    return tuple(w for w in words if w.isascii())


_SUM_A = tuple(w for w in SUM_WORDS if w.isascii())
_CROSS_A = tuple(w for w in CROSS_PERIOD_WORDS if w.isascii())
_POLAR_A = tuple(w for w in LOSS_WORDS + GAIN_WORDS if w.isascii())
#: Every word one of :func:`text_licences`'s pre-checks needs ("total": :func:`total_over_years`).
_LICENCE_WORDS = (*SUM_WORDS, *CROSS_PERIOD_WORDS, "total")


def may_sum(text: str) -> bool:
    """:func:`may_name` for :data:`SUM_WORDS` (a pre-check of :data:`SUM`)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(map(low.__contains__, _SUM_A))


def may_cross(text: str) -> bool:
    """:func:`may_name` for :data:`CROSS_PERIOD_WORDS` (a pre-check of :data:`CROSS`)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(map(low.__contains__, _CROSS_A))


def may_polar(text: str) -> bool:
    """:func:`may_name` for the loss and profit words (a pre-check of :data:`POLARITY`, :data:`LOSS`, :data:`GAIN`)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(map(low.__contains__, _POLAR_A))


@lru_cache(maxsize=1024)
def licences(question: str) -> tuple[bool, bool]:
    """Whether ``question`` licenses a sum, and a cross-period sum (read once per question):
    every one of its :func:`sub_questions` does (which part a figure answers is unknown)."""
    if not question:
        return False, False
    if not may_name(_LICENCE_WORDS, question):  # each sub-question's licence needs one of these words
        return False, False
    parts = [text_licences(p) for p in sub_questions(question)]
    return all(s for s, _ in parts), all(c for _, c in parts)


#: Where a question asks a second question (issue 15): ", and how much …", "; and what …", "?
#: What …" — a wh-word after the cut. Instructions after a "?" ("Give a response by …", "Round
#: your answer …", FinanceBench's) ask for no figure of their own and stay with their question.
_SUB_QUESTION = re.compile(
    r"(?:[,;]\s*|\s+)and\s+(?=(?:what|how|which|by how much)\b)|[?？]\s+(?=(?:and\s+)?(?:what|how|which)\b)", re.I
)


#: A second question that asks a figure of its own: "what was/were/is …", "how much/many", "by how
#: much" — not of a reason ("what was the reason", "what drove it", "what about net income", "how
#: do the declines compare": no figure). One of a pronoun counts ("what were they in FY2023?").
_A_REASON = r"the\s+(?:reason|cause|driver)s?\b"
_ASKS_A_FIGURE = re.compile(
    r"(?:and\s+)?(?:"
    rf"(?:what|which\s+\w+)\s+(?:was|were|is|are|will|would|has|have|had)\s+(?!{_A_REASON})"
    rf"|(?:how|by\s+how)\s+(?:much|many)\b(?!(?:\s+\w+)?\s+(?:was|were|is|are|did|does|do|has|have|had)\s+{_A_REASON})"
    r")",
    re.I,
)


@lru_cache(maxsize=1024)
def sub_questions(question: str) -> tuple[str, ...]:
    """The questions ``question`` asks, in order: one unless it asks a second figure
    (``_SUB_QUESTION`` then ``_ASKS_A_FIGURE``: "How did total net sales change, and what were
    total net sales in FY2023?" is two; "…, and what drove it?" is one). A
    licence the question gives a bare figure (a change, a sign, a sum) holds only when every
    sub-question gives it: a figure may answer any of them. Pure, memoised."""
    cuts = [m.end() for m in _SUB_QUESTION.finditer(question) if _ASKS_A_FIGURE.match(question, m.end())]
    if not cuts:
        return (question,)
    return tuple(question[a:b] for a, b in pairwise([0, *cuts, len(question)]) if question[a:b].strip())


def text_licences(text: str) -> tuple[bool, bool]:
    """Whether ``text`` licenses a sum (:data:`SUM`, :data:`CROSS` or :func:`total_over_years`),
    and a cross-period sum (:data:`CROSS` or :func:`total_over_years`): each word list's
    pre-check on one lowered copy of the text (a sentence was lowered once per pre-check)."""
    low = text.lower() if text.isascii() else None  # None: every pre-check passes (see may_name)
    sums = (low is None or any(map(low.__contains__, _SUM_A))) and SUM.search(text) is not None
    cross = (low is None or any(map(low.__contains__, _CROSS_A))) and CROSS.search(text) is not None
    if not cross and text and (sums or ((low is None or "total" in low) and _TOTAL.search(text) is not None)):
        cross = _TWO_YEARS.search(text) is not None  # = total_over_years(text)
    return sums or cross, cross


def question_carries_sign(question: str | None) -> bool:
    """Whether ``question`` names an outflow, a loss or a decrease (:data:`QUESTION_SIGN_WORDS`),
    in each of its :func:`sub_questions` ("What was the net loss, and what was revenue?" does not:
    the figure may be the revenue)."""
    if not question or not may_name(QUESTION_SIGN_WORDS, question) or QSIGN.search(question) is None:
        return False  # (the substring pre-check first: most questions name none, and the search cost ~5 µs)
    return all(QSIGN.search(p) is not None for p in sub_questions(question))


def total_over_years(text: str) -> bool:
    """A total or sum over named years ("the sum of … in 2019 and 2018", "total … 2019 and 2018")."""
    summed = may_sum(text) and SUM.search(text) is not None
    if not text or not (summed or (may_name(("total",), text) and _TOTAL.search(text) is not None)):
        return False
    return _TWO_YEARS.search(text) is not None


#: What stands between a loss and a profit word that name one line item of both signs: "income
#: (loss)", "gain/(loss)", "profit or loss", "gains and losses" (no sign is stated).
#: Korean after a figure: "…억원의 영업손실" — the particle 의 and a compound's head (영업, 당기순) before the word.
_KR_OF = re.compile(r"^(?:의\s*)?(?:[가-힣]{1,3}?(?=손실|적자|흑자))?")
_PAIRED = re.compile(r"\s*\)?\s*(?:\(|/|,|\bor\b|\band\b|&)\s*\(?\s*")  # "income (loss)", "(Loss)/profit"


@sentence_memo
def stated_sign_at(text: str, s: int, e: int, number_ends: tuple[int, ...]) -> int | None:
    """−1 / +1 when a loss / profit word sits in the clause of the number at ``text[s:e]`` (60
    characters before it and no other number, of those ending at ``number_ends``, in between; or
    right after it), else None; both kinds far apart: the nearer (see :mod:`assay.grounding.context`).
    Memoised: pure in its arguments."""
    cut = max((m.end() for m in CLAUSE.finditer(text, 0, s)), default=0)
    prev = max((x for x in number_ends if x <= s), default=0)  # no other number in between
    before = text[max(cut, prev, s - 60) : s]
    after = text[e : e + 16].lstrip()
    if not after.isascii():  # (on ASCII text _KR_OF matches only the empty string: nothing to cut)
        after = _KR_OF.sub("", after, count=1)  # "…억원의 영업손실": the word after "의"
    if not may_polar(before) and not may_polar(after):  # no loss or profit word: nothing to search
        return None
    loss = LOSS.search(before) is not None or LOSS.match(after) is not None
    gain = GAIN.search(before) is not None or GAIN.match(after) is not None
    if loss and gain and not LOSS.match(after) and not GAIN.match(after):
        ml = max(LOSS.finditer(before), key=lambda m: m.end())
        mg = max(GAIN.finditer(before), key=lambda m: m.end())
        first, second = (ml, mg) if ml.start() < mg.start() else (mg, ml)
        gap = before[first.end() : second.start()]
        if _PAIRED.fullmatch(gap) is None:  # not "income (loss)", "gain or loss": the words are not a pair
            if first is ml and not gap.strip():
                return -1  # a loss word on the profit item: "negative net income", "negative operating income"
            return -1 if ml.end() > mg.end() else 1  # the nearer word is the number's
    if loss == gain:
        return None
    return -1 if loss else 1


_PROFIT_ITEM = re.compile(r"\b((?:[a-z]+\s+){1,2})(income|profit|gain)(\s+[a-z]+)?", re.I)


def renamed_loss_item(sentence: str, question: str | None) -> str | None:
    """The question's loss item that ``sentence`` names as a profit ("What was the sum of all
    net operating loss carryforwards?" answered "… net operating income carryforwards was …"):
    a profit word with the one or two words before it (and the one after) that, the word
    replaced by "loss", is a phrase of the question; None when there is none. Pure."""
    if not question or "loss" not in question.lower() or not may_polar(sentence):
        return None
    q = question.lower()
    for m in _PROFIT_ITEM.finditer(sentence.lower()):
        lead, tail = m.group(1), m.group(3) or ""
        for cand in (f"{lead}loss{tail}", f"{lead}loss"):
            if len(cand.split()) >= 3 and re.search(r"\b" + re.escape(cand) + r"\b", q):
                return cand
    return None
