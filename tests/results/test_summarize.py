"""The one aggregation helper (assay.results.summarize): per-variant stats, histogram, bottom-k, lift."""

from __future__ import annotations

import pytest

import assay.evaluate
import assay.judges.rationality
from assay.results import BottomRow
from assay.results import summarize as helper
from assay.results.summarize import HIST_EDGES, bottom_rows, histogram, paired_lift, summarize_variants
from assay.stats import paired_bootstrap, summarize

FAST = {"n_resamples": 500, "seed": 3}


def _rec(id: str, variant: str, score: float | None, *, slice: str | None = "s", **extra) -> dict:
    return {"id": id, "variant": variant, "slice": slice, "scores": {"x": score, "y": None}, **extra}


def test_eval_and_the_rationality_judge_use_this_helper():
    assert assay.evaluate.summarize_variants is helper.summarize_variants
    assert assay.evaluate.paired_lift is helper.paired_lift
    assert assay.judges.rationality.summarize_variants is helper.summarize_variants
    for module in (assay.evaluate, assay.judges.rationality):
        assert not hasattr(module, "_hist") and not hasattr(module, "_bottom")


def test_histogram_bins_of_width_a_tenth_with_one_in_the_last_bin():
    h = histogram([0.0, 0.05, 0.1, 0.95, 1.0, None, 0.5])
    assert h.edges == list(HIST_EDGES) == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert h.counts == [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]
    assert histogram([]).counts == [0] * 10


def test_bottom_rows_are_anonymised_ordered_by_score_then_variant():
    records = [
        _rec("q1", "b", 0.2, slice="one"),
        _rec("q2", "a", 0.2, slice="two"),
        _rec("q3", "a", None),
        _rec("q4", "a", 0.9, slice=None),
        _rec("q5", "a", 0.1),
    ]
    rows = bottom_rows(records, ["x", "y"], 3)
    assert rows["x"] == [
        BottomRow(rank=1, variant="a", slice="s", score=0.1),
        BottomRow(rank=2, variant="a", slice="two", score=0.2),
        BottomRow(rank=3, variant="b", slice="one", score=0.2),
    ]
    assert "y" not in rows  # not measured anywhere
    assert all(set(r.to_json()) == {"rank", "variant", "slice", "score"} for r in rows["x"])
    assert bottom_rows(records, ["x"], 0) == {"x": []}


def test_bottom_rows_skip_perfect_scores_and_dimensions_where_every_case_scores_1():
    """Issue 16: "Bottom 3" listed scores of 1.000."""
    records = [_rec("q1", "a", 1.0, key="k1"), _rec("q2", "a", 0.4, key="k2"), _rec("q3", "b", 1.0, key="k3")]
    for r in records:
        r["scores"]["perfect"] = 1.0
    rows = bottom_rows(records, ["x", "perfect"], 3, key_field="key")
    assert list(rows) == ["x"]
    assert [r.to_json() for r in rows["x"]] == [{"rank": 1, "key": "k2", "variant": "a", "slice": "s", "score": 0.4}]


def test_summarize_variants_per_variant_statistics_rates_and_histograms():
    records = [_rec(f"q{i}", v, (i % 4) / 4, ok=i % 3 == 0) for i in range(12) for v in ("b", "a")]
    out = summarize_variants(records, ["x", "y"], rates={"ok_rate": lambda r: r["ok"]}, **FAST)
    assert list(out.variants) == ["a", "b"]  # sorted by name
    a = out.variants["a"]
    assert a.n == 12
    assert a.to_json()["ok_rate"] == round(4 / 12, 4)
    values = [r["scores"]["x"] for r in records if r["variant"] == "a"]
    assert a.dims["x"].to_json() == summarize(values, **FAST).to_dict()
    assert a.dims["y"].to_json() == {"mean": None, "std": None, "ci": None, "effective_n": 0}
    assert sum(a.hist["x"].counts) == 12 and sum(a.hist["y"].counts) == 0
    assert list(a.to_json()) == ["n", "dims", "hist", "ok_rate"]  # a rate the schema does not name comes last
    assert len(out.bottom["x"]) == 3


def test_summarize_variants_reports_the_variants_asked_even_without_records():
    out = summarize_variants([], ["x"], variants=("all",), rates={"r": lambda r: True}, **FAST)
    v = out.variants["all"]
    assert v.n == 0 and v.to_json()["r"] is None
    assert v.dims["x"].mean is None and v.hist["x"].counts == [0] * 10
    assert out.bottom == {}
    assert summarize_variants([], ["x"], **FAST).variants == {}


def test_summarize_variants_groups_by_any_record_field():
    records = [_rec("q1", "v", 0.5, arm="control"), _rec("q2", "v", 0.7, arm="treatment")]
    out = summarize_variants(records, ["x"], variant_key="arm", **FAST)
    assert list(out.variants) == ["control", "treatment"]
    assert [r.variant for r in out.bottom["x"]] == ["control", "treatment"]


def test_paired_lift_pairs_on_ids_against_the_baseline():
    records = [_rec("q1", "base", 0.5), _rec("q2", "base", 0.4), _rec("q3", "base", 0.1)]
    records += [_rec("q1", "cand", 0.9), _rec("q2", "cand", 0.6), _rec("q4", "cand", 1.0)]
    lift = paired_lift(records, ["x", "y"], "base", **FAST)
    assert list(lift) == ["cand"]
    expected = paired_bootstrap({"q1": 0.9, "q2": 0.6, "q4": 1.0}, {"q1": 0.5, "q2": 0.4, "q3": 0.1}, **FAST)
    assert lift["cand"]["x"].to_json() == expected.to_dict()
    assert lift["cand"]["x"].n_pairs == 2
    assert lift["cand"]["y"].to_json() == {"diff": None, "ci": None, "n_pairs": 0}
    with pytest.raises(ValueError, match=r"baseline variant 'nope' not in the cases \(variants: base, cand\)"):
        paired_lift(records, ["x"], "nope")


def test_a_slice_mean_prints_as_its_variant_mean():
    """Regression (a new user's eval report): the slice table printed 0.213 beside the variant
    table's 0.214 for one mean of 0.213533, the slice mean having been stored at 4 decimals."""
    from assay.results.breakdown import breakdown

    values = [0.213533 + d for d in (-0.1, 0.0, 0.1)]
    records = [
        {"variant": "v", "slice": "s", "violations": [], "scores": {"composite": x, "coverage": 1.0}} for x in values
    ]
    mean = sum(values) / len(values)
    got = breakdown(records)["v"]["slices"]["s"]["composite"]
    assert f"{got:.3f}" == f"{mean:.3f}" == "0.214"
