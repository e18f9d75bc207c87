"""`assay memory replay` through the real CLI: files written, --dry-run calls nothing, exit codes."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from assay.cli import app

runner = CliRunner()


def _inputs(tmp_path):
    sessions = tmp_path / "sessions.jsonl"
    rows = [
        {
            "id": "s1",
            "cohort": "u1",
            "turns": [
                {"id": "t1", "speaker": "Ann", "text": "I adopted a golden retriever puppy named Biscuit."},
                {"id": "t2", "speaker": "Bob", "text": "I started pottery classes downtown on Tuesdays."},
            ],
        },
        {"id": "s2", "turns": [{"id": "t1", "speaker": "Cy", "text": "My sister moved to Lisbon for a design job."}]},
    ]
    sessions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "cohort": "u1", "text": "Ann's puppy?", "evidence": ["t1"]}) + "\n")
    return sessions, questions


def test_extract_arms_write_every_file(tmp_path):
    sessions, questions = _inputs(tmp_path)
    args = ["memory", "replay", str(sessions), "--questions", str(questions), "--embedder", "hashing"]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "o"), "--name", "r"])
    assert res.exit_code == 0, res.output
    agg = json.loads((tmp_path / "o" / "r.aggregate.json").read_text())
    assert agg["n_sessions"] == 2 and agg["n_cohorts"] == 2 and agg["arms"]["A"]["n_memories"] == 3
    assert "recall@10" in (tmp_path / "o" / "r.md").read_text()
    assert (tmp_path / "o" / "r.local.json").exists()


def test_dry_run_prints_the_plan_and_calls_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: a call would fail
    sessions, _ = _inputs(tmp_path)
    pa, pb = tmp_path / "a.txt", tmp_path / "b.txt"
    pa.write_text("Write one memory per fact.")
    pb.write_text("Write one summary.")
    args = ["memory", "replay", str(sessions), "--generator", "openai_compatible", "--prompt-a", str(pa)]
    res = runner.invoke(app, [*args, "--prompt-b", str(pb), "--judge", "openai_compatible", "--dry-run"])
    assert res.exit_code == 0, res.output
    plan = json.loads(res.output)["plan"]
    assert plan["calls"]["generation"] == 4 and plan["calls"]["pairwise"] == 4 and plan["token_estimate"] > 0


def test_usage_errors_exit_2(tmp_path):
    sessions, _ = _inputs(tmp_path)
    res = runner.invoke(app, ["memory", "replay", str(sessions), "--generator", "stub"])
    assert res.exit_code == 2 and "--prompt-a and --prompt-b" in res.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "s"}\n')
    res = runner.invoke(app, ["memory", "replay", str(bad), "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "bad.jsonl:1: turns" in res.output and not (tmp_path / "x").exists()


def test_an_llm_judge_that_scores_nothing_exits_3(tmp_path, monkeypatch):
    for var in ("ASSAY_LLM_BASE_URL", "OPENAI_BASE_URL", "ASSAY_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    sessions, _ = _inputs(tmp_path)
    args = ["memory", "replay", str(sessions), "--embedder", "hashing", "--judge", "openai_compatible"]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "o")])
    assert res.exit_code == 3, res.output
