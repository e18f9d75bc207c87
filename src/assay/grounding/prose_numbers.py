"""A passage number written in prose: what its own sentence on the page says it is (issue 15, gate-19 and 20;
used by :func:`assay.grounding.sentence_rules.sentence_reader`).

A table cell has a column (its year, :mod:`~assay.grounding.column_period`) and a row (its line item,
:func:`~assay.grounding.labels.row_item`); a number of a paragraph has neither, so an uncited sentence
naming another year or another row's item than the paragraph gives it passed ("The effective tax rate
in 2018 was 13.0%." on "The effective income tax rate for 2019 was 13.0% compared to 18.3% for
2018."). Its own sentence is read instead (:func:`own_sentence`): the years it gives the number
(:func:`prose_years`) and the row items it names (:func:`prose_item_veto`), its sign (:func:`prose_polarity`)
and, for two of its numbers, their order (:func:`prose_order`). Conservative: a number its line shows twice
or not at all, a "respectively" sentence's years but for a list of them right before the word, a year that
is none of the snapshot's periods ("notes due 2025"), and a sentence naming no year or no row item are not
judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from assay.claims.quantities import extract_masked
from assay.grounding.candidates import Candidate
from assay.grounding.item_years import LEAD_PERIOD
from assay.grounding.label_signs import own_clause
from assay.grounding.labels import SnapshotVocabulary, related_to, row_item
from assay.grounding.lead_period import BASE_BEFORE, RELATIVE, named_as_base
from assay.grounding.lexicon import CLAUSE, GAIN, LOSS, PROSE_SENTENCE_END, RESPECTIVELY
from assay.grounding.operands import YEAR, match_year, period_owner

__all__ = [
    "one_prose_line",
    "own_sentence",
    "prose_item_veto",
    "prose_order",
    "prose_period_veto",
    "prose_polarity",
    "prose_sign_veto",
    "prose_years",
]


def prose_period_veto(
    c: Candidate, years: frozenset[int], line: str, periods: frozenset[int], stated: float | None = None
) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when the sentence names ``years`` and passage number ``c``, a
    number of prose (``line``: its line of the page), is given only other years by its own sentence
    there (:func:`prose_years`), one of them a period of the snapshot (``periods``). TAT-QA's
    templated period swaps, uncited on the tables as text: the largest group of their false accepts.
    A derivation of one prose line's numbers whose value that line shows (``stated``: the answer's
    figure as written) is judged as that number (gate-20: "decreased $8.6 million to $24.9 million from
    $33.5 million" backed a 24.9 of 2018 as 33.5 − 8.6); any other derivation of two numbers its own
    sentences give one other year each must be of those years (every year named for it is one of them).
    Else None."""
    if c.column_year is not None or not years:
        return None
    if c.op is not None and not one_prose_line(c):
        return None
    if c.op is not None and (stated is None or not _shown_with_operands(line, c, stated)):
        dated = [prose_years(line, o) for o in c.operands]  # a change or ratio of two dated figures
        if any(len(y) != 1 for y in dated) or dated[0] == dated[1] or not (dated[0] | dated[1]) & periods:
            return None  # (one year for both: a level less its change is the year before's, "rose $1.1 to $4.4")
        if not years - (dated[0] | dated[1]):
            return None
        named = ", ".join(str(y) for y in sorted(years - (dated[0] | dated[1])))
        return "period_mismatch", f"the sentence names {named}, which is none of {c.ref}'s own sentences' years"
    given = prose_years(line, c, None if c.op is None else stated)
    if not given & periods or given & years:
        return None
    named = ", ".join(str(y) for y in sorted(years))
    of = ", ".join(str(y) for y in sorted(given))
    return "period_mismatch", f"the sentence names {named}, but {c.ref}'s own sentence gives it {of}"


def _shown_with_operands(line: str, c: Candidate, stated: float) -> bool:
    """Whether the sentence of ``line`` showing ``stated`` (:func:`own_sentence`) shows ``c``'s operands too: a
    derivation equal to a figure of another sentence ("Legal fees were $3.5 million in 2017" beside net sales
    of $45.2 and $41.7 million) is not that figure."""
    found = own_sentence(line, c, shown=stated)
    if found is None:
        return False
    sentence = line[found[0] : found[1]]
    shown = {_value(m.group(0)) for m in _NUMBER.finditer(sentence)}
    return all(abs(o.displayed if o.displayed is not None else o.value) in shown for o in c.operands)


