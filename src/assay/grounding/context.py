"""What a sentence says a number IS: its period, its line item, its sign wording, sum licences.

The gate checks a stated value against the data; these rules check that the data it matched is
what the sentence says it is (issue 15). Each is conservative: it only fires when the sentence
names something the snapshot knows, so a sentence that names no period or no known label is
judged by value alone. :func:`acceptable` is the one predicate the gate applies to a candidate
that matches in value; it returns the violation kind and reason when the candidate is not what
the sentence states.

Rules, in the order checked:

- **sign wording** (direct matches, stated number without a written sign): a loss word
  (:data:`LOSS_WORDS`: "loss", "lost", "deficit", "negative", "손실") within the number's
  clause (60 characters before it, or right after it: "a $5 million loss") on a candidate whose
  sign is positive fails; a profit word (:data:`GAIN_WORDS`) on a negative candidate fails. A
  candidate's sign is its value's, or negative when its line item is a loss ("Net loss" = 5)
  and names no gain. Both kinds in one window decide nothing when adjacent (``gain (loss)``);
  far apart, the nearer is the number's. On a derivation, the word fails when every operand
  (or, of both signs, the later: :func:`~assay.grounding.operands.later_operand`) has the
  other sign (a question naming the loss licenses positive loss magnitudes).
- **direction** (direct matches of a number the wording gives a direction): a fact that states
  its own direction — the one change word of a paragraph number's context, or the sign of a
  cell in a "Change" column — must agree ("the decrease in interest income was $16.9 million"
  fails on "…increased by $16.9 million…"); a number only compared to ("lower than the 3.6%")
  states none. A stated percent change is never a ratio of two levels (a ratio change ÷ base
  takes the change's sign), nor against the sentence's own "from A … to B" figures; nor a
  change of two facts nothing orders in time (:func:`~assay.grounding.candidates.time_rank`).
- **profit/loss line items** (any match): a loss or profit word attributed to the number (the
  nearest number of its clause) must agree with the polarity of the candidate's line item(s):
  "operating income carryforward" on "Operating loss carryforward" fails (``label_mismatch``).
- **sums** (``a+b``): backed only when the operands are different line items of one period
  (segments, components), or the sentence or question licenses a sum (:data:`SUM_WORDS`:
  "combined", "together", "in total", "total of", "sum", "for both", "합계", and, across periods of one
  line item, :data:`CROSS_PERIOD_WORDS`: "over the two years", "cumulative", "both years",
  "due within 3 years", or a total/sum over two named years). Generic rows ("Total", "Other")
  of two tables are not one line item. A sum or difference with an operand below half a
  displayed unit is that one figure, not a derivation.
- **period_mismatch**: the sentence names years (``2019``, ``FY2023``, ``fiscal 2022``,
  ``2023년``) that are periods of the snapshot's facts, attributed to the nearest number of
  their clause, and none is the candidate's period (for a derivation: one of them is no
  operand's period; with an operand of unknown period, one named year must be an operand's;
  with two year mentions, every operand's year must be named); candidates without a period are
  never judged. "Respectively" pairs the years with the numbers in order (a set when the counts
  differ; "2019 to 2017" holds the years between); a one-number sentence gives it every year. A
  level ± its row's change column is another period's level.
- **label_mismatch**: the sentence names a line item that is exactly (case-insensitively, on word
  boundaries, or through the material-label synonyms of
  :data:`~assay.grounding.labels.DEFAULT_MATERIAL_LABELS`) the line item of a fact, and
  no named item is related to the candidate's (equal, one containing the other, or one concept);
  a named exact line item that is none of the candidate's fails too ("the ratio of cash to total
  liabilities" on total assets / total liabilities), for a direct match unless the sentence also
  names the candidate's own item (:func:`~assay.grounding.labels.related_to`). An item after
  "percentage/share of" is a base, not what the number is.
- **twins** (:func:`~assay.grounding.twins.twin_veto`): a paragraph number repeating a line item's figure is judged as
  that line item, unless its own context names the year (:func:`~.operands.own_years`) or item.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.claims import Quantity
from assay.grounding.candidates import Candidate
from assay.grounding.change_amount import ratio_veto
from assay.grounding.direction import (
    COMPARED,
    change_ratio_direction,
    from_to_contradictions,
    shifted_level,
)
from assay.grounding.label_rule import label_veto
from assay.grounding.label_signs import NEUTRAL_CHANGE, fact_sign, label_polarity, told_direction
from assay.grounding.labels import GENERIC_ITEMS, SnapshotVocabulary, candidate_year, line_item
from assay.grounding.labels import period_year as _year
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
    later_operand,
    listed_figures,
    match_year,
    nearest_in_clause,
    negligible,
    period_owner,
    respective_items,
    split_years,
    unordered_direction,
    unordered_veto,
)
from assay.grounding.triggers import ALL, CROSS, POLAR, RESPECTIVE, SUM, TOTAL

__all__ = [
    "LOSS_WORDS",
    "GAIN_WORDS",
    "SUM_WORDS",
    "CROSS_PERIOD_WORDS",
    "SentenceContext",
    "SnapshotVocabulary",
    "acceptable",
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


def acceptable(q: Quantity, c: Candidate, ctx: SentenceContext | None) -> tuple[str, str] | None:
    """``(kind, reason)`` when ``c`` matches ``q``'s value but not what the sentence states, else None.

    ``kind`` is ``"sign"``, ``"sum"``, ``"period_mismatch"`` or ``"label_mismatch"``.
    """
    if ctx is None:
        return None
    operands = c.operands or (c,)
    if (amount := ratio_veto(q, c)) is not None:
        return amount
    if c.op in ("a/b", "|a|/|b|") and q.direction is not None and q.unit in ("%", "pp"):
        told = change_ratio_direction(c)
        if told is None or told != q.direction:
            return (
                "sign",
                f"the wording states {'a rise' if q.direction > 0 else 'a fall'}, but {c.ref} is no such change",
            )
    if unordered_direction(q, c):
        return unordered_veto(c)
    if q.direction is not None and not q.explicit_sign and q.span[0] in ctx.contradicted:
        return "sign", "the wording's direction contradicts the sentence's own 'from … to …' figures"
    if c.op is None and q.direction is not None and not q.explicit_sign and not COMPARED.search(ctx.before(q)):
        told = told_direction(c)
        if told is not None and told != q.direction:
            said = "a rise" if q.direction > 0 else "a fall"
            return "sign", f"the wording states {said}, but {c.ref} is {'a rise' if told > 0 else 'a fall'}"
    if c.op is None and not q.explicit_sign and (q.direction is None or not NEUTRAL_CHANGE.search(c.label)):
        stated = ctx.stated_sign(q)  # (a change figure stated with a way: its sign is that way, checked above)
        if stated is not None and fact_sign(c) != stated:
            word = "a loss" if stated < 0 else "a profit"
            return "sign", f"the wording states {word}, but {c.ref} is {'positive' if stated < 0 else 'negative'}"
    if c.op is not None and not q.explicit_sign:
        stated = ctx.stated_sign(q)
        if (
            stated is not None
            and {fact_sign(o) for o in operands} == {-stated}
            and not (stated < 0 and ctx.question_loss)
        ):
            word = "a loss" if stated < 0 else "a profit"
            return (
                "sign",
                f"the wording states {word}, but every figure of {c.ref} is {'positive' if stated < 0 else 'negative'}",
            )
        later = later_operand(c)
        if (
            stated is not None
            and later is not None
            and len({fact_sign(o) for o in operands}) == 2
            and fact_sign(later) != stated
            and not (stated < 0 and ctx.question_loss)
        ):
            word = "a loss" if stated < 0 else "a profit"
            return "sign", f"the wording states {word}, but the later figure of {c.ref}, {later.ref}, is not one"
    if c.op in ("a+b", "a-b") and any(negligible(q, o) for o in operands):
        return "sum", f"{c.ref} adds or takes a figure below the stated precision: it is one figure, not a derivation"
    net = (  # one line item across periods with opposite signs: a net change, a difference
        c.op == "a+b"
        and operands[0].value * operands[-1].value < 0
        and line_item(operands[0].label) == line_item(operands[-1].label)
    )
    if c.op == "a+b" and not net and not ctx.sum_licensed:
        a, b = operands[0], operands[-1]
        same_item = line_item(a.label) == line_item(b.label) and line_item(a.label) not in GENERIC_ITEMS
        ya, yb = candidate_year(a), candidate_year(b)
        if same_item or (ya is not None and yb is not None and ya != yb):
            what = "two periods of one line item" if same_item else "two periods"
            return "sum", f"{c.ref} adds {what}; nothing says so"
    elif c.op == "a+b" and not net and not ctx.cross_period_licensed:  # two known years: a cross-period sum
        a, b, ya, yb = operands[0], operands[-1], candidate_year(operands[0]), candidate_year(operands[-1])
        if ya != yb and (None not in (ya, yb) or line_item(a.label) == line_item(b.label) not in GENERIC_ITEMS):
            return "sum", f"{c.ref} adds two periods of one line item; nothing says so"
    pol = (ctx.polarity or {}).get(q.span[0])
    if pol is not None:
        pols = {label_polarity(o) for o in operands} - {None}  # the operands that have a polarity
        if len(pols) == 1 and pols.pop() != pol:
            item = line_item(operands[0].label)
            return (
                "label_mismatch",
                f"the wording states {'a loss' if pol < 0 else 'a profit'}, but {c.ref} is {item!r}",
            )
    named_years, named_items = ctx.by_number.get(q.span[0], (frozenset(), ()))
    if named_years:
        op_years = [_year(o.period) for o in operands]
        years = {y for y in op_years if y is not None}
        # one period: it must be named; a derivation: every named year is an operand's (an operand of unknown
        # period: one named year must be an operand's); two year mentions: every operand's year is named in
        # the sentence ("$383.3 billion in fiscal 2023 were $11.0 billion less than in fiscal 2022")
        if c.op is None or None in op_years:
            off = not years & named_years
        else:
            in_sentence = frozenset[int]().union(*(ys for ys, _ in ctx.by_number.values()))  # all it names
            off = bool(named_years - years) or (ctx.year_mentions >= 2 and bool(years - in_sentence))
        moved = shifted_level(c)  # a level ± its change column is the level of another period
        if moved is not None and named_years == {moved}:
            return "period_mismatch", f"{c.ref} is {moved}'s figure moved by its change: another period's"
        if (
            len(years)
            and off
            and not (c.op is None and (split_years(c.label) | split_years(c.period or "")) & named_years)
        ):  # "FY2019": 2018/19
            named = ", ".join(str(y) for y in sorted(named_years))
            of = ", ".join(map(str, sorted(years)))
            return "period_mismatch", f"the sentence names {named}, but {c.ref} is of {of}"
    if named_items:
        elsewhere = tuple((s, e) for s, e, k in ctx.owned if k != q.span[0])  # items named for its other numbers
        at = q.span[0] - ctx.offset
        return label_veto(
            c.ref, operands, c.op is not None, named_items, ctx.exact, ctx.paired, ctx.text, ctx.named, elsewhere, at
        )
    return None
