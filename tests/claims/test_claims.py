"""Claim and number extraction (assay.claims): units, scales, signs, spans, non-quantities, citations.

Includes the hypothesis property test for number parsing: a random finite value written with
random decimals, separators, currency, scale word, percent and sign is recovered exactly, with the
span of the written quantity, from a sentence around it (English, Korean or emoji context).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assay.claims import extract_claims, extract_quantities, find_citations, split_sentences


def one(text: str):
    """The single quantity of ``text`` (fails when there is not exactly one)."""
    qs = extract_quantities(text)
    assert len(qs) == 1, f"{text!r}: {[q.text for q in qs]}"
    q = qs[0]
    assert text[q.span[0] : q.span[1]] == q.text
    return q


# --- units, scales, signs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "scale", "unit", "decimals"),
    [
        ("Margin was 20%.", 20, 1, "%", 0),
        ("Margin was 20 percent.", 20, 1, "%", 0),
        ("Margin was 25.3 per cent.", 25.3, 1, "%", 1),
        ("It was .5 percent.", 0.5, 1, "%", 1),
        ("Revenue was $383.3 billion.", 383.3, 1e9, "USD", 1),
        ("Capex was $1,577 million.", 1577, 1e6, "USD", 0),
        ("Cash was USD 1,577 million.", 1577, 1e6, "USD", 0),
        ("Cash was 1,577 million USD.", 1577, 1e6, "USD", 0),
        ("Sales were €5 million.", 5, 1e6, "EUR", 0),
        ("Sales were £3.2bn.", 3.2, 1e9, "GBP", 1),
        ("Sales were ¥100.", 100, 1, "JPY", 0),
        ("Sales were ₩500.", 500, 1, "KRW", 0),
        ("Sales were 4mn euros.", 4, 1e6, "EUR", 0),
        ("Sales were $5M.", 5, 1e6, "USD", 0),
        ("Sales were $7K.", 7, 1e3, "USD", 0),
        ("Sales were $1.2 trillion.", 1.2, 1e12, "USD", 1),
        ("Sales were 12 345.67 dollars.", 12345.67, 1, "USD", 2),
        ("Total was 1 577 units.", 1577, 1, None, 0),
        ("It was 1,000,000.", 1_000_000, 1, None, 0),
        ("Coverage is 1.5x.", 1.5, 1, "x", 1),
        ("Coverage is 3 times.", 3, 1, "x", 0),
        ("Margin rose 3 percentage points.", 3, 1, "pp", 0),
        ("Margin rose 3pp.", 3, 1, "pp", 0),
        ("Spread widened 25 bps.", 25, 0.01, "pp", 0),
        ("EPS was $6.13 per share.", 6.13, 1, "USD/share", 2),
        ("EPS was $6.13 per diluted share.", 6.13, 1, "USD/share", 2),
        ("EPS was $6.13/share.", 6.13, 1, "USD/share", 2),
        ("EPS was $6.13 a share.", 6.13, 1, "USD/share", 2),
        ("매출은 1,234억 원", 1234, 1e8, "KRW", 0),
        ("매출은 5조 3,000억 원", 53000, 1e8, "KRW", 0),
        ("직원은 3만 명", 3, 1e4, None, 0),
    ],
)
def test_units_scales_and_precision(text, value, scale, unit, decimals):
    q = one(text)
    assert q.value == pytest.approx(value) and q.scale == scale and q.unit == unit and q.decimals == decimals


def test_korean_won_amount_in_base_units():
    q = one("매출은 1,234억 원 [F1]")
    assert q.base_value == 123_400_000_000 and q.unit == "KRW" and q.text == "1,234억 원"


@pytest.mark.parametrize(
    ("text", "value", "written"),
    [
        ("Net was (42) here.", -42, "(42)"),
        ("Value (3.1) here.", -3.1, "(3.1)"),
        ("Loss of −3.1 million.", -3.1, "−3.1 million"),
        ("Loss of -3.1 million.", -3.1, "-3.1 million"),
        ("Net was -$5.2 million.", -5.2, "-$5.2 million"),
        ("Net was −€3.", -3, "−€3"),
        ("Net was ($4.5 billion).", -4.5, "($4.5 billion)"),
        ("Net was $(4.5) billion.", -4.5, "$(4.5) billion"),
        ("Change was (5%) last year.", -5, "(5%)"),
        ("Loss per share was $(0.25).", -0.25, "$(0.25)"),
    ],
)
def test_negative_forms(text, value, written):
    q = one(text)
    assert q.value == pytest.approx(value) and q.explicit_sign and q.text == written


def test_regression_minus_after_currency_symbol():
    """Bug fixed: ``$-5`` was read as a bare, positive 5 (sign and currency lost)."""
    q = one("Net was $-5 in the quarter.")
    assert (q.value, q.unit, q.explicit_sign, q.text) == (-5, "USD", True, "$-5")


@pytest.mark.parametrize("text", ["Change was (5)% last year.", "Change was (5.2)% last year."])
def test_regression_parenthesised_percent(text):
    """Bug fixed: ``(5)%`` (10-K table style) lost its percent unit."""
    q = one(text)
    assert q.unit == "%" and q.value < 0 and q.text.endswith(")%")


def test_binary_minus_in_formula_is_an_operator():
    qs = extract_quantities("177,866 - 135,987 = 41,879")
    assert [q.value for q in qs] == [177866, 135987, 41879]


def test_regression_minus_on_next_line_is_a_sign():
    """Bug fixed: a negative cell on its own line after a number ("3\\n-4") lost its sign."""
    assert [q.value for q in extract_quantities("Other 3\n-4")] == [3, -4]


def test_formula_parentheses_group_not_negate():
    qs = extract_quantities("(0.1652) x 100 = 16.52%")
    assert [(q.value, q.unit) for q in qs] == [(0.1652, None), (16.52, "%")]


# --- ranges ------------------------------------------------------------------------------------


def test_range_both_ends_share_the_unit():
    a, b = extract_quantities("Margin will be 5–7% this year.")
    assert (a.value, a.unit, b.value, b.unit) == (5, "%", 7, "%")
    assert a.range_id is not None and a.range_id == b.range_id


def test_range_with_to():
    a, b = extract_quantities("Growth of 5% to 7%.")
    assert (a.unit, b.unit) == ("%", "%") and a.range_id == b.range_id


def test_range_bare_first_end_takes_scale():
    a, b = extract_quantities("Sales of 1.2-1.5 billion are expected.")
    assert (a.base_value, b.base_value) == (pytest.approx(1.2e9), pytest.approx(1.5e9))


def test_regression_range_currency_first_scale_last():
    """Bug fixed: in ``$1.2-1.5 billion`` the first end stayed $1.2 and the second lost the USD."""
    a, b = extract_quantities("Revenue was $1.2-1.5 billion.")
    assert (a.unit, a.scale, b.unit, b.scale) == ("USD", 1e9, "USD", 1e9)
    assert (a.text, b.text) == ("$1.2", "1.5 billion")


# --- not quantities ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "In fiscal 2019 revenue rose.",
        "See [3] for details.",
        "See [F3, F7] and [F1][F2].",
        "On March 3, 2020 the stock fell.",
        "On 3 March the stock fell.",
        "On 2019-12-31 and 12/31/2019 the books closed.",
        "It was the 3rd quarter and the 22nd day.",
        "1. Revenue grew.",
        "2) Costs fell.",
        "(2) Costs fell.",
        "Risks: (3) competition.",
        "FY2019 and Q3 and the 10-K and COVID-19.",
        "Over 12 months and 3 years.",
        "See Item 7 and Note 12 and Exhibit 31.",
        "Margin = gross profit / revenue × 100.",
    ],
)
def test_not_quantities(text):
    assert extract_quantities(text) == [], [q.text for q in extract_quantities(text)]


def test_year_in_fiscal_context_only_the_amount_counts():
    assert [q.text for q in extract_quantities("In fiscal 2019 revenue was $260.2 billion.")] == ["$260.2 billion"]


def test_regression_parenthesised_year_label_is_not_a_quantity():
    """Bug fixed: "Total current assets (2021): $19,815 million" read (2021) as −2,021."""
    assert [q.text for q in extract_quantities("Total current assets (2021): $19,815 million")] == ["$19,815 million"]
    assert [q.value for q in extract_quantities("The loss was (2,019) and (2019.5).")] == [-2019, -2019.5]


def test_regression_unclosed_parenthesis_is_not_in_the_span():
    """Bug fixed: in "= (94,462 + 95,131) / 2" the first quantity's text was "(94,462"."""
    qs = extract_quantities("Average PP&E = (94,462 + 95,131) / 2 = 94,801.5 million")
    assert [q.text for q in qs] == ["94,462", "95,131", "94,801.5 million"]
    assert [q.value for q in qs][:2] == [94462, 95131]