def prose_sign_veto(c: Candidate, stated: int | None, line: str) -> tuple[str, str] | None:
    """``("sign", reason)`` when the answer's wording states a loss or a profit (``stated``: −1 / +1) for a
    number ``c`` of prose (``line``: its line of the page) whose own words there say the other
    (:func:`prose_polarity`: "LinkedIn operating loss increased $63 million" — gate-20: the line's first
    words, "Operating income increased $6.0 billion", named its polarity, so "LinkedIn operating income
    increased $63 million" passed). Else None."""
    if stated is None or c.op is not None or (own := prose_polarity(c, line)) is None or own == stated:
        return None
    said, other = ("a loss", "a profit") if stated < 0 else ("a profit", "a loss")
    return "sign", f"the wording states {said}, but {c.ref}'s own words on the page state {other}"


def prose_polarity(c: Candidate, line: str) -> int | None:
    """−1 / +1 when the words of a number ``c`` of prose on its ``line`` — from the number before it in its
    clause (:func:`~assay.grounding.label_signs.own_clause`) — name a loss / a profit and not both ("a net
    loss of $3.8 million, …, and a gain on …": the 3.8 is a loss); else None."""
    shown = abs(c.displayed if c.displayed is not None else c.value)
    clause = own_clause(line, shown).lower()
    numbers = list(_NUMBER.finditer(clause))
    at = next((i for i, m in enumerate(numbers) if _value(m.group(0)) == shown), None)
    if at is not None:
        clause = clause[numbers[at - 1].end() if at else 0 : numbers[at].start()]
    loss, gain = LOSS.search(clause) is not None, GAIN.search(clause) is not None
    return None if loss == gain else -1 if loss else 1


def prose_order(c: Candidate, line: str) -> int | None:
    """+1 when derivation ``c``'s first operand is the later figure, −1 when its second is, by the one year
    each one's own sentence on ``line`` gives it (:func:`prose_years`: "Net sales … were $1,791.8 million
    compared to $1,562.5 million for the fiscal year ended March 31, 2018"); None when a year is missing,
    not one, or the same (gate-20: a paragraph's numbers dated by the line's first words, one date for all,
    were taken as unordered and any stated direction passed on them, "LinkedIn operating income increased
    $63 million" as 306 − 243 of two items of fiscal 2017)."""
    a, b = c.operands
    ya, yb = prose_years(line, a), prose_years(line, b)
    if len(ya) != 1 or len(yb) != 1 or ya == yb:
        return None
    return 1 if next(iter(ya)) > next(iter(yb)) else -1


def one_prose_line(c: Candidate) -> bool:
    """Whether derivation ``c``'s operands are numbers of one line of prose (no table row, no column)."""
    ops = c.operands
    return (
        len(ops) == 2
        and ops[0].ref == ops[1].ref
        and all(o.origin == "passage" and o.op is None and o.column_year is None for o in ops)
        and row_item(ops[0].label) is None
        and "|" not in ops[0].label
    )


