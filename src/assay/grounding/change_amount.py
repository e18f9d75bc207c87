"""What a stated change can be (issue 15): :func:`ratio_veto` (in
:func:`assay.grounding.acceptable.acceptable`), :func:`level_veto` and :func:`percent_change_veto` (in
:func:`assay.grounding.sentence_rules.sentence_reader`, which holds the snapshot's facts).

A number the wording states as a change ("increased by 0.7", "decreased by $3 million from 2018
to 2019": ``Quantity.direction`` set, no written sign) without a percent, percentage-point or
multiple unit is an amount in the unit of the figures that changed. Two candidates match such a
number in value and are not what it is:

- **a ratio** (``a/b``, ``|a|/|b|``, ``(a-b)/b``): 2.4 / 3.1 = 0.77 is no "increase by 0.8",
  and (0.4 − 0.5) / 0.5 = −0.2 is a relative change, stated as "20%", never as "by 0.2". A
  percent change keeps its own rule (a ratio change ÷ base, in ``acceptable``).
- **a sum** (``a+b``) of two levels: "Total segment assets increased by 15 billion from 2018
  to 2019" is no 7,730 + 7,715 million (a cited TAT-QA false accept of the table change set); a
  sum of figures that are each a change (their labels name one: "Change in A" + "Change in B")
  may be a total change and stays.
- **one period's level, when the sentence states the change between two named years** ("Tamil
  films increased by 3 from 2018 to 2019" on the 2019 level 3): a change between two years is a
  difference of their levels, or a figure that is itself a change (its label names one: a
  "Change" column, "Net increase in cash"), not either year's level — unless the same line item
  is 0 in the other named year (then the difference IS the level: "decreased by 27,603 from
  FY18 to FY19", FY18 = 0).

The mirror rule, :func:`difference_veto`: a difference of one line item's figures of two periods
is a change, so a number stated as a level — no direction, no percentage points, no word of a
change or comparison in its clause ("fell by", "the difference", "lower than", "from … to …",
"증가" …: :data:`~assay.grounding.lexicon.CHANGE_WORDS`, whole words) and none of a change in its
question — is not backed by it: "Total net sales were $11,043
million [F1, F2]" on FY2022 − FY2023 (a new user's false accept: every fact cited, their
difference stated as one year's sales). A difference of two line items of one period ("Gross
profit was $X [revenue, cost of sales]") stays: that is how a level is derived.

Measured on the TAT-QA change-sentence set (cited ``moved_unit``: these are the five of its
false accepts); the labels a change is recognised by are
:data:`~assay.grounding.label_signs.A_CHANGE_LABEL`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from assay.claims import Quantity
from assay.grounding.candidates import Candidate, time_rank
from assay.grounding.label_signs import A_CHANGE_LABEL, told_direction
from assay.grounding.labels import GENERIC_ITEMS, line_item, period_year
from assay.grounding.level_moves import FALL_VERBS, RISE_VERBS
from assay.grounding.lexicon import CHANGE, CLAUSE, COMPARISON, sub_questions
from assay.grounding.sentence_memo import sentence_memo

__all__ = ["ratio_veto", "level_veto", "cell_level_veto", "percent_change_veto", "difference_veto", "RATIO_OPS"]

#: Derivations that are ratios of two figures (dimension ``ratio``; :mod:`assay.grounding.candidates`).
RATIO_OPS = frozenset({"a/b", "|a|/|b|", "(a-b)/b"})


def ratio_veto(q: Quantity, c: Candidate) -> tuple[str, str] | None:
    """``("sign", reason)`` when ``c`` is a ratio and ``q`` a change amount, ``("sum", reason)``
    when ``c`` is a sum of figures that are not themselves changes (module doc), else None."""
    if not _amount(q):
        return None
    if c.op in RATIO_OPS:
        return "sign", f"the wording states a change by an amount, but {c.ref} is a ratio of two figures"
    if c.op == "a+b" and not all(A_CHANGE_LABEL.search(o.label) for o in c.operands or ()):
        return "sum", f"the wording states a change by an amount, but {c.ref} is a sum of two levels"
    return None


def level_veto(
    q: Quantity,
    c: Candidate,
    named_years: frozenset[int],
    facts: Iterable[Candidate],
    all_facts: Iterable[Candidate] = (),
) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when ``c`` is one named year's level and ``q`` the change
    between two named years — an amount, or a percent stated with a direction ("Swedish Krona fell
    8.7% from 2018 to 2019" on 2018's level 8.7: a cited TAT-QA false accept of the table %-change
    set) — (module doc), else None (a table cell: :func:`cell_level_veto`).

    ``named_years``: the years the sentence gives ``q`` (:class:`~assay.grounding.context.SentenceContext`);
    ``facts``: the facts the sentence draws on (cited mode: its cited facts; uncited: the
    snapshot's), read only when the veto would fire: a level whose line item is 0 in another named
    year IS the change ("decreased by 27,603 from FY18 to FY19", 0 in FY18; a zero of another
    table's row of the same name, not cited, is no base of this one).
    """
    if c.op is not None or c.origin != "fact":
        return None
    if not _amount(q):  # a relative change between two named years is no one year's level either
        if not (_relative_change(q) and len(named_years) >= 2):
            return None
    elif len(named_years) < 2:
        return _unnamed_level_veto(c, facts, all_facts)
    y = period_year(c.period)
    if y is None or y not in named_years or A_CHANGE_LABEL.search(c.label):
        return None
    item = line_item(c.label)
    others = named_years - {y}
    if any(f.value == 0 and period_year(f.period) in others and line_item(f.label) == item for f in facts):
        return None
    between = " and ".join(str(n) for n in sorted(named_years))
    return "period_mismatch", f"the sentence states a change between {between}, but {c.ref} is {y}'s level"


