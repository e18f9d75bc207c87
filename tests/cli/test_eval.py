"""``assay eval``, ``assay compare`` and ``assay import`` through the command line.

Exit codes: 0 when the run completes (whatever the gate found), 2 on bad input or an unusable
output directory (one readable line, nothing written), 130 on Ctrl-C (nothing half-written).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay.cli
import assay.evaluate
from assay.cli import app
from eval_cases import GOOD, HALF, REFUSAL, WRONG, case, two_variant_rows, write_jsonl

REPO = Path(__file__).resolve().parents[2]
SUFFIXES = (".local.json", ".aggregate.json", ".md", ".html")


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ASSAY_DB_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "80")  # what a pipe or CI log gets


@pytest.fixture()
def cases_file(tmp_path) -> Path:
    return write_jsonl(tmp_path / "cases.jsonl", two_variant_rows())


def run(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


# --- a successful run ----------------------------------------------------------------------


def test_eval_writes_four_reports_and_prints_their_absolute_paths_last(tmp_path, cases_file):
    out = tmp_path / "a" / "b" / "reports"  # created with parents
    res = run("eval", cases_file, "--out", out, "--name", "run1", "--baseline", "base")
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    expected = [str((out / f"run1{s}").absolute()) for s in SUFFIXES]
    assert lines[-4:] == expected
    for p in expected:
        assert Path(p).is_absolute() and Path(p).stat().st_size > 0
    assert _files(out) == sorted([out / ".run1.lock", *(Path(p) for p in expected)])  # no temp files left
    agg = json.loads((out / "run1.aggregate.json").read_text())
    assert agg["name"] == "run1" and agg["baseline"] == "base" and set(agg["lift"]) == {"cand", "solo"}
    local = json.loads((out / "run1.local.json").read_text())
    assert len(local["cases"]) == 14 and local["kind"] == "eval"
    # the console summary: every variant with its n, and rich did not squeeze numbers away
    for v, s in agg["variants"].items():
        row = next(line for line in lines if line.startswith("│ " + v + " "))
        cells = [c.strip() for c in row.strip("│").split("│")]
        comp = s["dims"]["composite"]
        ci = "—" if comp["ci"] is None else f"[{comp['ci'][0]:.3f}, {comp['ci'][1]:.3f}]"
        assert cells[:4] == [v, str(s["n"]), f"{comp['mean']:.3f}", ci]  # regression: n and CI were cut at 80 columns
    assert "…" not in res.stdout


def test_eval_exits_0_when_every_answer_fails_the_gate(tmp_path):
    f = write_jsonl(tmp_path / "c.jsonl", [case(f"q{i}", "v", WRONG) for i in range(3)])
    res = run("eval", f, "--out", tmp_path / "o")
    assert res.exit_code == 0, res.output
    agg = json.loads((tmp_path / "o" / "eval.aggregate.json").read_text())
    assert agg["variants"]["v"]["gate_fail_rate"] == 1.0


def test_variant_with_one_case_gets_ci_null(tmp_path):
    f = write_jsonl(tmp_path / "c.jsonl", [case("only", "single", GOOD)])
    res = run("eval", f, "--out", tmp_path / "o", "--name", "one")
    assert res.exit_code == 0, res.output
    dims = json.loads((tmp_path / "o" / "one.aggregate.json").read_text())["variants"]["single"]["dims"]
    assert dims["composite"]["ci"] is None and dims["composite"]["mean"] is not None
    assert "—" in res.stdout  # the CI column says "none", not a fake interval


def test_single_variant_with_itself_as_baseline_explains_why_there_is_no_lift(tmp_path):
    f = write_jsonl(tmp_path / "c.jsonl", [case("a", "v", GOOD), case("b", "v", HALF)])
    res = run("eval", f, "--out", tmp_path / "o", "--baseline", "v")
    assert res.exit_code == 0, res.output
    md = (tmp_path / "o" / "eval.md").read_text()
    assert "only variant" in md and "shares case ids" not in md


def test_unicode_ids_and_long_hostile_variant_names(tmp_path):
    long_name = "variant-" + "x" * 150
    rows = [
        case("été-😀-1", long_name, GOOD),
        case("été-😀-1", "b|<i>r</i>", HALF),
        case("ケース-2", long_name, WRONG),
        case("ケース-2", "b|<i>r</i>", GOOD),
    ]
    f = write_jsonl(tmp_path / "c.jsonl", rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # regression: matplotlib's layout collapsed on the long name
        res = run("eval", f, "--out", tmp_path / "o", "--baseline", "b|<i>r</i>")
    assert res.exit_code == 0, res.output
    local = json.loads((tmp_path / "o" / "eval.local.json").read_text(encoding="utf-8"))
    assert {r["id"] for r in local["cases"]} == {"été-😀-1", "ケース-2"}
    html = (tmp_path / "o" / "eval.html").read_text(encoding="utf-8")
    assert "<i>r</i>" not in html and "b|&lt;i&gt;r&lt;/i&gt;" in html
    assert long_name in html  # the tables keep the whole name; plots shorten it
    agg = json.loads((tmp_path / "o" / "eval.aggregate.json").read_text(encoding="utf-8"))
    for s in agg["variants"].values():  # regression: a long name squeezed the number columns to nothing
        comp = s["dims"]["composite"]
        assert f"│ {s['n']} │" in res.stdout
        assert f"{comp['mean']:.3f}" in res.stdout and f"[{comp['ci'][0]:.3f}, {comp['ci'][1]:.3f}]" in res.stdout


# --- bad input: exit 2, one line, nothing written ------------------------------------------


BAD_LINES = [
    ('{"id": "a", "answer": "x"}\n{not json', "c.jsonl:2: <json>:"),
    ('{"id": "a"}', "c.jsonl:1: answer: required field is missing"),
    ('{"id": 3, "answer": "x"}', "c.jsonl:1: id:"),
    ("[1, 2]", "c.jsonl:1: <json>: expected a JSON object"),
    (
        '{"id": "a", "answer": "x", "facts": [{"id": "F1", "label": "x", "value": NaN}]}',
        "c.jsonl:1: <json>: NaN is not valid JSON",
    ),
    ('{"id": "a", "answer": "x", "surprise": 1}', "c.jsonl:1: surprise:"),
    ("", "c.jsonl:0: <file>: empty file"),
]


@pytest.mark.parametrize(("text", "message"), BAD_LINES)
def test_bad_case_lines_exit_2_with_file_line_field_and_write_nothing(tmp_path, text, message):
    f = tmp_path / "c.jsonl"
    f.write_text(text + "\n" if text else "", encoding="utf-8")
    out = tmp_path / "new" / "reports"
    res = run("eval", f, "--out", out)
    assert res.exit_code == 2
    assert message in res.stderr
    assert "Traceback" not in res.output
    assert not (tmp_path / "new").exists()  # not even the output directory


def test_non_utf8_file_exit_2(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_bytes(b'{"id": "a", "answer": "\xff"}\n')
    res = run("eval", f, "--out", tmp_path / "o")
    assert res.exit_code == 2 and "c.jsonl:1: <bytes>: not valid UTF-8" in res.stderr
    assert not (tmp_path / "o").exists()


def test_duplicate_id_variant_names_both_lines(tmp_path):
    f = write_jsonl(tmp_path / "c.jsonl", [case("q1", "v", GOOD), case("q2", "v", GOOD), case("q1", "v", HALF)])
    res = run("eval", f, "--out", tmp_path / "o")
    assert res.exit_code == 2
    assert "c.jsonl:3: id: duplicate (id, variant) ('q1', 'v'); first at line 1" in res.stderr
    assert not (tmp_path / "o").exists()


def test_missing_cases_file_and_a_directory_as_cases_file(tmp_path):
    res = run("eval", tmp_path / "nope.jsonl", "--out", tmp_path / "o")
    assert res.exit_code == 2 and "nope.jsonl: no such file" in res.stderr
    res = run("eval", tmp_path, "--out", tmp_path / "o")
    assert res.exit_code == 2 and "is a directory, expected a file" in res.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--baseline", "nope"],
        ["--label-field", "meta.x"],
        ["--positive", "bad"],
        ["--label-field", "meta.x", "--positive", "bad", "--exclude-label", "bad"],
        ["--name", "a/b"],
        ["--name", ""],
        ["--name", "n" * 240],  # regression: failed after scoring with a raw temp-file path
        ["--mode", "loose"],
        ["--judge", "gpt"],
        ["--token-budget", "-1"],
    ],
)
def test_bad_options_exit_2_before_any_work(tmp_path, cases_file, monkeypatch, args):
    calls = []
    monkeypatch.setattr(assay.evaluate, "run_eval", lambda *a, **k: calls.append(1))
    out = tmp_path / "o"
    res = run("eval", cases_file, "--out", out, *args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert calls == []
    assert _files(out) == []


@pytest.mark.parametrize("kind", ["file", "under_file"])
def test_unusable_output_directory_exit_2_before_reading_the_cases(tmp_path, cases_file, monkeypatch, kind):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")
    out = blocker if kind == "file" else blocker / "sub"
    loaded = []
    monkeypatch.setattr(assay.cli.eval, "load_cases", lambda p: loaded.append(p))
    res = run("eval", cases_file, "--out", out)
    assert res.exit_code == 2
    assert f"{blocker} is not a directory" in res.stderr
    assert loaded == []
    assert blocker.read_text() == "not a directory"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can write anywhere")
def test_read_only_output_directory_exit_2(tmp_path, cases_file):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        res = run("eval", cases_file, "--out", ro / "x")
        assert res.exit_code == 2 and "not writable" in res.stderr
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


# --- Ctrl-C --------------------------------------------------------------------------------


def test_ctrl_c_mid_run_exits_130_and_leaves_old_reports_intact(tmp_path, cases_file, monkeypatch):
    out = tmp_path / "o"
    assert run("eval", cases_file, "--out", out, "--name", "r").exit_code == 0
    before = {p: p.read_bytes() for p in _files(out)}
    real = assay.evaluate.evaluate_case
    calls = []

    def interrupted(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(assay.evaluate, "evaluate_case", interrupted)
    res = run("eval", cases_file, "--out", out, "--name", "r", "--seed", "5")
    assert res.exit_code == 130
    assert "interrupted: nothing was written" in res.stderr
    assert {p: p.read_bytes() for p in _files(out)} == before  # same files, same bytes, no temp files


def test_ctrl_c_before_anything_is_written_leaves_no_new_directory(tmp_path, cases_file, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(assay.evaluate, "evaluate_case", interrupted)
    out = tmp_path / "fresh" / "deep"
    res = run("eval", cases_file, "--out", out)
    assert res.exit_code == 130
    assert not (tmp_path / "fresh").exists()


# --- one real process ----------------------------------------------------------------------


def test_eval_in_a_real_process_on_the_bundled_example(tmp_path):
    env = {**os.environ, "COLUMNS": "80", "ASSAY_HOME": str(tmp_path / "home")}
    env.pop("ASSAY_DB_URL", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay.cli",
            "eval",
            str(REPO / "examples" / "apple_fy2023_memos.jsonl"),
            "--out",
            str(tmp_path / "demo"),
            "--name",
            "demo",
            "--baseline",
            "single_pass",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == ""  # no warnings, no traceback (the progress bar is transient)
    last = proc.stdout.strip().splitlines()[-4:]
    assert last == [str(tmp_path / "demo" / f"demo{s}") for s in SUFFIXES]
    agg = json.loads((tmp_path / "demo" / "demo.aggregate.json").read_text())
    assert len(agg["variants"]) >= 2 and agg["lift"]
    html = (tmp_path / "demo" / "demo.html").read_text()
    assert html.count("<svg") >= 3 and "http://" not in html.replace("http://www.w3.org", "")


# --- compare -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    tmp_path = tmp_path_factory.mktemp("runs")
    before = write_jsonl(tmp_path / "before.jsonl", [case(f"q{i}", "v", [GOOD, HALF, WRONG][i % 3]) for i in range(6)])
    after = write_jsonl(tmp_path / "after.jsonl", [case(f"q{i}", "v", GOOD) for i in range(5)])  # q5 missing
    for f, name in ((before, "a"), (after, "b")):
        assert run("eval", f, "--out", tmp_path / "runs", "--name", name).exit_code == 0
    return tmp_path / "runs" / "a.local.json", tmp_path / "runs" / "b.local.json"


def test_compare_two_runs(two_runs):
    a, b = two_runs
    res = run("compare", a, b)
    assert res.exit_code == 0, res.output
    assert "B − A (b.local.json vs a.local.json)" in res.stdout
    res = run("compare", a, b, "--json")
    data = json.loads(res.stdout)
    src = data["lift"]["sourcing"]
    assert src["n_pairs"] == 5  # q5 has no "after" side
    assert src["diff"] == pytest.approx((0 + 0.5 + 1 + 0 + 0.5) / 5)
    assert src["ci"][0] <= src["diff"] <= src["ci"][1]
    assert (data["n_a"], data["n_b"]) == (6, 5)
    assert data["lift"]["faithfulness"]["n_pairs"] == 0


def test_compare_of_a_run_with_itself_is_zero(two_runs):
    a, _ = two_runs
    data = json.loads(run("compare", a, a, "--json").stdout)
    assert data["lift"]["composite"] == {"diff": 0.0, "ci": [0.0, 0.0], "n_pairs": data["lift"]["composite"]["n_pairs"]}
    assert data["notes"] == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", ":1: <json>:"),
        ('{"variants": {}}', "not an assay *.local.json"),
        ('{"cases": []}', "no cases to compare"),
        ('{"cases": [{"id": "q0"}]}', "needs id, variant and scores"),
        (
            '{"cases": [{"id": "q0", "variant": "v", "scores": [1]}]}',
            "cases[0].scores: expected an object",
        ),  # was a traceback
        (
            '{"cases": [{"id": "q0", "variant": "v", "scores": {"composite": "high"}}]}',
            "scores.composite: expected a number in [0, 1]",
        ),
        (
            '{"cases": [{"id": "q0", "variant": "v", "scores": {"composite": NaN}}]}',
            "scores.composite: expected a number in [0, 1]",
        ),
        (
            '{"cases": [{"id": "q0", "variant": "v", "scores": {"composite": 7}}]}',
            "scores.composite: expected a number in [0, 1]",
        ),
        (
            '{"cases": [{"id": "q0", "variant": "v", "scores": {}}, {"id": "q0", "variant": "v", "scores": {}}]}',
            "cases[1]: duplicate (id, variant)",
        ),
    ],
)
def test_compare_bad_files_exit_2_with_one_line(tmp_path, two_runs, content, message):
    bad = tmp_path / "bad.local.json"
    bad.write_text(content)
    res = run("compare", two_runs[0], bad)
    assert res.exit_code == 2, res.output
    assert message in res.stderr and str(bad) in res.stderr
    assert "Traceback" not in res.output


def test_compare_file_not_utf8_names_the_file(tmp_path, two_runs):
    bad = tmp_path / "bad.local.json"
    bad.write_bytes(b'{"cases": [\n\xff]}')
    res = run("compare", two_runs[0], bad)
    assert res.exit_code == 2 and f"{bad}:2: <bytes>: not valid UTF-8" in res.stderr


def test_compare_runs_without_a_shared_pair_exit_3(tmp_path, two_runs):
    """Issue 16's exit-code table: compare with zero pairs is done but incomplete (3), not a usage error."""
    other = write_jsonl(tmp_path / "other.jsonl", [case("zz", "v", GOOD), case("q1", "renamed", GOOD)])
    assert run("eval", other, "--out", tmp_path / "runs", "--name", "other").exit_code == 0
    res = run("compare", two_runs[0], tmp_path / "runs" / "other.local.json")
    assert res.exit_code == 3 and "share no scored (id, variant) pair" in res.stderr


