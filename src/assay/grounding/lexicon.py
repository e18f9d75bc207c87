"""The gate's word lists (issue 15): loss and profit words, sum and cross-period licences, and the
question words that carry a sign; each compiled once as a case-insensitive, word-bounded regex.

Used by :mod:`assay.grounding.context`; extend a list only with the sentence that needs it.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "LOSS_WORDS",
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
    "licences",
    "total_over_years",
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


#: Words a list entry must not be followed by to count: "negative growth of 2.8%" states a
#: direction (a fall), not a negative figure (as :func:`assay.claims.lexicons.negative_word`).
NOT_BEFORE = {"negative": r"(?!\s+(?:growth|change|changes|return|returns)\b)"}


def words_regex(words: tuple[str, ...]) -> re.Pattern[str]:
    """One regex matching any of ``words`` (longest first) on word boundaries, ignoring case
    (an entry of :data:`NOT_BEFORE` only when its guard holds)."""
    alts = "|".join(re.escape(w) + NOT_BEFORE.get(w, "") for w in sorted(words, key=len, reverse=True))
    return re.compile(r"(?<![\w])(?:" + alts + r")(?![A-Za-z])", re.I)


LOSS = words_regex(LOSS_WORDS)
POLARITY = words_regex(LOSS_WORDS + GAIN_WORDS)
GAIN = words_regex(GAIN_WORDS)
SUM = words_regex(SUM_WORDS)
CROSS = words_regex(CROSS_PERIOD_WORDS)
QSIGN = words_regex(QUESTION_SIGN_WORDS)


_TWO_YEARS = re.compile(r"(?:19|20)\d{2}\D{1,12}(?:19|20)\d{2}")


@lru_cache(maxsize=1024)
def licences(question: str) -> tuple[bool, bool]:
    """Whether ``question`` licenses a sum, and a cross-period sum (read once per question)."""
    if not question:
        return False, False
    cross = CROSS.search(question) is not None or total_over_years(question)
    return cross or SUM.search(question) is not None, cross


def total_over_years(text: str) -> bool:
    """A total or sum over named years ("the sum of … in 2019 and 2018", "total … 2019 and 2018")."""
    if not text or (SUM.search(text) is None and re.search(r"\btotal\b", text, re.I) is None):
        return False
    return _TWO_YEARS.search(text) is not None
