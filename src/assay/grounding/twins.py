"""A paragraph number that repeats a line item's figure is judged as that line item (issue 15, the
**twins** rule of :mod:`assay.grounding.acceptable`; used by :func:`assay.grounding.sentence_rules.sentence_reader`)."""

from __future__ import annotations

from collections.abc import Iterable

from assay.claims import Quantity
from assay.grounding.acceptable import acceptable
from assay.grounding.candidates import Candidate
from assay.grounding.context import SentenceContext
from assay.grounding.labels import is_line_item
from assay.grounding.labels import period_year as _year
from assay.grounding.match import CandidateSet, match
from assay.grounding.operands import names_item_itself, own_years

__all__ = ["twin_veto"]


def twin_veto(
    q: Quantity, c: Candidate, facts: Iterable[Candidate] | CandidateSet, ctx: SentenceContext, cited: bool = False
) -> tuple[str, str] | None:
    """The veto of a paragraph or passage number ``c`` (no period, a context for a label) that
    repeats a line item's figure: when facts of ``facts``
    (the cited facts; uncited, every fact) match ``q``'s value and :func:`acceptable` vetoes each
    of them, the passage number is their figure and takes the first veto ("…final dividend
    proposed for 2019 of 3.45 cents…" backs "the 2018 dividend was 3.45 cents" no more than the
    2019 fact beside it does); else None (no such fact, one is acceptable, or the number's own
    context names the year or line item the veto is about)."""
    if c.op is not None or (c.origin != "passage" and is_line_item(c.label)) or _year(c.period) is not None:
        return None
    vetoes = []
    for f in facts.near(q) if isinstance(facts, CandidateSet) else facts:
        if f.origin != "fact" or f.op is not None or f is c or not is_line_item(f.label):
            continue
        if not match(q, (f,)).matched and not (cited and f.digits is not None and f.digits in (c.digits, c.displayed)):
            continue  # cited beside it, a cell showing the same digits is the same figure ("$24.9" and "24.9")
        veto = acceptable(q, f, ctx)
        if veto is None:
            return None
        vetoes.append(veto)
    if not vetoes:
        return None
    kind, _ = vetoes[0]
    years, items = ctx.by_number.get(q.span[0], (frozenset(), ()))
    own = c.label.lower()
    if kind == "period_mismatch" and years & own_years(own, c):
        return None  # its own context names the sentence's year: it is that year's figure
    if kind == "label_mismatch" and any(names_item_itself(own, n) for n in items):
        return None  # its own context names the sentence's line item ("…capital intensity ratio…, down 0.3 pts")
    return vetoes[0]