def test_compare_exits_1_when_b_is_significantly_worse(two_runs):
    a, b = two_runs
    res = run("compare", b, a)  # A = all GOOD, B = GOOD/HALF/WRONG: B worse on sourcing
    assert res.exit_code == 1, res.output
    assert "B is worse than A on" in res.stderr and "sourcing" in res.stderr
    assert run("compare", a, b).exit_code == 0  # B better: every guard holds


def test_compare_missing_file(tmp_path, two_runs):
    res = run("compare", two_runs[0], tmp_path / "nope.json")
    assert res.exit_code == 2 and "nope.json: no such file" in res.stderr


# --- import --------------------------------------------------------------------------------


@pytest.fixture()
def mini_financebench(tmp_path) -> Path:
    root = tmp_path / "fb"
    (root / "results").mkdir(parents=True)
    q = {
        "financebench_id": "fb1",
        "question": "Capex?",
        "answer": "$5.00",
        "question_type": "metrics-generated",
        "evidence": [{"evidence_text": "Capex was $5 million."}],
    }
    (root / "financebench_open_source.jsonl").write_text(json.dumps(q) + "\n")
    row = {
        "financebench_id": "fb1",
        "model_name": "m",
        "eval_mode": "oracle",
        "question": "Capex?",
        "gold_answer": 5,
        "model_answer": "Capex was $5 million.",
        "label": "Correct Answer",
    }
    (root / "results" / "m_oracle.jsonl").write_text(
        json.dumps(row) + "\n" + json.dumps({**row, "financebench_id": "gone"}) + "\n"
    )
    return root


