"""Which figure a stated comparison puts first: the subject and the base of "X was 2.9% higher than Y".

A comparison that names its base (``Quantity.change_base == "against_other"``: "higher than",
"lower than", "above", "below", "exceeded … by", "trailed … by") may be backed by a change
against either cited figure (:mod:`assay.grounding.match`); when the sentence names the two
periods, it also says which is which: the subject is named first and the base second ("FY2022
revenue was 2.9% higher than FY2023 revenue", "FY2022 revenue exceeded FY2023 revenue by
2.9%"). :func:`comparison_veto` rejects a change whose operands run the other way ("FY2022
revenue was 2.8% lower than FY2023 revenue" is not backed by (FY2023 − FY2022) / FY2022).
Conservative by design: nothing fires unless the sentence names exactly two distinct periods
(:func:`assay.claims.periods.find_periods`) and both operands' periods are known and differ.

Fewer periods still fix the direction when the sentence says where they stand (found by the
rtry review: "Revenue was 2.9% higher than in FY2022" passed as FY2022 against FY2023):

- one period named: after the comparison word ("than", "above", "below", "exceeded",
  "trailed") it is the base ("higher than in FY2022", "higher than the FY2023 level"), before
  it the subject ("In fiscal 2023 revenue was 2.9% higher than a year earlier"); a change whose
  operands put that period on the other side is vetoed;
- no period named, and the base is a relative earlier year ("than the year before", "than the
  prior year", "than a year earlier", "than last year"): the subject is the later figure, so a
  change of the earlier figure against the later one is vetoed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay.claims import Quantity
from assay.claims.periods import find_periods, period_key
from assay.grounding.candidates import CHANGE_OPS, Candidate, period_rank
from assay.grounding.labels import line_item, related_to
from assay.grounding.lexicon import PRIOR_YEAR
from assay.grounding.sentence_memo import sentence_memo

__all__ = ["compared_periods", "comparison_veto", "multiple_veto"]


@sentence_memo
def compared_periods(sentence: str) -> tuple[str, str] | None:
    """``(subject, base)`` period keys of a comparison sentence: its two distinct period mentions in
    order of appearance (``"FY2022 … higher than FY2023 …"`` → ``("FY2022", "FY2023")``); None when
    it names fewer or more than two distinct periods. Memoised (a pure function of the sentence)."""
    keys = list(dict.fromkeys(p.key for p in find_periods(sentence)))
    return (keys[0], keys[1]) if len(keys) == 2 else None


def comparison_veto(
    q: Quantity, c: Candidate, sentence: str, named: Sequence[tuple[int, int, str]] = ()
) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when ``c`` is a change of two figures whose periods run
    against the subject and base ``sentence`` names for comparison ``q``, ``("label_mismatch",
    reason)`` when its two line items do (``named``: the sentence's named items, ``(start, end,
    item)``: "Net income exceeded operating income by $17.3 billion" is not backed by operating
    income − net income; gate-16, a helper's false accept); else None (see module doc). ``sentence``
    is the claim's text (the one ``q`` is stated in)."""
    if q.change_base != "against_other" or c.op not in CHANGE_OPS or len(c.operands) != 2:
        return None
    if named and (swapped := _swapped_items(c, sentence, named)) is not None:
        return swapped
    order = compared_periods(sentence)
    if order is None:
        return _one_sided_veto(c, sentence)
    a, b = (_period_key(o) for o in c.operands)
    if a is None or b is None or a == b or (a, b) == order:
        return None
    return (
        "period_mismatch",
        f"the sentence compares {order[0]} with {order[1]}, but {c.ref} compares {a} with {b}",
    )


#: The word after which a comparison names its base ("higher than X", "exceeded X by").
_COMPARE_WORD = re.compile(r"\b(?:than|above|below|exceed(?:ed|s)?|trail(?:ed|s)?)\b", re.I)
#: A base that is the year before the subject's, without naming it.
_EARLIER_BASE = re.compile(
    r"\b(?:than|exceed(?:ed|s)?|trail(?:ed|s)?|above|below)\s+(?:in\s+|during\s+)?" + PRIOR_YEAR,
    re.I,
)


