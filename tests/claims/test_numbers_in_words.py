"""Issue 15 reader forms: Korean compound amounts and change verbs, ``$5.2k``, numbers in words,
fractions and multiples, and the unchecked spans (the sentences of the issue and their true
counterparts), with hypothesis property tests for cardinals, fractions and Korean amounts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import extract_claims, extract_quantities, find_unchecked


def words(text: str):
    return extract_quantities(text, words=True)


def one(text: str, *, in_words: bool = True):
    qs = extract_quantities(text, words=in_words)
    assert len(qs) == 1, f"{text!r}: {[q.text for q in qs]}"
    q = qs[0]
    assert text[q.span[0] : q.span[1]] == q.text
    return q


# --- Korean ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "base", "written", "tolerance_base"),
    [
        ("매출은 3조 5천억원이었다", 3.5e12, "3조 5천억원", 0.5e11),
        ("매출은 1조 2,000억 이다", 1.2e12, "1조 2,000억", None),
        ("예산은 5천만원이다", 5e7, "5천만원", 0.5e7),
        ("직원은 3천5백만 명", 3.5e7, "3천5백만", 0.5e6),
        ("매출은 5조 3,000억 원", 5.3e12, "5조 3,000억 원", None),
        ("매출은 1,234억 원", 1.234e11, "1,234억 원", None),
    ],
)
def test_korean_compound_amounts(text, base, written, tolerance_base):
    q = one(text, in_words=False)
    assert q.base_value == pytest.approx(base) and q.text == written
    if tolerance_base is None:
        assert q.tolerance is None
    else:
        assert q.tolerance * q.scale == pytest.approx(tolerance_base)


def test_regression_korean_compound_was_cut_at_the_digit_multiplier():
    """Bug fixed (issue 15): "3조 5천억원" was read as 3조 + 5 (= 3,000,000,000,005)."""
    q = one("매출은 3조 5천억원이었다", in_words=False)
    assert q.unit == "KRW" and q.base_value == pytest.approx(3.5e12)


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("매출은 12% 감소했다", -1),
        ("매출은 12% 증가했다", 1),
        ("이익이 5%가 늘었다", 1),
        ("비용이 3% 줄었다", -1),
        ("주가는 7% 상승했다", 1),
        ("주가는 7% 하락했다", -1),
        ("매출은 500억원으로 감소했다", None),  # a level: decreased TO 500억
        ("매출은 12%였다", None),
    ],
)
def test_korean_direction_words(text, direction):
    assert one(text, in_words=False).direction == direction


def test_korean_percentage_points():
    q = one("마진은 1.2%p 하락했다", in_words=False)
    assert (q.unit, q.value, q.direction) == ("pp", 1.2, -1)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("순손실은 300억원이다", "손실"),
        ("영업손실 100억원", "손실"),
        ("100억원의 적자를 냈다", "적자"),
        ("순이익은 300억원이다", None),
    ],
)
def test_korean_loss_words(text, word):
    assert one(text, in_words=False).negative_wording == word


def test_korean_loss_word_before_is_a_sign_word():
    assert one("순손실은 300억원이다", in_words=False).sign_wording is True
    assert one("순이익은 300억원이다", in_words=False).sign_wording is False


# --- k after a currency amount -------------------------------------------------------------------


def test_lowercase_k_after_currency_is_thousands():
    """Bug fixed (issue 15): "$5.2k" was read as $5.2 while "$5.2K" was 5,200."""
    assert one("Fees were $5.2k.", in_words=False).base_value == pytest.approx(5200)
    assert one("Fees were $5.2K.", in_words=False).base_value == pytest.approx(5200)


@pytest.mark.parametrize("text", ["Our 401k plan.", "Ran a 5k race.", "A 10k filing."])
def test_bare_k_is_not_a_scale(text):
    assert extract_quantities(text) == []


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 999), st.integers(0, 9), st.sampled_from(["$", "€", "£"]))
def test_property_k_and_K_read_the_same(whole, tenth, cur):
    lo = one(f"It cost {cur}{whole}.{tenth}k in all.", in_words=False)
    up = one(f"It cost {cur}{whole}.{tenth}K in all.", in_words=False)
    assert (lo.value, lo.scale, lo.unit) == (up.value, up.scale, up.unit) and lo.scale == 1e3


# --- numbers in words ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "scale", "unit", "form"),
    [
        ("Margin was twelve percent.", 12, 1, "%", "words"),
        ("Margin was twenty-five per cent.", 25, 1, "%", "words"),
        ("It has three million users.", 3, 1e6, None, "words"),
        ("It paid five dollars.", 5, 1, "USD", "words"),
        ("It opened twelve stores.", 12, 1, None, "words"),
        ("It rose three percentage points.", 3, 1, "pp", "words"),
        ("Coverage was three times.", 3, 1, "x", "words"),
        ("It sold one hundred and twelve cars.", 112, 1, None, "words"),
        ("Services were 1/3 of it [F2].", 1 / 3, 1, "ratio", "fraction"),
        ("It was 1/4 of sales.", 0.25, 1, "ratio", "fraction"),
        ("Services were half of revenue.", 0.5, 1, "ratio", "fraction"),
        ("Services were a third [F2].", 1 / 3, 1, "ratio", "fraction"),
        ("It was two fifths of sales.", 0.4, 1, "ratio", "fraction"),
        ("It was a quarter of sales.", 0.25, 1, "ratio", "fraction"),
        ("It was three quarters of sales.", 0.75, 1, "ratio", "fraction"),
        ("It was two-thirds of sales.", 2 / 3, 1, "ratio", "fraction"),
        ("It took half the market.", 0.5, 1, "ratio", "fraction"),
        ("Revenue doubled [F1, F2].", 2, 1, "x", "multiple"),
        ("Revenue tripled.", 3, 1, "x", "multiple"),
        ("Costs halved.", 0.5, 1, "x", "multiple"),
        ("It earned twice as much.", 2, 1, "x", "multiple"),
    ],
)
def test_numbers_in_words(text, value, scale, unit, form):
    q = one(text)
    assert q.value == pytest.approx(value) and q.scale == scale and q.unit == unit and q.form == form


def test_word_forms_carry_an_honest_precision():
    assert one("Services were a third [F2].").tolerance == pytest.approx(0.02)
    assert one("Revenue doubled.").tolerance == pytest.approx(0.05)
    assert one("Costs halved.").tolerance == pytest.approx(0.0125)
    assert one("Margin was twelve percent.").tolerance is None  # decimals=0: ± 0.5
    assert one("Margin was 12%.").form == "digits"


def test_words_follow_the_direction_rules():
    assert one("Sales fell twelve percent.").direction == -1
    assert one("Revenue doubled.").direction is None  # the ratio states the change


@pytest.mark.parametrize(
    "text",
    [
        "It is one of the largest firms.",
        "Sales rose in the second half.",
        "Sales rose in the first half.",
        "Revenue in the first quarter rose.",
        "Revenue in the third quarter rose.",
        "We rely on a third party.",
        "It was a one-off charge.",
        "Our 401k plan.",
        "Over the twelve-month period.",
        "One customer left.",
        "The two segments grew.",
        "It met twice a year.",
        "It happened three times a year.",
        "They doubled down on cloud.",
        "Over two years sales grew.",
        "In a quarter, sales grew.",
        "The half-year results.",
        "On 12/31 the books closed.",
    ],
)
def test_not_quantities_in_words(text):
    assert words(text) == [], [q.text for q in words(text)]


def test_words_are_read_only_when_asked():
    """Passages and importers read what they read before issue 15 (``words=False`` default)."""
    assert extract_quantities("Margin was twelve percent.") == []
    assert extract_quantities("Services were 1/3 of it.") == []  # still a masked date-like form


def test_claims_read_words():
    (claim,) = extract_claims("Revenue doubled and services were 1/3 of it [F1, F2].")
    assert [(q.form, q.value) for q in claim.numbers] == [("multiple", 2.0), ("fraction", pytest.approx(1 / 3))]


_UNITS = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _spell(n: int, hyphen: bool) -> str:
    hundreds, rest = divmod(n, 100)
    parts = [f"{_UNITS[hundreds]} hundred"] if hundreds else []
    if rest:
        if hundreds:
            parts.append("and")
        if rest < 10:
            parts.append(_UNITS[rest])
        elif rest < 20:
            parts.append(_TEENS[rest - 10])
        else:
            t, u = divmod(rest, 10)
            parts.append(_TENS[t] + (("-" if hyphen else " ") + _UNITS[u] if u else ""))
    return " ".join(parts)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 999),
    st.booleans(),
    st.sampled_from([("percent", 1.0, "%"), ("million", 1e6, None), ("billion dollars", 1e9, "USD")]),
    st.sampled_from(["The figure was {q} last year.", "Sales rose by {q}, it said.", "{q} in total."]),
)
def test_property_cardinal_words(n, hyphen, unit, template):
    """A cardinal 1–999 spelled out with a unit or scale is read back exactly, with its span."""
    word, scale, iso = unit
    written = f"{_spell(n, hyphen)} {word}"
    text = template.format(q=written)
    q = one(text)
    assert (q.value, q.scale, q.unit, q.form) == (n, scale, iso, "words")
    assert q.span[0] == template.index("{q}") and q.text.startswith(_spell(n, hyphen))


_DEN = {2: ("half", "halves"), 3: ("third", "thirds"), 4: ("quarter", "quarters"), 5: ("fifth", "fifths")}
_DEN |= {d: (w, w + "s") for d, w in [(6, "sixth"), (7, "seventh"), (8, "eighth"), (9, "ninth"), (10, "tenth")]}


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10).flatmap(lambda d: st.tuples(st.integers(1, d - 1), st.just(d))), st.booleans())
def test_property_fractions(frac, digits):
    """``a/b`` or its words followed by "of" is the ratio a/b ± 0.02; "of" is what licenses it."""
    a, b = frac
    if digits:
        written = f"{a}/{b}"
    else:
        den = _DEN[b][0 if a == 1 else 1]
        written = f"{'a' if a == 1 else _UNITS[a]} {den}"
    q = one(f"Services were {written} of revenue [F1].")
    assert q.value == pytest.approx(a / b) and q.unit == "ratio" and q.tolerance == 0.02 and q.text == written


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 99), st.integers(0, 9), st.integers(0, 9999), st.sampled_from(["", "원", " 원"]))
def test_property_korean_compound(jo, cheon, man_part, won):
    """``{jo}조 {cheon}천억 {x}만`` reads back as jo·1e12 + cheon·1e11 + x·1e4 (in base units)."""
    pieces, base = [], 0.0
    if jo:
        pieces.append(f"{jo}조")
        base += jo * 1e12
    if cheon:
        pieces.append(f"{cheon}천억")
        base += cheon * 1e11
    if man_part:
        pieces.append(f"{man_part:,}만")
        base += man_part * 1e4
    if not pieces:
        return
    written = " ".join(pieces) + won
    q = one(f"매출은 {written} 이었다", in_words=False)
    assert q.base_value == pytest.approx(base, rel=1e-12) and q.text == written
    assert q.unit == ("KRW" if won else None)


# --- unchecked ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "written", "reason"),
    [
        ("Revenue grew several billion [F1].", "several billion", "vague_quantity"),
        ("It has thousands of customers.", "thousands of customers", "vague_quantity"),
        ("It was hundreds of millions of dollars.", "hundreds of millions", "vague_quantity"),
        ("매출은 수천억원 규모다", "수천억원", "vague_quantity"),
        ("It was a dozen-ish.", "a dozen-ish", "approximate_word"),
        ("It opened a dozen stores.", "a dozen", "dozen"),
        ("It was a fraction of revenue.", "a fraction of", "vague_fraction"),
        ("Sales nearly doubled [F1, F2].", "nearly doubled", "hedged_multiple"),
        ("Sales more than tripled.", "more than tripled", "hedged_multiple"),
        ("It was two point five percent.", "two point five percent", "spelled_decimal"),
        ("It grew two and a half times.", "two and a half times", "mixed_fraction"),
        ("It has a million users.", "a million", "indefinite_scale"),
        ("It was XII million.", "XII million", "roman_numeral_amount"),
        ("Revenue had risen threefold [F1, F2].", "threefold", "unread_multiple"),
        ("Sales grew 5-fold.", "5-fold", "unread_multiple"),
        ("Sales grew thrice over.", "thrice", "unread_multiple"),
        ("Profit was one-third higher [F1, F2].", "one-third higher", "unread_multiple"),
        ("Profit was a quarter lower.", "a quarter lower", "unread_multiple"),
    ],
)
def test_unchecked_forms(text, written, reason):
    (u,) = find_unchecked(text)
    assert (u.text, u.reason) == (written, reason) and text[u.span[0] : u.span[1]] == written


@pytest.mark.parametrize(
    "text",
    [
        "Revenue was $5 million [F1].",
        "Amounts are in thousands of dollars.",
        "Margin was twelve percent.",
        "Costs were twice as high as in 2022.",  # read: 2x
        "Revenue fell by half.",  # read: a ratio of 0.5
        # not figures (issue 15's list), and so never unchecked either
        "We met twice with the board.",
        "In the second half of the year.",
        "A third party audited it.",
        "In the third quarter.",
    ],
)
def test_read_numbers_are_never_unchecked(text):
    assert find_unchecked(text) == []


def test_sentence_with_only_unchecked_numbers_stays_visible():
    first, second = extract_claims("Revenue doubled [F1, F2]. Sales were several billion [F3].")
    assert first.numbers and first.unchecked == ()
    assert second.numbers == () and [u.text for u in second.unchecked] == ["several billion"]
    assert second.citations == ("F3",)


def test_checked_and_unchecked_in_one_sentence():
    (claim,) = extract_claims("Sales were $5 million and nearly doubled [F1].")
    assert [q.text for q in claim.numbers] == ["$5 million"] and [u.reason for u in claim.unchecked] == [
        "hedged_multiple"
    ]
