"""The reader's fast paths give exactly what their slow forms give (issue 15, speed).

- :func:`~assay.claims.unchecked.unchecked_masked` scans with only the branches of the forms
  pattern a text can match (token conditions): the same spans and reasons as the full pattern;
- source passages are read without the wording around each number (``wording=False``): the
  same quantities as the reader, less the wording fields.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import extract_quantities
from assay.claims import prechecks as pc
from assay.claims import quantities as q
from assay.claims import unchecked as u
from assay.claims.citations import DEFAULT_CITATION_PATTERN, mask
from assay.claims.patterns import DATE_AFTER, DATE_BEFORE, DURATION_AFTER, LABEL_BEFORE
from assay.claims.quantities import extract_masked
from assay.claims.wording import WordIndex

_FORM_WORDS = [
    "several", "a", "A", "an", "An", "few", "many", "numerous", "multiple", "some", "Some", "tens", "dozens",
    "hundreds", "hundred", "thousand", "Thousands", "million", "MILLION", "millions", "billion", "trillion",
    "percent", "percentage", "points", "point", "dollars", "euro", "of", "in", "half", "third", "quarter", "and",
    "one", "two", "twelve", "twenty", "five", "sixteen", "zero", "dozen", "ish", "fraction", "small", "nearly",
    "almost", "more", "than", "about", "over", "close", "to", "just", "under", "doubled", "Halved", "XII", "mix",
    "iv", "Mid", "times", "revenue", "수", "몇", "천", "억", "원", "ı", "ſ", "\u212a", "İ", "é", "x",
]  # fmt: skip
_SEPS = [" ", "  ", "-", "-ish", " \n", ", ", ". ", "5", "20", "\u00a0", "", "\t"]


def _slow_unchecked(masked: str, read: list[tuple[int, int]]) -> list[u.Unchecked]:
    """The scan before the fast path: the pre-check, then the full forms pattern."""
    if not u._may_hold_unchecked(masked, None):
        return []
    found = []
    for m in u._FORMS.finditer(masked):
        span = m.span()
        if any(a < span[1] and span[0] < b for a, b in read):
            continue
        reason = next(k for k, v in m.groupdict().items() if v is not None)
        found.append(u.Unchecked(masked[span[0] : span[1]], span, reason))
    return found


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_FORM_WORDS), st.sampled_from(_SEPS)), max_size=12))
def test_property_reduced_forms_scan_is_the_full_scan(parts):
    text = "".join(w + s for w, s in parts)
    masked = mask(text, re.compile(DEFAULT_CITATION_PATTERN), keep_fractions=True)
    expected = _slow_unchecked(masked, [])
    assert u.unchecked_masked(masked, []) == expected
    assert u.unchecked_masked(masked, [], WordIndex(masked).tokens) == expected


def test_reduced_forms_scan_on_the_documented_forms():
    for text in [
        "several billion", "a few million", "hundreds of millions", "thousands of customers", "수천억원",
        "a dozen-ish", "twenty-ish", "20-ish", "a small fraction of", "nearly doubled", "two point five percent",
        "two and a half times", "a million", "an hundred", "XII million", "a mix million", "a\u00a0million",
        "Half A Dozen",
    ]:  # fmt: skip
        got = u.unchecked_masked(text, [])
        assert got == _slow_unchecked(text, []), text
        assert got, text
    for text in ["ſeveral billion", "a\u212aILO million", "an İV million", "mix million", "one million"]:
        assert u.unchecked_masked(text, []) == _slow_unchecked(text, []), text


def test_digits_quantity_is_the_dataclass_construction():
    from dataclasses import fields, replace

    from assay.claims.quantity import Quantity, digits_quantity

    args = ("$5.2k", (3, 8), 5.2, 1e3, "USD", 1, True, -1, True)
    for tol in (None, 500.0):
        fast, slow = digits_quantity(*args, tol), Quantity(*args, tolerance=tol)
        assert fast == slow and hash(fast) == hash(slow) and vars(fast) == vars(slow)
        assert [f.name for f in fields(Quantity)] == list(vars(fast))
        assert replace(fast, range_id=2) == replace(slow, range_id=2)
    got = extract_quantities("Revenue rose 12% to $5.2k and (3.1) million [F1].")
    assert got == [Quantity(**vars(q)) for q in got]


def _full_scan(masked: str) -> list[tuple[str, tuple[int, int], str]]:
    """The reference: the full forms pattern over the whole text, no pre-check."""
    return [
        (m.group(0), m.span(), next(k for k, v in m.groupdict().items() if v is not None))
        for m in u._FORMS.finditer(masked)
    ]


def test_pre_check_folds_case_as_the_full_scan():
    # found by the property test: "K" (Kelvin sign) lowers to "k", so the text's lowercased token
    # was "dozens-k" and the pre-check said no, while WordIndex's (ASCII-lowered) tokens held "dozens"
    for text in ["dozens-\u212a ", "dozens-strong crowd", "a dozen-strong team", "\u017feveral billion"]:
        expected = _full_scan(text)
        assert expected, text
        for tokens in (None, WordIndex(text).tokens):
            got = u.unchecked_masked(text, [], tokens)
            assert [(x.text, x.span, x.reason) for x in got] == expected, (text, tokens)


_PASSAGE_PARTS = [
    "Revenue", "net loss", "fell", "rose", "spent", "capex", "(in millions)", "$", "€", "(", ")", "%", "-", "–",
    "1,577.3", "(45.6)", "2019", "12", "3.5", "0.25", "million", "billion", "per share", "5–7%", "FY2019", "Q3",
    "3월", "3조", "5천억원", "억", "lower than", "from", "x", "× 100", "1.", "\n", " | ", " ", "  ",
]  # fmt: skip
_UNWORDED = ("text", "span", "value", "scale", "unit", "decimals", "explicit_sign", "range_id", "form", "tolerance")


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PASSAGE_PARTS), max_size=16), st.booleans())
def test_property_passage_reading_without_wording_is_the_reader(parts, space_thousands):
    """``extract_masked(..., wording=False)`` (source passages) reads the quantities the reader
    reads, only without the wording fields (direction, signs, loss word, change base)."""
    text = " ".join(parts)
    masked = mask(text, re.compile(DEFAULT_CITATION_PATTERN))
    full = extract_quantities(text, space_thousands=space_thousands)
    bare = extract_masked(masked, space_thousands, wording=False)
    assert [tuple(getattr(q, f) for f in _UNWORDED) for q in bare] == [
        tuple(getattr(q, f) for f in _UNWORDED) for q in full
    ]
    assert all(q.direction is None and not q.sign_wording and q.negative_wording is None for q in bare)


_NUMBER_TEXT = st.text(alphabet="0123456789.,( )-−–$€£¥₩USDHKEREa%xkM\n\u00a0\u2009억조원", max_size=30)


@settings(max_examples=1500, deadline=None)
@given(_NUMBER_TEXT, st.booleans())
def test_property_number_search_start_finds_the_same_match(text, space_thousands):
    """Starting the number search where a prefix run reaches the digit finds the match a search
    from 12 characters back finds (:func:`~assay.claims.quantities.scan_start`)."""
    pattern = q.NUMBER if space_thousands else q.NUMBER_NO_SPACE
    prev = -1
    for d in re.finditer(r"\d", text):  # the reader's loop: d is the first digit at or after pos
        first, prev = prev + 1, d.start()
        for pos in {first, (first + d.start()) // 2, d.start()}:
            lo = max(pos, d.start() - pc.MAX_PREFIX)
            old, new = pattern.search(text, lo), pattern.search(text, pc.scan_start(text, lo, d.start()))
            assert (old and old.span()) == (new and new.span())


_AROUND = st.lists(
    st.sampled_from(
        ["st", "th", " ", "  ", "\t", "\n", "\u00a0", "-", ",", ".", "|", "Jan", "January", "Sept", "Dec", "May",
         "months", "Years", "DAY", "weeks", "quarter", "hours", "minute", "2019", "20", "x", "(", "of"]
    ),
    max_size=6,
).map("".join)  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(_AROUND)
def test_property_date_and_duration_prechecks_are_necessary(text):
    """The reader's pre-checks before DATE_BEFORE, DATE_AFTER and DURATION_AFTER never skip a
    text the pattern matches."""
    if DATE_BEFORE.search(text) and text[-1:].isspace():
        assert pc.may_end_in_month(text)
    if DATE_AFTER.match(text):
        assert pc.may_start_date(text)
    if DURATION_AFTER.match(text):
        assert pc.may_start_duration(text)


_LABEL_PATTERN_WORDS = LABEL_BEFORE.pattern.split("(?:", 2)[2].split(")")[0].replace("\\.", ".").split("|")
_BEFORE_NUMBER = st.lists(
    st.sampled_from([*_LABEL_PATTERN_WORDS, "items", "xFY", " ", "\n", "\t", ".", "of", "(", "Notes.", "5"]),
    max_size=5,
).map("".join)


def test_label_words_are_the_patterns():
    assert sorted(pc._LABEL_WORDS) == sorted(_LABEL_PATTERN_WORDS)


@settings(max_examples=2000, deadline=None)
@given(_BEFORE_NUMBER)
def test_property_label_precheck_is_necessary(text):
    if LABEL_BEFORE.search(text):
        assert pc.may_end_in_label(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["[F1]", "[F1, F2]", "[", "]", "F3", " ", ";", "[3]", "(F4)", "x"]), max_size=8))
def test_property_find_citations_is_the_finditer_scan(parts):
    from assay.claims.citations import _ID_SEP, find_citations

    text = "".join(parts)
    for pattern in (DEFAULT_CITATION_PATTERN, re.compile(DEFAULT_CITATION_PATTERN), r"\(([A-Z0-9]+)\)"):
        expected = [p.strip() for m in re.finditer(pattern, text) for p in _ID_SEP.split(m.group(1)) if p.strip()]
        assert find_citations(text, pattern) == expected


_BARE_PARTS = [
    *_PASSAGE_PARTS, "1900", "2100", "1899", "100", "12", "1", "2", "3.", "2)", "1st", "3rd", "12th", "Jan", "March",
    "Item", "Note", "FY", "Q", "months", "years", "-day", "10-K", "COVID-", "×", "/", "*", "x", ",", ".", "\n", "\t",
    "\u00a0", "3분기", "년", "a", "K", "grew", "fell", "decline", "higher", "(2)", ":", "; ", "4", "365", "1,000.5",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_BARE_PARTS), max_size=14), st.sampled_from(["", " ", "  "]), st.booleans())
def test_property_bare_number_fast_path_is_the_reader(parts, sep, space_thousands):
    """A match that is its number alone (after at most the pattern's whitespace) reads the same
    through ``_bare_quantity`` as through ``_to_quantity``, with and without the word index."""
    text = mask(sep.join(parts), re.compile(DEFAULT_CITATION_PATTERN))
    pattern = q.NUMBER if space_thousands else q.NUMBER_NO_SPACE
    index = WordIndex(text)
    for m in pattern.finditer(text):
        if m.lastindex == 6 and (m.start() == m.start(6) or text[m.start() : m.start(6)].isspace()):
            assert m.group(1, 2, 3, 5) == (None,) * 4 and m.end() == m.end(6)
            for words in (None, index):
                assert q._bare_quantity(text, m.start(6), m.end(6), words, text.isascii()) == q._to_quantity(
                    text, m, words, text.isascii()
                )
        else:
            assert any(m.group(i) is not None for i in (1, 2, 3, 5, 7, 8, 9, 10, 12, 13, 14))


@settings(max_examples=2000, deadline=None)
@given(_AROUND, _AROUND, st.booleans())
def test_property_no_date_label_or_duration_reads_across_a_cell_bar(head, tail, ascii_text):
    """A bare number between "| " and " |" (a table cell) skips the date, label and duration tests: none
    of their patterns can read across the "|" (whatever is around the cell)."""
    before, after = (head + "| ")[-24:], (" |" + tail)[:24]
    assert not q._date_label_or_duration(before, after, after[:2], ascii_text)
