"""The number scan's digit-run skip and the unchecked scale look-up change nothing (speed,
0f5c384 → cx).

:func:`~assay.claims.scan.number_matches` searches from digit run to digit run and skips
a run right after an ASCII letter ("FY2019", "Q3", "x2"): it yields exactly the matches of
``pattern.finditer`` (same spans and groups), on generated text around such runs.
:func:`~assay.claims.scan.number_spans` gives a number that must be bare as its number's span: that
span is the bare match's ``span(6)``, and every other number is the match itself.
:func:`~assay.claims.unchecked._heads_before_scales` steps over the scale words right after a
figure ("5 million"): the same answer as visiting every occurrence.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import patterns as q
from assay.claims import unchecked as u
from assay.claims.scan import _TAIL_STARTS, number_matches, number_spans

_PARTS = [
    "FY", "Q", "H", "x", "K", "k", "M", "B", "USD", "USD ", "US$", "HK$", "EUR", "S", "D", "2019", "3", "12",
    "1,577.3", "1 577", "0.5", ".5", "5,0", "(", ")", "-", "−", "–", "$", "€", "₩", " ", "  ", "\n", "\u00a0",
    "\u202f", ",", ".", "%", "억", "조", "천", "원", "만", "3조 5천억원", "million", " billion", "bn", "per share",
    "_", "é", "٣", "a", "_1", "10-K", "COVID-19", "[", "]",
]  # fmt: skip


def test_a_code_s_digits_are_skipped_and_the_number_after_them_read():
    text = "In FY2019 Q3 revenue was $5.2 million, up 3% (x2)."
    spans = [m.span() for m in number_matches(text, q.NUMBER)]
    assert spans == [m.span() for m in q.NUMBER.finditer(text)]
    assert [text[a:b] for a, b in spans] == ["$5.2 million", "3%"]


#: Around a number: every first character of what the pattern reads after one, the characters it
#: reads before one, whitespace of several kinds, and characters it reads neither before nor after.
_AROUND = [
    *_PARTS, "thousand", " million", "trillion", " mn", "k", "B", "%", " %", "퍼센트", "percent", " per cent", "pct",
    " pp", "ppts", " pts", "points", " p.p.", "percentage points", " basis points", "bps", "x", " ×", " times",
    ")", " )", ")%", " 원", "엔", " 위안", "유로", "달러", " won", " dollars", "euros", " yen", "yuan", " renminbi",
    " USD", "GBP", " JPY", "KRW", " CNY", "CAD", " AUD", "CHF", " INR", "HKD", " SGD", " per share", "/share",
    " a share", "백", " 천", "십", "만", " and", " to", " | ", "|", " |", "\t", "\r", "\u2003", ";", ":", "/",
    "—", "·", "?", "'", "\"", "=", "+", "*", "in ", "of ", "1900", "2100", "44.1", "1,118.8", "(500.2)", "$  1,452.4",
    " cents", "cent", " ¢", "¢", " pence", " compared", "c", " cost",
]  # fmt: skip


@settings(max_examples=5000, deadline=None)
@given(st.lists(st.sampled_from(_AROUND), max_size=12), st.booleans())
def test_property_number_matches_are_finditer_and_spans_give_the_bare_ones(parts, space_thousands):
    text = "".join(parts)
    pattern = q.NUMBER if space_thousands else q.NUMBER_NO_SPACE
    matches = list(pattern.finditer(text))
    assert [(m.span(), m.groups()) for m in number_matches(text, pattern)] == [(m.span(), m.groups()) for m in matches]
    spans = number_spans(text, pattern)
    assert len(spans) == len(matches), text
    for got, m in zip(spans, matches, strict=True):
        if isinstance(got, tuple):  # bare: the number alone, after at most whitespace
            assert (
                got == m.span(6)
                and m.lastindex == 6
                and text[m.start() : m.start(6)].isspace() | (m.start() == m.start(6))
            ), text
        else:
            assert (got.span(), got.groups()) == (m.span(), m.groups()), text


def test_every_character_after_a_cell_number_is_read_as_the_pattern_reads_it():
    """One character (and one after a space) after "| 1,577.3": the span is given exactly when the
    pattern reads nothing after the number, over the first 0x3200 code points and the Korean ones."""
    for c in [*map(chr, range(0x3200)), *"천백십조억만원엔위유달퍼"]:
        for text in (f"| 1,577.3{c}x", f"| 1,577.3 {c}x"):
            m = q.NUMBER_NO_SPACE.search(text)
            assert m is not None
            (got,) = number_spans(text, q.NUMBER_NO_SPACE)[:1]
            if isinstance(got, tuple):
                assert m.span(6) == got and m.end() == m.end(6), repr(text)
            else:
                assert got.span() == m.span()
    assert {"t", "m", "b", "%", ")", "/", "a"} <= _TAIL_STARTS


def test_a_table_row_s_cells_and_a_year_are_spans():
    text = "Other | 44.1 | 56.7 | (70.8)\nin 2019, sales were $5 million"
    got = number_spans(text, q.NUMBER_NO_SPACE)
    assert [g if isinstance(g, tuple) else text[g.start() : g.end()] for g in got] == [
        (8, 12),
        (15, 19),
        " (70.8)",
        (32, 36),
        "$5 million",
    ]


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