@pytest.mark.parametrize(
    "text",
    [
        "2023년 3월 31일 기준",
        "3분기 실적",
        "상반기와 2분기",
        "최근 12개월",
        "업계 2위",
        "3번째 분기",
        "2차 발행",
        "제5호 안건",
    ],
)
def test_regression_korean_dates_periods_ordinals_are_not_quantities(text):
    """Bug fixed: "3월", "31일", "3분기", "12개월" were quantities, so a dated Korean memo failed the gate."""
    assert extract_quantities(text) == []


def test_regression_korean_scale_keeps_the_written_value_exactly():
    """Bug fixed: the Korean scale path divided value·scale by scale, so 450244186107.2억 became ….19995."""
    assert one("값은 450244186107.2억 이다.").value == 450244186107.2
    assert one("값은 1.2억 원 이다.").value == 1.2


def test_korean_counts_are_still_quantities():
    assert [q.value for q in extract_quantities("직원은 3,000명, 주식은 100주.")] == [3000, 100]


def test_regression_unit_words_inside_parentheses():
    """Bug fixed: "(300억 원)" and "($0.25 per share)" lost the parentheses' sign."""
    for text, value, unit in [
        ("순이익은 (300억 원) 이다.", -300, "KRW"),
        ("Loss was ($0.25 per share) in total.", -0.25, "USD/share"),
        ("Loss was (5 million USD) in total.", -5, "USD"),
    ]:
        q = one(text)
        assert (
            (q.value, q.unit, q.explicit_sign) == (value, unit, True)
            and q.text.startswith("(")
            and q.text.endswith(")")
        )


