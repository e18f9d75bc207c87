"""The eval runner as a library: per-variant stats, paired lift, rubric rules, agreement, bottom-k."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from assay.cases import Case
from assay.evaluate import REPORT_DIMS, EvalConfig, aggregate_records, compare_runs, evaluate_case, run_eval
from assay.grounding.rubric import DEFAULT_WEIGHTS
from assay.reports import render_markdown
from assay.stats import agreement, paired_bootstrap, summarize
from eval_cases import ADVICE, EMPLOYEES, GOOD, HALF, NON_MATERIAL, REFUSAL, WRONG, case, two_variant_rows

FAST = dict(n_resamples=500)  # bootstrap size for tests; the statistic code is the same


def _cases(rows) -> list[Case]:
    return [Case.model_validate(r) for r in rows]


def _record(id, variant, composite, *, status="pass", label=None, slice=None, sourcing=None):
    """A local record as run_eval writes it, with the fields aggregate_records reads."""
    scores = {d: None for d in REPORT_DIMS}
    scores["composite"] = composite
    scores["sourcing"] = composite if sourcing is None else sourcing
    return {"id": id, "variant": variant, "slice": slice, "status": status, "scores": scores, "label": label}


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    """Any store a judge opens lands in the test's tmp dir, never in ~/.assay."""
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ASSAY_DB_URL", raising=False)


# --- per-variant statistics ----------------------------------------------------------------


def test_per_variant_stats_match_the_local_records():
    local, agg = run_eval(_cases(two_variant_rows()), EvalConfig(baseline="base", **FAST))
    records = local["cases"]
    assert agg["n"] == len(records) == 14
    assert set(agg["variants"]) == {"base", "cand", "solo"}
    for v, s in agg["variants"].items():
        rs = [r for r in records if r["variant"] == v]
        assert s["n"] == len(rs)
        assert s["no_claims_rate"] == round(sum(r["status"] == "no_claims" for r in rs) / len(rs), 4)
        assert s["gate_fail_rate"] == round(sum(r["status"] == "fail" for r in rs) / len(rs), 4)
        for d in REPORT_DIMS:
            values = [r["scores"][d] for r in rs]
            assert s["dims"][d] == summarize(values, n_resamples=500, seed=0).to_dict()
            measured = [x for x in values if x is not None]
            assert s["dims"][d]["effective_n"] == len(measured)
            assert sum(s["hist"][d]["counts"]) == len(measured)
    base = agg["variants"]["base"]
    assert base["n"] == 7 and base["no_claims_rate"] == round(1 / 7, 4)
    assert base["dims"]["composite_answered"]["effective_n"] == 6  # the refusal is left out of the answered-only
    assert base["dims"]["composite"]["effective_n"] == 7  # … and counts 0 in the headline
    assert base["dims"]["coverage"]["mean"] == round(6 / 7, 6)
    assert base["dims"]["sourcing"]["mean"] == 1.0
    cand = agg["variants"]["cand"]
    assert cand["gate_fail_rate"] == round(4 / 6, 4)
    assert cand["dims"]["sourcing"]["mean"] == pytest.approx(0.5)  # (1 + 0.5 + 0) / 3, twice
    lo, hi = cand["dims"]["composite"]["ci"]
    assert 0.0 <= lo <= cand["dims"]["composite"]["mean"] <= hi <= 1.0


def test_a_variant_with_one_case_gets_ci_null_not_a_fake_interval():
    _, agg = run_eval(_cases(two_variant_rows()), EvalConfig(**FAST))
    solo = agg["variants"]["solo"]
    assert solo["n"] == 1
    for d in ("composite", "sourcing", "completeness", "impersonal"):
        assert solo["dims"][d]["ci"] is None and solo["dims"][d]["std"] is None
        assert solo["dims"][d]["effective_n"] == 1
    assert solo["dims"]["faithfulness"] == {"mean": None, "std": None, "ci": None, "effective_n": 0}


def test_aggregate_is_reproducible_and_the_seed_is_used():
    cases = _cases(two_variant_rows())
    _, a = run_eval(cases, EvalConfig(baseline="base", seed=7, **FAST))
    _, b = run_eval(cases, EvalConfig(baseline="base", seed=7, **FAST))
    _, c = run_eval(cases, EvalConfig(baseline="base", seed=8, **FAST))
    assert a["run_id"] != b["run_id"]  # a fresh run id and key salt per run; the figures are the same
    keyless = [
        {**x, "run_id": None, "bottom": {d: [{**r, "key": None} for r in rows] for d, rows in x["bottom"].items()}}
        for x in (a, b)
    ]
    assert keyless[0] == keyless[1]
    _, d = run_eval(cases, EvalConfig(baseline="base", seed=7, run_id="r1", salt="s", **FAST))
    _, e = run_eval(cases, EvalConfig(baseline="base", seed=7, run_id="r1", salt="s", **FAST))
    assert d == e
    assert a["variants"]["cand"]["dims"]["composite"]["ci"] != c["variants"]["cand"]["dims"]["composite"]["ci"]


