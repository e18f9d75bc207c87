"""A sentence's opening period scopes its numbers (issue 15, ``period_swap``; used by
:func:`assay.grounding.sentence_rules.sentence_reader`).

The period rule (``period_mismatch``, :mod:`assay.grounding.acceptable`) gives a named year to the
nearest number of its clause, so in "In fiscal 2023, revenue was $383.3 billion [F1] and net
income was $99.8 billion [F7, F8]" the year reaches the first figure only, and FY2022's $99.8
billion (F8, cited beside F7) passed as the sentence's net income (a new user's false accept).
An opening adverbial of time — "In fiscal 2023,", "For FY2022,", "During 2019,", "As of
December 31, 2022," (or with no comma: "In fiscal 2023 total net sales were …") — says when
everything after it happened. Rule: when the sentence opens with one such phrase (one known
year), each number the reader gave no year of its own gets
that year, unless it is stated as a base ("from $394.3 billion", "compared with", "versus",
"than", "up from": another period's level) or beside a relative period ("a year earlier", "the
prior year's", "the year before") or the sentence says "respectively". Conservative as
the period rule is: a year the snapshot's facts do not know changes nothing here (an opening year
stated with its item's figure, "In 2021, net income was …", is judged by ``item_years.item_year``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from assay.claims import Quantity
from assay.grounding.context import SentenceContext
from assay.grounding.item_years import LEAD_PERIOD
from assay.grounding.labels import SnapshotVocabulary
from assay.grounding.lexicon import CHANGE, COMPARISON
from assay.grounding.operands import YEAR, match_year
from assay.grounding.sentence_memo import sentence_memo
from assay.grounding.triggers import RESPECTIVE

__all__ = [
    "BASE_BEFORE",
    "BASE_WORDS",
    "PERIOD_OF_WORDS",
    "RELATIVE",
    "base_years",
    "named_as_base",
    "named_as_period",
    "with_lead_year",
    "lead_year",
]

#: A number stated as a base or another period's level: "from", "compared with", "versus", "than".
BASE_BEFORE = re.compile(
    r"\b(?:from|compared\s+(?:with|to)|versus|vs\.?|against|than|over)\s+(?:(?:about|approximately|the)\s+)?$", re.I
)


#: The words of a change's base right before a year, after :data:`_PERIOD_WORDS` ("from fiscal 2022", "than in
#: FY2022", "over the prior fiscal year 2018"; :func:`named_as_base`), and those that name the period a change or a
#: level is of ("in 2018", "during fiscal 2018", "for FY2018"; :func:`named_as_period`).
BASE_WORDS = frozenset(
    "from since over than versus vs vs. against on above below exceeded exceeds beat topped trailed".split()
)
PERIOD_OF_WORDS = frozenset("in during for".split())
_PERIOD_WORDS = frozenset("about approximately the fiscal financial year calendar full prior previous fy".split())
_BASE_PAIRS = frozenset(
    {("compared", "with"), ("compared", "to"), ("relative", "to"), ("ahead", "of"), ("short", "of")}
)
_PAIR_FIRSTS = frozenset(first for first, _ in _BASE_PAIRS)


@sentence_memo
def base_years(text: str) -> frozenset[int]:
    """The years ``text`` names only as a change's base (:func:`named_as_base` at every mention: "up 10% from
    2018", "than in FY2022") in a sentence that states a change or a comparison (a word of
    :data:`~.lexicon.CHANGE` or :data:`~.lexicon.COMPARISON`: "the amount carried forward from 2018" names
    2018's own figure); a level given no year of its own is none of theirs (gate-21)."""
    words = set(text.lower().split())
    if not (words & BASE_WORDS or words & _PAIR_FIRSTS):  # (no base word: no year named as a base)
        return frozenset()
    base: set[int] = set()
    other: set[int] = set()
    for m in YEAR.finditer(text):
        (base if named_as_base(text, m.start()) else other).add(match_year(m))
    if not base - other or (CHANGE.search(text) is None and COMPARISON.search(text) is None):
        return frozenset()
    return frozenset(base - other)


