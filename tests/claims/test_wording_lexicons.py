"""Issue 15 wording lexicons: loss words (``Quantity.negative_wording``), change bases
(``Quantity.change_base``), sum-licensing words (``licenses_sum``) and period mentions
(``find_periods`` / ``period_key``), on the issue's sentences and their true counterparts, with
hypothesis property tests for the period forms and the loss-word flip."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import extract_quantities
from assay.claims.lexicons import licenses_sum, negative_word
from assay.claims.periods import find_periods, period_key


def q_of(text: str, written: str):
    (q,) = [q for q in extract_quantities(text) if q.text == written]
    return q


# --- loss words ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "written", "word"),
    [
        ("Apple posted a net loss of $97.0 billion [F7].", "$97.0 billion", "loss"),
        ("Operating loss was $114.3 billion [F5].", "$114.3 billion", "loss"),
        ("Apple lost $97.0 billion [F7].", "$97.0 billion", "lost"),
        ("It ran a deficit of $3 million.", "$3 million", "deficit"),
        ("Cash flow was negative $2 million.", "$2 million", "negative"),
        ("It booked a $3 million net loss.", "$3 million", "loss"),
        ("Net income was $97.0 billion [F7].", "$97.0 billion", None),
        ("Operating income was $114.3 billion [F5].", "$114.3 billion", None),
        ("Apple earned $97.0 billion [F7].", "$97.0 billion", None),
        ("Apple spent $11.0 billion on capex [F15].", "$11.0 billion", None),  # outflow, not a loss
        ("Revenue posted negative growth of 2.8% [F1, F2].", "2.8%", None),  # a direction
    ],
)
def test_negative_wording(text, written, word):
    assert q_of(text, written).negative_wording == word


def test_negative_growth_is_a_decrease():
    assert q_of("Revenue posted negative growth of 2.8% [F1, F2].", "2.8%").direction == -1


def test_loss_word_governs_only_the_next_number():
    text = "Net loss was $5 million and revenue was $10 million."
    assert [q.negative_wording for q in extract_quantities(text)] == ["loss", None]


def test_loss_word_in_another_clause_does_not_count():
    assert q_of("It had a loss last year; this year income was $5 million.", "$5 million").negative_wording is None


def test_outflow_sign_wording_is_unchanged():
    """``sign_wording`` keeps its meaning (outflow or loss words), for the magnitude-of-a-negative rule."""
    assert q_of("Apple spent $11.0 billion [F15].", "$11.0 billion").sign_wording is True
    assert q_of("Apple posted a net loss of $97.0 billion [F7].", "$97.0 billion").sign_wording is True
    assert q_of("Net income was $97.0 billion [F7].", "$97.0 billion").sign_wording is False


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from([("profit", None), ("income", None), ("gain", None), ("loss", "loss"), ("deficit", "deficit")]),
    st.sampled_from(["Net", "Operating", "Pre-tax", "The"]),
    st.floats(0.1, 999.9).map(lambda v: round(v, 1)),
)
def test_property_loss_word_flip(word, lead, value):
    """Flipping profit/income/gain to loss/deficit around a correct figure sets ``negative_wording``."""
    noun, expected = word
    text = f"{lead} {noun} was ${value:.1f} billion [F1]."
    assert q_of(text, f"${value:.1f} billion").negative_wording == expected


def test_negative_word_of_a_sentence():
    assert negative_word("Apple posted a net loss of $97.0 billion") == "loss"
    assert negative_word("순손실은 300억원이다") == "손실"
    assert negative_word("Revenue posted negative growth of 2.8%") is None
    assert negative_word("Net income was $97.0 billion") is None


# --- change bases ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "written", "base", "direction"),
    [
        ("FY2022 revenue was 2.9% higher than FY2023 revenue [F1, F2].", "2.9%", "against_other", 1),
        ("FY2023 revenue was 2.8% lower than FY2022 revenue [F1, F2].", "2.8%", "against_other", -1),
        ("FY2022 revenue exceeded FY2023 revenue by 2.9% [F2, F1].", "2.9%", "against_other", 1),
        ("Revenue was 2.9% above the FY2023 level [F1, F2].", "2.9%", "against_other", 1),
        ("Revenue fell 2.8% from fiscal 2022 [F1, F2].", "2.8%", "from_base", -1),
        ("Revenue was down 2.8% versus FY2022 [F1, F2].", "2.8%", "from_base", -1),
        ("매출은 전년 대비 12% 감소했다 [F1, F2].", "12%", "from_base", -1),
        ("Revenue fell 2.8% [F1, F2].", "2.8%", None, -1),
        ("Revenue was $383.3 billion [F1].", "$383.3 billion", None, None),
    ],
)
def test_change_base(text, written, base, direction):
    q = q_of(text, written)
    assert (q.change_base, q.direction) == (base, direction)


# --- sums ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "license_"),
    [
        ("Apple's revenue was $777.6 billion over the two years [F1, F2].", "periods"),
        ("Cumulative revenue was $777.6 billion [F1, F2].", "periods"),
        ("Over the past two fiscal years revenue totaled $777.6 billion.", "periods"),
        ("Across both years revenue was $777.6 billion.", "periods"),
        ("2년간 매출 합계는 777조원이다.", "periods"),
        ("Products and services combined were $383.3 billion [F2, F3].", "components"),
        ("Together they were $383.3 billion.", "components"),
        ("In total, segments earned $50 billion.", "components"),
        ("A total of $50 billion was returned.", "components"),
        ("Revenue totaled $383.3 billion.", "components"),
        ("The sum of both segments was $50 billion.", "components"),
        ("매출 합계는 300억원이다.", "components"),
        ("Apple's revenue was $777.6 billion [F1, F2].", None),
        ("Total net sales were $383.3 billion [F1].", None),
        ("Revenue in fiscal 2023 was $383.3 billion.", None),
    ],
)
def test_licenses_sum(sentence, license_):
    assert licenses_sum(sentence) == license_


def test_licenses_sum_is_clause_scoped_with_a_span():
    s = "Segments combined earned $50 billion; revenue was $777.6 billion [F1, F2]."
    assert licenses_sum(s, (s.index("$50"), s.index("$50") + 11)) == "components"
    assert licenses_sum(s, (s.index("$777"), s.index("$777") + 14)) is None


# --- periods ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mentions"),
    [
        ("Fiscal 2022 revenue was $383.3 billion [F1].", [("Fiscal 2022", "FY2022")]),
        ("FY2023 and FY 22 and FY'21.", [("FY2023", "FY2023"), ("FY 22", "FY2022"), ("FY'21", "FY2021")]),
        ("In fiscal year 2022 it grew.", [("fiscal year 2022", "FY2022")]),
        ("For the year ended December 31, 2023 it grew.", [("the year ended December 31, 2023", "FY2023")]),
        ("For the fiscal year ended September 30, 2023.", [("the fiscal year ended September 30, 2023", "FY2023")]),
        ("2023년 매출은 300억원이다.", [("2023년", "FY2023")]),
        ("2024년 3분기 매출", [("2024년 3분기", "2024Q3")]),
        ("2023년 상반기 매출", [("2023년 상반기", "2023H1")]),
        ("Q3 2024 revenue grew.", [("Q3 2024", "2024Q3")]),
        ("3Q24 revenue grew.", [("3Q24", "2024Q3")]),
        ("In Q3 FY2024 it grew.", [("Q3 FY2024", "2024Q3")]),
        ("In the third quarter of 2024 it grew.", [("third quarter of 2024", "2024Q3")]),
        ("In the first half of 2023 it grew.", [("first half of 2023", "2023H1")]),
        ("H1 2023 sales grew.", [("H1 2023", "2023H1")]),
        ("Sales in 2023 grew.", [("2023", "FY2023")]),
        ("2023 revenue grew.", [("2023", "FY2023")]),
        ("Revenue rose 5% from 2022.", [("2022", "FY2022")]),
    ],
)
def test_find_periods(text, mentions):
    assert [(p.text, p.key) for p in find_periods(text)] == mentions
    for p in find_periods(text):
        assert text[p.span[0] : p.span[1]] == p.text


@pytest.mark.parametrize(
    "text",
    [
        "We had 2023 employees.",
        "On March 3, 2020 the stock fell.",
        "2023년 3월 31일 기준",
        "Revenue in the third quarter rose.",
        "Revenue in Q3 rose.",
        "Sales were $2,023 million.",
        "Revenue was $383.3 billion.",
    ],
)
def test_not_periods(text):
    assert find_periods(text) == []


@pytest.mark.parametrize(
    ("period", "key"),
    [
        ("FY2023", "FY2023"),
        ("fiscal 2023", "FY2023"),
        ("2019", "FY2019"),
        ("2019-12-31", "FY2019"),
        ("September 30, 2023", "FY2023"),
        ("Years Ended Sept 30, 2019", "FY2019"),
        ("Q3 2024", "2024Q3"),
        ("2024Q3", "2024Q3"),
        ("H1 2023", "2023H1"),
        ("", None),
        (None, None),
        ("Current", None),
    ],
)
def test_period_key(period, key):
    assert period_key(period) == key


_FORMS = [
    ("FY{y}", "FY{y}"),
    ("fiscal {y}", "FY{y}"),
    ("fiscal year {y}", "FY{y}"),
    ("the year ended December 31, {y}", "FY{y}"),
    ("{y}년", "FY{y}"),
    ("Q{q} {y}", "{y}Q{q}"),
    ("{q}Q{yy}", "{y}Q{q}"),
    ("{y}년 {q}분기", "{y}Q{q}"),
]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2000, 2099), st.integers(1, 4), st.sampled_from(_FORMS), st.sampled_from(["", "Revenue in ", "매출 "])
)
def test_property_periods(year, quarter, form, lead):
    """Each documented form, for any year and quarter, is one mention with the normalised key, and
    swapping the year changes the key (what ``period_swap`` relies on)."""
    written, key = form
    fill = {"y": year, "q": quarter, "yy": f"{year % 100:02d}"}
    text = f"{lead}{written.format(**fill)} was $5 billion."
    (p,) = find_periods(text)
    assert p.key == key.format(**fill) and text[p.span[0] : p.span[1]] == p.text
    other = {**fill, "y": year - 1 if year > 2000 else year + 1}
    other["yy"] = f"{other['y'] % 100:02d}"
    (p2,) = find_periods(f"{lead}{written.format(**other)} was $5 billion.")
    assert p2.key != p.key


def test_the_noun_gain_states_no_rise_and_the_verb_does():
    """The noun in "The gain was 2% …" names a profit item, not a change; "gained 2%" and "a 2% gain" rise."""
    assert q_of("The gain was 2.8% of revenue.", "2.8%").direction is None
    assert q_of("The gain on the sale was $5 million.", "$5 million").direction is None
    assert q_of("Sales gained 2.8%.", "2.8%").direction == 1
    assert q_of("Sales posted a 2.8% gain.", "2.8%").direction == 1


def test_a_korean_comparative_after_boda_names_the_base_and_the_way():
    from assay.claims import extract_quantities

    (more,) = extract_quantities("2022년 매출은 2023년보다 2.9% 많았다")[-1:]
    (less,) = extract_quantities("2023년 매출은 2022년보다 2.8% 낮았다")[-1:]
    (deficit,) = extract_quantities("2023년보다 500억원 적자였다")[-1:]
    assert (more.change_base, more.direction) == ("against_other", 1)
    assert (less.change_base, less.direction) == ("against_other", -1)
    assert deficit.change_base is None  # "적자" (a deficit) is no comparative