# --- lift ----------------------------------------------------------------------------------


def test_lift_pairs_on_id_drops_missing_sides_and_reports_n_pairs():
    records = [
        _record("a", "base", 0.9),
        _record("b", "base", 0.8),
        _record("c", "base", 0.7),
        _record("d", "base", None, status="no_claims"),  # base side missing → pair dropped
        _record("a", "new", 1.0),
        _record("b", "new", 0.6),
        _record("c", "new", 0.9),
        _record("d", "new", 0.5),
        _record("e", "new", 0.1),  # no base answer → dropped
    ]
    agg = aggregate_records(records, EvalConfig(baseline="base", **FAST))
    assert set(agg["lift"]) == {"new"}  # the baseline is not lifted against itself
    lift = agg["lift"]["new"]["composite"]
    assert lift["n_pairs"] == 3
    assert lift["diff"] == pytest.approx(((1.0 - 0.9) + (0.6 - 0.8) + (0.9 - 0.7)) / 3, abs=1e-6)
    expected = paired_bootstrap({"a": 1.0, "b": 0.6, "c": 0.9}, {"a": 0.9, "b": 0.8, "c": 0.7}, n_resamples=500, seed=0)
    assert lift == expected.to_dict()
    assert agg["lift"]["new"]["faithfulness"] == {"diff": None, "ci": None, "n_pairs": 0}


def test_lift_end_to_end_and_without_baseline():
    _, agg = run_eval(_cases(two_variant_rows()), EvalConfig(baseline="base", **FAST))
    cand = agg["lift"]["cand"]
    assert cand["sourcing"]["n_pairs"] == 6
    assert cand["sourcing"]["diff"] == pytest.approx(-0.5)  # cand's sourcing mean 0.5 vs base 1.0
    lo, hi = cand["sourcing"]["ci"]
    assert -1.0 <= lo <= hi <= 0.0
    assert agg["lift"]["solo"]["composite"]["n_pairs"] == 1 and agg["lift"]["solo"]["composite"]["ci"] is None

    _, none = run_eval(_cases(two_variant_rows()), EvalConfig(**FAST))
    assert none["lift"] == {} and none["baseline"] is None
    assert any("no --baseline" in n for n in none["notes"])


def test_baseline_not_among_variants_raises():
    with pytest.raises(ValueError, match="baseline variant 'nope' not in the cases"):
        aggregate_records([_record("a", "x", 0.5)], EvalConfig(baseline="nope", **FAST))


# --- rubric inside the runner --------------------------------------------------------------


def test_no_claims_case_has_null_sourcing_and_answered_composite_and_a_headline_of_0():
    rec = evaluate_case(Case.model_validate(case("r", "v", REFUSAL)), EvalConfig())
    assert rec["status"] == "no_claims"
    assert rec["scores"]["sourcing"] is None and rec["scores"]["composite_answered"] is None
    assert rec["scores"]["composite"] == 0.0 and rec["scores"]["coverage"] == 0.0
    assert "did not do the job" in rec["reasons"]["composite"]
    assert rec["answer"] == REFUSAL  # pairwise judges read the answer from the local file
    assert rec["weights_used"] == {}
    assert "no_claims" in rec["reasons"]["dropped.composite"]
    # a refusal never outranks an answer that states wrong numbers
    _, agg = run_eval(_cases([case("r", "refuses", REFUSAL), case("r", "wrong", WRONG)]), EvalConfig(**FAST))
    refuses, wrong = (agg["variants"][v]["dims"] for v in ("refuses", "wrong"))
    assert refuses["composite_answered"]["mean"] is None and wrong["composite_answered"]["mean"] is not None
    assert refuses["composite"]["mean"] == 0.0 <= wrong["composite"]["mean"]
    assert all(row["variant"] == "wrong" for row in agg["bottom"]["composite_answered"])


