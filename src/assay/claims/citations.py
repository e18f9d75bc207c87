"""Citation markers in answer text (``[F3]``, ``[F3, F7]``) and the masking that keeps them, and
numeric dates, out of the number reader (blanked to the same length, so spans stay valid)."""

from __future__ import annotations

import re

from assay.claims.patterns import NUMERIC_DATE

__all__ = ["CITABLE_ID", "DEFAULT_CITATION_PATTERN", "find_citations", "mask", "mask_default"]

#: One id the default marker can name: ASCII letters, digits and ``_ . : -`` ("F3", "T2C1", "10-K:p4").
CITABLE_ID = r"[A-Za-z0-9_.:\-]+"
#: Default citation marker: ``[F3]``, ``[F3, F7]`` (adjacent markers ``[F3][F7]`` are two matches).
DEFAULT_CITATION_PATTERN = r"\[\s*(" + CITABLE_ID + r"(?:\s*[,;]\s*" + CITABLE_ID + r")*)\s*\]"


def find_citations(text: str, pattern: str | re.Pattern[str] = DEFAULT_CITATION_PATTERN) -> list[str]:
    """All cited ids in ``text``, in order (``"[F3, F7] … [F1]"`` → ``["F3", "F7", "F1"]``)."""
    ids: list[str] = []
    if "[" not in text and pattern in (DEFAULT_CITATION_PATTERN, _DEFAULT):
        return ids  # a default marker needs "[" (the common sentence: no marker at all)
    for m in (pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)).finditer(text):
        ids.extend(_ids(m.group(1)))
    return ids


def mask(text: str, cite_re: re.Pattern[str], *, keep_fractions: bool = False) -> str:
    """Blank citation markers and numeric dates (same length, so spans stay valid).

    ``keep_fractions=True`` leaves ``a/b`` with 1 ≤ a < b ≤ 10 (``1/3``, ``2/5``) unblanked: the
    answer reader takes them as fractions (:mod:`assay.claims.numwords`), not as dates."""
    # each pass only where it can match: a default marker needs "[", a date digit-separator-digit
    masked = text if cite_re.pattern == DEFAULT_CITATION_PATTERN and "[" not in text else cite_re.sub(_blank, text)
    return _mask_dates(masked, keep_fractions)


def mask_default(text: str) -> tuple[str, list[tuple[int, int, tuple[str, ...]]]]:
    """``mask(text, DEFAULT_CITATION_PATTERN, keep_fractions=True)`` and the default markers
    found on the way, as ``(start, end, ids)`` in order (one scan for both; the answer reader).

    Every default marker opens with "[" and closes at the next "]" with neither inside, so the
    markers :func:`find_citations` finds in a slice ``text[a:b]`` are these with ``a <= start``
    and ``end <= b`` (``tests/claims/test_fast_paths_citations.py``)."""
    if "[" not in text:
        return mask(text, _DEFAULT, keep_fractions=True), []
    markers: list[tuple[int, int, tuple[str, ...]]] = []
    pieces: list[str] = []
    prev = 0
    for m in _DEFAULT.finditer(text):
        start, end = m.span()
        body = m.group(1)  # starts and ends with an id character: strip() leaves a lone id as is
        ids = (body,) if "," not in body and ";" not in body else tuple(_ids(body))
        markers.append((start, end, ids))
        pieces += (text[prev:start], " " * (end - start))
        prev = end
    if not markers:
        return mask(text, _DEFAULT, keep_fractions=True), []
    pieces.append(text[prev:])
    return _mask_dates("".join(pieces), True), markers


def _ids(body: str) -> list[str]:
    """The ids of one marker's body (``"F3, F7"`` → ``["F3", "F7"]``)."""
    return [p.strip() for p in _ID_SEP.split(body) if p.strip()]


def _mask_dates(masked: str, keep_fractions: bool) -> str:
    """The date pass of :func:`mask` (markers already blanked)."""
    if not _may_hold_date(masked):
        return masked
    if keep_fractions:
        return NUMERIC_DATE.sub(_blank_unless_fraction, masked)
    return NUMERIC_DATE.sub(_blank, masked)


def _may_hold_date(masked: str) -> bool:
    """``bool(_DATE_HINT.search(masked))``, each of its forms searched literal first ("/", "-" or
    ".", then the digits around it looked at), and "/"/"-" only where the text holds one: sre
    scans for a literal in C, while a pattern that opens with a digit class is tried at every
    position (~9× faster on a memo)."""
    return bool(
        ("/" in masked and _SLASH_HINT.search(masked))
        or ("-" in masked and _HYPHEN_HINT.search(masked))
        or _DOT_HINT.search(masked)
    )


def _blank(m: re.Match[str]) -> str:
    return " " * (m.end() - m.start())


def _blank_unless_fraction(m: re.Match[str]) -> str:
    a, sep, b = m.group(0).partition("/")
    if sep and a.isdigit() and b.isdigit() and 1 <= int(a) < int(b) <= 10:
        return m.group(0)
    return " " * (m.end() - m.start())


_ID_SEP = re.compile(r"[,;]")
_DEFAULT = re.compile(DEFAULT_CITATION_PATTERN)
#: What every match of :data:`~assay.claims.patterns.NUMERIC_DATE` holds (its three forms: ``d-d``
#: or ``d/d``, or ``d.dd`` then a second separator), so a text without it is not scanned for dates;
#: a decimal ("4,753.6") is no hint (issue 15 speed: the date pass was 3% of reading a memo).
_DATE_HINT = re.compile(r"\d[/\-]\d|\d\.\d{1,2}[/\-.]\d")
#: :data:`_DATE_HINT`'s forms, literal first (:func:`_may_hold_date`).
_SLASH_HINT = re.compile(r"/(?<=\d/)(?=\d)")
_HYPHEN_HINT = re.compile(r"-(?<=\d-)(?=\d)")
_DOT_HINT = re.compile(r"\.(?<=\d\.)\d{1,2}[/\-.]\d")