def prose_item_veto(
    c: Candidate, named: Sequence[str], line_of: Callable[[str], str], vocab: SnapshotVocabulary
) -> tuple[str, str] | None:
    """``("label_mismatch", reason)`` when the sentence names the line items ``named`` (exact items of
    the snapshot) for a number that ``c`` backs — a number of prose, or a derivation of numbers of
    prose — and the own sentence on the page (:func:`own_sentence`; ``line_of``: a passage ref's line)
    of each such number names items of ``vocab``, none of which relates to a named one, either way
    (:func:`~assay.grounding.labels.related_to`): "Bell Media operating revenues rose 3.6%" on "Bell
    Wireless operating revenues increased by 3.6% in Q4 2019"; "The change in cash flow from operations
    was 49.2 million" on "Free cash flow … $100.1 million, compared to $50.9 million in 2018"; and, for a
    derivation, when such a sentence names no item of ``vocab`` and no word of a named item (gate-20: "The
    percentage change in Ceramic Components … was 14.68%" on "Net sales for the fiscal year ended March 31,
    2019 were $1,791.8 million compared to $1,562.5 million …": two figures of a paragraph are evidence of
    what it says they are, not of another row's change). Else None (a table cell, a fact, or a number of
    prose whose sentence names no item is not judged)."""
    if not named:
        return None
    items = []
    for o in c.operands or (c,):
        if o.origin != "passage" or o.op is not None or row_item(o.label) is not None:
            return None  # (a table row's item is judged by the label rule)
        line = line_of(o.ref)
        found = own_sentence(line, o)  # (a list of items, "respectively": any of them may relate)
        if found is None:
            return None
        sentence = line[found[0] : found[1]]
        low = sentence.lower() if sentence.isascii() else None
        own = {item for _, _, item in vocab.named_spans(sentence, low)} & vocab.items
        if not own:  # a derivation's prose sentence naming no item: judged by the named items' words (gate-20)
            if c.op is None or "|" in o.label or _shares_a_word(sentence, named):
                return None
            items.append("")
            continue
        if any(related_to(n, item, True) or related_to(item, n, True) for n in named for item in own):
            return None
        items.append(min(own))
    if not items[0]:
        return "label_mismatch", f"the sentence names {named[0]!r}, a word of which {c.ref}'s own sentence never says"
    return "label_mismatch", f"the sentence names {named[0]!r}, but {c.ref}'s own sentence is of {items[0]!r}"


def _shares_a_word(sentence: str, named: Sequence[str]) -> bool:
    """Whether ``sentence`` says half or more of the words of an item of ``named`` (by their first five
    letters, lower-case: "sales" of "Net sales"; "cash" alone of "Net increase in cash, cash equivalents, and
    restricted cash" is not enough), words of no one item aside (:data:`_ANY_ITEM`), or an abbreviation of
    it: capitals whose letters are initials of its words in order ("SG&A" of "selling, general and
    administrative expenses", "EPS" of "adjusted earnings per share", "D&A")."""
    low = sentence.lower()
    caps = {re.sub(r"[^A-Z]", "", m.group(0)) for m in _ABBREVIATION.finditer(sentence)}
    for n in named:
        words = re.findall(r"[a-z]+", n.lower())
        stems = {w[:5] for w in words if len(w) >= 4 and w not in _ANY_ITEM}
        if not stems or 2 * sum(stem in low for stem in stems) >= len(stems):
            return True
        initials = "".join(w[0] for w in words).upper()
        if any(len(a) >= 2 and a in initials for a in caps):
            return True
    return False


#: A capitalised abbreviation: two or more capitals, "&" or "/" between them allowed ("SG&A", "EPS", "D&A").
_ABBREVIATION = re.compile(r"\b[A-Z](?:[&/]?[A-Z]){1,5}\b")


#: Words any line item may hold: they tell no item from another.
_ANY_ITEM = frozenset(
    "total totals other others from with that this their into less more year years ended ending balance balances "
    "amount amounts value values period periods current prior fiscal line item items january february march "
    "april june july august september october november december".split()
)


