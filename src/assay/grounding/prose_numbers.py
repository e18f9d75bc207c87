"""A passage number written in prose: what its own sentence on the page says it is (issue 15, gate-19;
used by :func:`assay.grounding.sentence_rules.sentence_reader`).

A table cell has a column (its year, :mod:`~assay.grounding.column_period`) and a row (its line item,
:func:`~assay.grounding.labels.row_item`); a number of a paragraph has neither, so an uncited sentence
naming another year or another row's item than the paragraph gives it passed ("The effective tax rate
in 2018 was 13.0%." on "The effective income tax rate for 2019 was 13.0% compared to 18.3% for
2018."). Its own sentence is read instead (:func:`own_sentence`): the years it gives the number
(:func:`prose_years`) and the row items it names (:func:`prose_item_veto`). Conservative: a number
its line shows twice or not at all, a sentence that says "respectively", a year that is none of the
snapshot's periods ("notes due 2025"), and a sentence naming no year or no row item are not judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from assay.claims.quantities import extract_masked
from assay.grounding.candidates import Candidate
from assay.grounding.labels import SnapshotVocabulary, related_to, row_item
from assay.grounding.lexicon import CLAUSE, RESPECTIVELY
from assay.grounding.operands import YEAR, match_year, period_owner

__all__ = ["own_sentence", "prose_item_veto", "prose_period_veto", "prose_years"]


def prose_period_veto(
    c: Candidate, years: frozenset[int], line: str, periods: frozenset[int]
) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when the sentence names ``years`` and passage number ``c``, a
    number of prose (``line``: its line of the page), is given only other years by its own sentence
    there (:func:`prose_years`), one of them a period of the snapshot (``periods``). TAT-QA's
    templated period swaps, uncited on the tables as text: the largest group of their false accepts.
    Else None."""
    if c.op is not None or c.column_year is not None or not years:
        return None
    given = prose_years(line, c)
    if not given & periods or given & years:
        return None
    named = ", ".join(str(y) for y in sorted(years))
    of = ", ".join(str(y) for y in sorted(given))
    return "period_mismatch", f"the sentence names {named}, but {c.ref}'s own sentence gives it {of}"


def prose_item_veto(
    c: Candidate, named: Sequence[str], line_of: Callable[[str], str], vocab: SnapshotVocabulary
) -> tuple[str, str] | None:
    """``("label_mismatch", reason)`` when the sentence names the line items ``named`` (exact items of
    the snapshot) for a number that ``c`` backs — a number of prose, or a derivation of numbers of
    prose — and the own sentence on the page (:func:`own_sentence`; ``line_of``: a passage ref's line)
    of each such number names items of ``vocab``, none of which relates to a named one, either way
    (:func:`~assay.grounding.labels.related_to`): "Bell Media operating revenues rose 3.6%" on "Bell
    Wireless operating revenues increased by 3.6% in Q4 2019"; "The change in cash flow from operations
    was 49.2 million" on "Free cash flow … $100.1 million, compared to $50.9 million in 2018". Else None
    (a table cell, a fact, or a number whose sentence names no item is not judged)."""
    if not named:
        return None
    items = []
    for o in c.operands or (c,):
        if o.origin != "passage" or o.op is not None or row_item(o.label) is not None:
            return None  # (a table row's item is judged by the label rule)
        line = line_of(o.ref)
        found = own_sentence(line, o)
        if found is None:
            return None
        sentence = line[found[0] : found[1]]
        low = sentence.lower() if sentence.isascii() else None
        own = {item for _, _, item in vocab.named_spans(sentence, low)} & vocab.items
        if not own or any(related_to(n, item, True) or related_to(item, n, True) for n in named for item in own):
            return None
        items.append(min(own))
    return "label_mismatch", f"the sentence names {named[0]!r}, but {c.ref}'s own sentence is of {items[0]!r}"


