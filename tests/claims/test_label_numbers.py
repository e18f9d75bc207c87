"""A number right after a label word names a thing, it is no quantity (``patterns.LABEL_BEFORE``): "Level 1",
"Note 7", and since gate-20 their lower-case forms ("the level 1 FVOCI", "note 23", "tier 1"). TAT-QA's
templated sentences write the column header lower-case; the "1" of "level 1" took the sentence's line item,
so "The level 1 FVOCI … was 14,766 million" passed on the FVPL row's 14,766."""

from __future__ import annotations

import pytest

from assay.claims import extract_quantities
from assay.facts import Snapshot
from assay.grounding import check_answer


@pytest.mark.parametrize(
    "text",
    [
        "The level 1 FVOCI was 14,766 million.",
        "Level 1 assets were 14,766 million.",
        "Total amount charged (note 23) was 14,766 million.",
        "The tier 1 capital was 14,766 million.",
        "As described in item 7, revenue was 14,766 million.",
    ],
)
def test_a_number_after_a_label_word_is_no_quantity(text):
    assert [q.text for q in extract_quantities(text)] == ["14,766 million"]


@pytest.mark.parametrize("text", ["The level was 1 million.", "Notes of 5 million were issued.", "Items sold: 12"])
def test_a_label_word_not_right_before_the_number_changes_nothing(text):
    assert len(extract_quantities(text)) == 1


def test_the_item_after_a_label_number_goes_to_the_figure():
    page = " | Level 1 | Level 2 | Total\n | RMB'Million | RMB'Million | RMB'Million\nFVPL | 14,766 | 5,091 | 19,857\n"
    page += "FVOCI | 74,707 | 7,014 | 81,721"
    snap = Snapshot(sources=(page,))
    got = check_answer("The level 1 FVOCI as at 31 December 2019 was 14,766 million.", snap, mode="uncited")
    assert got.status == "fail" and "label_mismatch" in [v.kind for v in got.violations], got
    assert (
        check_answer("The level 1 FVPL as at 31 December 2019 was 14,766 million.", snap, mode="uncited").status
        == "pass"
    )
