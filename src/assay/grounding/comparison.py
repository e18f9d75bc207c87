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
"""

from __future__ import annotations

from functools import lru_cache

from assay.claims import Quantity
from assay.claims.periods import find_periods, period_key
from assay.grounding.candidates import Candidate

__all__ = ["compared_periods", "comparison_veto"]

#: Derivations a comparison may state: a difference or a relative change of two figures.
_CHANGE_OPS = frozenset({"a-b", "(a-b)/b"})


@lru_cache(maxsize=1024)
def compared_periods(sentence: str) -> tuple[str, str] | None:
    """``(subject, base)`` period keys of a comparison sentence: its two distinct period mentions in
    order of appearance (``"FY2022 … higher than FY2023 …"`` → ``("FY2022", "FY2023")``); None when
    it names fewer or more than two distinct periods. Memoised (a pure function of the sentence)."""
    keys = list(dict.fromkeys(p.key for p in find_periods(sentence)))
    return (keys[0], keys[1]) if len(keys) == 2 else None


def comparison_veto(q: Quantity, c: Candidate, sentence: str) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when ``c`` is a change of two figures whose periods run
    against the subject and base ``sentence`` names for comparison ``q``; else None (see module
    doc). ``sentence`` is the claim's text (the one ``q`` is stated in)."""
    if q.change_base != "against_other" or c.op not in _CHANGE_OPS or len(c.operands) != 2:
        return None
    order = compared_periods(sentence)
    if order is None:
        return None
    a, b = (period_key(o.period) for o in c.operands)
    if a is None or b is None or a == b or (a, b) == order:
        return None
    return (
        "period_mismatch",
        f"the sentence compares {order[0]} with {order[1]}, but {c.ref} compares {a} with {b}",
    )
