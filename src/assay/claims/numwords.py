"""Numbers written in words: cardinals, fractions and multiples (issue 15).

A number word becomes a :class:`~assay.claims.quantities.Quantity` only where it states a
figure, never where it is an ordinal, a name or an idiom:

- **cardinals** (``form="words"``): ``zero``–``ninety-nine``, with ``hundred``
  ("three hundred and twelve"), when a scale word, a percent/point unit, a currency word or a
  counted noun stands with them: "twelve percent" (12, ``%``), "three million users" (3, scale
  1e6), "five dollars" (5, ``USD``), "three times" (3, ``x``), "twelve stores" (12, no unit; a
  counted noun is a plural word after a cardinal of two or more, not a duration and not after a
  determiner: "the two segments" refers, it does not count). Precision: ``decimals=0``.
- **fractions** (``form="fraction"``, unit ``"ratio"``, value the fraction, ``tolerance=0.02``
  absolute — the issue's "a third ≈ 0.333 ± 0.02": a writer rounds a share to a simple fraction):
  "half of revenue", "a third", "two fifths", "three quarters of", "one-third", ``1/4``, ``2/5``
  (digits ``a/b`` with 1 ≤ a < b ≤ 10). A word fraction counts when "of" follows it ("half the"
  too), or it closes a clause after a verb or hedge of relation ("were a third [F2]", "about
  half."); "quarter(s)" only with "of".
- **multiples** (``form="multiple"``, unit ``"x"`` — the unit of ``1.5x`` — value the ratio of
  the new figure to the old, ``tolerance`` 2.5% of it): "doubled" 2.0, "tripled"/"trebled" 3.0,
  "quadrupled" 4.0, "halved" 0.5, "a doubling of", "twice as much" / "twice the" 2.0. Their
  ``direction`` stays None: the ratio states the change ("halved" is 0.5, not −0.5).

NOT quantities: "one of the largest", "the second half", "first quarter", "a third party",
"one-off", "twelve-month", "401k", "twice a year", "doubled down", bare cardinals ("one
customer", "two segments"). Hedged or vague forms ("nearly doubled", "two and a half",
"two point five percent", "several billion") are not read here: they are reported by
:func:`assay.claims.unchecked.find_unchecked`.
"""

from __future__ import annotations

import re

from assay.claims.patterns import CARDINAL_WORDS, DURATION_AFTER, FRACTION_WORDS, MULTIPLE_WORDS
from assay.claims.quantity import Quantity
from assay.claims.wording import WordIndex, direction_after

__all__ = ["DIGIT_FRACTION", "FRACTION_TOLERANCE", "MULTIPLE_REL_TOLERANCE", "word_quantities"]

#: Absolute tolerance on a fraction's value (the issue: "a third ≈ 0.333 ± 0.02").
FRACTION_TOLERANCE = 0.02
#: Relative tolerance of a multiple word ("doubled" = 2.0 ± 0.05): the word is a round claim.
MULTIPLE_REL_TOLERANCE = 0.025
#: ``1/4``, ``2/5``: a digit fraction (numerator below denominator, denominator 2–10).
DIGIT_FRACTION = re.compile(r"(?<![\d/.,])([1-9])/([2-9]|10)(?![\d/]|[.,]\d)")


def word_quantities(text: str, words: WordIndex, taken: list[tuple[int, int]]) -> list[Quantity]:
    """Quantities written in words (and digit fractions) in ``text`` (already masked), in order.

    ``words`` is the text's :class:`~assay.claims.wording.WordIndex` (its ``number_words`` are the
    only places looked at, so a text without number words costs one list check); ``taken`` the
    spans already read as digit quantities (skipped). Rules in the module docstring."""
    out: list[Quantity] = []
    end_of_last = -1
    for start, end, w in words.number_words:
        if start < end_of_last:
            continue
        q = _at(text, start, end, w, words)
        if q is not None and not any(a < q.span[1] and q.span[0] < b for a, b in taken):
            out.append(q)
            end_of_last = q.span[1]
    if "/" in text:
        for m in DIGIT_FRACTION.finditer(text):
            a, b = int(m.group(1)), int(m.group(2))
            if a < b and not any(x < m.end() and m.start() < y for x, y in taken):
                out.append(_fraction(text, m.start(), m.end(), a / b))
    out.sort(key=lambda q: q.span)
    return out