def test_missing_dimension_renormalises_weights_and_records_them():
    rec = evaluate_case(Case.model_validate(case("e", "v", EMPLOYEES, facts=NON_MATERIAL)), EvalConfig())
    assert rec["scores"]["completeness"] is None
    used = rec["weights_used"]
    assert set(used) == {"sourcing", "impersonal"}
    total = DEFAULT_WEIGHTS["sourcing"] + DEFAULT_WEIGHTS["impersonal"]
    assert used["sourcing"] == pytest.approx(DEFAULT_WEIGHTS["sourcing"] / total, abs=1e-4)
    assert math.fsum(used.values()) == pytest.approx(1.0, abs=1e-3)
    assert rec["reasons"]["dropped.completeness"] == "not measured"
    assert rec["reasons"]["dropped.faithfulness"] == "not measured"
    expected = sum(used[d] * rec["scores"][d] for d in used)
    assert rec["scores"]["composite"] == pytest.approx(expected, abs=1e-4)


def test_all_dimensions_measured_use_the_declared_weights_without_faithfulness():
    rec = evaluate_case(Case.model_validate(case("a", "v", ADVICE)), EvalConfig())
    assert rec["scores"]["impersonal"] == 0.0 and rec["impersonal_flags"]
    assert set(rec["weights_used"]) == {"sourcing", "completeness", "impersonal"}
    expected = sum(w * rec["scores"][d] for d, w in rec["weights_used"].items())
    assert rec["scores"]["composite"] == pytest.approx(expected, abs=1e-4)
    assert rec["scores"]["composite"] < 1.0


def test_stub_faithfulness_is_shown_but_never_in_the_composite(tmp_path: Path):
    cases = _cases(two_variant_rows())
    db = f"sqlite:///{tmp_path / 'judge.db'}"
    local_stub, agg_stub = run_eval(cases, EvalConfig(judge="stub", db_url=db, baseline="base", **FAST))
    local_none, agg_none = run_eval(cases, EvalConfig(judge="none", baseline="base", **FAST))
    assert agg_stub["backend"] == "stub"
    scored = [r for r in local_stub["cases"] if r["scores"]["faithfulness"] is not None]
    assert scored, "the stub judge scores cases"
    for r in local_stub["cases"]:
        assert "faithfulness" not in r["weights_used"]
        if r["scores"]["faithfulness"] is not None:
            assert "stub" in r["reasons"]["dropped.faithfulness"]
    # identical composites with and without the stub: it cannot reorder variants
    assert [r["scores"]["composite"] for r in local_stub["cases"]] == [
        r["scores"]["composite"] for r in local_none["cases"]
    ]
    for v in agg_none["variants"]:
        assert agg_stub["variants"][v]["dims"]["composite"] == agg_none["variants"][v]["dims"]["composite"]
        assert agg_stub["variants"][v]["dims"]["faithfulness"]["effective_n"] > 0  # shown
    assert any("stub" in n and "not in the composite" in n for n in agg_stub["notes"])
    assert agg_stub["judge"]["n"] == len(cases)


# --- agreement -----------------------------------------------------------------------------


def test_agreement_leaves_out_excluded_labels_no_claims_and_unlabelled_and_counts_them():
    bad, ok, ref = "Incorrect Answer", "Correct Answer", "Refusal"
    records = [
        _record("1", "v", 0.2, status="fail", label=bad),  # tp
        _record("2", "v", 0.3, status="fail", label=bad),  # tp
        _record("3", "v", 0.4, status="fail", label=ok),  # fp
        _record("4", "v", 1.0, status="pass", label=bad),  # fn
        _record("5", "v", 1.0, status="pass", label=ok),  # tn
        _record("6", "v", 1.0, status="pass", label=ok),  # tn
        _record("7", "v", 1.0, status="pass", label=ref),  # excluded
        _record("8", "v", 0.0, status="fail", label=ref),  # excluded
        _record("9", "v", None, status="no_claims", label=bad),  # no_claims left out
        _record("10", "v", 1.0, status="pass", label=None),  # unlabelled
    ]
    cfg = EvalConfig(label_field="meta.human_label", positive=bad, exclude_labels=(ref,), **FAST)
    agr = aggregate_records(records, cfg)["agreement"]
    assert (agr["tp"], agr["fp"], agr["fn"], agr["tn"], agr["n"]) == (2, 1, 1, 2, 6)
    assert agr["excluded"] == {ref: 2}
    assert agr["no_claims_left_out"] == 1 and agr["unlabelled_left_out"] == 1
    expected = agreement([True, True, True, False, False, False], [True, True, False, True, False, False]).to_dict()
    assert {k: agr[k] for k in expected} == expected
    assert agr["predicted"] == "gate failed" and agr["label_field"] == "meta.human_label"
    assert aggregate_records(records, EvalConfig(**FAST))["agreement"] is None