def prose_years(line: str, c: Candidate, shown: float | None = None) -> frozenset[int]:
    """The years the sentence of ``line`` that shows ``c``'s displayed digits (:func:`own_sentence`)
    gives it, read as an answer's sentence is (:func:`~assay.grounding.operands.period_owner`: the
    figure a period trails, else the nearest of its clause; "December 31, 2019" is one mention): a
    year before a colon is the next figure's ("US$261,518 (2018: US$283,752)"), and a year a change is
    measured from is no figure's ("an increase of $310 million over 2018", "compared to 2018", "from
    2018 to $603.4 million"); a number given no year takes the year of the sentence's opening adverbial
    of time ("In 2018, gross margin improved … to 40.0% from 39.2% in … 2017": 40.0 is 2018's; gate-20),
    unless stated as a base ("from 39.2%"), past another year or clause, or beside another period ("the
    prior year's"); the level a change moved to takes the change's years (:data:`_MOVED_TO`); in a
    "respectively" sentence, a list of years right before it goes to the numbers before it that no other
    year dates, in order, when they are as many (:data:`_YEARS_LISTED`; "$50.1 million and $5.2 million,
    and $45.3 million and $4.8 million, … in 2019 and 2018, respectively": not read). Empty when
    :func:`own_sentence` finds none."""
    found = own_sentence(line, c, shown=shown)
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
    cuts = [0, *(m.end() for m in CLAUSE.finditer(text)), len(text) + 1]
    owned: dict[int | None, set[int]] = {}
    for m in YEAR.finditer(text):
        if listed[0] <= m.start() < listed[1]:
            continue  # (another number's, in the list's order)
        if named_as_base(text, m.start()):
            continue  # a change's base year
        if text.startswith(":", m.end()):  # "2018: $169": the figure after the colon
            k = next((i for i, (a, _) in enumerate(spans) if a >= m.end()), None)
        else:
            k = period_owner(text, spans, m.start(), m.end(), cuts)
        owned.setdefault(k, set()).add(match_year(m))
    if listed[1]:  # the numbers before the list that no other year dates, as many as its years: in order
        order = [match_year(m) for m in YEAR.finditer(text, *listed)]
        undated = [i for i, (a, _) in enumerate(spans) if a < listed[0] and i not in owned]
        if len(undated) != len(order) or mine[0] not in undated:
            return frozenset(owned.get(mine[0], ())) if len(undated) == len(order) else frozenset()
        return frozenset({order[undated.index(mine[0])]})
    out = owned.get(mine[0], set())
    if not out and mine[0] and _MOVED_TO.fullmatch(text, spans[mine[0] - 1][1], spans[mine[0]][0]):
        out = owned.get(mine[0] - 1, set())  # "decreased $8.6 million to $24.9 million": the change's year
    if not out and (lead := LEAD_PERIOD.match(text)) is not None and (y := YEAR.search(lead.group("year"))):
        at_mine = spans[mine[0]][0]  # an opening "In 2018," dates a number of its clause given no year, but for
        if (  # a base ("from 39.2%") or another period's figure ("the prior year's $19.8 million")
            at_mine >= lead.end()
            and not BASE_BEFORE.search(text[max(0, at_mine - 40) : at_mine])
            and not YEAR.search(text, lead.end(), at_mine)
            and not CLAUSE.search(text, lead.end(), at_mine)
            and not RELATIVE.search(text, max(lead.end(), at_mine - 60), min(len(text), spans[mine[0]][1] + 40))
        ):
            out.add(match_year(y))
    return frozenset(out)


def own_sentence(line: str, c: Candidate, shown: float | None = None) -> tuple[int, int, int] | None:
    """``(start, end, at)``: the sentence of ``line`` that shows ``c``'s displayed digits (``at``:
    where), when the line shows them once (or once in each copy of a sentence a page repeats); else
    None. ``shown``: the digits to look for instead of ``c``'s. A sentence that says "respectively" is
    found too: :func:`prose_years` reads its list of years, :func:`prose_item_veto` any of its items."""
    if shown is None:
        shown = c.displayed if c.displayed is not None else c.value
    shown = abs(shown)
    hits = [m for m in _NUMBER.finditer(line) if _value(m.group(0)) == shown]
    if not hits:
        return None
    found = [_sentence_of(line, *m.span()) for m in hits]
    if len(set(found)) != len(found) or any(line[s:e] != line[found[0][0] : found[0][1]] for s, e in found[1:]):
        return None  # shown twice in a sentence, or in two: whose is unknown (one sentence twice: a repeated paragraph)
    (start, end), at = found[0], hits[0].start()
    return start, end, at


def _sentence_of(line: str, at: int, after: int) -> tuple[int, int]:
    start = max((m.end() for m in PROSE_SENTENCE_END.finditer(line, 0, at)), default=0)
    end = m.start() if (m := PROSE_SENTENCE_END.search(line, after)) else len(line)
    return start, end


#: What stands between a change and the level it moved to: "decreased $8.6 million to $24.9 million" (the level
#: is of the change's year; gate-20: "… for the year ended December 31, 2019 decreased $8.6 million to $24.9
#: million from $33.5 million …" gave the 24.9 no year, so a sentence giving it 2018 passed).
_MOVED_TO = re.compile(r"\s*(?:%|percent|(?:thousand|million|billion)s?)?,?\s+to\s+(?:approximately\s+|about\s+)?")
#: A list of two or more years right before "respectively" ("in 2018 and 2017, respectively", "fiscal 2019,
#: 2018 and 2017, respectively"): the numbers before it that no other year dates take them in order (gate-20: "Free Cash
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
