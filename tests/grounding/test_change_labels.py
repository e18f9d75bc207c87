"""Two label readings the TAT-QA template sets found wrong (issue 15, item 2): a change column's
negative figure is a decrease, not a loss (``label_signs.label_polarity``); a paragraph naming an item
only as the base of a share ("18.7 percent of net sales") does not make its figure that item
(``operands.names_item_itself`` in ``context.twin_veto``). Each with its true counterpart."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.operands import names_item_itself


def status(answer: str, snap: Snapshot, mode: str = "uncited") -> str:
    return check_answer(answer, snap, mode=mode).status  # type: ignore[arg-type]


def _gross_profit(change_label: str) -> Snapshot:
    return Snapshot(
        facts=(
            Fact(id="A", label="Gross profit | 2019", value=31000, unit="USD thousands", period="2019"),
            Fact(id="B", label="Gross profit | 2018", value=34709, unit="USD thousands", period="2018"),
            Fact(id="C", label=f"Gross profit | {change_label}", value=-3709, unit="USD thousands"),
        )
    )


def test_a_negative_change_of_a_profit_item_is_no_loss():
    for column in ("$", "Change increase (decrease)"):
        snap = _gross_profit(column)
        assert status("Gross profit decreased by $3,709 thousand from 2018 to 2019.", snap) == "pass"
        assert status("Gross loss decreased by $3,709 thousand from 2018 to 2019.", snap) == "fail"


def test_a_negative_profit_level_is_still_a_loss():
    snap = Snapshot(facts=(Fact(id="N", label="Net income | 2019", value=-50, unit="USD millions", period="2019"),))
    assert status("The net loss in 2019 was $50 million.", snap) == "pass"
    assert status("The net income in 2019 was a profit of $50 million.", snap) == "fail"


def _paragraph() -> Snapshot:
    return Snapshot(
        facts=(
            Fact(id="G", label="Gross profit | 2019", value=444.8, unit="USD millions", period="2019"),
            Fact(id="S", label="Net sales | 2019", value=2378.6, unit="USD millions", period="2019"),
            Fact(
                id="P2N0",
                label="…Gross profit in fiscal 2019 increased to $444.8 million, or 18.7 percent of net sales from…",
                value=444.8,
                unit="USD millions",
            ),
        )
    )


def test_a_paragraph_naming_an_item_as_a_shares_base_does_not_make_its_figure_that_item():
    snap = _paragraph()
    assert status("Gross profit in 2019 was a profit of $444.8 million.", snap) == "pass"
    assert status("Net sales in 2019 was a profit of $444.8 million.", snap) == "fail"


def test_names_item_itself_reads_the_base_of_a_share_apart():
    ctx = "…gross profit increased to $444.8 million, or 18.7 percent of net sales from…"
    assert names_item_itself(ctx, "gross profit")
    assert not names_item_itself(ctx, "net sales")
    assert names_item_itself("net sales rose to $5 million, 3% of net sales", "net sales")  # once as itself
    assert not names_item_itself("… was 44% of the total net sales …", "net sales")


@settings(max_examples=30, deadline=None)
@given(later=st.integers(min_value=100, max_value=9000), change=st.integers(min_value=10, max_value=90))
def test_property_a_profit_items_fall_is_no_loss(later: int, change: int):
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Operating income | 2019", value=later, unit="USD thousands", period="2019"),
            Fact(id="B", label="Operating income | 2018", value=later + change, unit="USD thousands", period="2018"),
            Fact(id="C", label="Operating income | Change", value=-change, unit="USD thousands"),
        )
    )
    assert status(f"Operating income decreased by ${change:,} thousand from 2018 to 2019.", snap) == "pass"
    assert status(f"Operating loss decreased by ${change:,} thousand from 2018 to 2019.", snap) == "fail"