def percent_change_veto(q: Quantity, c: Candidate) -> tuple[str, str] | None:
    """``("sign", reason)`` when ``q`` is a relative change stated by its wording ("1% lower than
    the prior year", "increased by 3% between FY2021 and FY2022": a percent or percentage points
    with a direction, no written sign) and ``c`` a passage number that nothing marks as a change,
    else None.

    A page's number may be a change when its own line tells a direction ("sales increased 1.3%",
    :func:`~assay.grounding.label_signs.told_direction`, or its paragraph twin does), its row label names
    one (:data:`~assay.grounding.label_signs.A_CHANGE_LABEL`: "Change", "Growth", "Increase (decrease)")
    or a header-like line of its page names a change column ("% Change", "22 vs. 21":
    ``Candidate.page_names_change``; which cell sits in that column is not known, so every cell of
    such a page keeps the benefit of the doubt). A number of a page with none of these is a level —
    a margin, a rate, a per-share figure — and a level that happens to equal the stated change
    backs it no more than a level fact would ("adjusted EBITDA was 1% lower than the prior year"
    on a "Net loss on disposals" cell of 0.7). Facts and derivations keep their own rules (a fact's
    label and period, a ratio's operands). Measured on FinanceBench's correct answers (issue 15,
    uncited ``direction_word``; see the closing note).
    """
    if q.direction is None or q.explicit_sign or q.unit not in ("%", "pp") or c.op is not None:
        return None
    if c.origin != "passage" or c.page_names_change or A_CHANGE_LABEL.search(c.label):
        return None
    if told_direction(c) is not None:
        return None
    return "sign", f"the wording states a change, but {c.ref} is a level: nothing on its page names a change"


def _unnamed_level_veto(
    c: Candidate, facts: Iterable[Candidate], all_facts: Iterable[Candidate]
) -> tuple[str, str] | None:
    """:func:`level_veto` when the sentence names fewer than two years ("Revenue rose by $200 million
    [F1, F2]" on F1, 2023's $200 million): a change amount is a difference of two levels, so a fact
    whose line item has a level of another period among ``all_facts`` (the snapshot's) is one
    period's level, not the change — unless that other level is 0 among ``facts`` (the sentence's
    pool, as :func:`level_veto`) or the label names a change."""
    y = period_year(c.period)
    if y is None or A_CHANGE_LABEL.search(c.label):
        return None
    item = line_item(c.label)
    if not any(
        f.period != c.period and period_year(f.period) is not None and line_item(f.label) == item for f in all_facts
    ):
        return None
    if any(f.value == 0 and f.period != c.period and line_item(f.label) == item for f in facts):
        return None
    return "sign", f"the wording states a change by an amount, but {c.ref} is {y}'s level of {item!r}"


