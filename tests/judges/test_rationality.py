"""The rationality judge: stub byte-identity, None-skip arithmetic, bad traces, privacy, heuristic rules."""

from __future__ import annotations

import copy
import hashlib
import json
import math
from pathlib import Path

import pytest

from assay.atomic import dumps_json
from assay.judges.rationality import (
    REPORT_DIMS,
    composite,
    judge_rationality,
    resamples_for,
    stub_axis_score,
    stub_scores,
)
from assay.judges.rationality_rules import (
    DEFAULT_PARAMS,
    RuleParams,
    findings,
    heuristic_scores,
)
from assay.judges.rationality_values import evidence_values, extract_values
from assay.reports import render_html, render_markdown
from assay.traces import Trace, load_summary

PLANNER = {
    "query_type": "cancel",
    "pipeline": "demo/rag",
    "stage_sequence": ["retrieve", "rerank", "answer"],
    "selected_top_k": 5,
    "retrieval_budget": {"reason": "short question"},
}


def _trace(*, synthesis: bool = True, **planner) -> dict:
    t = {"schema": 1, "planner": {**PLANNER, **planner}}
    if synthesis:
        t["synthesis_llm_call"] = {"user_prompt_text": "Revenue was 5 € bn", "completion_text": "Revenue: €5bn."}
    return t


def _run_dir(tmp_path: Path, traces: dict[str, dict | str | None], slices: dict[str, str] | None = None) -> Path:
    """Write a summary with one row per id; a None trace is a missing file, a str is written raw."""
    rows = []
    for cid, trace in traces.items():
        rows.append(
            {"id": cid, "slice": (slices or {}).get(cid, "s1"), "trace_path": f"traces/{cid}.json", "labels": {"y": 1}}
        )
        if trace is not None:
            p = tmp_path / "traces" / f"{cid}.json"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(trace if isinstance(trace, str) else json.dumps(trace), encoding="utf-8")
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"case_results": rows}), encoding="utf-8")
    return summary


# --- stub -----------------------------------------------------------------------------------


def test_stub_matches_hand_computed_sha256():
    subset = {
        "planner.query_type": "cancel",
        "planner.pipeline": "demo/rag",
        "planner.stage_sequence": ["retrieve", "rerank", "answer"],
        "planner.selected_top_k": 5,
        "planner.retrieval_budget.reason": "short question",
    }
    canonical = (
        '[{"planner.pipeline":"demo/rag","planner.query_type":"cancel",'
        '"planner.retrieval_budget.reason":"short question",'
        '"planner.selected_top_k":5,"planner.stage_sequence":["retrieve","rerank","answer"]},'
        '"planner_decomposition","case-1"]'
    )
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert digest[:8] == "c1e58006"
    assert stub_axis_score(subset, "planner_decomposition", "case-1") == round(0xC1E58006 / 0xFFFFFFFF, 4) == 0.7574
    # non-ASCII stays UTF-8 (ensure_ascii=False), not \u escapes
    s2 = {
        "synthesis_llm_call.user_prompt_text": "Revenue was 5 € bn",
        "synthesis_llm_call.completion_text": "Revenue: €5bn.",
    }
    canonical2 = (
        '[{"synthesis_llm_call.completion_text":"Revenue: €5bn.",'
        '"synthesis_llm_call.user_prompt_text":"Revenue was 5 € bn"},"answer_reasoning","case-ü"]'
    )
    h2 = hashlib.sha256(canonical2.encode("utf-8")).hexdigest()
    assert stub_axis_score(s2, "answer_reasoning", "case-ü") == round(int(h2[:8], 16) / 0xFFFFFFFF, 4)
    assert (
        stub_axis_score(
            {"planner.attempts[*].verification_reasons": [["same_arguments"], []]}, "retrieval_recalls", "case-1"
        )
        == 0.5352
    )
    t = Trace.model_validate(_trace())
    assert stub_scores(t, "case-1")["planner_decomposition"] == 0.7574
    assert stub_scores(t, "case-2")["planner_decomposition"] != 0.7574  # the case id is in the hash


