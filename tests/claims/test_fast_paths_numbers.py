"""The number scan's digit-run skip and the unchecked scale look-up change nothing (speed,
0f5c384 → cx).

:func:`~assay.claims.quantities.number_matches` searches from digit run to digit run and skips
a run right after an ASCII letter ("FY2019", "Q3", "x2"): it yields exactly the matches of
``pattern.finditer`` (same spans and groups), on generated text around such runs.
:func:`~assay.claims.unchecked._heads_before_scales` steps over the scale words right after a
figure ("5 million"): the same answer as visiting every occurrence.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import quantities as q
from assay.claims import unchecked as u

_PARTS = [
    "FY", "Q", "H", "x", "K", "k", "M", "B", "USD", "USD ", "US$", "HK$", "EUR", "S", "D", "2019", "3", "12",
    "1,577.3", "1 577", "0.5", ".5", "5,0", "(", ")", "-", "−", "–", "$", "€", "₩", " ", "  ", "\n", "\u00a0",
    "\u202f", ",", ".", "%", "억", "조", "천", "원", "만", "3조 5천억원", "million", " billion", "bn", "per share",
    "_", "é", "٣", "a", "_1", "10-K", "COVID-19", "[", "]",
]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=12), st.booleans())
def test_property_number_matches_are_finditer(parts, space_thousands):
    text = "".join(parts)
    pattern = q.NUMBER if space_thousands else q.NUMBER_NO_SPACE
    got = [(m.span(), m.groups()) for m in q.number_matches(text, pattern)]
    assert got == [(m.span(), m.groups()) for m in pattern.finditer(text)], text


def test_a_code_s_digits_are_skipped_and_the_number_after_them_read():
    text = "In FY2019 Q3 revenue was $5.2 million, up 3% (x2)."
    spans = [m.span() for m in q.number_matches(text, q.NUMBER)]
    assert spans == [m.span() for m in q.NUMBER.finditer(text)]
    assert [text[a:b] for a, b in spans] == ["$5.2 million", "3%"]


def _heads_reference(low: str, scales: set[str]) -> tuple[bool, bool]:
    """``_heads_before_scales`` before the skip: every occurrence, found with ``str.find``."""
    indefinite = roman = False
    for word in scales:
        k = low.find(word)
        while k != -1:
            j = k
            while j > 0 and low[j - 1].isspace():
                j -= 1
            if 1 <= j < k:
                if word in u._SINGULAR_SCALES and (low[j - 1] == "a" or low[j - 2 : j] == "an"):
                    indefinite = True
                if word in u._ROMAN_SCALES and low[j - 2 : j].isalpha() and not low[j - 2 : j].strip("ivxlcdm"):
                    roman = True
            k = low.find(word, k + 1)
    return indefinite, roman


_SCALE_PARTS = [
    "a", "an", "A", "xii", "iv", "mm", "5", "12", "٣", " ", "  ", "\n", "\u00a0", "million", "billion", "thousand",
    "hundred", "trillion", "percent", "of", "x", "5 ", "a ", "n", "-", "millions",
]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_SCALE_PARTS), max_size=12))
def test_property_scale_heads_skip_is_every_occurrence(parts):
    low = "".join(parts).lower()
    scales = {w for w in u._SINGULAR_SCALES | u._ROMAN_SCALES if w in low}
    assert u._heads_before_scales(low, scales) == _heads_reference(low, scales), low
