"""The Claim:/Guard: grammar (assay.effects.statements)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.effects import StatementError, parse_statements


def test_units_bare_and_pp():
    s = parse_statements("Claim: composite=+0.05\nClaim: composite=+5pp\n  - claim: sourcing = -2 pp")
    assert [x.delta for x in s] == pytest.approx([0.05, 0.05, -0.02])
    assert [x.written for x in s] == ["+0.05", "+5pp", "-2pp"]
    assert all(x.kind == "claim" and x.warning is None for x in s)


def test_the_seed_example_is_five_hundredths_of_a_point_and_warns():
    (s,) = parse_statements("Claim: planner_decomposition=+0.05pp")
    assert s.delta == pytest.approx(0.0005)
    assert s.warning is not None and "did you mean +5pp?" in s.warning


def test_variant_prefix_takes_everything_before_the_last_dot():
    (s,) = parse_statements("Claim: gpt-4.0_oracle.sourcing=+1pp")
    assert (s.variant, s.dimension) == ("gpt-4.0_oracle", "sourcing")
    assert s.label == "gpt-4.0_oracle.sourcing"


def test_guards():
    g1, g2 = parse_statements("Guard: sourcing >= -1pp\n> Guard: impersonal ≥ 0")
    assert (g1.kind, g1.delta) == ("guard", pytest.approx(-0.01))
    assert g2.delta == 0.0
    assert g1.text == "Guard: sourcing >= -0.01 (-1pp)"


def test_other_lines_are_ignored_and_lines_are_numbered():
    s = parse_statements("# PR\nThis claims nothing.\n\nClaim: composite=+3pp\n")
    assert [x.line for x in s] == [4]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("Claim: composite", "expected `Claim:"),
        ("Claim: composite=big", "expected `Claim:"),
        ("Claim: composite=0", "a change of 0"),
        ("Claim: 9lives=+1", "not a dimension name"),
        ("Guard: sourcing >= +1pp", "margin"),
        ("Guard: sourcing = -1pp", "expected `Guard:"),
    ],
)
def test_malformed_statements_are_refused_never_guessed(line, problem):
    with pytest.raises(StatementError) as e:
        parse_statements(f"intro\n{line}")
    assert e.value.lineno == 2 and problem in str(e.value)


@given(st.integers(1, 5000), st.booleans(), st.sampled_from(["", "pp"]))
def test_round_trip_of_the_written_value(n, negative, unit):
    value = n / 100
    text = f"Claim: composite={'-' if negative else '+'}{value}{unit}"
    (s,) = parse_statements(text)
    expected = (-value if negative else value) / (100 if unit else 1)
    assert s.delta == pytest.approx(expected)
