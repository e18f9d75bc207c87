"""An uncited passage written in one currency backs amounts in that currency only (gate-18,
``assay.grounding.page_currency``; group I of a helper's hunt for non-year false accepts):
"Net income was 97.0 billion euros in 2023." passed on a dollar table whose "$  96,995" cell the
reader reads bare (two spaces after the sign), and so of any currency. A page that names two
currencies, or none, leaves its bare amounts of any currency, as before."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Snapshot
from assay.grounding import SnapshotIndex, check_answer
from assay.grounding.page_currency import page_currency

_DOLLAR_TABLE = (
    "Apple Inc. CONSOLIDATED STATEMENTS OF OPERATIONS (In millions, except per share amounts)\n"
    "                                   2023       2022\n"
    "Total net sales               $ 383,285  $ 394,328\n"
    "Net income                    $  96,995  $  99,803\n"
)


def _currency(text: str) -> str | None:
    return SnapshotIndex.build(Snapshot(sources=(text,))).page_currency(1)


def test_the_one_currency_a_page_writes():
    assert _currency(_DOLLAR_TABLE) == "USD"
    assert _currency("(€ in millions)\nRevenue | 1,234 | 1,100") == "EUR"
    assert _currency("Group revenue was £59.1m.\nRevenue | 59.1 | 55.0") == "GBP"
    assert _currency("(HK$ in millions)\nRevenue | 1,234 | 1,100") == "HKD"  # a prefixed dollar is its own
    assert _currency("HK$1.2 million") == "HKD"


def test_two_currencies_or_none_is_none():
    assert _currency("Revenue | 1,234 | 1,100") is None
    assert _currency("(£ in millions) Revenue 59.1; the $2.5 billion deal closed") is None
    assert _currency("HK$1.2 million and $3 million") is None
    assert _currency("The group won the contract; revenue 1,234") is None  # "won" is no currency here
    assert _currency("Revenue in real terms rose to 1,234") is None
    assert _currency("RMB 5 million; 3 million yuan") == "CNY"


def test_the_currencies_its_numbers_are_read_in_count():
    assert page_currency("Revenue | 1,234", ["EUR"]) == "EUR"
    assert page_currency("Revenue | $1,234", ["EUR"]) is None
    assert page_currency("Revenue | 1,234", []) is None


def test_another_currency_is_not_backed_by_a_dollar_page():
    snap = Snapshot(sources=(_DOLLAR_TABLE,))
    for false in ("Net income was 97.0 billion euros in 2023.", "Net income was €97.0 billion in 2023."):
        got = check_answer(false, snap, mode="uncited")
        assert got.status == "fail" and [v.kind for v in got.violations] == ["unit_mismatch"], false
    for true in ("Net income was $97.0 billion in 2023.", "Net income was 97.0 billion in 2023."):
        assert check_answer(true, snap, mode="uncited").status == "pass", true


def test_a_page_without_a_currency_backs_any():
    """Nothing says which currency "(In millions)" is in: the figure stands in any (as before)."""
    snap = Snapshot(sources=(_DOLLAR_TABLE.replace("$", " "),))
    for answer in ("Net income was €97.0 billion in 2023.", "Net income was $97.0 billion in 2023."):
        assert check_answer(answer, snap, mode="uncited").status == "pass", answer


_SIGNS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_SIGNS)), st.sampled_from(sorted(_SIGNS)), st.integers(1_000, 999_999))
def test_property_a_one_currency_page_backs_its_currency_only(page, stated, value):
    text = f"(In millions)\nSegment revenue {page} {value:,}  {page}  {value // 2:,}\n"
    answer = f"Segment revenue was {stated}{value:,} million."
    got = check_answer(answer, Snapshot(sources=(text,)), mode="uncited").status
    assert got == ("pass" if page == stated else "fail"), (text, answer, got)


def test_two_pages_each_keep_their_currency():
    """A snapshot of a dollar page and a euro page: each page's amounts are in its own currency."""
    euro = _DOLLAR_TABLE.replace("$", "€")
    snap = Snapshot(sources=(_DOLLAR_TABLE, euro.replace("96,995", "91,000")))
    assert check_answer("Net income was €91.0 billion in 2023.", snap, mode="uncited").status == "pass"
    assert check_answer("Net income was €97.0 billion in 2023.", snap, mode="uncited").status == "fail"
    assert check_answer("Net income was $91.0 billion in 2023.", snap, mode="uncited").status == "fail"


@pytest.mark.parametrize(
    "text",
    [
        "(in millions)\n  | 2019 | 2018\nRevenue | 1,234 | 1,100\n\nRevenue growth was held back by the weaker euro.",
        "Sterling Bancorp, Inc.\n(in millions)\n  | 2019 | 2018\nRevenue | 1,234 | 1,100\n",
        "(in millions)\n  | 2023 | 2022\nRevenue | 1,234 | 1,100\nCost of sales (매출원가) | 800 | 700\n",
        "Amounts in U.S. dollars (in millions)\nRevenue | 1,234 | 1,100",
    ],
)
def test_a_currency_word_alone_names_no_page_currency(text):
    """A fresh-eyes hunt's false rejects: prose names currencies a page is not written in (a weaker
    euro, a bank called Sterling, 원 inside 매출원가), so a word never makes a page's one currency."""
    assert _currency(text) is None
    assert check_answer("Revenue was $1,234 million.", Snapshot(sources=(text,)), mode="uncited").status == "pass"


def test_a_prefixed_dollar_page_and_yen_or_yuan():
    hk = Snapshot(sources=("(HK$ in millions)\nRevenue | 1,234 | 1,100\n",))
    assert check_answer("Revenue was HK$1,234 million.", hk, mode="uncited").status == "pass"
    assert check_answer("Revenue was €1,234 million.", hk, mode="uncited").status == "fail"
    rmb = Snapshot(sources=("(in millions of RMB)\nRevenue | 1,234 | 1,100\n",))
    assert check_answer("Revenue was ¥1,234 million.", rmb, mode="uncited").status == "pass"  # ¥ is yuan too
