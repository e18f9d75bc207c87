"""The gate's label rule (issue 15; used by :func:`assay.grounding.acceptable.acceptable`): the line items a
sentence names for a number must be those of the candidate it matched (:func:`label_veto`). Split from
:mod:`assay.grounding.labels` (line items, row items, the vocabulary) at gate-19."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from assay.grounding.candidates import Candidate
from assay.grounding.labels import concept_of, generic_row, is_line_item, line_item, related_to, row_item
from assay.grounding.sentence_memo import sentence_memo

__all__ = ["label_veto", "names_own_item"]


def label_veto(
    ref: str,
    operands: Sequence[Candidate],
    derived: bool,
    named_items: Sequence[str],
    exact: frozenset[str],
    paired: bool,
    text: str,
    named: Sequence[tuple[int, int, str]],
    elsewhere: Sequence[tuple[int, int]] = (),
    at: int = 0,
) -> tuple[str, str] | None:
    """``("label_mismatch", reason)`` when the items a sentence names for a number (``named_items``)
    are not those of the candidate ``ref`` (its ``operands``; ``derived``: a derivation) it matched:
    a named exact item (``exact``: a fact's line item) none of its line items relates to, or no
    named item relating to one of them; a sentence that also names the candidate's own item for
    this number is read as naming it (:func:`names_own_item`; not for a derivation or an item
    ``paired`` by "respectively"), but not through a mention the sentence gives another of its
    numbers (``elsewhere``: "Net income was $114.3 billion and operating income was $97.0 billion"
    names operating income for the $97.0 billion; a helper's false accept, gate-16). A "Total" or
    "Other" row's figure said to be one other row's item (named before the number, at ``at`` in
    ``text``) is none of them (:func:`_generic_row_veto`)."""
    mine = [m for o in operands if (m := _own_item(o)) is not None]
    if not mine and exact and (veto := _generic_row_veto(ref, operands, named_items, exact, text, named, at)):
        return veto
    related = [any(related_to(n, m, n in exact) for m in mine) for n in named_items] if mine else []
    stray = [n for n, r in zip(named_items, related, strict=False) if n in exact and not r]
    # named exact items: the candidate's; a paired item is its number's (names_own_item read last: lazily)
    if stray and (derived or paired or not names_own_item(text, mine, named, elsewhere)):
        return "label_mismatch", f"the sentence names {stray[0]!r}, which is none of {ref}'s line items"
    if mine and not any(related) and (paired or not names_own_item(text, mine, named, elsewhere)):
        return "label_mismatch", f"the sentence names {named_items[0]!r}, but {ref} is {line_item(mine[0])!r}"
    if derived and len(mine) == len(operands) == 2 and any(related) and not all(related):
        # "Revenue and net income combined were $211.3 billion [F5, F7]": an item named for a derivation of
        # two statement lines that is a third statement line (gate-17, a helper's false accept on operating
        # income + net income); a topic that is no material concept ("the operating revenues for Bell
        # Wireless" over two of its rows) is not judged
        own = {concept_of(line_item(m)) for m in mine}
        if None not in own:
            for n, r in zip(named_items, related, strict=False):
                if not r and concept_of(n) is not None and concept_of(n) not in own:
                    return "label_mismatch", f"the sentence names {n!r} for it, which is neither of {ref}'s line items"
    return None


def _generic_row_veto(
    ref: str,
    operands: Sequence[Candidate],
    named_items: Sequence[str],
    exact: frozenset[str],
    text: str,
    named: Sequence[tuple[int, int, str]],
    at: int,
) -> tuple[str, str] | None:
    """A "Total" or "Other" row's figure said to be one other row's item, the generic word unsaid ("The
    United States income … was $66.1 million" on "Total | $66.1"; gate-19, most of TAT-QA's templated
    label swaps on the tables as text): the one exact item named for the number, before it, with no
    word of a part or a sum ("including", "led by", "totaled", "combined", …; a hunt's false rejects of
    "Revenue was $5,181 million, with North America the largest region")."""
    word = _one_generic_row(operands)
    items = [n for n in named_items if n in exact]
    if word is None or len(items) != 1 or _PART_OR_SUM.search(text) or re.search(rf"\b{word}", text, re.I):
        return None
    if not any(name == items[0] and s < at for s, _, name in named):
        return None
    return "label_mismatch", f"the sentence names {items[0]!r}, but {ref} is a {word!r} row"


#: Words that name a part of a figure or a sum of several: a total row may be named with its parts.
_PART_OR_SUM = re.compile(
    r"\b(?:includ\w*|led\s+by|driven\s+by|with|of\s+which|among|combined|together|altogether|sum|aggregate)\b", re.I
)


def _one_generic_row(operands: Sequence[Candidate]) -> str | None:
    """The generic word of the table row every operand (passage numbers) sits in, when one, else None."""
    words = {generic_row(o.label) if o.origin == "passage" else None for o in operands}
    return words.pop() if len(words) == 1 else None


def _own_item(c: Candidate) -> str | None:
    """A candidate's own line item for the label rule: a fact's label (lower-case) when it is a line
    item, a passage number's table row item (:func:`row_item`), else None."""
    if c.origin == "passage":
        return row_item(c.label)
    return c.label.lower() if is_line_item(c.label) else None


def names_own_item(
    text: str, labels: list[str], named: Sequence[tuple[int, int, str]] = (), elsewhere: Sequence[tuple[int, int]] = ()
) -> bool:
    """Whether the sentence also names a candidate's own line item ("revenue from UK": row "UK"),
    not as a part of a longer named item ("Additions … - acquisitions" does not name "Additions …")
    nor inside a span of ``elsewhere`` (the items the sentence names for its other numbers)."""
    return _names_own(text, tuple(labels), tuple(named), tuple(elsewhere))


@sentence_memo
def _names_own(
    text: str, labels: tuple[str, ...], named: tuple[tuple[int, int, str], ...], elsewhere: tuple[tuple[int, int], ...]
) -> bool:
    low = text.lower()
    for lab in labels:
        item = line_item(lab)
        if item not in low:  # a match is a substring of the lower-cased text
            continue
        for m in _item_re(item).finditer(low):
            if not any(s <= m.start() and m.end() <= e and name != item for s, e, name in named) and not any(
                s <= m.start() and m.end() <= e for s, e in elsewhere
            ):
                return True
    return False


@lru_cache(maxsize=8192)
def _item_re(item: str) -> re.Pattern[str]:
    # = (?<![\w])ITEM(?![\w]), its first character first (sre skips to it in C; ~3x faster)
    head = re.escape(item[:1])
    return re.compile(head + r"(?<![\w]" + head + r")" + re.escape(item[1:]) + r"(?![\w])")