def prose_years(line: str, c: Candidate) -> frozenset[int]:
    """The years the sentence of ``line`` that shows ``c``'s displayed digits (:func:`own_sentence`)
    gives it, read as an answer's sentence is (:func:`~assay.grounding.operands.period_owner`: the
    figure a period trails, else the nearest of its clause; "December 31, 2019" is one mention): a
    year before a colon is the next figure's ("US$261,518 (2018: US$283,752)"), and a year a change is
    measured from is no figure's ("an increase of $310 million over 2018", "compared to 2018", "from
    2018 to $603.4 million"). Empty when :func:`own_sentence` finds none."""
    found = own_sentence(line, c, respectively=True)
    if found is None:
        return frozenset()
    start, end, at = found
    text = line[start:end]
    spans = [q.span for q in extract_masked(text, space_thousands=False, wording=False)]
    mine = [i for i, (a, b) in enumerate(spans) if a <= at - start < b]
    if len(mine) != 1:
        return frozenset()
    listed = (0, 0)  # the span of a "in 2018 and 2017, respectively" list of years: its own reading
    if (said := RESPECTIVELY.search(text)) is not None:
        if (years := _YEARS_LISTED.search(text, 0, said.start())) is None:
            return frozenset()  # (its years go to its numbers in an order not read here)
        listed = years.span()
        order = [match_year(m) for m in YEAR.finditer(text, *listed)]
        before = [i for i, (a, _) in enumerate(spans) if a < listed[0]][-len(order) :]
        if mine[0] in before and len(before) == len(order):
            return frozenset({order[before.index(mine[0])]})
    cuts = [0, *(m.end() for m in CLAUSE.finditer(text)), len(text) + 1]
    out = set()
    for m in YEAR.finditer(text):
        if listed[0] <= m.start() < listed[1]:
            continue  # (another number's, in the list's order)
        if _BASE_YEAR.search(text, 0, m.start()):
            continue  # a change's base year
        if text.startswith(":", m.end()):  # "2018: $169": the figure after the colon
            k = next((i for i, (a, _) in enumerate(spans) if a >= m.end()), None)
        else:
            k = period_owner(text, spans, m.start(), m.end(), cuts)
        if k == mine[0]:
            out.add(match_year(m))
    return frozenset(out)


def own_sentence(line: str, c: Candidate, respectively: bool = False) -> tuple[int, int, int] | None:
    """``(start, end, at)``: the sentence of ``line`` that shows ``c``'s displayed digits (``at``:
    where), when the line shows them exactly once and, unless ``respectively``, the sentence does not
    say "respectively" (its years and items go to its numbers in order: read only by
    :func:`prose_years`); else None."""
    shown = abs(c.displayed if c.displayed is not None else c.value)
    hits = [m for m in _NUMBER.finditer(line) if _value(m.group(0)) == shown]
    if len(hits) != 1:
        return None
    at, after = hits[0].span()
    start = max((m.end() for m in _SENTENCE_END.finditer(line, 0, at)), default=0)
    end = m.start() if (m := _SENTENCE_END.search(line, after)) else len(line)
    return None if not respectively and RESPECTIVELY.search(line, start, end) else (start, end, at)


#: A sentence's end inside a line of prose: ". " before a capital or an opening bracket (not "U.S. dollars").
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)%][.;!?])\s+(?=[A-Z(\u2022])")
#: What a change is measured from, right before a year: "over 2018", "compared to fiscal 2018", "from 2018".
_BASE_YEAR = re.compile(
    r"\b(?:over|from|compared\s+(?:to|with)|versus|vs\.?|than|relative\s+to|since|against)\s+"
    r"(?:the\s+)?(?:(?:fiscal|financial)\s+)?(?:year\s+)?$",
    re.I,
)
#: A list of two or more years right before "respectively" ("in 2018 and 2017, respectively", "fiscal 2019,
#: 2018 and 2017, respectively"): the last as many numbers before it take them in order (gate-20: "Free Cash
#: Flow was positive $497 million in 2019, compared to positive $533 million and positive $308 million in
#: 2018 and 2017, respectively" gave the 533 no year, so "The Free Cash Flow in 2017 was $533 million" passed).
_YEARS_LISTED = re.compile(
    r"(?:(?:fiscal|financial)\s+(?:years?\s+)?)?(?:19|20)\d\d(?:\s*,\s*(?:(?:fiscal|financial)\s+)?(?:19|20)\d\d)*"
    r",?\s+and\s+(?:(?:fiscal|financial)\s+)?(?:19|20)\d\d\s*,?\s*$",
    re.I,
)
#: A number as written in prose, thousands grouped by commas ("2019, 2018" are two numbers).
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|(?<![\w.,])\d+(?:\.\d+)?(?!\d)")


def _value(text: str) -> float:
    return float(text.replace(",", ""))