def test_stub_run_is_byte_identical_across_runs(tmp_path):
    summary = _run_dir(
        tmp_path, {f"c{i}": _trace(stage_sequence=["retrieve"] * (i % 4 + 1), synthesis=i % 3 != 0) for i in range(12)}
    )
    first = judge_rationality(summary, backend="stub")
    second = judge_rationality(summary, backend="stub")
    assert dumps_json(first[0]) == dumps_json(second[0]) and dumps_json(first[1]) == dumps_json(second[1])
    assert render_markdown(first[1]) == render_markdown(second[1])
    assert first[1]["backend"] == "stub" and any("not a quality proxy" in n for n in first[1]["notes"])
    for rec in first[0]["cases"]:
        assert all(v is None or (0 <= v <= 1 and round(v, 4) == v) for v in rec["scores"].values())


# --- None-skip arithmetic and bad traces ----------------------------------------------------


def test_axis_without_input_is_none_and_dropped_from_the_denominator(tmp_path):
    summary = _run_dir(tmp_path, {"a": _trace(), "b": _trace(synthesis=False), "c": _trace(synthesis=False)})
    local, agg = judge_rationality(summary, backend="stub")
    recs = {r["id"]: r for r in local["cases"]}
    assert (
        recs["b"]["scores"]["answer_reasoning"] is None
        and "no synthesis_llm_call" in recs["b"]["reasons"]["answer_reasoning"]
    )
    assert recs["b"]["scores"]["composite"] == round(
        (recs["b"]["scores"]["planner_decomposition"] + recs["b"]["scores"]["retrieval_recalls"]) / 2, 4
    )
    dims = agg["variants"]["all"]["dims"]
    assert (
        dims["answer_reasoning"]["effective_n"] == 1
        and dims["answer_reasoning"]["mean"] == recs["a"]["scores"]["answer_reasoning"]
    )
    assert dims["answer_reasoning"]["ci"] is None and dims["answer_reasoning"]["std"] is None
    assert dims["planner_decomposition"]["effective_n"] == 3
    assert math.isclose(
        dims["planner_decomposition"]["mean"],
        sum(r["scores"]["planner_decomposition"] for r in recs.values()) / 3,
        abs_tol=1e-6,
    )
    assert agg["cases_with_synthesis_llm_call"] == 1 and agg["n"] == 3 and agg["n_missing_trace"] == 0


def test_axis_with_no_samples_has_null_mean_and_no_ci(tmp_path):
    summary = _run_dir(tmp_path, {"a": _trace(synthesis=False), "b": _trace(synthesis=False)})
    _, agg = judge_rationality(summary, backend="stub")
    ar = agg["variants"]["all"]["dims"]["answer_reasoning"]
    assert ar == {"mean": None, "std": None, "ci": None, "effective_n": 0}
    assert any("answer_reasoning not measured" in n for n in agg["notes"])
    assert "| answer_reasoning | — | — | — | 0 of 2 |" in render_markdown(agg)


def test_missing_invalid_and_plannerless_traces_are_counted_not_zero(tmp_path):
    summary = _run_dir(
        tmp_path,
        {
            "ok": _trace(),
            "gone": None,
            "broken": '{"planner": {',
            "noplan": {"synthesis_llm_call": {"user_prompt_text": "a", "completion_text": "b"}},
        },
    )
    rows = json.loads(summary.read_text())
    rows["case_results"].append({"id": "nopath", "slice": "s1"})
    summary.write_text(json.dumps(rows))
    for backend in ("stub", "heuristic"):
        local, agg = judge_rationality(summary, backend=backend)
        recs = {r["id"]: r for r in local["cases"]}
        assert agg["n_missing_trace"] == 4 and agg["n"] == 5
        for cid, why in (
            ("gone", "no such file"),
            ("broken", "<json>"),
            ("noplan", "planner: missing"),
            ("nopath", "no trace_path"),
        ):
            assert recs[cid]["status"] == "missing_trace" and set(recs[cid]["scores"].values()) == {None}
            assert why in recs[cid]["reasons"]["trace"]
        assert recs["ok"]["status"] == "scored"
        assert all(d["effective_n"] == 1 for d in agg["variants"]["all"]["dims"].values())


def test_summary_object_and_unknown_backend(tmp_path):
    summary = _run_dir(tmp_path, {"a": _trace()})
    local, _ = judge_rationality(load_summary(summary), backend="stub")
    assert local["cases"][0]["labels"] == {"y": 1} and local["cases"][0]["variant"] == "all"
    with pytest.raises(ValueError, match="unknown rationality backend"):
        judge_rationality(summary, backend="vibes")
    with pytest.raises(ValueError, match="token budget"):
        judge_rationality(summary, backend="stub", token_budget=-1)


