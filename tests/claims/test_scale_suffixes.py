"""Scale suffixes after a currency amount (gate-16; a helper's false rejects, and UK filings' "£59.1m"
read as £59.1 in TAT-QA passages): "$97.0 bn", "$97.0 bln", "$97.0 B", "$96,995m", "$96,995 mm", "€3b"
are the scaled amounts; a one-letter suffix or "mm" is a scale only after a currency, so "5m away",
"12 mm", "3M" and "401k" stay what they were."""

from __future__ import annotations

import pytest

from assay.claims import extract_quantities


@pytest.mark.parametrize(
    ("text", "value", "scale", "unit"),
    [
        ("$97.0 bn", 97.0, 1e9, "USD"),
        ("$97.0 bln", 97.0, 1e9, "USD"),
        ("$97.0 B", 97.0, 1e9, "USD"),
        ("$96,995m", 96995.0, 1e6, "USD"),
        ("$96,995 mm", 96995.0, 1e6, "USD"),
        ("€3b", 3.0, 1e9, "EUR"),
        ("£59.1m", 59.1, 1e6, "GBP"),
        ("$5 mn", 5.0, 1e6, "USD"),
        ("5 bn", 5.0, 1e9, None),
        ("$97.0bn", 97.0, 1e9, "USD"),
    ],
)
def test_a_scale_suffix_after_an_amount_scales_it(text, value, scale, unit):
    (q,) = extract_quantities(text)
    assert (q.text, q.value, q.scale, q.unit) == (text, value, scale, unit)


def test_a_one_letter_suffix_or_mm_without_a_currency_is_no_scale():
    assert extract_quantities("5m away") == []  # a unit or code glued to the number: no quantity, as before
    assert [(q.text, q.scale) for q in extract_quantities("12 mm")] == [("12", 1.0)]
    assert [(q.text, q.scale) for q in extract_quantities("97.0 B shares")] == [("97.0", 1.0)]
    assert extract_quantities("3M company") == [] and extract_quantities("401k plan") == []


def test_a_negative_amount_in_parentheses_keeps_its_suffix():
    (q,) = extract_quantities("a loss of (£8.1m) in 2019")
    assert (q.value, q.scale, q.unit, q.explicit_sign) == (-8.1, 1e6, "GBP", True)
