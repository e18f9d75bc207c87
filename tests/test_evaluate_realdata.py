"""End to end on real data: import FinanceBench with the CLI, take 20 questions × every model
configuration, and run the README's ``assay eval`` with labels and a baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app

pytestmark = pytest.mark.slow

N_IDS = 20
BASELINE = "gpt-4_oracle"
POSITIVE, EXCLUDED = "Incorrect Answer", "Refusal"


@pytest.fixture(scope="module")
def fb_run(shared_data: Path, tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("fb")
    mp = pytest.MonkeyPatch()
    mp.setenv("ASSAY_HOME", str(tmp / "home"))
    mp.setenv("COLUMNS", "80")
    mp.delenv("ASSAY_DB_URL", raising=False)
    runner = CliRunner()
    try:
        full = tmp / "fb.jsonl"
        res = runner.invoke(app, ["import", "financebench", str(shared_data / "financebench"), "--out", str(full)])
        assert res.exit_code == 0, res.output
        assert res.stdout.strip().splitlines()[-1] == str(full.resolve())
        lines = full.read_text(encoding="utf-8").splitlines()
        ids = sorted({json.loads(line)["id"] for line in lines})[:N_IDS]
        keep = [line for line in lines if json.loads(line)["id"] in set(ids)]
        sliced = tmp / "fb20.jsonl"
        sliced.write_text("\n".join(keep) + "\n", encoding="utf-8")
        res = runner.invoke(
            app,
            [
                "eval",
                str(sliced),
                "--out",
                str(tmp / "reports"),
                "--name",
                "fb",
                "--label-field",
                "meta.human_label",
                "--positive",
                POSITIVE,
                "--exclude-label",
                EXCLUDED,
                "--baseline",
                BASELINE,
            ],
        )
    finally:
        mp.undo()
    assert res.exit_code == 0, res.output
    out = tmp / "reports"
    return {
        "res": res,
        "out": out,
        "ids": ids,
        "cases": [json.loads(line) for line in keep],
        "local": json.loads((out / "fb.local.json").read_text(encoding="utf-8")),
        "agg": json.loads((out / "fb.aggregate.json").read_text(encoding="utf-8")),
    }


def test_reports_exist_and_paths_are_printed_last(fb_run):
    out = fb_run["out"]
    expected = [str(out / f"fb{s}") for s in (".local.json", ".aggregate.json", ".md", ".html")]
    assert fb_run["res"].stdout.strip().splitlines()[-4:] == expected
    html = (out / "fb.html").read_text(encoding="utf-8")
    assert html.count("<svg") >= 3


def test_variant_table_shape_and_sane_values(fb_run):
    agg, cases = fb_run["agg"], fb_run["cases"]
    per_variant: dict[str, int] = {}
    for c in cases:
        per_variant[c["variant"]] = per_variant.get(c["variant"], 0) + 1
    assert len(per_variant) == 16 and BASELINE in per_variant
    assert agg["n"] == len(cases) == len(fb_run["local"]["cases"])
    assert {v: s["n"] for v, s in agg["variants"].items()} == per_variant
    for s in agg["variants"].values():
        assert 0.0 <= s["no_claims_rate"] <= 1.0 and 0.0 <= s["gate_fail_rate"] <= 1.0
        assert s["no_claims_rate"] + s["gate_fail_rate"] <= 1.0 + 1e-9
        for st in s["dims"].values():
            assert 0 <= st["effective_n"] <= s["n"]
            if st["mean"] is None:
                assert st["effective_n"] == 0
                continue
            assert 0.0 <= st["mean"] <= 1.0
            if st["ci"] is not None:
                lo, hi = st["ci"]
                assert 0.0 <= lo <= hi <= 1.0
        # a no_claims case has no answered-only composite; the headline scores it 0 (issue 16)
        answered = round(s["n"] * (1 - s["no_claims_rate"]))
        assert s["dims"]["composite_answered"]["effective_n"] == answered
        assert s["dims"]["composite"]["effective_n"] == s["n"]
        assert s["dims"]["coverage"]["mean"] == pytest.approx(1 - s["no_claims_rate"], abs=1e-4)
    assert agg["variants"][BASELINE]["dims"]["composite"]["mean"] is not None
    # closed-book models mostly decline to give numbers; oracle (evidence in context) models answer
    closed = [s["no_claims_rate"] for v, s in agg["variants"].items() if "closedBook" in v]
    oracle = [s["no_claims_rate"] for v, s in agg["variants"].items() if v.endswith("_oracle")]
    assert min(closed) > max(oracle)


def test_lift_against_the_oracle_baseline(fb_run):
    agg, local = fb_run["agg"], fb_run["local"]
    assert agg["baseline"] == BASELINE
    assert set(agg["lift"]) == set(agg["variants"]) - {BASELINE}
    base = {r["id"]: r["scores"]["composite"] for r in local["cases"] if r["variant"] == BASELINE}
    for v, dims in agg["lift"].items():
        mine = {r["id"]: r["scores"]["composite"] for r in local["cases"] if r["variant"] == v}
        pairs = [i for i in mine if i in base and mine[i] is not None and base[i] is not None]
        lift = dims["composite"]
        assert lift["n_pairs"] == len(pairs) <= N_IDS
        if pairs:
            expected = sum(mine[i] - base[i] for i in pairs) / len(pairs)
            assert lift["diff"] == pytest.approx(expected, abs=1e-5)
            assert -1.0 <= lift["diff"] <= 1.0
        if lift["ci"] is not None:
            assert -1.0 <= lift["ci"][0] <= lift["ci"][1] <= 1.0


def test_agreement_with_human_labels_accounts_for_every_case(fb_run):
    agr, n = fb_run["agg"]["agreement"], fb_run["agg"]["n"]
    assert agr["label_field"] == "meta.human_label" and agr["positive"] == POSITIVE
    assert set(agr["excluded"]) <= {EXCLUDED}
    assert agr["n"] + sum(agr["excluded"].values()) + agr["no_claims_left_out"] + agr["unlabelled_left_out"] == n
    assert agr["tp"] + agr["fp"] + agr["fn"] + agr["tn"] == agr["n"] > 0
    assert agr["tp"] + agr["fn"] > 0  # the positive label exists in the data
    assert -1.0 <= agr["kappa"] <= 1.0
    for k in ("precision", "recall", "accuracy"):
        assert agr[k] is None or 0.0 <= agr[k] <= 1.0
    labels = [c.get("meta", {}).get("human_label") for c in fb_run["cases"]]
    assert sum(lab == EXCLUDED for lab in labels) == agr["excluded"].get(EXCLUDED, 0)


def test_markdown_shows_every_variant_and_no_case_id(fb_run):
    md = (fb_run["out"] / "fb.md").read_text(encoding="utf-8")
    for v in fb_run["agg"]["variants"]:
        assert f"| {v} |" in md
    assert f"## Lift vs {BASELINE} (paired)" in md and "## Agreement with meta.human_label" in md
    for name in ("fb.md", "fb.html", "fb.aggregate.json"):
        text = (fb_run["out"] / name).read_text(encoding="utf-8")
        assert not any(i in text for i in fb_run["ids"]), name
        assert "financebench_id_" not in text
