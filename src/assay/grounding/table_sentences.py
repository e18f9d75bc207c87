"""Third templated sets for the perturbation suite: a sentence for EVERY row and year of a table.

The first and second templates (:func:`~assay.grounding.perturbations.templated_case`,
:mod:`assay.grounding.row_templates`) make at most one sentence per question, from its first
cited fact, so a class that needs a sign word, a direction or a one-fact level sentence gets too
few cases to prove its bound (0/n proves a 95% Wilson upper bound ≤ 1% only from n ≥ 381, ≤ 5%
from n ≥ 73). These templates state, for every in-scope table cell (or pair of cells) of one
table, one TRUE sentence; each family is its own measured set, with its n:

- :func:`level_sentences` — ``"{Item} in {year} was {figure} [{id}]."`` for every positive
  amount cell (a one-fact, one-number sentence: what ``sum_periods`` perturbs).
- :func:`profit_loss_sentences` — ``"{Item} in {year} was a {profit|loss} of {figure} [{id}]."``
  for every cell of a result row (:data:`RESULT_ROW`), every year (not only the first fact, as
  :func:`~assay.grounding.row_templates.sign_case`): "loss" for a row naming a loss (the cell
  holds the loss, as a magnitude or in parentheses; skipped when the row holds values of both
  signs: one of them would be a profit), "profit" for a row naming a profit with a positive
  value (a negative one is skipped: the sentence would name both kinds).
- :func:`change_sentences` — ``"{Item} {increased|decreased} by {|later − earlier|} from {earlier
  year} to {later year} [{later id}, {earlier id}]."`` for every pair of years of every row with
  two different positive values (not only the first cited fact, as
  :func:`~assay.grounding.row_templates.direction_case`); the change at the larger of the two
  cells' displayed decimals, with the unit's scale word.
- :func:`percent_change_sentences` — ``"{Item} {rose|fell} {p}% from {earlier year} to {later
  year} [{later id}, {earlier id}]."``, ``p = |later − earlier| / earlier × 100`` at one decimal,
  for the same pairs (a percent change of a positive base is honest; of a negative or zero base
  it is not stated); skipped when ``p`` rounds to 0.0 or sits on a rounding tie (131.25%: both
  131.2% and 131.3% are true, so ``moved_unit``'s move to the other would not be false).

In scope (every family): table cells (label ``"row | column"``) whose column has a year
(``period`` "2019"), whose unit is an amount (``USD``, ``USD thousands|millions|billions``,
``thousands``, ``millions`` or none: a percent's change would be read in percentage points; a
column naming "%" or "percent(age)" holds percents stored without a unit and is left out), whose
row names a line item (:func:`~assay.grounding.perturbations._nameable`; a row naming a digit is
skipped: its number would be read as a claim; trailing footnote marks "(1)", "*" are cut) and
which is the only cell of its row, unit and year (a table with two columns of one year, or one
row label under two sections, is ambiguous: "X in 2019" would not say which). The change
families need both values positive (a loss stored negative would "increase" as it shrinks).

:func:`one_per_table` gives the snapshot these run on: one per TAT-QA table (``meta.table_uid``),
so a table asked about by ten questions is measured once; a table's questions differ in
``scale`` (a percent question reads the table's amounts without one), so the snapshot is that of
the table's first in-scope question with a thousand/million/billion scale, else of its first
without a scale; a table asked about only in percent questions is left out.
``variant`` is ``"templated_level"`` / ``"templated_profit_loss"`` / ``"templated_change"`` /
``"templated_percent_change"``; the question is dropped (``None``), as in
:mod:`assay.grounding.row_templates`: the sentence states the data and answers no question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from assay.cases import Case
from assay.facts import Fact
from assay.grounding.labels import is_line_item
from assay.grounding.perturbations import _nameable, line_item
from assay.grounding.row_templates import _SCALE, _decimals, _figure, _has_year

__all__ = [
    "RESULT_ROW",
    "one_per_table",
    "level_sentence",
    "level_sentences",
    "profit_loss_sentence",
    "profit_loss_sentences",
    "change_sentence",
    "change_sentences",
    "percent_change_sentence",
    "percent_change_sentences",
]

#: Rows that are a result (a profit or a loss) — the ones a profit/loss word describes — after
#: optional qualifiers ("Adjusted", "Non-GAAP", "Total", …); an operating result may also follow a
#: segment's name of up to three words ("Products and Licensing operating income"). Per-share
#: rows, carry-forwards, allowances, deferred or retained items, margins and "other", interest
#: or investment income (revenue-like items, not a result) are not (:data:`_NOT_RESULT`).
RESULT_ROW = re.compile(
    r"^(?:(?:adjusted|reported|non-gaap|gaap|non-ifrs|ifrs|total|consolidated|group|segment|underlying)\s+)*"
    r"(?:net\s+(?:income|loss|earnings|profit)(?:\s+attributable\s+to\b.*)?|gross\s+profit"
    r"|(?:income|loss|profit|earnings)\s+(?:from|before|for)\b.*|(?:net\s+)?(?:gains?|losses?)\s+on\b.*)$"
    r"|^(?:[\w&-]+\s+){0,3}operating\s+(?:income|loss|profit)$",
    re.I,
)
_NOT_RESULT = re.compile(
    r"per\s+(?:\w+\s+)?share|\beps\b|carry|allowance|deferred|retained|margin|comprehensive|%"
    r"|\b(?:other|interest|investment)\b",
    re.I,
)
#: A row naming both kinds ("Net income (loss)", "Profit/(loss)", "Profit or loss for the period").
_BOTH = re.compile(
    r"\b(?:income|earnings|profits?|gains?)\W{0,4}(?:(?:or|and)\s+)?\(?loss(?:es)?\b"
    r"|\bloss(?:es)?\W{0,4}(?:(?:or|and)\s+)?\(?(?:income|earnings|profits?|gains?)\b",
    re.I,
)
_LOSS = re.compile(r"\bloss(?:es)?\b", re.I)
_PERCENT_COLUMN = re.compile(r"%|\bpercent", re.I)
_FOOTNOTE = re.compile(r"(?:\s*\(\d{1,2}\)|\s*\*+)+$")


def one_per_table(cases: Iterable[Case]) -> list[Case]:
    """One case per ``meta.table_uid`` (module doc: the table's first in-scope question with a
    thousand/million/billion ``meta.scale``, else its first without a scale), in first-seen
    order; a table asked about only in percent questions is left out (the importer reads its
    amounts without a scale: the percent belongs to the answer, so "$784,469" would stand for
    "$784,469 thousand"); a case without a table uid stands for itself."""
    chosen: dict[str, Case] = {}
    for c in cases:
        uid = str(c.meta.get("table_uid") or c.id)
        if _rank(c) > (_rank(chosen[uid]) if uid in chosen else 0):
            chosen[uid] = c
    return list(chosen.values())


def _rank(c: Case) -> int:
    scale = c.meta.get("scale")
    return 2 if scale in ("thousand", "million", "billion") else 0 if scale == "percent" else 1


def level_sentence(case: Case, f: Fact) -> Case | None:
    """``"{Item} in {year} was {figure} [{id}]."`` for in-scope cell ``f`` with a positive value
    (module doc), else None."""
    item = _row_name(case, f)
    if item is None or f.value <= 0:
        return None
    return _case(case, f"{item} in {f.period} was {_figure(f.value, f, _decimals(f))} [{f.id}].", "templated_level")


def profit_loss_sentence(case: Case, f: Fact) -> Case | None:
    """``"{Item} in {year} was a {profit|loss} of {figure} [{id}]."`` for in-scope cell ``f`` of a
    result row (:data:`RESULT_ROW`; module doc for the sign rule), else None."""
    item = _row_name(case, f)
    if item is None or f.value == 0 or not RESULT_ROW.match(item) or _NOT_RESULT.search(item) or _BOTH.search(item):
        return None
    loss = bool(_LOSS.search(item))
    row = [g.value for g in case.facts if _same_row(g, f)]
    if (loss and min(row) < 0 < max(row)) or (not loss and f.value < 0):
        return None
    word = "loss" if loss else "profit"
    text = f"{item} in {f.period} was a {word} of {_figure(abs(f.value), f, _decimals(f))} [{f.id}]."
    return _case(case, text, "templated_profit_loss")


def change_sentence(case: Case, a: Fact, b: Fact) -> Case | None:
    """The "increased/decreased by … from … to …" sentence of cells ``a`` and ``b`` of one row
    and two years (module doc), else None."""
    pair = _pair(case, a, b)
    if pair is None:
        return None
    item, later, earlier = pair
    d = max(_decimals(later), _decimals(earlier))
    change = round(later.value - earlier.value, d)
    if change == 0:
        return None
    verb = "increased" if change > 0 else "decreased"
    text = (
        f"{item} {verb} by {_figure(abs(change), later, d)} from {earlier.period} to {later.period}"
        f" [{later.id}, {earlier.id}]."
    )
    return _case(case, text, "templated_change")


def percent_change_sentence(case: Case, a: Fact, b: Fact) -> Case | None:
    """The "rose/fell {p}% from … to …" sentence of cells ``a`` and ``b`` of one row and two years
    (module doc), else None."""
    pair = _pair(case, a, b)
    if pair is None:
        return None
    item, later, earlier = pair
    exact = (later.value - earlier.value) / earlier.value * 100
    if abs(abs(exact) * 10 % 1 - 0.5) < 1e-6:
        return None  # a tie (131.25%): 131.2% and 131.3% are both true, so moved_unit's move is too
    p = round(exact, 1)
    if p == 0:
        return None
    verb = "rose" if p > 0 else "fell"
    text = f"{item} {verb} {abs(p):.1f}% from {earlier.period} to {later.period} [{later.id}, {earlier.id}]."
    return _case(case, text, "templated_percent_change")


def level_sentences(case: Case) -> list[Case]:
    """:func:`level_sentence` of every fact of ``case``, in snapshot order."""
    return [t for f in case.facts if (t := level_sentence(case, f)) is not None]


def profit_loss_sentences(case: Case) -> list[Case]:
    """:func:`profit_loss_sentence` of every fact of ``case``, in snapshot order."""
    return [t for f in case.facts if (t := profit_loss_sentence(case, f)) is not None]


def change_sentences(case: Case) -> list[Case]:
    """:func:`change_sentence` of every pair of facts of ``case`` (each pair once, snapshot order)."""
    return [t for a, b in _pairs(case) if (t := change_sentence(case, a, b)) is not None]


def percent_change_sentences(case: Case) -> list[Case]:
    """:func:`percent_change_sentence` of every pair of facts of ``case`` (each pair once)."""
    return [t for a, b in _pairs(case) if (t := percent_change_sentence(case, a, b)) is not None]


# --- helpers -------------------------------------------------------------------------------


def _row_name(case: Case, f: Fact) -> str | None:
    """The sentence's name of ``f``'s row, or None when ``f`` is out of scope (module doc)."""
    if " | " not in f.label or f.unit not in _SCALE or not _has_year(f) or not is_line_item(f.label):
        return None
    if _PERCENT_COLUMN.search(f.label.split(" | ", 1)[1]):
        return None  # "2019 (As percentage of net revenues)": a percent stored without a unit
    name = _nameable(_FOOTNOTE.sub("", line_item(f.label)))
    if name is None or re.search(r"\d", name):
        return None
    if any(g.id != f.id and _same_row(g, f) and g.period == f.period for g in case.facts):
        return None  # two cells of one row and year: "X in 2019" would not say which
    return name[:1].upper() + name[1:]


def _same_row(g: Fact, f: Fact) -> bool:
    return " | " in g.label and line_item(g.label) == line_item(f.label) and g.unit == f.unit


def _pair(case: Case, a: Fact, b: Fact) -> tuple[str, Fact, Fact] | None:
    """(row name, later, earlier) for two in-scope cells of one row, two years, two different
    positive values; else None."""
    item = _row_name(case, a)
    if item is None or _row_name(case, b) is None or not _same_row(a, b) or a.period == b.period:
        return None
    if a.value <= 0 or b.value <= 0 or a.value == b.value:
        return None
    later, earlier = (a, b) if str(a.period) > str(b.period) else (b, a)
    return item, later, earlier


def _pairs(case: Case) -> list[tuple[Fact, Fact]]:
    facts = list(case.facts)
    return [(a, b) for i, a in enumerate(facts) for b in facts[i + 1 :] if _same_row(a, b)]


def _case(case: Case, text: str, variant: str) -> Case:
    return case.model_copy(update={"answer": text, "variant": variant, "question": None})
