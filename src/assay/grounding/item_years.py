"""Where a plain year names a line item's period, whether or not a fact of the snapshot is of it
(issue 15, ``period_swap``; gate-14 and gate-15): read by :func:`assay.grounding.operands.judged_year`,
which decides which years of a sentence the period rule judges, and by
:func:`assay.grounding.lead_period.lead_year` (:data:`LEAD_PERIOD`, the opening adverbial of time).

A known year (one the snapshot's facts are of) is always judged; a year no fact is of was read as
no period at all, so "Net income in 2021 was $97.0 billion [F7]" passed on FY2023's net income
(a new user's false accept). Here such a year is judged where it stands in a line item's place and
the phrase states the item's figure (:func:`item_year`), including two years coordinated ("in 2020
and 2021 was …", :func:`coordinated`). Conservative by design: a year in a comparison, a forecast
or another clause is not judged (two helpers' hunts for false rejects).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["LEAD_PERIOD", "MOVED", "coordinated", "item_year"]

#: The opening adverbial of time, up to its comma: "In fiscal 2023,", "For the fiscal year 2022,",
#: "During FY23,", "As of December 31, 2022,", "In 2019 and beyond,": a year then at most three words;
#: or with no comma, the year then the clause's first word ("In fiscal 2023 total net sales were …";
#: gate-13, a new user's false accept), not a second year's coordination ("In 2019 and 2018 …"). It may
#: follow a discourse word ("However, in 2021,", "Meanwhile in 2021"), and name the year by its end
#: ("For the fiscal year ended September 25, 2021,", "In the year to September 2021,"; a year ended in
#: January–June is left out: its label may be either year; gate-15: gate-14's open list and two hunts').
#: Group ``year``: the year as written. Read by :func:`item_year` and by
#: :func:`assay.grounding.lead_period.lead_year` (which scopes the sentence's numbers with it).
LEAD_PERIOD = re.compile(
    r"\s*(?:(?:however|also|meanwhile|moreover|additionally|similarly|overall|still|then|back|notably|yet|but|and|last(?:ly)?"
    r"|finally|likewise|further(?:more)?|indeed|(?:by|in)\s+(?:contrast|comparison)|in\s+addition)"
    r"\b,?\s*)?"
    r"(?:in|for|during|throughout|over|as\s+of|at\s+the\s+end\s+of|by\s+the\s+end\s+of)\s+(?:the\s+)?"
    r"(?:(?:fiscal|financial|calendar)\s+(?:year\s+)?|full[-\s]year\s+|year\s+)?"
    # a year named by its end ("the year ended September 25, 2021", "the year to September 2021"), only in the
    # second half: a fiscal year ending in January–June is labelled by its first year by some filers (Home
    # Depot's fiscal 2022 ended January 29, 2023; Sony's, March 31, 2023) and by its last by others (Walmart)
    r"(?:(?:(?:(?:twelve|12)\s+months\s+)?end(?:ed|ing)|(?<=year\s)(?:to|through)|(?:twelve|12)\s+months\s+(?:to|through))\s+"
    r"(?:jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+)?"
    r"(?P<year>(?:19|20)\d{2}|FY\s?'?\d{2}(?:\d{2})?)"
    r"(?!(?:\s+[A-Za-z]+){0,2}?\s+(?:report|filing|proxy|statement|10-?k|release|letter|presentation|guidance|outlook"
    r"|forecast|plan|budget)s?\b)"  # a document's year, not the period: "In the 2024 annual report, …"
    r"(?:(?:\s+[A-Za-z]+){0,3}\s*,|\s+(?!(?:and|or|to|through|thru|vs|versus|&)\b)(?=[A-Za-z]))",
    re.I,
)


def item_year(
    text: str, m: re.Match[str], named: Sequence[tuple[int, int, str]], spans: Sequence[tuple[int, int]]
) -> bool:
    """Whether year match ``m`` of ``text`` is the period of a line item the sentence states a
    figure of, whether or not a fact of the snapshot is of that year (gate-14; a new user's false
    accept, "Net income in 2021 was $97.0 billion [F7]" on FY2023's net income, passed because no
    fact was of 2021). The year stands in the item's place — right after a named item with a period
    phrase between ("net income in 2021", "revenue for fiscal year 2021"), right before one ("2021
    net income", "2021's net income"), or as the year of the sentence's opening adverbial of time
    right before the item, or its reporting subject (:data:`LEAD_PERIOD`: "In 2021, net income …",
    "In 2021, Apple reported net income …") — and the item-and-year phrase is linked to a figure by a
    copula, a verb of amount or of a move, "of" alone, a colon or a Korean subject particle
    (``_STATED_AS``: "… was $97.0 billion", "… rose to …", "2021 net income of …", "net income in
    2021: …", "2021년 순이익은 …"). gate-15: the year may be set off ("net income, in 2021, was",
    "net income (2021) was", "in the 2021 fiscal year was") and the item may be a word the
    snapshot's labels lack (``_ITEM_NOUN``: "Profit in 2021 was …"). ``named``: ``(start, end,
    item)`` of the sentence's named items (known line items and synonyms); ``spans``: its numbers'
    spans. Not judged: a year in a comparison ("far exceeded 2019 net income"), a forecast ("expect
    2024 net income to exceed …"), a year elsewhere ("Apple, founded in 1976, …", "the highest since
    2018"); a helper's hunt for false rejects gave these."""
    s, e, _ = _year_phrase(text, m.start(), m.end())  # two coordinated years are one phrase: "in 2020 and 2021"
    ends = dict(spans)  # a number's start → its end

    def states_figure(start: int, at: int, moved: bool = False) -> bool:  # the phrase is ``text[start:at]``
        link = _STATED_AS.match(text, at)
        if link is None or link.end() not in ends:
            return False
        if link.group("to") is not None:  # "net income climbed in 2021 to …", not "rose from income in 2019 to …"
            return moved
        if link.group("colon") is not None or link.group("apposition") is not None:
            # only as its clause's subject: "Net income in 2021: …", not "exceeded its profit in 2019, at …"
            return _CLAUSE_START.search(text, max(0, start - 40), start) is not None
        if link.group("particle") is not None:  # Korean: the verb ends the clause, "…였다", not "…넘을 전망이다"
            return _KO_STATED.match(text, ends[link.end()]) is not None
        return True

    named = [*named, *((a.start(), a.end(), "") for a in _ITEM_NOUN.finditer(text))]  # "profit in 2021 was"
    lead = LEAD_PERIOD.match(text) if s < 60 else None
    if lead is not None and lead.start("year") <= s < lead.end("year"):
        at = _LEAD_TO_ITEM.match(text, lead.end())  # (every part optional: it always matches)
        first = at.end() if at is not None else lead.end()
        if at is not None and at.group("verb") is not None and first in ends:
            return True  # "In 2021, Apple earned $97.0 billion": the figure is the verb's object
        return any(a == first and states_figure(0, b) for a, b, _ in named)
    for a, b, _ in named:
        if b <= s and (between := _ITEM_THEN_YEAR.fullmatch(text, b, s)) is not None:
            if states_figure(a, e, between.group("moved") is not None):
                return True
        if e <= a and _YEAR_THEN_ITEM.fullmatch(text, e, a) is not None and states_figure(s, b):
            return True
    return False


def coordinated(text: str, s: int, e: int) -> bool:
    """Whether the year at ``text[s:e]`` is one of two joined by "and" ("2020 and 2021"), not after "between"."""
    first, _, joined = _year_phrase(text, s, e)
    return joined and _BETWEEN.search(text, max(0, first - 30), first) is None


def _year_phrase(text: str, s: int, e: int) -> tuple[int, int, bool]:
    """``(start, end, joined)`` of the year phrase holding the year at ``text[s:e]``: the two years when
    it is one of two joined by "and" ("2020 and 2021", ``joined`` True), else the year itself."""
    if (nxt := _AND_NEXT_YEAR.match(text, e)) is not None:
        return s, nxt.end(), True
    if (before := _YEAR_AND_BEFORE.search(text, max(0, s - 30), s)) is not None:
        return before.start(), e, True
    return s, e, False


# --- the phrases around a year ---------------------------------------------------------------

#: A move in the past tense, the verb that links an item to the figure it reached ("net income climbed
#: to …"); read here and by :func:`assay.grounding.operands.item_owner`.
MOVED = r"(?:rose|grew|increased|fell|declined|decreased|dropped|climbed|jumped|slipped)"
#: Between a named line item and the year after it: a period phrase ("net income in 2021", "revenue
#: for fiscal year 2021", "sales during the year 2021", "net income, in 2021,", "net income (2021)").
_ITEM_THEN_YEAR = re.compile(
    r"(?<=[가-힣])(?:은|는|이|가)\s*"  # "순이익은 2021년에 970억 달러였다"
    r"|\s*(?:,\s*|\s[—–-]\s*)?(?:\(\s*|\s(?P<moved>" + MOVED + r"\s+)?"
    r"(?:in|for|during|of)\s+(?:all\s+of\s+|the\s+whole\s+of\s+)?(?:the\s+)?"
    r"(?:(?:fiscal|financial|calendar)\s+(?:year\s+)?|full[-\s]year\s+|year\s+)?"
    r"(?:(?:(?:twelve|12)\s+months\s+|(?:fiscal\s+)?year\s+)?end(?:ed|ing)\s+(?:jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+)?)?",
    re.I,
)
#: Two years coordinated ("net income in 2020 and 2021 was …"): each a period of what the phrase
#: states, not a range's endpoints, unless "between" opens them (gate-15).
_AND_NEXT_YEAR = re.compile(r"\s*(?:and|&)\s+(?:fiscal\s+(?:year\s+)?|fy\s?)?(?:19|20)\d\d\b", re.I)
_YEAR_AND_BEFORE = re.compile(r"(?:19|20)\d\d\s*(?:and|&)\s+(?:fiscal\s+(?:year\s+)?|fy\s?)?$", re.I)
_BETWEEN = re.compile(r"\bbetween\s+(?:fiscal\s+(?:year\s+)?|fy\s?)?$", re.I)
#: Between a year and the named line item after it: "2021 net income", "2021's net income", "the 2021
#: figure for net income", "2021년 순이익".
_YEAR_THEN_ITEM = re.compile(
    r"(?:['’]s)?\s+(?:(?:figure|number|total|result)s?\s+(?:for|of)\s+(?:the\s+|its\s+)?)?"
    r"|년도?\s*(?:의|에는?)?\s*(?:[가-힣A-Za-z]+의\s*)?"
)
#: Between the item-and-year phrase and the figure it states: a copula, a verb of amount or of the
#: move that reached it, or "of", and nothing else ("net income in 2021 was $97.0 billion", "2021
#: revenue totaled …", "net income in 2021 rose to …", "2021 net income of …", "… was a record …").
#: A comparison ("far exceeded 2019 net income"), a forecast ("expect 2024 net income to exceed …") or
#: a clause between ("In 1976, Apple was founded; …") is not a statement of that year's figure.
_STATED_AS = re.compile(
    r"(?:\s*\)|\s+(?:fiscal|financial)\s+year|,)?"  # the phrase's close: "(2021)", "the 2021 fiscal year", ", 2021,"
    # "net income in 2021: $97.0 billion", "2021년 순이익은 970억 달러였다"
    r"(?:(?P<colon>\s*:\s*)|(?P<particle>(?<=[가-힣])(?:은|는|이|가)\s*|년도?에?\s*)"
    # "2021 net income, at $97.0 billion, …", "net income climbed in 2021 to …"
    r"|(?P<apposition>\s*,\s*at\s+)|(?P<to>\s+to\s+)"
    r"|\s*,?\s+(?:(?:was|were)(?:,\s*at)?|is|are|totall?ed|amounted\s+to|came\s+(?:in\s+)?(?:to|at)|stood\s+at|reached|hit|of"
    r"|equall?ed|landed\s+at|remained\s+at"
    r"|" + MOVED + r"\s+to)"
    r"\s+(?:an?\s+record(?:\s+high)?\s+of\s+)?(?:an?\s+(?:record|hefty|impressive|healthy|solid|strong|robust|modest)\s+)?"
    r"(?:(?:about|approximately|roughly|nearly|almost|around|some|close\s+to|just\s+(?:over|under))\s+)?)",
    re.I,
)
#: After an opening adverbial of time, before its line item: "In 2021, net income …", "In 2021, Apple's
#: net income …", "In 2021, the company's net income …", "In 2021, Apple reported net income …".
_LEAD_TO_ITEM = re.compile(
    r"\s*(?:(?:[A-Z][\w.&-]*(?:,?\s+Inc\.?)?|the\s+company|it|we)\s+"
    r"(?P<verb>reported|posted|recorded|generated|earned|made|brought\s+in|had|delivered|achieved)\s+(?:(?:its|a)\s+)?"
    r"|(?:the|its|our)\s+|(?:the\s+)?[A-Z][\w.&-]*['’]s\s+)?"
)
#: What names a line item without being one of the snapshot's ("Profit in 2021 was …", "Earnings in
#: 2021 were …"): in a year's item place it states that year's figure as a known item does (gate-15).
_ITEM_NOUN = re.compile(
    r"\b(?:(?:net|operating|gross|pre-?tax)\s+)?(?:profits?|earnings|income|revenues?|sales|turnover|loss(?:es)?|ebitda"
    r"|bottom\s+line|top\s+line)\b|(?<![가-힣])(?:순이익|영업이익|이익|매출액?)(?=(?:은|는|이|가)(?![가-힣]))",
    re.I,
)
#: Before an item-and-year phrase linked by a colon: the start of its clause, an article or a possessive
#: between ("Net income in 2021: …"), not a phrase it completes ("Prior-year base for 2024 net income: …").
_CLAUSE_START = re.compile(r"(?:^|[.;!?]\s+|\n)\s*(?:(?:the|its|our|[A-Z][\w.&-]*['’]s)\s+)*$")
#: After a Korean figure its item-and-year phrase states: a past or plain copula or "기록했다" closing the
#: clause ("970억 달러였다"), not a forecast ("…를 넘어설 것으로 예상된다", "… 전망이다").
_KO_STATED = re.compile(
    r"\s*(?:\[[^\[\]\n]{1,60}\]\s*)?(?:이?었다|였다|이다|입니다|였습니다|이었습니다|였으며|이었으며|[을를]\s*기록했다|으?로\s*집계)"
)
