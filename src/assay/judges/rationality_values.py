"""Values in trace text for the heuristic rationality rules (:mod:`assay.judges.rationality_rules`):
what an agent message states that must have come from somewhere (:func:`extract_values`), and
what a user turn, tool output or prompt makes known (:func:`evidence_values`), both normalised
so that one value written two ways compares equal (``$1,200.00`` and ``1200``; ``7:00 PM`` and
``19:00:00``).
"""

from __future__ import annotations

import re

__all__ = ["MEMO_MIN_CHARS", "evidence_values", "extract_values", "memo_evidence_values"]

_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})(?::\d{2})?(?:\s?([AaPp])\.?[Mm]\b\.?)?")
_CODE = re.compile(r"\b[A-Z0-9]{5,}\b")  # kept when it mixes letters and digits: HAT136, M05KNL
_NUMBER = re.compile(r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?%?")
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")


def extract_values(text: str) -> set[str]:
    """Checkable values in ``text``: ISO dates, times (``HH:MM``), codes (``HAT136``), numbers ≥ 10
    or with a decimal point, amounts and percentages — normalised (``$1,200.00`` → ``1200``,
    ``7:00 PM`` and ``19:00:00`` → ``19:00``). Integers below 10 are left out: they are list
    numbering and counts far more often than retrieved values."""
    text = text or ""
    out = set(_DATE.findall(text)) | {_time(*t) for t in set(_TIME.findall(text))} | _codes(text)
    rest = _TIME.sub(" ", _DATE.sub(" ", text)) if ("-" in text or ":" in text) else text
    for tok in set(_NUMBER.findall(rest)):
        num = _number(tok)
        if num is not None:
            out.add(num)
    return out


def evidence_values(text: str) -> set[str]:
    """What ``text`` makes known: its dates, times and codes plus every number inside it, small ones
    and the parts of dates and times included (``2024-05-24`` also makes ``2024`` and ``24``
    known), so a value restated in another format is not counted as unseen."""
    text = text or ""
    out = set(_DATE.findall(text)) | {_time(*t) for t in set(_TIME.findall(text))} | _codes(text)
    for tok in set(_DIGITS.findall(text)):
        num = _number(tok, keep_small=True)
        if num is not None:
            out.add(num)
    return out


#: Texts at least this long are memoised (when the caller passes a memo): system prompts, policies.
MEMO_MIN_CHARS = 2000


def memo_evidence_values(text: str, memo: dict[str, frozenset[str]] | None) -> frozenset[str] | set[str]:
    """:func:`evidence_values` of ``text``, kept in ``memo`` (a dict the caller holds for one run)
    for texts of :data:`MEMO_MIN_CHARS` or more: a system prompt repeated in every trace is
    scanned once."""
    if not text:
        return frozenset()
    if memo is None or len(text) < MEMO_MIN_CHARS:
        return evidence_values(text)
    hit = memo.get(text)
    if hit is None:
        hit = memo[text] = frozenset(evidence_values(text))
    return hit


# --- helpers -------------------------------------------------------------------------------


def _codes(text: str) -> set[str]:
    return {c for c in set(_CODE.findall(text)) if not c.isdigit() and not c.isalpha()}


def _time(hour: str, minute: str, half: str) -> str:
    """``7:00 PM`` / ``19:00:00`` → ``19:00`` (from the groups of ``_TIME``)."""
    h, mm, half = int(hour), int(minute), half.lower()
    if half == "p" and h < 12:
        h += 12
    elif half == "a" and h == 12:
        h = 0
    return f"{h:02d}:{mm:02d}"


def _number(tok: str, keep_small: bool = False) -> str | None:
    raw = tok.lstrip("$").rstrip("%").replace(",", "")
    try:
        v = float(raw)
    except ValueError:
        return None
    if v < 10 and "." not in raw and not keep_small:
        return None
    return f"{v:.10g}"