def _at(text: str, start: int, end: int, w: str, words: WordIndex) -> Quantity | None:
    head, _, tail = w.partition("-")
    if w in MULTIPLE_WORDS:
        return _multiple(text, start, end, w)
    if w in FRACTION_WORDS or (tail in FRACTION_WORDS and head in _NUMERATORS):
        return _word_fraction(text, start, end, w)
    if head in CARDINAL_WORDS and (not tail or (tail in _NUMERATORS and 20 <= CARDINAL_WORDS[head] < 100)):
        return _cardinal(text, start, words)
    return None


def _multiple(text: str, start: int, end: int, w: str) -> Quantity | None:
    after = text[end : end + 12].lower()
    if w in ("twice", "thrice"):
        if not _TWICE_AFTER.match(after):
            return None  # "twice a year"
    elif _MULTIPLE_NOT_AFTER.match(after):
        return None  # "doubled down"
    if _HEDGE_BEFORE.search(text, max(0, start - 24), start):
        return None  # "nearly doubled": reported unchecked
    value = MULTIPLE_WORDS[w]
    return Quantity(
        text[start:end],
        (start, end),
        value,
        unit="x",
        decimals=1,
        form="multiple",
        tolerance=MULTIPLE_REL_TOLERANCE * value,
    )


def _word_fraction(text: str, start: int, end: int, w: str) -> Quantity | None:
    head, _, tail = w.partition("-")
    if tail:  # "two-thirds", "one-half"
        if text[end : end + 1] == "-":
            return None
        num, den, q_start = CARDINAL_WORDS[head], FRACTION_WORDS[tail], start
    else:
        if text[end : end + 1] == "-":
            return None  # "half-year", "quarter-end"
        m = _NUMERATOR_BEFORE.search(text, max(0, start - 8), start)
        den = FRACTION_WORDS[w]
        if m is not None:
            num, q_start = (1.0 if m.group(1).lower() in ("a", "an") else CARDINAL_WORDS[m.group(1).lower()]), m.start()
        elif den == 2:
            num, q_start = 1.0, start  # "half of revenue"
        else:
            return None  # "the third quarter", "first quarter"
        if w.endswith("s") != (num > 1) and den != 2:
            return None  # "one thirds", "two third"
    if den == 2 and _ORDINAL_BEFORE.search(text, max(0, q_start - 10), q_start):
        return None  # "the second half", "first half"
    after = text[end : end + 8]
    if _OF_AFTER.match(after) or (den == 2 and _THE_AFTER.match(after)):
        return _fraction(text, q_start, end, num / den)
    if den == 4:
        return None  # "a quarter" alone is a period ("in a quarter")
    if _CLAUSE_CLOSE.match(after) and _RELATION_BEFORE.search(text, max(0, q_start - 24), q_start):
        return _fraction(text, q_start, end, num / den)
    return None


def _fraction(text: str, start: int, end: int, value: float) -> Quantity:
    return Quantity(
        text[start:end], (start, end), value, unit="ratio", decimals=3, form="fraction", tolerance=FRACTION_TOLERANCE
    )


def _cardinal(text: str, start: int, words: WordIndex) -> Quantity | None:
    m = _CARDINAL_PHRASE.match(text, start)
    if m is None or _POINT_BEFORE.search(text, max(0, start - 8), start):
        return None  # "two point five percent" is reported unchecked
    value = _cardinal_value(m.group("num"))
    if value is None:
        return None
    end = m.end()
    scale = _SCALES[m.group("scale").strip().lower()] if m.group("scale") else 1.0
    unit_word = (m.group("unit") or "").strip().lower()
    if unit_word == "times" and _FREQUENCY_AFTER.match(text, end):
        return None  # "three times a year"
    unit = _unit(unit_word) if unit_word else None
    if not (m.group("scale") or unit_word):
        noun = _NOUN_AFTER.match(text, end)
        if (
            noun is None
            or value < 2
            or noun.group(1).lower() in _NOT_COUNTED
            or DURATION_AFTER.match(text[end : end + 12])
            or _DETERMINER_BEFORE.search(text, max(0, start - 12), start)
        ):
            return None  # "one customer", "two years", "the two segments"
    elif m.group("scale") and not unit_word and value < 1:
        return None
    q_end = end
    direction, sign = words.wording(start)
    if direction is None:
        direction = direction_after(text, q_end)
    return Quantity(text[start:q_end], (start, q_end), value, scale, unit, 0, False, direction, sign, form="words")