def named_as_base(text: str, start: int) -> bool:
    """Whether the year at ``start`` of ``text`` follows a base word (:data:`BASE_WORDS`, "compared with/to",
    "relative to", "ahead/short of"; "in" may stand between: "than in 2018"), past words of a period (the last 60
    characters)."""
    words = _words_before(text, start)
    if words and words[-1] == "in":
        words.pop()
    return bool(words) and (words[-1] in BASE_WORDS or tuple(words[-2:]) in _BASE_PAIRS)


def named_as_period(text: str, start: int) -> bool:
    """Whether the year at ``start`` of ``text`` follows "in", "during" or "for" (:data:`PERIOD_OF_WORDS`), past
    words of a period ("in fiscal 2018", "during the year 2018"): the period something is of."""
    words = _words_before(text, start)
    return bool(words) and words[-1] in PERIOD_OF_WORDS


def _words_before(text: str, start: int) -> list[str]:
    """The lower-case words of the 60 characters before ``start``, the words of a period (:data:`_PERIOD_WORDS`,
    an "FY" glued to the year) dropped from the end."""
    words = text[max(0, start - 60) : start].lower().split()
    if words and words[-1].endswith("fy") and not text[start - 1 : start].isspace():
        words[-1] = words[-1][:-2] or "fy"
    while words and words[-1] in _PERIOD_WORDS:
        words.pop()
    return words


#: A relative period beside a number: another period's figure, whatever the opening says ("a year
#: earlier", "the prior year's", "last year", "the year before", "had been"; gate-13, a new user's
#: false rejects of the comma-less lead).
RELATIVE = re.compile(
    r"\b(?:a\s+year\s+(?:earlier|before|ago|prior)|(?:the\s+)?(?:prior|previous|preceding|last|past|following|next)"
    r"(?:\s+fiscal)?[-\s](?:year|period)|year[-\s]ago|the\s+year\s+before|had\s+been|previously)\b",
    re.I,
)


def lead_year(text: str, vocab: SnapshotVocabulary) -> int | None:
    """The one known year of ``text``'s opening adverbial of time (module doc;
    :data:`~assay.grounding.item_years.LEAD_PERIOD`), else None. A year no fact is of scopes nothing
    here: "In 1976, Apple was founded; net income was …" would fail on it (a helper's hunt for false
    rejects of gate-14); the opening year of a sentence stating its item's figure is judged by
    :func:`~assay.grounding.item_years.item_year` instead."""
    if not vocab.years:
        return None
    m = LEAD_PERIOD.match(text)
    if m is None:
        return None
    y = YEAR.search(m.group("year"))
    year = match_year(y) if y is not None else None
    return year if year in vocab.years else None


def with_lead_year(ctx: SentenceContext, vocab: SnapshotVocabulary, numbers: tuple[Quantity, ...]) -> SentenceContext:
    """``ctx`` with the opening adverbial's year given to each number the reader gave no year (and
    not stated as a base); else ``ctx`` itself (module doc)."""
    if all(ctx.by_number.get(n.span[0], (None,))[0] for n in numbers):
        return ctx  # every number has a year of its own (the common memo sentence): no lead to read
    year = lead_year(ctx.text, vocab)
    if year is None or (ctx.may & RESPECTIVE and "espective" in ctx.text.lower()):
        return ctx
    by_number = dict(ctx.by_number)
    changed = False
    for i, n in enumerate(numbers):
        years, items = by_number.get(n.span[0], (frozenset(), ()))
        if years:
            continue
        s, e = n.span[0] - ctx.offset, n.span[1] - ctx.offset
        before = ctx.text[max(0, s - 40) : s]
        if BASE_BEFORE.search(before):
            continue
        prev = numbers[i - 1].span[1] - ctx.offset if i else 0
        nxt = numbers[i + 1].span[0] - ctx.offset if i + 1 < len(numbers) else len(ctx.text)
        if RELATIVE.search(ctx.text, max(prev, s - 60), s) or RELATIVE.search(ctx.text, e, min(nxt, e + 40)):
            continue  # "a year earlier it was $394.3 billion", "($99.8 billion the year before)"
        by_number[n.span[0]] = (frozenset({year}), items)
        changed = True
    return replace(ctx, by_number=by_number) if changed else ctx
