"""A candidate's value as a reader writes it, in its own unit (gate messages: "nearest: F1 =
$383.3 billion", not "3.83285e+11")."""

from __future__ import annotations

from assay.grounding.candidates import Candidate

__all__ = ["show_value"]

_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "KRW": "₩"}
_SCALES = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand"))


def show_value(c: Candidate) -> str:
    """A candidate's value in its own unit, as a reader writes it: ``$383.3 billion`` (currency and
    unstated-currency amounts at four significant digits with a scale word), ``44.1%``, ``$6.13 per
    share``, ``1.5x``; a ratio as is."""
    v = c.value
    sign = "-" if v < 0 else ""
    if c.dim in ("currency", "amount"):
        sym = _SYMBOLS.get(c.currency or "", f"{c.currency} " if c.currency else "")
        for size, word in _SCALES:
            if abs(v) >= size:
                return f"{sign}{sym}{abs(v) / size:,.4g} {word}"
        return f"{sign}{sym}{abs(v):,.6g}"
    if c.dim == "per_share":
        return f"{sign}{_SYMBOLS.get(c.currency or '', '')}{abs(v):,.2f} per share"
    if c.dim in ("percent", "pp"):
        return f"{v:,.6g}{'%' if c.dim == 'percent' else ' pp'}"
    if c.dim == "multiple":
        return f"{v:,.6g}x"
    return f"{v:,.6g}"
