"""A fresh-eyes hunt's findings on gate-20 (a helper trying the gate as a new user), fixed in gate-21: each
false accept with its true counterpart."""

from __future__ import annotations

import pytest

from assay.claims import extract_claims
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.labels import names_something

TWO_YEARS = Snapshot(
    facts=(
        Fact(id="F1", label="Revenue", value=1100, unit="USD millions", period="2019"),
        Fact(id="F2", label="Revenue", value=1000, unit="USD millions", period="2018"),
        Fact(id="F3", label="Net income", value=-15, unit="USD millions", period="2019"),
        Fact(id="F4", label="Net income", value=-24, unit="USD millions", period="2018"),
    )
)
PAGE = Snapshot(
    sources=(
        "(in millions)\n | 2019 | 2018\nRevenue | 1,100 | 1,000\nNet loss | (15) | (24)\n\n"
        "In 2019, the company recorded a net loss of $15 million compared to a net loss of $24 million in 2018.",
    )
)
KOREAN = Snapshot(
    facts=(
        Fact(id="F1", label="매출액", value=3.5e12, unit="KRW", period="2023"),
        Fact(id="F2", label="순이익", value=2.0e12, unit="KRW", period="2023"),
    )
)


def _status(answer: str, snap: Snapshot) -> str:
    return check_answer(answer, snap).status


@pytest.mark.parametrize(
    ("true", "false"),
    [
        # a change named by one year is the change into it; a year named as its base is the earlier
        ("Revenue rose 10% in 2019 [F1, F2].", "Revenue rose 10% in 2018 [F1, F2]."),
        ("In 2019, revenue rose $100 million [F1, F2].", "In 2018, revenue rose $100 million [F1, F2]."),
        ("Revenue rose 10% from 2018 [F1, F2].", "Revenue rose 10% in 2018 [F1, F2]."),
        ("Revenue rose 10% since fiscal 2018 [F1, F2].", "Revenue rose 10% in fiscal 2018 [F1, F2]."),
        # a loss named on a profit's two negatives moves by its size; "widened" and "narrowed" are sizes too
        (
            "The net loss decreased by $9 million from 2018 to 2019 [F3, F4].",
            "The net loss increased by $9 million from 2018 to 2019 [F3, F4].",
        ),
        (
            "The net loss narrowed by $9 million from 2018 to 2019 [F3, F4].",
            "The net loss widened by $9 million from 2018 to 2019 [F3, F4].",
        ),
    ],
)
def test_cited_true_and_false(true, false):
    assert _status(true, TWO_YEARS) == "pass", true
    assert _status(false, TWO_YEARS) == "fail", false


def test_a_change_named_by_its_earlier_year_is_a_period_mismatch_uncited_too():
    assert _status("Revenue rose 10% in 2019.", PAGE) == "pass"
    result = check_answer("Revenue rose 10% in 2018.", PAGE)
    assert result.status == "fail" and result.violations[0].kind == "period_mismatch"


def test_profit_words_of_a_new_user_on_a_loss():
    assert _status("The company was profitable, earning $15 million in 2019.", PAGE) == "fail"
    assert _status("The company recorded a net loss of $15 million in 2019.", PAGE) == "pass"


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ("순이익은 3조 5천억원이었다 [F1].", "fail"),  # 순이익 (net income) on 매출액 (revenue)
        ("매출액은 3조 5천억원이었다 [F1].", "pass"),
        ("매출은 3조 5천억원이었다 [F1].", "pass"),  # a synonym of the same concept
        ("Net income was ₩3.5 trillion [F1].", "fail"),
        ("Revenue was ₩3.5 trillion [F1].", "pass"),
        ("순이익은 2조원이었다 [F2].", "pass"),
    ],
)
def test_korean_labels_of_three_syllables_name_their_line_items(answer, status):
    result = check_answer(answer, KOREAN)
    assert result.status == status, (answer, result.violations)
    assert status == "pass" or result.violations[0].kind == "label_mismatch"


