"""A derivation of two line items is named as neither of them (gate-13; used by
:func:`assay.grounding.sentence_rules.sentence_reader`).

The label rule (:func:`assay.grounding.acceptable.acceptable`) asks whether the items a sentence
names are related to a candidate's labels — any operand's, for a derivation — so "Net income was
$17.3 billion [F5, F7]" passed on operating income − net income: the named "net income" is
F7's item (a new user's false accept; so did "Operating income was … [F1, F3]" on sales − gross
margin, which is cost of sales). A sum or difference of two different line items is a third
quantity (gross margin = sales − cost of sales, total = products + services); when the sentence
names, for the number, the item of exactly one of its two operands (its very words: a concept
group holds derived measures beside their operands, "EBITDA" with operating income) and no
third item, nor a word of the derivation itself in their clause, the number is that item's
figure in the sentence's claim, and the derivation is not it. Rule: :func:`one_operand_veto`.
A difference of one item's two periods is a change (:mod:`assay.grounding.change_amount`), and
a sentence naming both operands, or neither, or a word of the derivation ("than", "exceeded",
"less", "minus", "excluding", "before", "after", "net of", "plus", "combined", "together",
"total", "sum", "difference", "gap") is not judged here.
"""

from __future__ import annotations

import re

from assay.claims import Quantity
from assay.grounding.candidates import Candidate
from assay.grounding.labels import line_item, row_item
from assay.grounding.lexicon import CLAUSE

__all__ = ["one_operand_veto", "one_of_a_sum_veto"]

#: A name coordinated with another ("Products and services net sales", "A, B and C"): several items.
_COORDINATED_BEFORE = re.compile(r"(?:\b(?:and|or|plus)|&|,)\s*$", re.I)
_COORDINATED_AFTER = re.compile(r"\s*(?:(?:and|or|plus)\b|&|,)", re.I)
#: A name right after "of": the complement of another quantity ("cost of sales", "share of the revenue").
_OF_BEFORE = re.compile(r"\bof\s+(?:the\s+|total\s+)*$", re.I)

#: Words that name the derivation itself ("X less Y", "X exceeded Y by", "before taxes", "in total").
_DERIVATION_WORDS = re.compile(
    r"\b(?:than|exceed\w*|less|minus|exclud\w*|before|after|net\s+of|plus|combined|together|totals?|sum|"
    r"difference|gap|spread|above|below|remaining|rest|other)\b|합계|차이|제외|합산",
    re.I,
)


def one_operand_veto(
    q: Quantity,
    c: Candidate,
    named_items: tuple[str, ...],
    named: tuple[tuple[int, int, str], ...],
    text: str,
    offset: int,
) -> tuple[str, str] | None:
    """``("label_mismatch", reason)`` when ``c`` is a sum or difference of two facts of different
    line items and the items the sentence ``text`` names for ``q`` (``named_items``, from
    :class:`~assay.grounding.context.SentenceContext`; ``named``: every named item's span in
    ``text``, which starts at ``offset`` of the answer) name exactly one of the two and no third
    item (:func:`_names`: the same words), with no word of the derivation in their clause (module
    doc); else None. A name that is the complement of "of" ("cost of sales",
    "a share of revenue") names another quantity, not its item, and is left out; a coordinated
    name ("Products and services net sales") names several items, and nothing is judged."""
    if c.op not in ("a-b", "a+b") or len(c.operands) != 2 or not named_items:
        return None
    a, b = c.operands
    if a.origin != "fact" or b.origin != "fact" or line_item(a.label) == line_item(b.label):
        return None  # (before any scan: passage derivations, a change of one item)
    spans = [(st, e, n) for st, e, n in named if n in named_items and not _OF_BEFORE.search(text, 0, st)]
    if not spans or any(
        _COORDINATED_BEFORE.search(text, 0, st) or _COORDINATED_AFTER.match(text, e) for st, e, _ in spans
    ):
        return None  # none, or a coordinated name: "Products and services net sales" names both
    hits = {0 if _names(n, a.label) else 1 if _names(n, b.label) else 2 for _, _, n in spans}  # a, b, neither
    if len(hits) != 1 or 2 in hits:
        return None  # both, neither, or a third item named too ("… produced a gross margin of $X")
    own = b if hits == {1} else a
    lo = max([m.end() for m in CLAUSE.finditer(text, 0, min(st for st, _, _ in spans))] + [0])
    cut = CLAUSE.search(text, q.span[1] - offset)
    if _derivation_worded(text[: cut.start() if cut else len(text)], named, lo):
        return None
    what = "difference" if c.op == "a-b" else "sum"
    return (
        "label_mismatch",
        f"the sentence names {line_item(own.label)!r}, but {c.ref} is the {what} of "
        f"{line_item(a.label)!r} and {line_item(b.label)!r}: another quantity",
    )


def one_of_a_sum_veto(
    q: Quantity, c: Candidate, named_items: tuple[str, ...], text: str, offset: int
) -> tuple[str, str] | None:
    """``("label_mismatch", reason)`` when the sentence ``text`` (at ``offset`` of the answer) states, for
    ``q``, the sum of two or more items it names (``named_items``; "the sum of A and B", "A and B
    combined", "the total of A and B", :data:`_SUM_OF` before the number in its clause) and ``c`` is one
    figure — no derivation — whose own item is one of them: the figure of a part is not the sum (gate-20:
    "The sum of Deferred compensation plan assets and Other long-term liabilities in 2019 was 35 million"
    passed on "Deferred compensation plan assets | $ 35"). The mirror of :func:`one_operand_veto`. Else None."""
    if c.op is not None or len(named_items) < 2:
        return None
    own = row_item(c.label) if c.origin == "passage" else line_item(c.label).lower() if c.origin == "fact" else None
    if own is None or own not in named_items:
        return None
    at = q.span[0] - offset
    lo = max([m.end() for m in CLAUSE.finditer(text, 0, at)] + [0])
    if _SUM_OF.search(text, lo, at) is None:
        return None
    others = ", ".join(repr(n) for n in named_items if n != own)
    return "label_mismatch", f"the sentence states the sum of {own!r} and {others}, but {c.ref} is {own!r} alone"


#: Words that state a sum of the items named beside them ("together with", "combined with" add an item's own
#: figure to what is said: not a sum stated).
_SUM_OF = re.compile(
    r"\b(?:sum|total|aggregate)\s+of\b|\b(?:combined|together)\b(?!\s+with\b)|\baltogether\b|합계|합산", re.I
)


def _names(named: str, label: str) -> bool:
    """Whether a named item IS the line item of ``label``: the same words. Not a synonym of its
    concept: the concept groups hold derived measures beside their operands ("EBITDA" with
    operating income, "net debt" with total debt), and :func:`~assay.grounding.labels.related_to`'s
    concept of a longer item ("cost of sales" holds "sales") would make cost of sales total net sales."""
    return named == line_item(label) or named == label.lower()


def _derivation_worded(text: str, named: tuple[tuple[int, int, str], ...], lo: int) -> bool:
    """A word of the derivation in ``text[lo:]`` (the clause of the name and the number) outside its
    named items ("Total net sales" names an item, not a total)."""
    if _DERIVATION_WORDS.search(text, lo) is None:
        return False
    for st, e, _ in named:
        text = text[:st] + " " * (e - st) + text[e:]
    return _DERIVATION_WORDS.search(text, lo) is not None