def test_agreement_end_to_end_reads_the_label_field():
    rows = [
        case("a", "v", GOOD, meta={"human_label": "ok"}),
        case("b", "v", WRONG, meta={"human_label": "bad"}),
        case("c", "v", HALF, meta={"human_label": "ok"}),
        case("d", "v", REFUSAL, meta={"human_label": "bad"}),
        case("e", "v", GOOD, meta={"human_label": "skip"}),
        case("f", "v", GOOD),
    ]
    local, agg = run_eval(
        _cases(rows), EvalConfig(label_field="meta.human_label", positive="bad", exclude_labels=("skip",), **FAST)
    )
    assert [r["label"] for r in local["cases"]] == ["ok", "bad", "ok", "bad", "skip", None]
    agr = agg["agreement"]
    assert (agr["tp"], agr["fp"], agr["fn"], agr["tn"]) == (1, 1, 0, 1)
    assert (agr["no_claims_left_out"], agr["unlabelled_left_out"], agr["excluded"]) == (1, 1, {"skip": 1})
    # the report counts every left-out case (regression: unlabelled ones were missing: "nothing left out")
    assert "left out: skip 1, no claims 1, no label 1" in render_markdown(agg)


def test_json_true_label_matches_positive_true():
    """Regression: a JSON ``true`` label was compared as Python's ``"True"``, so ``--positive true`` matched nothing."""
    rows = [
        case("a", "v", WRONG, meta={"flag": True}),
        case("b", "v", GOOD, meta={"flag": False}),
        case("c", "v", GOOD, meta={"flag": 1}),
    ]
    local, agg = run_eval(_cases(rows), EvalConfig(label_field="meta.flag", positive="true", **FAST))
    assert [r["label"] for r in local["cases"]] == ["true", "false", "1"]
    assert agg["agreement"]["tp"] == 1 and agg["agreement"]["tn"] == 2
    assert not any("no compared case" in n for n in agg["notes"])


def test_a_positive_label_that_never_occurs_is_noted():
    rows = [case("a", "v", WRONG, meta={"h": "Incorrect"}), case("b", "v", GOOD, meta={"h": "Correct"})]
    _, agg = run_eval(_cases(rows), EvalConfig(label_field="meta.h", positive="Incorrect Answer", **FAST))
    assert agg["agreement"]["recall"] is None
    assert any("no compared case has meta.h = 'Incorrect Answer'" in n for n in agg["notes"])


# --- bottom-k ------------------------------------------------------------------------------


def test_bottom_k_is_anonymised_sorted_and_capped():
    local, agg = run_eval(_cases(two_variant_rows()), EvalConfig(bottom_k=3, **FAST))
    # coverage has no bottom rows (its 0s are the no_claims cases); impersonal is 1.0 everywhere;
    # faithfulness is not measured without a judge
    assert set(agg["bottom"]) == {"composite", "composite_answered", "sourcing", "completeness"}
    keys = {r["key"]: r["id"] for r in local["cases"]}
    for d, rows in agg["bottom"].items():
        below = sorted(r["scores"][d] for r in local["cases"] if r["scores"][d] is not None and r["scores"][d] < 1)
        assert len(rows) == min(3, len(below))
        assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
        assert [r["score"] for r in rows] == below[: len(rows)]
        for r in rows:
            assert set(r) == {"rank", "key", "variant", "slice", "score"}  # no id, no answer
            assert r["key"] in keys and r["key"] != keys[r["key"]]  # the local file maps the key back
    assert [r["score"] for r in agg["bottom"]["sourcing"]] == [0.0, 0.0, 0.5]
    assert {r["variant"] for r in agg["bottom"]["sourcing"]} == {"cand"}
    assert "faithfulness" not in agg["bottom"]


# --- compare -------------------------------------------------------------------------------


def test_compare_runs_pairs_on_id_and_variant_and_notes_differences():
    a = {
        "gate_version": "g1",
        "backend": "none",
        "cases": [
            {"id": "1", "variant": "v", "scores": {"composite": 0.5}},
            {"id": "2", "variant": "v", "scores": {"composite": 0.5}},
            {"id": "1", "variant": "w", "scores": {"composite": 0.1}},
            {"id": "3", "variant": "v", "scores": {"composite": 0.9}},
        ],
    }
    b = {
        "gate_version": "g2",
        "backend": "none",
        "cases": [
            {"id": "1", "variant": "v", "scores": {"composite": 0.7}},
            {"id": "2", "variant": "v", "scores": {"composite": 0.9}},
            {"id": "1", "variant": "other", "scores": {"composite": 0.0}},
            {"id": "3", "variant": "v", "scores": {"composite": None}},
        ],
    }
    res = compare_runs(a, b, n_resamples=500)
    assert list(res["lift"]) == ["composite"]
    assert res["lift"]["composite"]["n_pairs"] == 2
    assert res["lift"]["composite"]["diff"] == pytest.approx(0.3)
    assert (res["n_a"], res["n_b"]) == (4, 4)
    assert any("gate_version differs" in n for n in res["notes"])