def test_traces_dir_overrides_lookup(tmp_path):
    summary = _run_dir(tmp_path / "run", {"a": _trace()})
    (tmp_path / "run" / "traces" / "a.json").rename(tmp_path / "a.json")
    local, _ = judge_rationality(summary, backend="stub")
    assert local["cases"][0]["status"] == "missing_trace"
    local, _ = judge_rationality(summary, backend="stub", traces_dir=tmp_path)
    assert local["cases"][0]["status"] == "scored" and local["cases"][0]["trace_path"] == str(tmp_path / "a.json")


# --- privacy --------------------------------------------------------------------------------


def test_aggregate_markdown_and_html_hold_no_case_id(tmp_path):
    ids = {f"SECRET-{i:03d}-id": _trace(stage_sequence=["x"] * i) for i in range(8)}
    summary = _run_dir(tmp_path, ids, slices={k: f"slice{i % 2}" for i, k in enumerate(ids)})
    for backend in ("stub", "heuristic"):
        local, agg = judge_rationality(summary, backend=backend)
        assert {r["id"] for r in local["cases"]} == set(ids)
        shared = dumps_json(agg) + render_markdown(agg) + render_html(agg)
        assert "SECRET" not in shared and str(tmp_path) not in shared
        md = render_markdown(agg)
        below_1 = any(v is not None and v < 1 for r in local["cases"] for v in r["scores"].values())
        assert below_1 or backend == "heuristic"  # the stub's hashes are below 1; these traces break no rule
        if below_1:  # bottom rows list scores below 1.0 only (issue 16)
            assert "## Bottom " in md and "| #1 |" in md and ("slice0" in md or "slice1" in md)
            assert [row["rank"] for row in agg["bottom"]["composite"]] == [1, 2, 3]
        assert set(agg["dims"]) == set(REPORT_DIMS) and list(agg["variants"]) == ["all"]


# --- heuristic rules ------------------------------------------------------------------------


def _steps(*items) -> list[dict]:
    return [{"index": i, **s} for i, s in enumerate(items)]


def _heur(trace: dict, params: RuleParams = DEFAULT_PARAMS) -> dict:
    return findings(Trace.model_validate(trace), params)


CLEAN = {
    "planner": {"query_type": "cancel", "stage_sequence": ["get_booking", "cancel_booking"], "attempts": []},
    "synthesis_llm_call": {
        "user_prompt_text": '[tool get_booking] {"id": "B1X22", "price": 120}',
        "completion_text": "Booking B1X22 is cancelled; 120 USD will be refunded.",
    },
    "steps": _steps(
        {"actor": "user", "content": "Cancel booking B1X22 please"},
        {"actor": "assistant", "kind": "tool_call", "name": "get_booking", "arguments": {"id": "B1X22"}},
        {
            "actor": "get_booking",
            "kind": "tool_result",
            "name": "get_booking",
            "content": '{"id": "B1X22", "price": 120}',
        },
        {"actor": "assistant", "content": "B1X22 costs 120 USD. Shall I cancel it?"},
        {"actor": "user", "content": "Yes please"},
        {"actor": "assistant", "kind": "tool_call", "name": "cancel_booking", "arguments": {"id": "B1X22"}},
        {"actor": "cancel_booking", "kind": "tool_result", "name": "cancel_booking", "content": "ok"},
        {"actor": "assistant", "content": "Booking B1X22 is cancelled; 120 USD will be refunded."},
    ),
}


def test_a_clean_trace_has_no_flaw_and_pays_only_the_caution_prior():
    f = _heur(CLEAN)
    assert f["planner_decomposition"].pop("state_change") == 1  # the one cancellation took effect
    assert all(n == 0 for axis in f.values() for n in axis.values()), f
    scores, reasons, details = heuristic_scores(Trace.model_validate(CLEAN))
    assert scores == {
        "planner_decomposition": round(math.exp(-DEFAULT_PARAMS.state_change), 4),
        "retrieval_recalls": 1.0,
        "answer_reasoning": 1.0,
    }
    assert reasons["planner_decomposition"] == "state_change×1" and details["rules"].startswith("rationality-rules")
    read_only = copy.deepcopy(CLEAN)  # the same conversation without the write scores 1 everywhere
    read_only["planner"]["stage_sequence"] = ["get_booking"]
    read_only["steps"] = [s for s in read_only["steps"] if s.get("name") != "cancel_booking"]
    read_only["steps"][-1]["content"] = "Booking B1X22 can be cancelled for a 120 USD refund."
    read_only["synthesis_llm_call"]["completion_text"] = read_only["steps"][-1]["content"]
    for i, s in enumerate(read_only["steps"]):
        s["index"] = i
    assert heuristic_scores(Trace.model_validate(read_only))[0] == {a: 1.0 for a in scores}


