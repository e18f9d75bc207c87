"""Verdicts of stated effects on paired runs (assay.effects.check, assay.effects.runs)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.effects import EffectInputError, check_effects, parse_statements, run_scores
from assay.effects.check import _verdict


def run(values: dict[str, list[float | None]], *, variant="v", schema=1, kind="eval", name="run"):
    n = len(next(iter(values.values())))
    cases = [{"id": f"q{i}", "variant": variant, "scores": {d: vs[i] for d, vs in values.items()}} for i in range(n)]
    return run_scores({"schema": schema, "kind": kind, "cases": cases}, name)


def shifted(n=200, delta=0.05, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.8, n)
    head = np.clip(base + delta + rng.normal(0, 0.05, n), 0, 1)
    return run({"composite": base.tolist()}, name="base"), run({"composite": head.tolist()}, name="head")


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("+5pp", "supported"),
        ("+1pp", "understated"),
        ("+20pp", "overstated"),
        ("-5pp", "contradicted"),
    ],
)
def test_verdict_by_claimed_delta(claim, verdict):
    base, head = shifted()
    (c,) = check_effects(base, head, parse_statements(f"Claim: composite={claim}")).checks
    assert c.verdict == verdict
    assert c.n_pairs == 200 and c.ci is not None and c.ci[0] > 0
    assert c.holds == (verdict in {"supported", "understated"})


def test_no_effect_is_not_significant_and_guard_holds():
    base, head = shifted(delta=0.0)
    report = check_effects(base, head, parse_statements("Claim: composite=+2pp\nGuard: composite >= -2pp"))
    assert [c.verdict for c in report.checks] == ["not_significant", "held"]
    assert report.exit_code == 1


def test_guard_fails_when_the_lower_bound_is_below_the_margin():
    base, head = shifted(delta=-0.05)
    (g,) = check_effects(base, head, parse_statements("Guard: composite >= -1pp")).checks
    assert g.verdict == "not_held" and g.ci[0] < -0.01


def test_pairs_with_a_none_side_are_dropped_and_counted():
    base = run({"composite": [0.5, 0.5, None, 0.5]})
    head = run({"composite": [0.6, 0.7, 0.9, None]})
    report = check_effects(base, head, parse_statements("Claim: composite=+15pp"))
    assert report.checks[0].n_pairs == 2
    assert report.checks[0].diff == pytest.approx(0.15)
    assert any("2 case(s) with a None side dropped" in n for n in report.notes)


def test_too_few_pairs_is_an_incomplete_measurement():
    base = run({"composite": [0.5, None]})
    head = run({"composite": [0.6, 0.7]})
    report = check_effects(base, head, parse_statements("Claim: composite=+1pp"))
    assert report.checks[0].verdict == "too_few_pairs" and report.exit_code == 3


def test_unknown_dimension_and_variant_name_what_exists():
    base, head = shifted(n=10)
    with pytest.raises(EffectInputError, match="no dimension 'sorcing'.*it has composite"):
        check_effects(base, head, parse_statements("Claim: sorcing=+1pp"))
    with pytest.raises(EffectInputError, match="no variant 'w'; it has v"):
        check_effects(base, head, parse_statements("Claim: w.composite=+1pp"))


def test_two_variants_inside_one_file():
    cases = [{"id": f"q{i}", "variant": "a", "scores": {"s": 0.2}} for i in range(30)]
    cases += [{"id": f"q{i}", "variant": "b", "scores": {"s": 0.5}} for i in range(30)]
    one = run_scores({"schema": 1, "kind": "eval", "cases": cases}, "one")
    (c,) = check_effects(one, one, parse_statements("Claim: s=+30pp"), base_variant="a", head_variant="b").checks
    assert c.verdict == "supported" and c.diff == pytest.approx(0.3)


def test_schema_one_composite_is_the_answered_composite():
    base = run({"composite": [0.5] * 5}, schema=1)
    head = run({"composite": [0.6] * 5, "composite_answered": [0.7] * 5}, schema=2)
    with pytest.raises(EffectInputError, match="claim `composite_answered`"):
        check_effects(base, head, parse_statements("Claim: composite=+10pp"))
    (c,) = check_effects(base, head, parse_statements("Claim: composite_answered=+20pp")).checks
    assert c.diff == pytest.approx(0.2)


def test_kinds_must_match():
    with pytest.raises(EffectInputError, match="rationality run"):
        check_effects(
            run({"x": [0.1, 0.2]}), run({"x": [0.1, 0.2]}, kind="rationality"), parse_statements("Claim: x=+1")
        )


def test_holm_can_withdraw_significance():
    # a weak effect: its raw CI may clear 0, but 5 claims in one family need a smaller p
    base, head = shifted(n=40, delta=0.02, seed=3)
    text = "\n".join(f"Claim: composite=+{k}pp" for k in (1, 2, 3, 4, 5))
    plain = check_effects(base, head, parse_statements(text), seed=1)
    fam = check_effects(base, head, parse_statements(text), seed=1, family="holm")
    assert all(c.p_adjusted is not None and c.p_adjusted >= c.p_value for c in fam.checks)
    for p, f in zip(plain.checks, fam.checks, strict=True):
        if f.p_adjusted > 0.05:
            assert f.verdict == "not_significant"
        else:
            assert f.verdict == p.verdict


def test_results_are_seeded():
    base, head = shifted(n=50)
    s = parse_statements("Claim: composite=+5pp")
    assert check_effects(base, head, s, seed=4).to_dict() == check_effects(base, head, s, seed=4).to_dict()


@settings(max_examples=200, deadline=None)
@given(
    st.floats(-1, 1).filter(lambda x: abs(x) > 1e-6),
    st.floats(-1, 1),
    st.floats(0, 1),
)
def test_verdict_is_symmetric_under_negation(delta, lo, width):
    (claim,) = parse_statements(f"Claim: x={delta:+.6f}")
    (mirror,) = parse_statements(f"Claim: x={-delta:+.6f}")
    ci = (lo, lo + width)
    assert _verdict(claim, 10, ci) == _verdict(mirror, 10, (-ci[1], -ci[0]))
