"""Where a text's numbers are: the quantity pattern's matches, searched from digit run to digit run,
and the span of a number that nothing around it can make more than a number, found without the
pattern.

:func:`number_matches` is ``list(pattern.finditer(text))`` for the quantity pattern
(:data:`~assay.claims.patterns.NUMBER` or its no-space form), faster. :func:`number_spans` gives
the reader (:func:`~assay.claims.quantities.extract_masked`) the same numbers, each match as a
match, except a *bare* one — its number alone after at most whitespace, no sign, parenthesis,
currency, scale, unit or Korean multiplier — which it gives as its number's span ``(start, end)``
when the characters around the digit run show that the match must be bare. Most table cells and
years are: "| 1,577.3 |", "in 2019,". The pattern's search (~40% of reading a TAT-QA context's
numbers) is then skipped for them; the number is the number pattern alone at the digit, since
everything after it in the quantity pattern is optional. ``tests/claims/test_fast_paths_numbers.py``
checks both against ``finditer`` on generated text.
"""

from __future__ import annotations

import re

from assay.claims.patterns import NUM, NUM_NO_SPACE, NUMBER, NUMBER_NO_SPACE
from assay.claims.prechecks import MAX_PREFIX, PREFIX_CHARS, scan_start

__all__ = ["LETTERS", "number_matches", "number_spans"]

#: The ASCII letters (a digit run right after one is a code's: "FY2019", "Q3").
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def number_matches(masked: str, pattern: re.Pattern[str]) -> list[re.Match[str]]:
    """``list(pattern.finditer(masked))`` for :data:`~assay.claims.patterns.NUMBER` (or its
    no-space form), searched from digit to digit: a match starts at most MAX_PREFIX characters
    before its first digit, so each search may start there (skipping digit-free text in C, not
    in sre), and a digit run right after an ASCII letter ("FY2019", "Q3") is in no match — the
    character a match reads before its number is never a letter or digit, and its look-behind
    rejects one — so the search skips it (``tests/claims/test_fast_paths_numbers.py``). The reader
    uses :func:`number_spans`; this is its every-match form, the one tests hold to ``finditer``."""
    return _scan(masked, pattern, None)  # type: ignore[return-value]  # no spans without a number pattern


def number_spans(masked: str, pattern: re.Pattern[str]) -> list[re.Match[str] | tuple[int, int]]:
    """:func:`number_matches`, with each match that must be bare given as its number's span
    ``(start, end)`` instead (module doc): the match's ``span(6)``. A pattern other than the two
    quantity patterns gets matches only."""
    return _scan(masked, pattern, _NUMBER_ALONE.get(pattern))


def _scan(
    masked: str, pattern: re.Pattern[str], alone: re.Pattern[str] | None
) -> list[re.Match[str] | tuple[int, int]]:
    """The digit-to-digit search; with ``alone`` (the pattern's number part), bare numbers as spans."""
    out: list[re.Match[str] | tuple[int, int]] = []
    pos = 0
    while (d := _DIGIT.search(masked, pos)) is not None:
        k = d.start()
        if k and masked[k - 1] in LETTERS:
            pos = _DIGITS.match(masked, k).end()  # type: ignore[union-attr]  # (a digit is at k)
            continue
        lo = max(pos, k - MAX_PREFIX)
        if alone is not None and _bare_before(masked, lo, k):
            e = alone.match(masked, k).end()  # type: ignore[union-attr]  # (a digit is at k)
            after = masked[e : e + 1]
            if not _tail_at(masked, e, after) and not (
                after.isspace() and _tail_at(masked, e + 1, masked[e + 1 : e + 2])
            ):
                out.append((k, e))
                pos = e
                continue
        m = pattern.search(masked, scan_start(masked, lo, k))
        if m is None:
            break
        pos = m.end()
        out.append(m)
    return out


def _bare_before(masked: str, lo: int, k: int) -> bool:
    """Whether the quantity pattern's match of the digit at ``k`` (searched from ``lo``) must have
    its number start at ``k`` with nothing but whitespace before it: the characters from ``lo``
    that the pattern may read before a number (:func:`~assay.claims.prechecks.scan_start`) are
    whitespace only, or there are none and the look-behind accepts the character before ``k``."""
    j = k
    while j > lo and masked[j - 1].isspace():
        j -= 1
    if j < k:  # whitespace before the digit: a match starts in it or at k, its number at k
        return j == lo or masked[j - 1] not in PREFIX_CHARS
    return (k == lo or masked[k - 1] not in PREFIX_CHARS) and (k == 0 or _LOOK_BEHIND.match(masked, k - 1) is None)


#: The quantity patterns' number parts: the number at a digit, when the match's number starts there.
_NUMBER_ALONE = {NUMBER: re.compile(NUM), NUMBER_NO_SPACE: re.compile(NUM_NO_SPACE)}
#: What the quantity pattern's look-behind rejects before a match (see ``_number_regex``).
_LOOK_BEHIND = re.compile(r"[\w.,$€£¥₩]")
#: The first characters of everything the quantity pattern may read after a number (each after an
#: optional whitespace): a Korean multiplier (천백십조억만), a scale word or suffix (thousand, million,
#: billion, trillion, bn, mn, K, M, B, k), a unit (%, 퍼센트, percent, per cent, pct, pp, ppt, pts,
#: points, p.p., percentage points, basis points, bps, x, ×, times), a closing parenthesis, a currency
#: word or code (원, 엔, 위안, 유로, 달러, won, dollars, euros, yen, yuan, renminbi, cents (:func:`_tail_at`), pence, ¢,
#: USD EUR GBP JPY KRW CNY CAD AUD CHF INR HKD SGD) and per share (per, /share, a share). A number followed by none of
#: them, alone or after one whitespace character, ends its match.
_TAIL_STARTS = frozenset("천백십조억만tmbKMBk%퍼px×)원엔위유달wdeyrU¢EGJCAIHS/a")


def _tail_at(masked: str, i: int, ch: str) -> bool:
    """Whether the quantity pattern may read on at ``i`` (``ch``: the character there): one of
    :data:`_TAIL_STARTS`, or the "c" of "cent(s)" — a bare "c" test would send every number before
    "compared", "cost" or "cash" to the pattern's search."""
    return ch in _TAIL_STARTS or (ch == "c" and masked.startswith("cent", i))


_DIGIT = re.compile(r"\d")
_DIGITS = re.compile(r"\d+")
