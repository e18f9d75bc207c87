"""What a sentence says its numbers ARE, read once per sentence: :class:`SentenceContext` — the
known years and line items it names for each number, its sign wording and its sum licences — and
the snapshot's vocabulary it is read with (:class:`SnapshotVocabulary`, from
:mod:`~assay.grounding.labels`). The rules that hold a value match to what is read here are
:func:`assay.grounding.acceptable.acceptable` (issue 15).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.claims import Quantity
from assay.grounding.direction import from_to_contradictions
from assay.grounding.labels import SnapshotVocabulary, line_item
from assay.grounding.lexicon import (
    CLAUSE,
    CROSS_PERIOD_WORDS,
    GAIN_WORDS,
    LOSS,
    LOSS_WORDS,
    POLARITY,
    RESPECTIVELY,
    SUM_WORDS,
    licences,
    may_polar,
    question_carries_sign,
    stated_sign_at,
    text_licences,
)
from assay.grounding.operands import YEAR as _YEAR
from assay.grounding.operands import (
    YEAR_LOWER,
    item_owner,
    judged_year,
    listed_figures,
    match_year,
    nearest_in_clause,
    period_owner,
    respective_items,
)
from assay.grounding.triggers import ALL, CROSS, POLAR, RESPECTIVE, SUM, TOTAL

__all__ = [
    "LOSS_WORDS",
    "GAIN_WORDS",
    "SUM_WORDS",
    "CROSS_PERIOD_WORDS",
    "SentenceContext",
    "SnapshotVocabulary",
    "question_carries_sign",
    "line_item",
]

_CLAUSE = CLAUSE
_new = object.__new__
_RANGE = re.compile(r"\s*(?:to|through|thru|-|–)\s*")
_BASE_BEFORE = re.compile(
    r"(?:\bas\s+an?\s+(?:percentage|percent|share|proportion|portion|ratio|fraction)|\b(?:percentage|percent|share)|%)"
    r"\s+of\s+(?:the\s+|total\s+)*$",
    re.I,
)
#: After an item named by "percentage of": the item is the part, the base follows ("the percentage
#: of Bell Wireless out of the Total BCE operating revenues", "… of more than 5 years in the total …").
_PART_OF_TOTAL = re.compile(r"(?:\s*\([^)]{0,12}\))?(?:[^,;.]{0,40}?)\s(?:out of|in|within)\s+(?:the\s+)?total\b", re.I)


def _may_base(text: str, s: int) -> bool:
    """False only when ``_BASE_BEFORE`` cannot match ``text[:s]``: its match ends in white space after
    "of", "the" or "total" (a test of the last word, not a scan of the sentence)."""
    return s > 0 and text[s - 1].isspace() and text[:s].rstrip()[-5:].lower().endswith(("of", "the", "total"))


_BASE = re.compile(r"\s*(?:of|to|over|relative to|as a (?:share|percentage|percent) of)\s+(?:the\s+|total\s+)*$", re.I)


@dataclass(frozen=True)
class SentenceContext:
    """One sentence read for the rules: its text and offset, the known years and line items it
    names, each attributed to the nearest number of its clause (``by_number``: quantity start →
    ``(years, items)``), and whether it (or the question) licenses a sum or a cross-period sum."""

    text: str
    offset: int
    by_number: dict[int, tuple[frozenset[int], tuple[str, ...]]]
    number_ends: tuple[int, ...]
    sum_licensed: bool
    cross_period_licensed: bool
    polarity: dict[int, int] | None = None  # quantity start → −1 (loss words) / +1 (profit words)
    exact: frozenset[str] = frozenset()  # named items that are exactly a fact's line item
    named: tuple[tuple[int, int, str], ...] = ()  # every named item's span in ``text``
    question_loss: bool = False  # the question names a loss: its figures may be the loss's magnitudes
    contradicted: frozenset[int] = frozenset()  # numbers whose direction contradicts "from A to B"
    year_mentions: int = 0  # known years the sentence names (mentions, not distinct)
    may: int = ALL  # the word families the sentence may hold (:func:`~assay.grounding.triggers.sentence_triggers`)
    #: False when no clause of the sentence can hold a loss or profit word: an ASCII text with none
    #: of them (``stated_sign_at`` reads substrings of it, so it would find none).
    may_state_sign: bool = True
    #: Items paired with numbers by "respectively" (:func:`~.operands.respective_items`): each is its number's.
    paired: bool = False
    #: Each named item given a number: ``(start, end, quantity start)`` (its span in ``text``, its number).
    owned: tuple[tuple[int, int, int], ...] = ()

    @classmethod
    def read(
        cls,
        text: str,
        offset: int,
        vocab: SnapshotVocabulary,
        question: str | None = None,
        numbers: Sequence[Quantity] = (),
        may: int = ALL,
    ) -> SentenceContext:
        """Read sentence ``text`` (starting at ``offset`` of the answer, stating ``numbers``);
        ``may``: its :func:`~assay.grounding.triggers.sentence_triggers` bits (a family it lacks is
        not searched: its pre-check would find nothing)."""
        q = question or ""
        t_sum, t_cross = text_licences(text) if may & (SUM | CROSS | TOTAL) else (False, False)
        q_sum, q_cross = licences(q)
        summed, cross = q_sum or t_sum, q_cross or t_cross  # a cross-period licence is a sum licence
        polar_text = bool(may & POLAR) and (not text.isascii() or may_polar(text))
        qloss = bool(q) and may_polar(q) and LOSS.search(q) is not None
        if not numbers:
            return cls(text, offset, {}, (), summed, cross, {}, frozenset(), (), qloss, frozenset(), 0, may, polar_text)
        k_years: dict[int, set[int]] = {}  # number index → the years given it
        k_items: dict[int, list[str]] = {}  # number index → the items named for it
        polar: dict[int, set[int]] = {}
        respectively = bool(may & RESPECTIVE) and RESPECTIVELY.search(text) is not None
        low = text.lower() if text.isascii() else None  # the case-blind scans read it without re.I
        named = tuple(vocab.named_spans(text, low))  # a cut inside a named item is none: "cash, and restricted …"
        clauses = [m.span() for m in _CLAUSE.finditer(text)]  # one scan for both lists
        if named:
            inside = [e for s, e in clauses if any(a < s < b for a, b, _ in named)]
            cuts = [0, *(e for _, e in clauses if e not in inside), len(text) + 1]
        else:
            cuts = [0, *(e for _, e in clauses), len(text) + 1]
        spans = [(n.span[0] - offset, n.span[1] - offset) for n in numbers]
        if named:  # a number inside a named item ("(Scope 1)") is part of the name: far off
            spans = [(-1 << 30, -1 << 30) if any(a <= x and y <= b for a, b, _ in named) else (x, y) for x, y in spans]
        years = (
            [
                (m.start(), m.end(), y)
                for m in (_YEAR.finditer(text) if low is None else YEAR_LOWER.finditer(low))
                if (y := match_year(m)) in vocab.years or judged_year(text, m, spans, named)
            ]
            if vocab.years
            else []
        )
        if respectively and years:  # "in 2019 and 2018, respectively": in order, or any of them
            paired = len(years) == len(numbers)
            named_set = {y for _, _, y in years}
            for (_, e1, y1), (s2, _, y2) in zip(years, years[1:], strict=False):
                if _RANGE.fullmatch(text, e1, s2):  # "fiscal years 2019 to 2017": and the years between
                    named_set |= set(range(min(y1, y2), max(y1, y2) + 1)) & vocab.years
                    paired = False
            for i in range(len(numbers)):
                k_years[i] = {years[i][2]} if paired else named_set
        elif years and len(numbers) == 1:  # one number: every year is its
            k_years[0] = {y for _, _, y in years}
        elif years:
            for s, e, y in years:
                k = period_owner(text, spans, s, e, cuts)
                if k is not None:
                    k_years.setdefault(k, set()).add(y)
        for m in POLARITY.finditer(text) if polar_text else ():
            k = nearest_in_clause(spans, m.start(), m.end(), cuts)
            if k is not None:
                polar.setdefault(k, set()).add(-1 if LOSS.fullmatch(m.group(0)) else 1)
        listed = respectively or listed_figures(text, named, spans)  # "A and B were $X and $Y": in order too
        paired_items = respective_items(text, named, spans) if listed else None
        owned: list[tuple[int, int, int]] = []
        for j, (s, e, name) in enumerate(named):
            k = paired_items[j] if paired_items is not None else item_owner(text, spans, s, e, cuts)
            if k is None:
                continue
            if numbers[k].unit in ("%", "pp", "x") and _BASE.match(text, spans[k][1], s):
                continue  # "44.1% of net sales": the base of a ratio, not what it is
            if _may_base(text, s) and _BASE_BEFORE.search(text, 0, s) and not _PART_OF_TOTAL.match(text, e):
                continue  # "… as a percentage of revenue": the base, wherever the number stands
            k_items.setdefault(k, []).append(name)
            owned.append((s, e, numbers[k].span[0]))
        frozen = {
            numbers[k].span[0]: (frozenset(k_years.get(k, ())), tuple(k_items.get(k, ())))
            for k in (k_years.keys() | k_items.keys())
        }
        polarity = {numbers[k].span[0]: next(iter(v)) for k, v in polar.items() if len(v) == 1}
        exact = frozenset(n for items in k_items.values() for n in items if n in vocab.items)
        ends = tuple(n.span[1] - offset for n in numbers)
        contra = from_to_contradictions(text, offset, numbers)
        ctx = _new(cls)  # = cls(...) without the frozen dataclass's object.__setattr__ per field (16 of them)
        ctx.__dict__.update(
            text=text,
            offset=offset,
            by_number=frozen,
            number_ends=ends,
            sum_licensed=summed,
            cross_period_licensed=cross,
            polarity=polarity,
            exact=exact,
            named=named,
            question_loss=qloss,
            contradicted=contra,
            year_mentions=len(years),
            may=may,
            may_state_sign=polar_text,
            paired=paired_items is not None,
            owned=tuple(owned),
        )
        return ctx

    def before(self, q: Quantity, width: int = 60) -> str:
        """The text of ``q``'s clause right before it (at most ``width`` characters)."""
        s = q.span[0] - self.offset
        cut = max((m.end() for m in _CLAUSE.finditer(self.text, 0, s)), default=0)
        return self.text[max(cut, s - width) : s]

    def stated_sign(self, q: Quantity) -> int | None:
        """−1 / +1 when a loss / profit word sits in ``q``'s clause (see module doc), else None."""
        if not self.may_state_sign:
            return None
        return stated_sign_at(self.text, q.span[0] - self.offset, q.span[1] - self.offset, self.number_ends)