def test_import_creates_parents_prints_counts_and_the_path_last(tmp_path, mini_financebench):
    out = tmp_path / "new" / "dir" / "fb.jsonl"
    res = run("import", "financebench", mini_financebench, "--out", out)
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert lines[0] == "1 cases, 1 variant(s)"
    assert "left out: 1 source record(s): id not in questions file" in res.stdout
    assert lines[-1] == str(out.resolve())
    assert json.loads(out.read_text())["id"] == "fb1"


def test_import_to_a_directory_or_from_nowhere_exit_2(tmp_path, mini_financebench):
    res = run("import", "financebench", mini_financebench, "--out", tmp_path)
    assert (
        res.exit_code == 2 and "is a directory" in res.stderr and ".tmp" not in res.stderr
    )  # was a raw temp-file error
    res = run("import", "financebench", tmp_path / "missing", "--out", tmp_path / "x.jsonl")
    assert res.exit_code == 2 and "no such file or directory" in res.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run("import", "financebench", empty, "--out", tmp_path / "x.jsonl")
    assert (
        res.exit_code == 2 and "None" not in res.stderr and "questions file not found" in res.stderr
    )  # was "None: no such file"
    assert not (tmp_path / "x.jsonl").exists()


# --- issue 16: coverage headline, exit codes, help, console lift, report sets -------------------