def test_names_something_counts_a_hangul_syllable_as_two_characters():
    assert names_something("매출") and names_something("순이익") and names_something("cash")
    assert not names_something("tax") and not names_something("이") and not names_something("ab")


def test_widened_and_narrowed_read_as_a_rise_and_a_fall():
    assert extract_claims("Spread widened 25 bps.")[0].numbers[0].direction == 1
    assert extract_claims("The gap narrowed by $3 million.")[0].numbers[0].direction == -1


@pytest.mark.parametrize(
    ("true", "false"),
    [
        # a level given no year of its own is not of the year the sentence names only as its change's base
        (
            "Revenue was $1,100 million, up 10% from 2018 [F1, F2].",
            "Revenue was $1,000 million, up 10% from 2018 [F1, F2].",
        ),
        ("Revenue was $1,100 million, up from 2018 [F1].", "Revenue was $1,000 million, up from 2018 [F2]."),
        (
            "Revenue rose 10% from $1,000 million in 2018 [F1, F2].",
            "Revenue was $1,000 million in 2019, up from 2018 [F2].",
        ),
    ],
)
def test_a_level_beside_a_base_year_is_the_later_one(true, false):
    assert _status(true, TWO_YEARS) == "pass", true
    result = check_answer(false, TWO_YEARS)
    assert result.status == "fail" and result.violations[0].kind == "period_mismatch", false
    assert _status("The revenue carried forward from 2018 was $1,000 million [F2].", TWO_YEARS) == "pass"  # no change


@pytest.mark.parametrize(
    ("true", "false"),
    [
        # uncited: the base year is no level's (the true sentence failed), and the false one still fails
        ("Revenue was $1,100 million, up 10% from 2018.", "Revenue was $1,000 million, up 10% from 2018."),
        ("Revenue was $1,100 million, up from 2018.", "Revenue was $1,000 million, up from 2018."),
        # uncited: a comparison's subject and base are the cells' column years (cited: the facts' periods)
        ("Revenue in 2019 was 10% higher than in 2018.", "Revenue in 2018 was 10% higher than in 2019."),
        ("Revenue in 2018 was 9.1% lower than in 2019.", "Revenue in 2019 was 9.1% lower than in 2018."),
    ],
)
def test_uncited_levels_and_comparisons_of_a_pages_columns(true, false):
    assert _status(true, PAGE) == "pass", true
    assert _status(false, PAGE) == "fail", false


QUARTERS = Snapshot(
    facts=(
        Fact(id="F1", label="Revenue", value=260, unit="USD millions", period="Q3 2019"),
        Fact(id="F2", label="Revenue", value=240, unit="USD millions", period="Q2 2019"),
        Fact(id="F3", label="Revenue", value=200, unit="USD millions", period="Q3 2018"),
    )
)


@pytest.mark.parametrize(
    ("answer", "snap"),
    [
        # a second hunt's true sentences that a first form of the change-year rule failed: the year is the base
        ("Revenue was $1,100 million, 10% above 2018 [F1, F2].", TWO_YEARS),
        ("Revenue exceeded 2018 by 10% [F1, F2].", TWO_YEARS),
        ("Revenue beat 2018 by $100 million [F1, F2].", TWO_YEARS),
        ("Revenue was $1,100 million, 10% ahead of 2018 [F1, F2].", TWO_YEARS),
        ("Revenue rose 30% from Q3 2018 [F1, F3].", QUARTERS),
        ("Revenue rose 30% from the third quarter of 2018 [F1, F3].", QUARTERS),
        ("Revenue rose 30% compared with Q3 2018 [F1, F3].", QUARTERS),
        ("Revenue was $1,100 million, 10% above 2018.", PAGE),
    ],
)
def test_a_year_named_as_the_base_in_other_words_is_no_change_year(answer, snap):
    assert _status(answer, snap) == "pass", answer


def test_the_change_year_rule_fires_only_on_the_period_a_change_is_of():
    for answer in ("Revenue rose 10% during 2018 [F1, F2].", "Revenue rose 10% in fiscal 2018 [F1, F2]."):
        assert _status(answer, TWO_YEARS) == "fail", answer
