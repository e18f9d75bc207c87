"""The one predicate the gate applies to a value match: is the candidate what the sentence states?

The gate checks a stated value against the data; :func:`acceptable` checks that the data it matched
is what the sentence (read once: :class:`~assay.grounding.context.SentenceContext`) says it is
(issue 15), and returns the violation kind and reason when it is not. Each rule is conservative: it
only fires when the sentence names something the snapshot knows, so a sentence that names no
period or no known label is judged by value alone.

Rules, in the order checked:

- **sign wording** (direct matches, stated number without a written sign): a loss word
  (:data:`LOSS_WORDS`: "loss", "lost", "deficit", "negative", "손실") within the number's
  clause (60 characters before it, or right after it: "a $5 million loss") on a candidate whose
  sign is positive fails; a profit word (:data:`GAIN_WORDS`) on a negative candidate fails. A
  candidate's sign is its value's, or negative when its line item is a loss ("Net loss" = 5)
  and names no gain. Both kinds in one window decide nothing when adjacent (``gain (loss)``);
  far apart, the nearer is the number's. On a derivation, the word fails when every operand
  (or, of both signs, the later: :func:`~assay.grounding.operands.later_operand`) has the
  other sign (a question naming the loss licenses positive loss magnitudes). A passage number whose
  own words on its page state the sentence's sign passes this rule and the next (``own_sign``).
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
from collections.abc import Callable

from assay.claims import Quantity
from assay.grounding.candidates import CHANGE_OPS, Candidate
from assay.grounding.change_amount import ratio_veto
from assay.grounding.context import SentenceContext
from assay.grounding.direction import COMPARED, change_ratio_direction, shifted_level
from assay.grounding.label_rule import label_veto
from assay.grounding.label_signs import NEUTRAL_CHANGE, fact_sign, label_polarity, told_direction
from assay.grounding.labels import GENERIC_ITEMS, candidate_year, line_item
from assay.grounding.labels import period_year as _year
from assay.grounding.lead_period import BASE_BEFORE, RELATIVE, base_years, named_as_base, named_as_period
from assay.grounding.lexicon import COMPARISON
from assay.grounding.operands import (
    YEAR,
    later_operand,
    match_year,
    negligible,
    split_years,
    unordered_direction,
    unordered_veto,
)

__all__ = ["OwnSign", "acceptable"]

#: The sign a passage number's own words on its page state (−1 a loss, +1 a profit, None neither:
#: :func:`~assay.grounding.prose_numbers.prose_polarity` on its line), asked only when the wording
#: states a sign its value does not have.
OwnSign = Callable[[Candidate], int | None]


def acceptable(
    q: Quantity, c: Candidate, ctx: SentenceContext | None, own_sign: OwnSign | None = None
) -> tuple[str, str] | None:
    """``(kind, reason)`` when ``c`` matches ``q``'s value but not what the sentence states, else None.

    ``kind`` is ``"sign"``, ``"sum"``, ``"period_mismatch"`` or ``"label_mismatch"``. ``own_sign``
    (:data:`OwnSign`): a passage number whose own words on its page state the sign the wording states
    ("a net loss of $3.8 million") is no sign mismatch, whatever its value's sign or its label's
    polarity (a paragraph number's label is its line's first words); the period and label rules still
    judge it (gate-21: the sign veto was waived after this function returned, so they were skipped).
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
        if stated is not None and fact_sign(c) != stated and not _states_own(own_sign, c, stated):
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
        if len(pols) == 1 and pols.pop() != pol and not _states_own(own_sign, c, pol):
            item = line_item(operands[0].label)
            return (
                "label_mismatch",
                f"the wording states {'a loss' if pol < 0 else 'a profit'}, but {c.ref} is {item!r}",
            )
    named_years, named_items = ctx.by_number.get(q.span[0], (frozenset(), ()))
    if named_years and c.op in CHANGE_OPS and (into := _change_year_veto(q, c, named_years, ctx)) is not None:
        return into
    if c.op is None and ctx.year_mentions and (base := base_years(ctx.text)) and not _stated_as_base(q, ctx):
        named_years = named_years - base  # a year named only as a change's base is no level's ("up from 2018")
        if not named_years and (year := candidate_year(c)) in base:
            return "period_mismatch", f"the sentence compares with {year}, but {c.ref} is that year's own"
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


def _states_own(own_sign: OwnSign | None, c: Candidate, sign: int) -> bool:
    """Whether ``c`` is a passage number whose own words on its page state ``sign`` (:data:`OwnSign`)."""
    return own_sign is not None and c.op is None and c.origin == "passage" and own_sign(c) == sign


def _change_year_veto(q: Quantity, c: Candidate, named: frozenset[int], ctx: SentenceContext) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when a change of two years' figures (``a-b`` or ``(a-b)/b``), stated
    with a direction, is named by one year, once, "in", "during" or "for" it
    (:func:`~.lead_period.named_as_period`), that is its earlier figure's: a change of a year is the change
    into it ("Revenue rose 10% in 2018" on 2019's 1,100 over 2018's 1,000; gate-21, a new user's false accept:
    every named year was an operand's, so it passed). Not in a sentence that compares
    (:data:`~.lexicon.COMPARISON`: "10% above 2018", "exceeded 2018 by"; "대비", "보다") or names a relative
    period ("the following year": :data:`~.lead_period.RELATIVE`): there the year may be the base."""
    if c.op not in CHANGE_OPS or q.direction is None or len(named) != 1 or ctx.year_mentions != 1:
        return None
    years = [candidate_year(o) for o in c.operands]
    (year,) = named
    if years[0] is None or years[1] is None or years[0] == years[1] or year != min(years[0], years[1]):
        return None
    if not any(match_year(m) == year and named_as_period(ctx.text, m.start()) for m in YEAR.finditer(ctx.text)):
        return None
    if COMPARISON.search(ctx.text) or RELATIVE.search(ctx.text) or "대비" in ctx.text or "보다" in ctx.text:
        return None
    later = max(years[0], years[1])
    return (
        "period_mismatch",
        f"the sentence names {year} for a change, but {c.ref} is the change from {year} to {later}",
    )


def _stated_as_base(q: Quantity, ctx: SentenceContext) -> bool:
    """Whether level ``q`` is itself stated as a base, so a year named as the base may be its own: after a
    base word ("rose 10% from $1,000 million": :data:`~.lead_period.BASE_BEFORE`) or right after a base year
    ("versus in 2022 $99.8 billion", "from 2018's $1,000 million")."""
    start = q.span[0] - ctx.offset
    if BASE_BEFORE.search(ctx.text, 0, start) is not None:
        return True
    return any(
        _RIGHT_BEFORE.fullmatch(ctx.text, m.end(), start) and named_as_base(ctx.text, m.start())
        for m in YEAR.finditer(ctx.text, 0, start)
    )


#: Between a base year and its own figure: "'s", spaces, a comma ("from 2018's $1,000", "in 2022 $99.8").
_RIGHT_BEFORE = re.compile(r"(?:['’]s)?[\s,]*")