def _refuser_rows() -> list[dict]:
    """Issue 16's defect input: a variant that copies single_pass on q1 and refuses q2–q8."""
    rows = []
    for i in range(1, 9):
        rows.append(case(f"q{i}", "single_pass", GOOD if i % 3 else HALF))
        rows.append(case(f"q{i}", "refuser", GOOD if i == 1 else REFUSAL))
    return rows


def test_a_variant_that_refuses_ranks_below_one_that_answers_and_is_flagged(tmp_path):
    cases = write_jsonl(tmp_path / "c.jsonl", _refuser_rows())
    res = run("eval", cases, "--out", tmp_path / "out", "--name", "r", "--baseline", "single_pass")
    assert res.exit_code == 0, res.output
    agg = json.loads((tmp_path / "out" / "r.aggregate.json").read_text(encoding="utf-8"))
    assert agg["schema"] == 2
    refuser, single = agg["variants"]["refuser"]["dims"], agg["variants"]["single_pass"]["dims"]
    assert refuser["composite_answered"]["mean"] == 1.0  # what schema 1 ranked first on
    assert refuser["composite"]["mean"] == pytest.approx(1 / 8)
    assert refuser["composite"]["mean"] < single["composite"]["mean"]
    assert refuser["coverage"]["mean"] == pytest.approx(1 / 8) and refuser["coverage"]["ci"] is not None
    assert agg["lift"]["refuser"]["composite"]["n_pairs"] == 8  # the lift is on every pair, not one
    assert [f["variant"] for f in agg["coverage_flags"]] == ["refuser"]
    table = res.stdout.split("\n")
    assert "Δ vs single_pass" in res.stdout  # the console shows the lift column with --baseline
    row = next(
        line for line in table if line.strip().startswith(("│ refuser", "┃ refuser", "refuser")) or "refuser " in line
    )
    assert "⚑" in row and "-0." in row
    assert table.index(row) > next(i for i, line in enumerate(table) if "single_pass" in line and "0." in line)
    md = (tmp_path / "out" / "r.md").read_text(encoding="utf-8")
    html = (tmp_path / "out" / "r.html").read_text(encoding="utf-8")
    for text in (md, html):
        assert "Coverage differs from single_pass" in text and "⚑" in text


