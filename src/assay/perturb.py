"""Perturbations of answer text for validity checks: move a stated number by displayed units.

Used by the real-data checks and benchmarks ("the gate rejects the same answers moved by one
displayed unit") and by the memo-cache soak. Pure functions.
"""

from __future__ import annotations

import re

from assay.claims import Quantity, extract_quantities

__all__ = ["move_number", "move_all_numbers"]

_DIGITS = re.compile(r"\d{1,3}(?:[, \u202f\u00a0]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+")


def move_number(text: str, q: Quantity, units: int = 1) -> str:
    """``text`` with quantity ``q``'s number moved by ``units`` in its last displayed digit.

    ``$383.3 billion`` → ``$383.4 billion``; ``(1,577)`` → ``(1,578)`` (the magnitude moves, so a
    negative gets more negative); thousands separators and decimals are kept. Range ends and
    signs keep their form.
    """
    s, e = q.span
    m = _DIGITS.search(text, s, e)
    if m is None:
        return text
    raw = m.group(0)
    sep = "," if "," in raw else (" " if " " in raw else "")
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    scaled = int(re.sub(r"[^\d]", "", raw)) + units
    if scaled < 0:
        scaled = abs(scaled)
    int_part, frac = divmod(scaled, 10**decimals)
    int_text = f"{int_part:,}".replace(",", sep) if sep else str(int_part)
    new = int_text + (f".{frac:0{decimals}d}" if decimals else "")
    if raw.startswith("."):
        new = new.lstrip("0") or "0"
    return text[: m.start()] + new + text[m.end() :]


def move_all_numbers(text: str, units: int = 1) -> str:
    """Every quantity of ``text`` moved by ``units`` displayed units (right to left, spans stay valid)."""
    for q in sorted(extract_quantities(text), key=lambda q: q.span[0], reverse=True):
        text = move_number(text, q, units)
    return text