def _cardinal_value(phrase: str) -> float | None:
    total, current = 0.0, 0.0
    for tok in re.split(r"[\s-]+", phrase.lower()):
        if tok == "and":
            continue
        if tok == "hundred":
            current = (current or 1.0) * 100
        elif tok in CARDINAL_WORDS:
            v, low = CARDINAL_WORDS[tok], current % 100
            if low and not (low >= 20 and low % 10 == 0 and v < 10):
                return None  # "five six", "twenty thirty": not one number
            current += v
        else:
            return None
    return total + current


def _unit(word: str) -> str | None:
    if word.startswith(("percentage point", "point")):
        return "pp"
    if word.startswith("basis"):
        return "pp"
    if word.startswith(("percent", "per")) or word == "%":
        return "%"
    if word.startswith("time"):
        return "x"
    return {"dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR", "won": "KRW"}.get(word)


_CARD = "(?:" + "|".join(sorted(CARDINAL_WORDS, key=len, reverse=True)) + ")"
_CARD2 = _CARD + r"(?:[-\s]" + _CARD + r")?"  # "twenty-five", "twenty five"
_NUMERATORS = frozenset(w for w, v in CARDINAL_WORDS.items() if 1 <= v <= 9)
_CARDINAL_PHRASE = re.compile(
    r"(?P<num>" + _CARD2 + r"(?:\s+hundred(?:\s+(?:and\s+)?" + _CARD2 + r")?)?)(?![-\w])"
    r"(?!\s+(?:point|and\s+a\s+half|and\s+one)\b)"
    r"(?P<scale>\s+(?:thousand|million|billion|trillion))?(?![-\w])"
    r"(?P<unit>\s*%|\s+(?:percentage\s+points?|basis\s+points?|percent|per\s?cent|points?|times|dollars?|euros?|won)\b)?",
    re.I,
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_POINT_BEFORE = re.compile(r"\bpoint\s+\Z", re.I)
_FREQUENCY_AFTER = re.compile(r"\s+(?:a|an|per|each|every)\b", re.I)
_NOUN_AFTER = re.compile(r"\s+([A-Za-z]{3,}s)\b")
_NOT_COUNTED = frozenset("of as is was has does this its thus plus less".split()) | frozenset(FRACTION_WORDS)
_DETERMINER_BEFORE = re.compile(
    r"\b(?:the|these|those|its|their|our|his|her|both|all|each|every|other|only|first|last|next)\s+\Z", re.I
)
_NUMERATOR_BEFORE = re.compile(r"\b(a|an|one|two|three|four|five|six|seven|eight|nine)[\s-]\Z", re.I)
_ORDINAL_BEFORE = re.compile(r"\b(?:first|second|1st|2nd|latter|former|back|front)\s+\Z", re.I)
_OF_AFTER = re.compile(r"\s+of\b", re.I)
_THE_AFTER = re.compile(r"\s+(?:the|that|its|their)\b", re.I)
_CLAUSE_CLOSE = re.compile(r"\s*(?:[.,;:!?)]|\Z)")
_RELATION_BEFORE = re.compile(
    r"\b(?:was|were|is|are|be|been|about|roughly|nearly|almost|approximately|around|just|over|under|than|"
    r"represented|represents|for|comprised|comprises|up|constituted|by)\s+\Z",
    re.I,
)
_HEDGE_BEFORE = re.compile(
    r"\b(?:nearly|almost|roughly|about|approximately|more\s+than|less\s+than|over|close\s+to|just\s+under|"
    r"just\s+over|some)\s+\Z",
    re.I,
)
_TWICE_AFTER = re.compile(r"\s+(?:as|the|that|its|their)\b")
_MULTIPLE_NOT_AFTER = re.compile(r"\s+(?:down|up)\b")
