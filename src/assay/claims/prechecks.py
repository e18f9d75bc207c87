"""Cheap pre-checks of the number reader (:mod:`assay.claims.quantities`): each one is a
necessary condition of a costlier regex test, so skipping the test when it fails reads exactly
what the reader read before (``tests/claims/test_fast_paths.py`` checks each against its
pattern on generated text). Where a check relies on ``str.isspace()`` being re's ``\\s``, that
was checked over all of Unicode.
"""

from __future__ import annotations

import re

from assay.claims.patterns import CURRENCY_SYMBOLS, ISO

__all__ = [
    "MAX_PREFIX",
    "PREFIX_CHARS",
    "ORDINAL_SUFFIXES",
    "may_end_in_label",
    "may_end_in_month",
    "may_start_date",
    "may_start_duration",
    "scan_start",
]

#: The longest text the quantity pattern reads before the number's first digit: "(", a sign,
#: a space, "USD ", " -", a space, "(" and "." (".5") — 12 characters.
MAX_PREFIX = 12
ORDINAL_SUFFIXES = frozenset(("st", "nd", "rd", "th"))


def scan_start(text: str, lo: int, digit: int) -> int:
    """Where the number search may start for the first digit at ``digit`` (no earlier than ``lo``):
    the first position from which every character up to the digit can belong to the text a
    match reads before its number (``(``, signs, whitespace, currency symbols and codes, ``.``).
    No match containing that digit starts earlier, so the search finds the same match while
    sre tries far fewer starts (a table row's "| 1,577.3" starts at the space, not 12 back)."""
    if lo >= digit:
        return lo
    run = _PREFIX_RUN.search(text, lo, digit)
    return run.start() if run is not None else digit


def may_end_in_label(before: str) -> bool:
    """Cheap pre-check for LABEL_BEFORE (a label word, then at most one whitespace, at the end):
    the text, less that whitespace, ends with one of its words."""
    b = before[:-1] if before.endswith("\n") else before  # "$" also matches before a final newline
    b = b[:-1] if b[-1:].isspace() else b
    return b.endswith(_LABEL_WORDS_BY_LAST.get(b[-1:], ()))  # (case-sensitive: one of its words ends the text)


#: The words of LABEL_BEFORE (:mod:`assay.claims.patterns`; a test checks they are the pattern's).
_LABEL_WORDS = (
    "Item", "Note", "Notes", "Section", "Part", "Page", "page", "Table", "Figure", "Exhibit", "Schedule", "Rule",
    "Article", "Chapter", "ASC", "ASU", "Topic", "No.", "Level", "Tier", "Q", "H", "FY", "CY",
    "level", "tier", "note", "notes", "item", "section", "exhibit", "schedule", "article", "chapter",
)  # fmt: skip
#: The words by their last character: most numbers follow "$", "(" or a word no label ends like ("of"), and a
#: test of the one or two words ending like the text is all the pre-check does.
_LABEL_WORDS_BY_LAST = {last: tuple(w for w in _LABEL_WORDS if w[-1] == last) for last in {w[-1] for w in _LABEL_WORDS}}


def may_end_in_month(before: str) -> bool:
    """Cheap pre-check for DATE_BEFORE (a month, an optional ".", whitespace, at the end): the
    character before the final whitespace is a letter or "."."""
    last = before.rstrip()[-1:]  # str.isspace() is re's \s (checked over all of Unicode)
    return last.isalpha() or last == "."


def may_start_date(after: str) -> bool:
    """Cheap pre-check for DATE_AFTER (an optional ordinal suffix, whitespace, an optional comma,
    whitespace, then a capitalised month; or a comma and a year): what follows starts so."""
    if after[:1] == ",":
        return True
    a = (after[2:] if after[:2] in ORDINAL_SUFFIXES else after).lstrip()
    if a[:1] == ",":
        a = a[1:].lstrip()
    return a[:1] in _MONTH_INITIALS


def may_start_duration(after: str) -> bool:
    """Cheap pre-check for DURATION_AFTER (whitespace and hyphens, then a unit of time, any case):
    the first other character is the initial of one."""
    a = after.lstrip()
    while a[:1] == "-":
        a = a[1:].lstrip()
    return a[:1] in _DURATION_INITIALS


_MONTH_INITIALS = frozenset("JFMASOND")  # DATE_AFTER is case-sensitive
_DURATION_INITIALS = frozenset("mydwqhMYDWQH")  # months, years, days, weeks, quarters, hours, minutes
#: The characters but whitespace that a match may read before its first digit (see NUMBER in
#: :mod:`assay.claims.patterns`): "(", signs, currency symbols, the letters of the currency prefixes
#: and ISO codes, ".".
PREFIX_CHARS = frozenset(
    "(-−–$€£¥₩." + "".join(CURRENCY_SYMBOLS) + ISO.replace("(?:", "").replace(")", "").replace("|", "")
)
#: A run of :data:`PREFIX_CHARS` and whitespace that reaches the digit.
_PREFIX_RUN = re.compile("[" + re.escape("".join(sorted(PREFIX_CHARS))) + r"\s]*\Z")
