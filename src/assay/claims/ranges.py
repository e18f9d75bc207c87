"""Ranges in text: the two ends of ``5–7%``, ``$1.2-1.5 billion`` or ``5% to 7%`` share a unit,
a scale and a direction, and a range id (a step of the number reader, :mod:`assay.claims.quantities`)."""

from __future__ import annotations

import re
from dataclasses import replace

from assay.claims.quantity import Quantity

__all__ = ["link_ranges"]

_RANGE_JOIN = re.compile(r"\s*(?:[-–—]|to)\s*")
#: "by" right before the first end: a change amount, then the level it reached ("dropped by $2.8
#: billion to $97.0 billion"), not a range (gate-13: the level took the change's direction).
_BY_BEFORE = re.compile(r"\bby\s+(?:(?:about|approximately|around|roughly|nearly|almost|some)\s+)?$", re.I)


def link_ranges(text: str, qs: list[Quantity]) -> list[Quantity]:
    """Give both ends of ``5–7%`` / ``$1.2-1.5 billion`` / ``5% to 7%`` the shared unit and scale
    (``qs``: the quantities read from ``text``, in order; a new list, ``qs`` is not changed)."""
    out = list(qs)
    rid = 0
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        joined = _RANGE_JOIN.fullmatch(text, a.span[1], b.span[0]) is not None  # (no slice: most pairs are far apart)
        if joined and "to" in text[a.span[1] : b.span[0]]:
            if _BY_BEFORE.search(text, max(0, a.span[0] - 24), a.span[0]):
                continue  # "by $2.8 billion to $97.0 billion": a change and its level
            if a.direction is not None and _change_then_level(a, b):
                continue  # "fell $2.8 billion to $97.0 billion", "rose $0.02 to $6.13" (gate-17): no "by" needed
        if not joined and b.explicit_sign and b.text.startswith(("–", "-")) and a.span[1] == b.span[0]:
            # "5-7%": the regex read "-7%" as a negative number
            b = replace(b, text=b.text[1:], span=(b.span[0] + 1, b.span[1]), value=-b.value, explicit_sign=False)
            joined = True
        if not joined or (a.unit and b.unit and a.unit != b.unit):
            continue
        if a.unit is None and a.scale == 1.0 and (b.unit or b.scale != 1.0):
            a = replace(a, scale=b.scale, unit=b.unit)
        elif a.unit and b.unit is None and b.scale == 1.0:
            b = replace(b, scale=a.scale, unit=a.unit)
        elif a.unit and b.unit is None and a.scale == 1.0 and b.scale != 1.0:
            # "$1.2-1.5 billion": the currency is written on the first end, the scale on the last
            a = replace(a, scale=b.scale)
            b = replace(b, unit=a.unit)
        elif a.unit and a.unit == b.unit and a.scale == 1.0 and b.scale != 1.0:
            a = replace(a, scale=b.scale)
        if b.direction is None and a.direction is not None:
            # "fell 5% to 7%": the verb governs both ends
            b = replace(b, direction=a.direction)
        elif a.direction is None and b.direction is not None:
            # "a 5–7% decline"
            a = replace(a, direction=b.direction)
        rid += 1
        out[i] = replace(a, range_id=rid)
        out[i + 1] = replace(b, range_id=rid)
    return out


def _change_then_level(a: Quantity, b: Quantity) -> bool:
    """Whether a moved amount ``a`` "to" ``b`` is a change and the level it reached, not a range: both
    ends amounts of one written currency (or both percents), the level at least three times the change
    (a range's ends are near each other: "fell 5% to 7%" stays a range)."""
    if a.unit is None or a.unit != b.unit or a.unit in ("pp", "x"):
        return False
    return abs(b.value * b.scale) >= 3 * abs(a.value * a.scale) > 0
