"""`assay judge pairwise` through the real CLI: two eval runs or a pairs file, files written, exit codes."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from assay.cli import app

runner = CliRunner()
CANARY = "variant-ZQX9-canary"


def _run(path, variant, answers, **extra):
    cases = [
        {"id": f"q{i}", "variant": variant, "status": "pass", "scores": {}, "answer": a, **extra}
        for i, a in enumerate(answers)
    ]
    path.write_text(json.dumps({"schema": 2, "kind": "eval", "backend": "none", "cases": cases}))
    return path


def test_two_eval_runs_are_paired_on_case_id_and_every_file_is_written(tmp_path):
    a = _run(tmp_path / "a.local.json", CANARY, ["short", f"{CANARY} says hi", "mid size"])
    b = _run(tmp_path / "b.local.json", "other", ["a much longer answer", "tiny", "mid size"])
    res = runner.invoke(
        app, ["judge", "pairwise", str(a), str(b), "--out", str(tmp_path / "o"), "--name", "cmp", "--backend", "length"]
    )
    assert res.exit_code == 0, res.output
    files = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert files == ["cmp.aggregate.json", "cmp.html", "cmp.local.json", "cmp.md"]
    agg = json.loads((tmp_path / "o" / "cmp.aggregate.json").read_text())
    for key in ("position_consistency", "first_position_rate", "tie_rate"):
        assert key in agg
    assert set(agg["criteria"]) == {"correctness", "completeness", "clarity"}
    assert agg["criteria"]["clarity"]["win_rate_b"]["ci"] is not None and agg["redactions"] == 2
    local = json.loads((tmp_path / "o" / "cmp.local.json").read_text())
    assert [c["verdicts"]["clarity"] for c in local["cases"]] == ["B", "A", "tie"]
    for f in ("cmp.aggregate.json", "cmp.md", "cmp.html"):
        text = (tmp_path / "o" / f).read_text()
        assert "q0" not in text and CANARY not in text  # no case id, no variant name


def test_a_pairs_file_with_criteria_and_a_stub_judge(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"id": f"p{i}", "output_a": "x", "output_b": "y", "cohort": f"s{i % 2}"} for i in range(4)]
    pairs.write_text("\n".join(json.dumps(r) for r in rows))
    crit = tmp_path / "crit.json"
    crit.write_text(json.dumps({"findability": "a later query would retrieve it"}))
    args = ["judge", "pairwise", str(pairs), "--out", str(tmp_path), "--name", "p", "--backend", "stub"]
    res = runner.invoke(app, [*args, "--criteria", str(crit), "--quiet"])
    assert res.exit_code == 0, res.output
    agg = json.loads((tmp_path / "p.aggregate.json").read_text())
    assert list(agg["criteria"]) == ["findability"] and agg["n_scored"] == 4
    assert agg["criteria"]["findability"]["win_rate_b"]["n_cohorts"] == 2


def test_usage_errors_exit_2_and_write_nothing(tmp_path):
    bad = tmp_path / "pairs.jsonl"
    bad.write_text('{"id": "p1", "output_a": "x"}\n')
    out = tmp_path / "o"
    res = runner.invoke(app, ["judge", "pairwise", str(bad), "--out", str(out), "--name", "n", "--backend", "stub"])
    assert res.exit_code == 2 and "pairs.jsonl:1: output_b: Field required" in res.output
    a = tmp_path / "a.local.json"
    a.write_text(json.dumps({"schema": 1, "kind": "eval", "cases": [{"id": "q", "variant": "v", "scores": {}}]}))
    args = ["judge", "pairwise", str(a), str(a), "--out", str(out), "--name", "n", "--backend", "stub"]
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "answer: missing" in res.output
    assert not out.exists()


def test_an_llm_judge_that_scores_nothing_exits_3(tmp_path, monkeypatch):
    for var in ("ASSAY_LLM_BASE_URL", "OPENAI_BASE_URL", "ASSAY_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "p1", "output_a": "x", "output_b": "y"}) + "\n")
    args = ["judge", "pairwise", str(pairs), "--out", str(tmp_path), "--name", "n", "--backend", "openai_compatible"]
    res = runner.invoke(app, args)
    assert res.exit_code == 3, res.output
    assert json.loads((tmp_path / "n.aggregate.json").read_text())["n_skipped"] == 1