def test_year_written_with_unit_is_a_quantity():
    assert one("It cost $2019 in all.").value == 2019


def test_ordinal_number_inside_a_sentence_is_a_list_number_only_at_line_start():
    assert [q.value for q in extract_quantities("Item list:\n1. Revenue was $5 billion.")] == [5]


# --- spans -------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["", "매출은 ", "😀😀 ", "👨‍👩‍👧 회사의 매출은 ", "café — "])
def test_spans_are_code_point_offsets(prefix):
    text = prefix + "revenue was $1,577 million [F1]."
    q = one(text)
    assert q.span == (len(prefix) + len("revenue was "), len(prefix) + len("revenue was $1,577 million"))
    assert text[q.span[0] : q.span[1]] == "$1,577 million"


# --- wording: direction and sign words -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("Revenue fell 2.8%.", -1),
        ("Revenue declined by 2.8%.", -1),
        ("Revenue grew 2.8%.", 1),
        ("Revenue was up 2.8%.", 1),
        ("Revenue was 2.8%.", None),
        ("Margin fell to 44.1%.", None),
        ("Sales fell from $394.3 billion.", None),
        ("Revenue saw a 2.8% decline.", -1),
        ("Revenue was 2.8% higher.", 1),
    ],
)
def test_direction(text, direction):
    assert one(text).direction == direction


