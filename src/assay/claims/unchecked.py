"""Unchecked spans: number-like forms the reader sees but does not interpret (issue 15).

A gate must never pass a figure silently because the reader skipped it, so each form below is
reported as an :class:`Unchecked` span with its reason (the documented list; anything else
number-like is either read as a :class:`~assay.claims.quantities.Quantity` or is not a figure):

- ``"vague_quantity"``: a vague quantifier with a scale or unit — "several billion", "a few
  million", "many thousands", "hundreds of millions", "billions of dollars", "thousands of
  customers", "dozens of stores", and Korean 수/몇 amounts ("수천억원", "수조 원", "몇 억");
- ``"dozen"``: "a dozen", "dozens", "half a dozen" (a count the reader does not take as 12);
- ``"approximate_word"``: an ``-ish`` number — "a dozen-ish", "twenty-ish", "20-ish";
- ``"vague_fraction"``: "a fraction of", "a small/large fraction of", "a multiple of";
- ``"hedged_multiple"``: "nearly/almost/more than/roughly/about/over doubled" (and tripled,
  quadrupled, halved): a bound or an approximation of a ratio, not the ratio;
- ``"spelled_decimal"``: "two point five percent";
- ``"mixed_fraction"``: "two and a half", "one and a half times";
- ``"indefinite_scale"``: "a million", "a billion dollars", "a thousand", "a hundred";
- ``"roman_numeral_amount"``: Roman numerals with a scale or percent — "XII million".

A span that overlaps a quantity the reader did read is not reported (``"$5 million"`` is read,
never unchecked).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.claims.citations import DEFAULT_CITATION_PATTERN, mask
from assay.claims.quantities import extract_masked

__all__ = ["Unchecked", "find_unchecked", "unchecked_masked"]


@dataclass(frozen=True)
class Unchecked:
    """A number-like form the reader saw but did not interpret.

    ``text`` is the span's text, ``span`` its code-point offsets ``[start, end)``, ``reason`` one of
    the codes in :mod:`assay.claims.unchecked` (``"vague_quantity"``, ``"hedged_multiple"`` …)."""

    text: str
    span: tuple[int, int]
    reason: str


def find_unchecked(
    text: str, *, citation_pattern: str = DEFAULT_CITATION_PATTERN, read: list[tuple[int, int]] | None = None
) -> list[Unchecked]:
    """Every unchecked span of ``text``, in order (forms and reasons in the module docstring).

    ``read``: spans already read as quantities (overlapping forms are dropped); when None, the
    answer reader is run (``extract_quantities(text, words=True)``) to find them."""
    masked = mask(text, re.compile(citation_pattern), keep_fractions=True)
    if read is None:
        read = [q.span for q in extract_masked(masked, words=True)]
    return unchecked_masked(masked, read)


def unchecked_masked(masked: str, read: list[tuple[int, int]]) -> list[Unchecked]:
    """:func:`find_unchecked` on an already masked text with the read spans given."""
    if not _HINT.search(masked):
        return []  # the common path: no vague word, hedge or Korean 수/몇 at all
    found: list[Unchecked] = []
    for m in _FORMS.finditer(masked):
        span = m.span()
        if any(a < span[1] and span[0] < b for a, b in read):
            continue
        reason = next(k for k, v in m.groupdict().items() if v is not None)
        found.append(Unchecked(masked[span[0] : span[1]], span, reason))
    return found


_SCALE = r"(?:thousands?|millions?|billions?|trillions?|percent|percentage\s+points?|dollars?|euros?)"
_CARD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
)
_MIXED_UNIT = r"(?:\s+(?:times|" + _SCALE + r")\b)?"
_MULT = r"(?:doubled|tripled|trebled|quadrupled|halved)"
_FORMS = re.compile(
    r"(?P<vague_quantity>\b(?:several|a\s+few|few|many|numerous|multiple|some)\s+(?:tens\s+of\s+|hundreds\s+of\s+)?"
    + _SCALE
    + r"\b|(?<!\bin\s)\b(?:tens|dozens|hundreds|thousands|millions|billions|trillions)\s+of\s+[A-Za-z]+"
    r"|(?:수|몇)\s?[십백천]?\s?[만억조](?:\s?원)?)"
    r"|(?P<approximate_word>\b(?:a\s+)?(?:dozen|" + _CARD + r"(?:-" + _CARD + r")?|\d+)-ish\b)"
    r"|(?P<dozen>\b(?:half\s+a\s+dozen|a\s+dozen|dozens)\b)"
    r"|(?P<vague_fraction>\ba\s+(?:small\s+|large\s+|tiny\s+|sizable\s+)?(?:fraction|multiple)\s+of\b)"
    r"|(?P<hedged_multiple>\b(?:nearly|almost|more\s+than|less\s+than|roughly|about|approximately|over|close\s+to|"
    r"just\s+under|just\s+over|some)\s+" + _MULT + r"\b)"
    r"|(?P<spelled_decimal>\b" + _CARD + r"\s+point\s+(?:" + _CARD + r"|zero)\b(?:\s+" + _SCALE + r"\b)?)"
    r"|(?P<mixed_fraction>\b(?:" + _CARD + r"|a)\s+and\s+(?:a|one)\s+(?:half|third|quarter)\b" + _MIXED_UNIT + r")"
    r"|(?P<indefinite_scale>\ban?\s+(?:hundred|thousand|million|billion|trillion)\b(?!\s+(?:and|of)\b))"
    r"|(?P<roman_numeral_amount>\b[IVXLCDM]{2,}\s+(?:thousand|million|billion|trillion|percent)\b)",
    re.I,
)
#: Cheap pre-check: the words any form above needs.
_HINT = re.compile(
    r"several|few|many|numerous|multiple|some|tens|dozen|hundred|thousand|million|billion|trillion|-ish|fraction|"
    r"point|and a|doubled|tripled|trebled|quadrupled|halved|수|몇|[IVXLCDM]{2,}",
    re.I,
)