def _swapped_items(c: Candidate, sentence: str, named: Sequence[tuple[int, int, str]]) -> tuple[str, str] | None:
    """The veto when the items before and after the comparison word (its subject and its base) are
    ``c``'s second and first operands' line items, the other way round (module doc); None when
    the operands share a line item (the periods decide) or the sentence names no such pair. In Korean
    the base is the item "보다" is written onto and the subject the item named before it (gate-17)."""
    a, b = (o.label.lower() for o in c.operands)
    if line_item(a) == line_item(b):
        return None
    # "순이익은 영업이익보다 …": the base is the item 보다 is written onto, the subject the item before it
    korean = next((i for i, (_, e, _) in enumerate(named) if sentence.startswith("보다", e)), None)
    if korean is not None:
        if korean == 0:
            return None
        subject, base = named[korean - 1][2], named[korean][2]
    else:
        if (word := _COMPARE_WORD.search(sentence)) is None or (pair := _around(named, *word.span())) is None:
            return None
        subject, base = pair
    if _reversed(subject, base, a, b):
        return (
            "label_mismatch",
            f"the sentence compares {subject!r} with {base!r}, "
            f"but {c.ref} is {line_item(a)!r} against {line_item(b)!r}",
        )
    return None


def _period_key(o: Candidate) -> str | None:
    """An operand's period key: its fact's period, or the year of its page column ("FY2019" of a cell under
    "2019"; gate-21: uncited, "Revenue in 2018 was 10% higher than in 2019" passed on 2019 over 2018, the
    cells having no period); None for neither, or a column of a part of a year (a quarter's)."""
    if o.period is not None:
        return period_key(o.period)
    return f"FY{o.column_year}" if o.column_year is not None and not o.column_part else None


def _one_sided_veto(c: Candidate, sentence: str) -> tuple[str, str] | None:
    """The veto for a comparison naming one period or none (see the module docstring)."""
    a, b = (_period_key(o) for o in c.operands)
    if a is None or b is None or a == b:
        return None
    periods = find_periods(sentence)
    keys = set(p.key for p in periods)
    word = _COMPARE_WORD.search(sentence)
    if len(keys) == 1 and word is not None:
        (named,) = keys
        is_base = periods[0].span[0] >= word.end()
        if (a if is_base else b) == named:
            role = "base" if is_base else "subject"
            return ("period_mismatch", f"the sentence names {named} as the {role}, but {c.ref} compares {a} with {b}")
        return None
    if not keys and _EARLIER_BASE.search(sentence):
        ra, rb = (period_rank(o.period) for o in c.operands)
        if ra is not None and rb is not None and ra < rb:
            return ("period_mismatch", f"the sentence compares with the year before, but {c.ref} compares {a} with {b}")
    return None


def multiple_veto(
    q: Quantity, c: Candidate, sentence: str, offset: int, named: Sequence[tuple[int, int, str]]
) -> tuple[str, str] | None:
    """``("label_mismatch", reason)`` when multiple ``q`` ("1.18 times", "3x") is matched by a ratio
    ``c`` of two line items the other way round: the item named last before the number (the subject)
    is the ratio's denominator and the first named after it (the base) its numerator — "Net income
    was 1.18 times operating income [F5, F7]" is not backed by operating income / net income (gate-17,
    a helper's false accept); of one line item, the period named first is the numerator's
    (``("period_mismatch", reason)`` otherwise). None when the sentence names no such pair."""
    if q.unit != "x" or c.op not in ("a/b", "|a|/|b|") or len(c.operands) != 2 or not named:
        return None
    a, b = (o.label.lower() for o in c.operands)
    if line_item(a) == line_item(b):  # one line item: the periods named first and second ("FY2023 … times FY2022")
        order = compared_periods(sentence)
        pa, pb = (period_key(o.period) for o in c.operands)
        if order is not None and pa is not None and pb is not None and (pb, pa) == order:
            return (
                "period_mismatch",
                f"the sentence states {order[0]} as a multiple of {order[1]}, but {c.ref} is {pa} over {pb}",
            )
        return None
    pair = _around(named, q.span[0] - offset, q.span[1] - offset)
    if pair is not None and _reversed(*pair, a, b):
        subject, base = pair
        return (
            "label_mismatch",
            f"the sentence states {subject!r} as a multiple of {base!r}, "
            f"but {c.ref} is {line_item(a)!r} over {line_item(b)!r}",
        )
    return None


def _around(named: Sequence[tuple[int, int, str]], lo: int, hi: int) -> tuple[str, str] | None:
    """``(subject, base)``: the last item named before ``lo`` and the first named after ``hi``, or None."""
    before = [n for _, e, n in named if e <= lo]
    after = [n for s, _, n in named if s >= hi]
    return (before[-1], after[0]) if before and after else None


def _reversed(subject: str, base: str, a: str, b: str) -> bool:
    """Whether the subject names the second operand's line item ``b`` and the base the first's ``a``
    (and the subject not ``a``): the two items the other way round."""
    return related_to(subject, b, False) and related_to(base, a, False) and not related_to(subject, a, False)