def test_a_failed_state_change_is_an_error_not_a_change():
    t = copy.deepcopy(CLEAN)
    t["steps"][6]["content"] = "Error: booking locked"
    t["steps"][6]["error"] = True
    assert _heur(t)["planner_decomposition"]["state_change"] == 0


def test_each_rule_fires_on_its_flaw():
    t = copy.deepcopy(CLEAN)
    t["planner"]["stage_sequence"] = ["get_booking", "book_flight", "cancel_booking", "cancel_booking"] + ["get_x"] * 9
    t["steps"][4]["content"] = "hmm, what does that mean"  # no agreement before cancel_booking
    p = _heur(t, RuleParams(max_stages=6))["planner_decomposition"]
    assert p["off_type"] == 1  # book_flight does not fit a cancel query
    assert p["redo"] == 1  # cancel_booking twice
    assert p["unconfirmed"] == 1
    assert p["overlong"] == round((13 - 6) / 6, 4)
    assert p["state_change"] == 1  # the steps record one state-changing call, and it succeeded

    t = copy.deepcopy(CLEAN)
    t["planner"]["attempts"] = [
        {
            "stage": "get_booking",
            "step": 1,
            "outcome": "ok",
            "verification_reasons": ["same_arguments"],
        },  # no new reason
        {
            "stage": "get_booking",
            "step": 1,
            "outcome": "ok",
            "verification_reasons": ["same_arguments", "after_state_change"],
        },  # justified
        {
            "stage": "cancel_booking",
            "step": 5,
            "outcome": "error",
            "verification_reasons": ["tool_error: Error: locked"],
        },
    ]
    t["steps"][7]["content"] = "Booking B1X22 is cancelled."  # the error is neither retried nor acknowledged
    t["steps"][5]["arguments"] = {"id": "B1X22", "fee": 35.5}  # 35.5 was never retrieved or given
    r = _heur(t)["retrieval_recalls"]
    assert r == {"no_new_reason": 1, "ignored_error": 1, "error": 1, "ungrounded_argument": 1}
    t["steps"][7]["content"] = "Sorry, the cancellation failed: the booking is locked."
    assert _heur(t)["retrieval_recalls"]["ignored_error"] == 0

    t = copy.deepcopy(CLEAN)
    t["steps"][7]["content"] = (
        "Booking B1X22 is cancelled; 135 USD refunded on 2024-06-01. Your seat has been upgraded."
    )
    a = _heur(t)["answer_reasoning"]
    assert a == {"unseen_value": 2, "unbacked_claim": 1}  # 135 and the date never seen; nothing upgraded


def test_heuristic_score_formula_and_composite():
    t = copy.deepcopy(CLEAN)
    t["planner"]["stage_sequence"] = ["cancel_booking", "cancel_booking", "cancel_booking"]
    params = RuleParams(redo=0.5, state_change=0.1, max_stages=12)
    scores, reasons, _ = heuristic_scores(Trace.model_validate(t), params)
    # redo: 2 repeats in the stage sequence; state_change: the steps show 1 call that took effect
    assert scores["planner_decomposition"] == round(math.exp(-(0.5 * 2 + 0.1 * 1)), 4)
    assert "redo×2" in reasons["planner_decomposition"]
    assert composite(scores) == round(sum(scores.values()) / 3, 4)
    assert composite({"planner_decomposition": 0.5, "retrieval_recalls": None, "answer_reasoning": None}) == 0.5
    assert composite({}) is None


def test_value_extraction_normalises_formats():
    assert extract_values("HAT110 on 2024-05-24 at 7:00 PM costs $1,234.50 (3 bags), 12%") == {
        "HAT110",
        "2024-05-24",
        "19:00",
        "1234.5",
        "12",
    }
    known = evidence_values('{"flight": "HAT110", "date": "2024-05-24", "time": "19:00:00", "price": 1234.50, "n": 3}')
    assert {"2024-05-24", "19:00", "1234.5", "2024", "24", "3"} <= known
    assert extract_values("Flight HAT110 at 19:00 for $1234.5") <= known


def test_resample_count_scales_down_for_large_runs():
    assert resamples_for(10) == 10_000 and resamples_for(2_000) == 10_000
    assert resamples_for(10_000) == 2_000 and resamples_for(1_000_000) == 2_000