def test_an_expected_refusal_scores_1_when_declined(tmp_path):
    rows = [case("q1", "v", REFUSAL, expect_refusal=True), case("q2", "v", REFUSAL)]
    res = run("eval", write_jsonl(tmp_path / "c.jsonl", rows), "--out", tmp_path / "o")
    assert res.exit_code == 0, res.output
    local = json.loads((tmp_path / "o" / "eval.local.json").read_text(encoding="utf-8"))
    scores = {r["id"]: r["scores"] for r in local["cases"]}
    assert scores["q1"]["composite"] == 1.0 and scores["q2"]["composite"] == 0.0
    assert scores["q1"]["composite_answered"] is None is scores["q2"]["composite_answered"]
    assert [r["answer"] for r in local["cases"]] == [REFUSAL, REFUSAL]


def test_expect_refusal_must_be_a_json_boolean(tmp_path):
    bad = write_jsonl(tmp_path / "c.jsonl", [case("q1", "v", REFUSAL, expect_refusal="yes")])
    res = run("eval", bad, "--out", tmp_path / "o")
    assert res.exit_code == 2 and "c.jsonl:1: expect_refusal:" in res.stderr


def test_eval_exits_3_when_the_llm_judge_asked_for_scores_nothing(tmp_path, monkeypatch, cases_file):
    """Issue 16: all 24 replies rejected exited 0. Here the judge is not configured: every case skipped."""
    for var in ("ASSAY_LLM_BASE_URL", "ASSAY_LLM_MODEL", "ASSAY_LLM_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    res = run("eval", cases_file, "--out", tmp_path / "o", "--judge", "openai_compatible")
    assert res.exit_code == 3, res.output
    assert "scored 0 of" in res.stderr and "faithfulness is unmeasured" in res.stderr
    assert len(_files(tmp_path / "o")) == 5  # written all the same (+ the set's lock file)


def test_eval_mode_and_compare_json_have_help():
    assert "Sourcing gate mode" in run("eval", "--help").stdout
    assert "Print the result as JSON" in run("compare", "--help").stdout


def test_no_wait_exits_2_while_another_run_holds_the_set(tmp_path, cases_file):
    from assay.reports.sets import report_set_lock

    out = tmp_path / "o"
    out.mkdir()
    with report_set_lock(out, "eval"):
        res = run("eval", cases_file, "--out", out, "--no-wait")
    assert res.exit_code == 2 and "another run is writing this report set" in res.stderr
    assert [p.name for p in _files(out)] == [".eval.lock"]  # nothing written


def test_compare_of_schema1_and_schema2_says_which_composite_it_used(tmp_path, two_runs):
    a, _ = two_runs
    old = json.loads(a.read_text(encoding="utf-8"))
    old = {
        "schema": 1,
        "kind": "eval",
        "backend": old["backend"],
        "gate_version": old["gate_version"],
        "cases": [
            {
                **r,
                "scores": {
                    ("composite" if d == "composite_answered" else d): v
                    for d, v in r["scores"].items()
                    if d not in ("composite", "coverage")
                },
            }
            for r in old["cases"]
        ],
    }
    v1 = tmp_path / "v1.local.json"
    v1.write_text(json.dumps(old), encoding="utf-8")
    data = json.loads(run("compare", v1, a, "--json").stdout)
    assert data["composite"] == {"a": "answered", "b": "headline"}
    assert "composite" not in data["lift"] and data["lift"]["composite_answered"]["diff"] == 0.0
    assert any("A is eval schema 1" in n and "headline composite is not compared" in n for n in data["notes"])