def cell_level_veto(
    q: Quantity, c: Candidate, named_years: frozenset[int], text: str = "", alone: bool = False
) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` or None: :func:`level_veto` for a table cell with a column
    year (``Candidate.column_year``). A change between two named years — an amount or a percent —
    is not the level of one of them ("has decreased by 3% between FY2021 and FY2022" on the 2021
    column's 3% "(as a % of net sales)"), unless the cell is itself a change: its row label names
    one, or it tells a direction (a year column of changes, "Sales increase/(decrease) due to:
    2022 2021", with its paragraph twin). ``named_years``: every year the sentence names
    (:func:`assay.grounding.column_period.named_years`). A change is stated by a direction, or by a change
    noun that is the subject of ``text``, the sentence of ``q`` when it is its only number (``alone``): "The
    change in … between December 31, 2018 and 2019 was 182" on the 2019 column's 182 (gate-20). Not for a
    change of 0 (two equal levels, which no derivation shows) or a row with an empty, dash or zero cell (a
    change from nothing is the level: "Contract liabilities | 640 | —")."""
    y = c.column_year
    if q.explicit_sign or c.op is not None or y is None or len(named_years) < 2:
        return None
    if q.direction is None and (
        not alone or q.value == 0 or not _CHANGE_SUBJECT.match(text) or _NO_LEVEL.search(c.label) is not None
    ):
        return None
    if y not in named_years or A_CHANGE_LABEL.search(c.label) or told_direction(c) is not None:
        return None
    between = " and ".join(str(n) for n in sorted(named_years))
    return "period_mismatch", f"the sentence states a change between {between}, but {c.ref} is {y}'s column"


#: A sentence whose subject is a change named by a noun: "The change in", "The percentage change in", "The
#: difference in", "The variance of", "The increase/(decrease) in" (a direction of no way: its sign is the figure's).
_CHANGE_SUBJECT = re.compile(
    r"\s*(?:the\s+)?(?:(?:percentage|net|total|year-over-year|annual)\s+)?"
    r"(?:change|difference|variance|movement|increase\s*/\s*\(?decrease\)?)\s+(?:in|of|for)\b",
    re.I,
)
#: A "|" row cell that is empty, a dash or zero: a level of nothing, from which a change is the other level.
_NO_LEVEL = re.compile(r"\|\s*(?:\$\s*)?(?:[-–—]|0|0\.0+)?\s*(?=\||$)")


def _relative_change(q: Quantity) -> bool:
    """Whether ``q`` is a relative change stated by its wording: a direction, no written sign, in % or pp."""
    return q.direction is not None and not q.explicit_sign and q.unit in ("%", "pp")


def _amount(q: Quantity) -> bool:
    """Whether ``q`` is a change amount: a direction from the wording, no written sign, no %, pp or x."""
    return q.direction is not None and not q.explicit_sign and q.unit not in ("%", "pp", "x")


def difference_veto(q: Quantity, c: Candidate, text: str, offset: int, question: str | None) -> tuple[str, str] | None:
    """``("sign", reason)`` when ``c`` is a difference of one line item's figures of two periods
    (:func:`~assay.grounding.candidates.time_rank`: two facts' periods, or two cells of a passage
    row under two column years) and ``q`` is stated as a level (module doc): no direction, not in
    percentage points, no change or comparison word (:data:`~assay.grounding.lexicon.CHANGE`,
    :data:`~assay.grounding.lexicon.COMPARISON`) in its clause of sentence ``text`` (at ``offset``
    of the answer; 80 characters before the number to 40 after it), nor a change word, "from … to
    …" or "than" in ``question``; else None."""
    if c.op != "a-b" or len(c.operands) != 2 or q.direction is not None or q.unit == "pp":
        return None
    a, b = c.operands
    item = line_item(a.label)
    if item != line_item(b.label) or item in GENERIC_ITEMS or A_CHANGE_LABEL.search(a.label):
        return None
    ra, rb = time_rank(a), time_rank(b)  # periods, or a passage row's column years
    if ra is None or rb is None or ra[0] != rb[0] or ra == rb:
        return None
    s = q.span[0] - offset
    if _MOVE_END.search(text, max(0, s - 80), s) is None and (
        _clause_states_change(text, s, q.span[1] - offset) or _question_states_change(question or "")
    ):
        return None  # (a figure a move goes to or from is a level, whatever the clause's change word)
    return "sign", f"the sentence states a level, but {c.ref} is the change of {item!r} between two periods"


#: Right before a figure a move goes to or comes from: a level, not the change ("revenue rose to
#: $1,000 million", "fell from $2,000 million to …"; gate-16: the clause's change word licensed the
#: difference of the two periods, equal to the level when one figure is twice the other — a
#: property test's find).
_MOVE_END = re.compile(
    rf"(?:\b(?:{RISE_VERBS}|{FALL_VERBS})\b[^.;]{{0,40}}?\bto|\bfrom)\s+"
    r"(?:(?:about|approximately|roughly|nearly|almost|around)\s+)?\Z",
    re.I,
)


_THAN = re.compile(r"\bthan\b", re.I)
_FROM_TO = re.compile(r"\bfrom\b[^.;]{1,60}?\bto\b", re.I)


@sentence_memo
def _clause_states_change(text: str, s: int, e: int) -> bool:
    """A change or comparison word, or "from … to …", in the clause of ``text[s:e]`` (CLAUSE cuts),
    from 80 characters before it to 40 after it."""
    lo = max([m.end() for m in CLAUSE.finditer(text, 0, s)] + [0, s - 80])
    cut = CLAUSE.search(text, e)
    hi = min(cut.start() if cut else len(text), e + 40)
    window = text[lo:hi]
    return bool(CHANGE.search(window) or COMPARISON.search(window) or _FROM_TO.search(window))


@lru_cache(maxsize=1024)
def _question_states_change(question: str) -> bool:
    """A change word, "from … to …" or "than" ("How much less … in 2018 than 2019?") in each of
    ``question``'s :func:`~assay.grounding.lexicon.sub_questions` ("How did total net sales change,
    and what were total net sales in FY2023?" does not: the figure may answer the second)."""
    return bool(question) and all(
        CHANGE.search(p) or _FROM_TO.search(p) or _THAN.search(p) for p in sub_questions(question)
    )
