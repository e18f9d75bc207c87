"""Validity helpers of the rationality judge: label AUCs with cluster CIs, paired AUC difference,
the weight fit, and window localisation."""

from __future__ import annotations

import pytest

from assay.judges.rationality_rules import DEFAULT_PARAMS, RuleParams
from assay.judges.rationality_validity import auc_difference, fit_rule_params, label_validity, window_localisation
from assay.traces import Trace


def test_label_validity_perfect_inverse_and_missing_scores():
    labels = [True, False] * 10
    clusters = [i // 4 for i in range(20)]
    perfect = [1.0 if y else 0.0 for y in labels]
    table = label_validity(
        {"perfect": perfect, "inverse": [1 - v for v in perfect], "half": [0.5 if i % 2 else None for i in range(20)]},
        labels,
        clusters,
        n_resamples=200,
    )
    assert (
        table["perfect"]["auc"] == 1.0 and table["perfect"]["auc_ci"] == [1.0, 1.0] and table["perfect"]["rho"] == 1.0
    )
    assert table["perfect"]["p_auc_gt_half"] == 0.0 and table["perfect"]["n_clusters"] == 5
    assert table["inverse"]["auc"] == 0.0
    assert table["half"]["auc"] is None and table["half"]["n"] == 10  # only negatives left: undefined, not 0.5
    with pytest.raises(ValueError):
        label_validity({"x": [1.0]}, [True, False], [0, 1])


def test_auc_difference_is_paired():
    labels = [True, False] * 10
    clusters = list(range(20))
    a = [1.0 if y else 0.0 for y in labels]
    d = auc_difference(a, a, labels, clusters, n_resamples=200)
    assert d == {"diff": 0.0, "ci": [0.0, 0.0], "p_le_zero": 1.0}
    d = auc_difference(a, [0.5] * 20, labels, clusters, n_resamples=200)
    assert d["diff"] == 0.5 and d["ci"] == [0.5, 0.5]


def _trace(n_steps: int, bad_at: int | None) -> Trace:
    steps = []
    for i in range(n_steps):
        text = "The total is 4521 USD and flight ZZ9Q12 leaves on 2031-01-01." if i == bad_at else "ok"
        steps.append({"index": i, "actor": "user" if i == 0 else "agent", "content": text})
    return Trace.model_validate(
        {
            "planner": {"stage_sequence": [s["actor"] for s in steps]},
            "steps": steps,
            "synthesis_llm_call": {"user_prompt_text": "", "completion_text": "ok"},
        }
    )


def test_window_localisation_finds_the_window_with_invented_values():
    traces = [_trace(10, bad) for bad in (1, 4, 7, 9)]
    res = window_localisation(traces, [1, 4, 7, 9], size=3)
    assert res["n"] == 4 and res["hit_rate"] == 1.0 and res["chance"] == 0.25 and res["first_window"] == 0.25
    # a clean trace: every window ties, so the hit is shared (1 / 4 windows)
    res = window_localisation([_trace(10, None)], [5], size=3)
    assert res["hit_rate"] == 0.25 and res["hits"] == [0.25]
    assert window_localisation([_trace(3, None)], [7])["n"] == 0  # a mistake step outside the trace is left out


def test_fit_never_lowers_the_start_auc():
    good = Trace.model_validate({"planner": {"query_type": "cancel", "stage_sequence": ["get_x", "cancel_x"]}})
    bad = Trace.model_validate(
        {"planner": {"query_type": "cancel", "stage_sequence": ["book_x", "cancel_x", "cancel_x"]}}
    )
    start = RuleParams(off_type=0.05, redo=0.05, state_change=0.05)
    params, auc = fit_rule_params([good, bad, good, bad], [True, False, True, False], start=start, rounds=1)
    assert auc == 1.0 and isinstance(params, RuleParams)


@pytest.mark.slow
def test_the_fit_on_tau_bench_tasks_0_19_reproduces_the_shipped_weights(shared_data):
    from assay.importers.taubench import import_taubench

    pairs = [
        (r, t)
        for r, t in import_taubench(shared_data / "tau_bench" / "gpt-4o-airline.tasks00-39.json")
        if r.labels["task_id"] <= 19
    ]
    params, auc = fit_rule_params([t for _, t in pairs], [r.labels["reward"] == 1.0 for r, _ in pairs])
    assert params == DEFAULT_PARAMS and auc == pytest.approx(0.6592, abs=1e-4)
