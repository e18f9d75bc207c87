"""Issue 15: the displayed-value rule in cited mode applies only to facts with a ``displayed_value``
(or to passages); a match through it says ``scale_from_display``; ``displayed_value`` is in the
fingerprint, so an index (and a memo) of the old data is never reused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import IndexCache, check_answer


def _fact(fid="F1", value=6.13, unit="USD millions", displayed=None, label="Revenue", period="FY2023"):
    return Fact(id=fid, label=label, value=value, unit=unit, period=period, displayed_value=displayed)


def test_bare_figure_against_a_structured_fact_fails():
    """The issue's sentence: "$6.13 [F1]" against 6.13 USD millions without a display fails."""
    r = check_answer("Revenue was $6.13 [F1].", Snapshot(facts=(_fact(),)))
    assert r.status == "fail"
    assert r.violations[0].kind == "value_mismatch"
    assert "nearest: F1 = $6.13 million" in r.violations[0].reason
    assert r.n_scale_from_display == 0


def test_bare_figure_against_a_displayed_fact_passes_and_says_so():
    r = check_answer("Revenue was $6.13 [F1].", Snapshot(facts=(_fact(displayed="6.13"),)))
    assert r.status == "pass"
    (check,) = r.checks
    assert check.scale_from_display and check.ref == "F1"
    assert r.n_scale_from_display == 1
    assert r.model_dump()["checks"][0]["scale_from_display"] is True


@pytest.mark.parametrize("displayed", [None, "6.13"])
def test_figure_with_its_scale_is_no_display_match(displayed):
    r = check_answer("Revenue was $6.13 million [F1].", Snapshot(facts=(_fact(displayed=displayed),)))
    assert r.status == "pass" and not r.checks[0].scale_from_display


def test_display_of_another_magnitude_is_the_source_figure():
    """A fact stored in units with a table display in millions: "$1,452.4" is read as shown."""
    f = _fact(value=1.4524e9, unit="USD", displayed="1,452.4")
    assert check_answer("Revenue was $1,452.4 [F1].", Snapshot(facts=(f,))).checks[0].scale_from_display
    assert check_answer("Revenue was $1.4524 billion [F1].", Snapshot(facts=(f,))).status == "pass"
    assert check_answer("Revenue was $1,452.5 [F1].", Snapshot(facts=(f,))).status == "fail"


def test_bare_figure_of_a_negative_displayed_fact_keeps_the_sign_rules():
    """A display without a sign never makes a negative fact positive: "370" is a magnitude-only
    match of −370 and needs sign wording, as a value match does."""
    f = _fact(value=-370, unit="USD thousands", displayed="370", label="Cash used")
    assert check_answer("The figure was 370 [F1].", Snapshot(facts=(f,))).status == "fail"
    r = check_answer("The company spent 370 [F1].", Snapshot(facts=(f,)))
    assert r.status == "pass" and r.checks[0].sign_from_wording and r.checks[0].scale_from_display


def test_derivation_of_displayed_facts_is_a_display_match():
    facts = (
        _fact("F1", 3800, displayed="3,800", label="Segment A"),
        _fact("F2", 6690, displayed="6,690", label="Segment B"),
    )
    r = check_answer("Segments A and B combined were $10,490 [F1, F2].", Snapshot(facts=facts))
    assert r.status == "pass" and r.checks[0].op == "a+b" and r.checks[0].scale_from_display
    plain = tuple(f.model_copy(update={"displayed_value": None}) for f in facts)
    assert check_answer("Segments A and B combined were $10,490 [F1, F2].", Snapshot(facts=plain)).status == "fail"


def test_passage_figures_keep_the_display_rule_and_say_so():
    snap = Snapshot(sources=("(in millions)\nRevenue | 5,802 | 5,100",))
    r = check_answer("Revenue was $5,802.", snap)
    assert r.status == "pass" and r.checks[0].scale_from_display
    assert not check_answer("Revenue was $5,802 million.", snap).checks[0].scale_from_display


def test_uncited_mode_keeps_value_as_displayed():
    """Only cited mode is narrowed (issue 15); uncited mode still reads a fact's value as displayed,
    and the match says so."""
    r = check_answer("Revenue was $6.13.", Snapshot(facts=(_fact(),)), mode="uncited")
    assert r.status == "pass" and r.checks[0].scale_from_display


def test_index_of_other_displayed_values_is_not_reused():
    """The fingerprint covers displayed_value, so an IndexCache (and the memo cache, keyed on it)
    never serves the index built from the facts without it."""
    cache = IndexCache()
    plain, shown = Snapshot(facts=(_fact(),)), Snapshot(facts=(_fact(displayed="6.13"),))
    assert plain.fingerprint() != shown.fingerprint()
    a = check_answer("Revenue was $6.13 [F1].", plain, index=cache.get(plain))
    b = check_answer("Revenue was $6.13 [F1].", shown, index=cache.get(shown))
    assert (a.status, b.status, len(cache)) == ("fail", "pass", 2)


# --- property: a bare figure of a scaled fact matches in cited mode only through its display --------

_SCALED = {"USD thousands": "thousand", "USD millions": "million", "USD billions": "billion", "millions": "million"}


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(_SCALED)), st.integers(1, 10**7), st.integers(0, 2), st.booleans())
def test_property_bare_figure_needs_a_display(unit, mantissa, decimals, with_display):
    value = mantissa / 10**decimals
    number = f"{value:,.{decimals}f}"
    fact = _fact(value=value, unit=unit, displayed=number if with_display else None)
    snap = Snapshot(facts=(fact,))
    bare = check_answer(f"Revenue was {'$' if unit.startswith('USD') else ''}{number} [F1].", snap)
    assert bare.status == ("pass" if with_display else "fail")
    assert bare.n_scale_from_display == int(with_display)
    scaled = check_answer(f"Revenue was {number} {_SCALED[unit]} [F1].", snap)
    assert scaled.status == "pass" and scaled.n_scale_from_display == 0