def test_on_verdict_reports_every_judge_verdict_live_with_the_client_counts():
    """Issue 16 item 5: the eval's progress counts the judge's calls and rejections as they happen."""
    seen: list[tuple[str, int]] = []
    cases = _cases(two_variant_rows())
    local, agg = run_eval(
        cases,
        EvalConfig(judge="stub", **FAST),
        on_verdict=lambda v, usage: seen.append((v.status, usage.get("calls", 0))),
    )
    assert len(seen) == len(cases)
    assert [c for _, c in seen] == sorted(c for _, c in seen)  # the call count only grows
    assert agg["judge"]["n"] == len(cases)
    quiet_local, _ = run_eval(cases, EvalConfig(judge="stub", run_id="r", salt="s", **FAST))
    live_local, _ = run_eval(
        cases, EvalConfig(judge="stub", run_id="r", salt="s", **FAST), on_verdict=lambda v, u: None
    )
    assert quiet_local == live_local  # the live path judges exactly as judge_many


def test_compare_runs_shows_every_rationality_axis(tmp_path):
    """Issue 16: compare of two rationality runs showed only the composite."""
    axes = ("planner_decomposition", "retrieval_recalls", "answer_reasoning", "composite")

    def run(offset: float) -> dict:
        cases = [
            {"id": f"c{i}", "variant": "all", "scores": {a: min(1.0, 0.1 * i + offset) for a in axes}} for i in range(6)
        ]
        return {"schema": 1, "kind": "rationality", "backend": "heuristic", "cases": cases}

    result = compare_runs(run(0.0), run(0.05), n_resamples=200)
    assert list(result["lift"]) == ["composite", "planner_decomposition", "retrieval_recalls", "answer_reasoning"]
    assert all(r["n_pairs"] == 6 for r in result["lift"].values())
    assert result["composite"] == {"a": None, "b": None}  # a rationality composite is neither eval meaning


def test_schema2_files_load_into_their_models_and_dump_to_the_same_bytes():
    from assay.atomic import dumps_json
    from assay.results import EvalAggregateV2, EvalLocalV2, load_aggregate, load_local

    local, agg = run_eval(_cases(two_variant_rows()), EvalConfig(baseline="base", judge="stub", **FAST))
    assert type(load_local(local)) is EvalLocalV2 and type(load_aggregate(agg)) is EvalAggregateV2
    assert dumps_json(load_local(local).to_json()) == dumps_json(local)
    assert dumps_json(load_aggregate(agg).to_json()) == dumps_json(agg)


# --- issue 15: unchecked rate and scale_from_display count in the aggregate ---------------------


def test_aggregate_counts_unchecked_and_scale_from_display():
    shown = [{"id": "F1", "label": "Total net sales", "value": 100, "unit": "USD millions", "displayed_value": "100"}]
    rows = [
        case("q1", "v", "Total net sales were $100 [F1].", facts=shown),  # pass through the display
        case("q2", "v", "Total net sales were $100 [F1] and net income was $20 [F1].", facts=shown),  # 1 + fail
        case("q3", "v", "Total net sales were several billion dollars [F1].", facts=shown),  # unchecked
        case("q4", "v", REFUSAL),  # no_claims
        case("q5", "w", GOOD),  # scale stated: no display match
    ]
    local, agg = run_eval(_cases(rows), EvalConfig(**FAST))
    statuses = [r["status"] for r in local["cases"]]
    assert statuses == ["pass", "fail", "unchecked", "no_claims", "pass"]
    v, w = agg["variants"]["v"], agg["variants"]["w"]
    assert (v["unchecked_rate"], v["no_claims_rate"], v["gate_fail_rate"]) == (0.25, 0.25, 0.25)
    assert v["scale_from_display"] == 2 and w["scale_from_display"] == 0 and w["unchecked_rate"] == 0.0
    assert local["cases"][0]["checks"][0]["scale_from_display"] is True
    text = json.dumps(agg)
    assert not any(f'"{cid}"' in text for cid in ("q1", "q2", "q3", "q4", "q5"))  # no case id in the aggregate