def test_regression_range_direction_governs_both_ends():
    a, b = extract_quantities("Sales fell 5% to 7% this year.")
    assert (a.direction, b.direction) == (-1, -1)


@pytest.mark.parametrize(
    ("text", "wording"),
    [
        ("Capex was $1,577 million.", True),
        ("3M spent $1,577 million on plants.", True),
        ("Revenue was $1,577 million.", False),
    ],
)
def test_sign_wording(text, wording):
    q = [q for q in extract_quantities(text) if q.text == "$1,577 million"][0]
    assert q.sign_wording is wording


# --- citations and sentences -----------------------------------------------------------------


def test_find_citations_forms():
    assert find_citations("[F3, F7] … [F1][F2] [F4; F5] [a.b:c-d]") == ["F3", "F7", "F1", "F2", "F4", "F5", "a.b:c-d"]


def test_claims_carry_their_sentence_citations_and_numbers():
    text = "Revenue was $5 billion [F1]. Costs were $3 billion [F2, F3]. No numbers here."
    claims = extract_claims(text)
    assert [c.citations for c in claims] == [("F1",), ("F2", "F3"), ()]
    assert [[q.text for q in c.numbers] for c in claims] == [["$5 billion"], ["$3 billion"], []]
    for c in claims:
        assert text[c.span[0] : c.span[1]] == c.text


def test_marker_after_the_period_belongs_to_that_sentence():
    text = "Revenue was $5 billion. [F1] Costs were $3 billion [F2]."
    first, second = extract_claims(text)
    assert first.citations == ("F1",) and second.citations == ("F2",)


def test_regression_moved_marker_span_is_trimmed():
    """Bug fixed: a sentence that took over the next line's opening marker kept the space after it."""
    text = "Revenue was $5 billion. [F1] Costs were $3 billion [F2]."
    first = extract_claims(text)[0]
    assert first.text == "Revenue was $5 billion. [F1]" and not first.text[-1].isspace()


def test_sentence_split_skips_abbreviations_and_decimals():
    text = "Apple Inc. had revenue of $5.5 billion [F1]. U.S. sales were $3 billion [F2]."
    spans = split_sentences(text)
    assert [text[a:b] for a, b in spans] == [
        "Apple Inc. had revenue of $5.5 billion [F1].",
        "U.S. sales were $3 billion [F2].",
    ]


def test_line_breaks_split_claims():
    claims = extract_claims("Line one $5 [F1]\nLine two $6 [F2]")
    assert [(c.citations, [q.value for q in c.numbers]) for c in claims] == [(("F1",), [5]), (("F2",), [6])]


def test_custom_citation_pattern():
    (claim,) = extract_claims("Revenue was $5 billion {{F1}}.", citation_pattern=r"\{\{(\w+)\}\}")
    assert claim.citations == ("F1",) and [q.text for q in claim.numbers] == ["$5 billion"]


def test_korean_sentences():
    claims = extract_claims("매출은 1,234억 원이다 [F1]. 영업이익은 100억 원 [F2].")
    assert [c.citations for c in claims] == [("F1",), ("F2",)]
    assert [q.base_value for c in claims for q in c.numbers] == [123_400_000_000, 10_000_000_000]


def test_passage_mode_reads_space_as_cell_separator():
    """``space_thousands=False`` (source passages): "900 800" is two table cells."""
    assert [q.value for q in extract_quantities("Cost of sales 900 800", space_thousands=False)] == [900, 800]
    assert [q.value for q in extract_quantities("Total 1\u202f577", space_thousands=False)] == [1577]


