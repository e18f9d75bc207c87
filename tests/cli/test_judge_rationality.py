"""``assay judge rationality`` / ``assay judge agreement``: files, exit codes, errors, privacy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.cli.judge_rationality import EXIT_INCOMPLETE

runner = CliRunner()


def _summary(tmp_path: Path, n: int = 6, synthesis: bool = True) -> Path:
    rows = []
    for i in range(n):
        trace = {"planner": {"query_type": "cancel", "stage_sequence": ["get_x"] * (3 * i + 1)}}
        if synthesis:
            trace["synthesis_llm_call"] = {
                "user_prompt_text": f"value {i * 10 + 10}",
                "completion_text": f"It is {i * 10 + 10}.",
            }
        p = tmp_path / "traces" / f"case-ID-{i}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(trace))
        rows.append({"id": f"case-ID-{i}", "slice": f"s{i % 2}", "trace_path": f"traces/case-ID-{i}.json"})
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"case_results": rows}))
    return path


def _invoke(*args: str):
    return runner.invoke(app, ["judge", "rationality", *args])


def test_out_dir_writes_four_files_and_prints_the_axis_table(tmp_path):
    s = _summary(tmp_path)
    r = _invoke("--eval-summary", str(s), "--out", str(tmp_path / "out"), "--backend", "heuristic")
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["rationality.aggregate.json", "rationality.html", "rationality.local.json", "rationality.md"]
    assert "planner_decomposition" in r.output and "effective_n" in r.output
    agg = json.loads((tmp_path / "out" / "rationality.aggregate.json").read_text())
    assert agg["kind"] == "rationality" and agg["backend"] == "heuristic" and agg["n"] == 6
    md = (tmp_path / "out" / "rationality.md").read_text()
    assert "## Per dimension" in md and "## Bottom " in md and "| #1 |" in md
    bottom = md.split("## Bottom ", 1)[1].split("\n## ", 1)[0]
    assert "| 1.000 |" not in bottom  # issue 16: a score of 1.0 is not a bottom row
    for shared in ("rationality.aggregate.json", "rationality.md", "rationality.html"):
        assert "case-ID" not in (tmp_path / "out" / shared).read_text()
    assert "case-ID-0" in (tmp_path / "out" / "rationality.local.json").read_text()


def test_explicit_paths_override_out_and_name(tmp_path):
    s = _summary(tmp_path)
    local, agg, md = tmp_path / "a" / "l.json", tmp_path / "b" / "g.json", tmp_path / "c" / "r.md"
    for p in (local, agg, md):
        p.parent.mkdir()
    r = _invoke("--eval-summary", str(s), "--output", str(local), "--out-aggregate", str(agg), "--out-md", str(md))
    assert r.exit_code == 0, r.output
    assert json.loads(local.read_text())["kind"] == "rationality" and md.read_text().startswith("# rationality")
    r = _invoke("--eval-summary", str(s), "--out", str(tmp_path / "o"), "--name", "run1", "--out-md", str(md))
    assert (
        r.exit_code == 0
        and (tmp_path / "o" / "run1.local.json").is_file()
        and not (tmp_path / "o" / "run1.md").exists()
    )
    r = _invoke("--eval-summary", str(s), "--output", str(local))
    assert r.exit_code == 2 and "give --out DIR, or all three" in r.output


def test_expect_full_trace_exits_3_when_answer_reasoning_was_never_measured(tmp_path):
    s = _summary(tmp_path, synthesis=False)
    r = _invoke("--eval-summary", str(s), "--out", str(tmp_path / "out"), "--expect-full-trace")
    assert r.exit_code == EXIT_INCOMPLETE == 3
    assert "answer_reasoning measured on 0 of 6" in r.output
    assert (tmp_path / "out" / "rationality.aggregate.json").is_file()  # written before the exit
    full = _summary(tmp_path / "full")
    assert _invoke("--eval-summary", str(full), "--out", str(tmp_path / "out2"), "--expect-full-trace").exit_code == 0
    assert _invoke("--eval-summary", str(s), "--out", str(tmp_path / "out3")).exit_code == 0  # without the flag


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"case_results": [{"slice": "x"}]}', "summary.json: case_results[0].id: field required"),
        ('{"case_results": [', "summary.json:1: <json>:"),
        ('{"rows": []}', "summary.json: case_results: missing"),
    ],
)
def test_malformed_summary_exits_2_with_one_line(tmp_path, content, message):
    s = tmp_path / "summary.json"
    s.write_text(content)
    r = _invoke("--eval-summary", str(s), "--out", str(tmp_path / "out"))
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.output
    assert not (tmp_path / "out").exists()


def test_missing_summary_file_exits_2(tmp_path):
    r = _invoke("--eval-summary", str(tmp_path / "nope.json"), "--out", str(tmp_path / "out"))
    assert r.exit_code == 2 and "no such file" in r.output


def test_agreement_reports_rho_per_axis_and_slice(tmp_path):
    s = _summary(tmp_path, n=12)
    for b in ("stub", "heuristic"):
        assert (
            _invoke("--eval-summary", str(s), "--out", str(tmp_path / "out"), "--name", b, "--backend", b).exit_code
            == 0
        )
    a, b = tmp_path / "out" / "stub.local.json", tmp_path / "out" / "heuristic.local.json"
    r = runner.invoke(app, ["judge", "agreement", str(a), str(b), "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    assert res["n_pairs"] == 12 and res["backend_a"] == "stub" and res["backend_b"] == "heuristic"
    row = res["axes"]["planner_decomposition"]
    assert row["n_pairs"] == 12 and row["rho"] is not None and -1 <= row["rho"] <= 1 and 0 <= row["p"] <= 1
    assert set(res["slices"]) == {"s0", "s1"} and res["slices"]["s0"]["composite"]["n_pairs"] == 6
    r = runner.invoke(app, ["judge", "agreement", str(a), str(b)])
    assert r.exit_code == 0 and "per slice" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "eval", "cases": []}')
    r = runner.invoke(app, ["judge", "agreement", str(bad), str(b)])
    assert r.exit_code == 2 and "not a rationality run" in r.output


def test_console_script_shares_the_judge_group(tmp_path):
    env = {**os.environ, "ASSAY_HOME": str(tmp_path / "home")}
    r = subprocess.run(
        [sys.executable, "-c", "import sys; from assay.cli import main; sys.argv=['assay','judge','--help']; main()"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert "rationality" in r.stdout and "agreement" in r.stdout
    if __import__("importlib").util.find_spec("assay.cli.judge"):
        assert "validate" in r.stdout


def test_regression_bad_output_options_and_traces_dir_exit_2(tmp_path):
    """From a new-user review: a missing --traces-dir ran with every trace 'missing'; a folder as
    --output named an internal temp file; one path for all three outputs kept only the last."""
    s = _summary(tmp_path)
    r = _invoke("--eval-summary", str(s), "--out", str(tmp_path / "o"), "--traces-dir", str(tmp_path / "nowhere"))
    assert r.exit_code == 2 and "--traces-dir" in r.output and "no such directory" in r.output
    (tmp_path / "ex").mkdir()
    r = _invoke(
        "--eval-summary",
        str(s),
        "--output",
        str(tmp_path / "ex"),
        "--out-aggregate",
        str(tmp_path / "ex" / "a.json"),
        "--out-md",
        str(tmp_path / "ex" / "a.md"),
    )
    assert r.exit_code == 2 and "--output" in r.output and "is a directory" in r.output and ".tmp" not in r.output
    same = str(tmp_path / "ex" / "same.json")
    r = _invoke("--eval-summary", str(s), "--output", same, "--out-aggregate", same, "--out-md", same)
    assert r.exit_code == 2 and "three different files" in r.output
    assert not (tmp_path / "ex" / "same.json").exists()


def test_regression_agreement_without_shared_cases_exits_2(tmp_path):
    for sub in ("a", "b"):
        s = _summary(tmp_path / sub)
        rows = json.loads(s.read_text())
        for row in rows["case_results"]:
            row["id"] = f"{sub}-{row['id']}"
        s.write_text(json.dumps(rows))
        assert _invoke("--eval-summary", str(s), "--out", str(tmp_path / sub / "out")).exit_code == 0
    r = runner.invoke(
        app,
        [
            "judge",
            "agreement",
            str(tmp_path / "a" / "out" / "rationality.local.json"),
            str(tmp_path / "b" / "out" / "rationality.local.json"),
        ],
    )
    assert r.exit_code == 2 and "share no case id" in r.output


def test_heuristic_is_described_as_rules_of_unestablished_validity(tmp_path):
    """Issue 16 item 9: README, --help and the aggregate say what the heuristic is."""
    r = _invoke("--help")
    assert "validity beyond trajectory length is not established" in " ".join(r.output.replace("│", " ").split())
    s = _summary(tmp_path)
    r = _invoke("--eval-summary", str(s), "--out", str(tmp_path / "out"), "--backend", "heuristic")
    assert r.exit_code == 0, r.output
    agg = json.loads((tmp_path / "out" / "rationality.aggregate.json").read_text())
    assert any("validity beyond trajectory length is not established" in n for n in agg["notes"])
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "validity beyond\ntrajectory length is not established" in readme