def test_company_3m_and_10k_are_not_quantities():
    # regression: a bare K/M/B suffix was read as a scale ("3M" appears 345 times in FinanceBench answers)
    assert [q.text for q in extract_quantities("3M's capex was $1,577 million.")] == ["$1,577 million"]
    assert extract_quantities("See the 10K and Item 1B.") == []
    assert [(q.value, q.scale) for q in extract_quantities("a $5M charge")] == [(5.0, 1e6)]


# --- property: number parsing ----------------------------------------------------------------

_CURRENCIES = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₩": "KRW", "USD ": "USD"}
_SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_KOREAN = {"만": 1e4, "억": 1e8, "조": 1e12}
_SUFFIXES = {"K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9, "mn": 1e6}
_TEMPLATES = [
    "The figure was {q} in the period.",
    "매출은 {q} 이었다.",
    "😀 값: 약 {q}, 그리고 끝.",
    "Net was {q}, per the filing.",
    "Result → {q} (restated).",
]


@st.composite
def written_quantities(draw):
    """(text as written, signed value, scale, unit, decimals, sign written, is a bare year)."""
    decimals = draw(st.integers(0, 3))
    int_part = draw(st.integers(0, 10**12))
    frac = draw(st.integers(0, 10**decimals - 1)) if decimals else 0
    sep = draw(st.sampled_from(["", ",", " "]))
    int_text = f"{int_part:,}".replace(",", sep)
    num = int_text + (f".{frac:0{decimals}d}" if decimals else "")
    value = float(num.replace(",", "").replace(" ", ""))
    kind = draw(st.sampled_from(["bare", "currency", "percent", "korean"]))
    cur = draw(st.sampled_from(sorted(_CURRENCIES))) if kind == "currency" else ""
    scale_text, scale = "", 1.0
    won = ""
    if kind == "korean":  # 1,234억 원, 5조원, (3만 원)
        word = draw(st.sampled_from(sorted(_KOREAN)))
        scale_text, scale = word, _KOREAN[word]
        won = draw(st.sampled_from(["", "원", " 원"]))
    elif kind != "percent" and draw(st.booleans()):
        if cur and cur != "USD " and draw(st.booleans()):
            word = draw(st.sampled_from(sorted(_SUFFIXES)))
            scale_text, scale = word, _SUFFIXES[word]
        else:
            word = draw(st.sampled_from(sorted(_SCALE_WORDS)))
            scale_text, scale = " " + word, _SCALE_WORDS[word]
    pct = draw(st.sampled_from(["%", " percent"])) if kind == "percent" else ""
    if cur == "USD ":  # an ISO code takes its minus after it: "USD -5"
        signs = ["", "()", "after-currency"]
    else:
        signs = ["", "-", "−", "()", "after-currency"] if cur else ["", "-", "−", "()"]
    sign = draw(st.sampled_from(signs))
    if sign == "after-currency":
        body = cur + "-" + num + scale_text + pct + won
    elif sign == "()":
        body = "(" + cur + num + scale_text + pct + won + ")"
    else:
        body = sign + cur + num + scale_text + pct + won
    unit = _CURRENCIES.get(cur) if cur else ("%" if pct else ("KRW" if won else None))
    signed = -value if sign else value
    is_year = (
        kind == "bare"
        and sign in ("", "()")
        and not scale_text
        and sep == ""
        and decimals == 0
        and 1900 <= value <= 2100
    )
    return body, signed, scale, unit, decimals, bool(sign), is_year


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(written_quantities(), st.sampled_from(_TEMPLATES))
def test_property_number_parsing(w, template):
    body, value, scale, unit, decimals, negative, is_year = w
    assume(not is_year)  # a bare or parenthesised 1900–2100 integer is a year by rule (tested above)
    text = template.format(q=body)
    q = one(text)
    start = template.index("{q}")
    assert q.span == (start, start + len(body))
    assert text[q.span[0] : q.span[1]] == body
    assert q.value == value
    assert q.scale == scale and q.unit == unit and q.decimals == decimals
    assert q.explicit_sign == negative
