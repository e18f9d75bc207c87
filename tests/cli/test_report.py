"""``assay report check|open`` and report sets written under a lock (issue 16 item 2).

Exit codes of ``report check``: 0 the four files share one run_id, 1 mixed, 2 missing/unreadable.
The concurrency test reproduces the issue's input: three ``assay eval … --seed 1|2|3`` at once
into one ``--out/--name``; before the lock, 2 of 12 rounds left a set whose html held other CIs
than its aggregate.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import webbrowser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from eval_cases import two_variant_rows, write_jsonl

REPO = Path(__file__).resolve().parents[2]
SUFFIXES = (".local.json", ".aggregate.json", ".md", ".html")


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ASSAY_DB_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "80")


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture()
def report_set(tmp_path) -> Path:
    cases = write_jsonl(tmp_path / "cases.jsonl", two_variant_rows())
    res = run("eval", cases, "--out", tmp_path / "out", "--name", "same", "--baseline", "base")
    assert res.exit_code == 0, res.output
    return tmp_path / "out" / "same"


def _run_ids(base: Path) -> list[str | None]:
    from assay.reports.sets import read_run_id

    return [read_run_id(base.with_name(base.name + s)) for s in SUFFIXES]


def test_every_file_of_a_set_carries_the_run_id(report_set):
    ids = _run_ids(report_set)
    assert len(set(ids)) == 1 and ids[0] and re.fullmatch(r"[0-9a-f]{32}", ids[0])
    md = report_set.with_name("same.md").read_text(encoding="utf-8")
    html = report_set.with_name("same.html").read_text(encoding="utf-8")
    assert md.startswith(f"<!-- run_id: {ids[0]} -->\n")
    assert f'<meta name="run_id" content="{ids[0]}">' in html
    assert json.loads(report_set.with_name("same.local.json").read_text(encoding="utf-8"))["run_id"] == ids[0]


def test_report_check_consistent_mixed_and_missing(tmp_path, report_set):
    res = run("report", "check", report_set)
    assert res.exit_code == 0, res.output
    assert "consistent" in res.stdout
    assert run("report", "check", report_set.with_name("same.html")).exit_code == 0  # a file of the set works too

    html = report_set.with_name("same.html")
    html.write_text(re.sub(r'content="[0-9a-f]+"', 'content="other"', html.read_text(encoding="utf-8")), "utf-8")
    res = run("report", "check", report_set)
    assert res.exit_code == 1 and "mixed report set" in res.stderr and "run_id other" in res.stderr

    report_set.with_name("same.md").unlink()
    res = run("report", "check", report_set)
    assert res.exit_code == 2 and "same.md: missing" in res.stderr

    assert run("report", "check", tmp_path / "nowhere" / "x").exit_code == 2


def test_report_check_names_a_file_without_run_id(report_set):
    agg = report_set.with_name("same.aggregate.json")
    data = json.loads(agg.read_text(encoding="utf-8"))
    del data["run_id"]
    agg.write_text(json.dumps(data), encoding="utf-8")
    res = run("report", "check", report_set)
    assert res.exit_code == 2 and "same.aggregate.json: no run_id" in res.stderr


def test_report_open_opens_the_html(report_set, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    res = run("report", "open", report_set)
    assert res.exit_code == 0, res.output
    assert opened == [report_set.with_name("same.html").as_uri()]
    res = run("report", "open", report_set.with_name("nope"))
    assert res.exit_code == 2 and "nope.html: no such file" in res.stderr


def test_a_second_writer_waits_with_a_message(tmp_path, report_set):
    """The writer waits while the lock is held, says so, and writes its whole set after."""
    from assay.reports.sets import report_set_lock

    cases = tmp_path / "cases.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "COLUMNS": "200"}
    with report_set_lock(report_set.parent, "same"):
        proc = subprocess.Popen(
            [sys.executable, "-m", "assay.cli", "eval", str(cases), "--out", str(report_set.parent)]
            + ["--name", "same", "--seed", "5", "--quiet"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = proc.stderr.readline()  # blocks until the child reaches the lock
        assert "waiting: another run is writing" in line and str(report_set) in line
        assert proc.poll() is None
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert run("report", "check", report_set).exit_code == 0


@pytest.mark.slow
def test_concurrent_evals_into_one_name_never_leave_a_mixed_set(tmp_path):
    """Issue 16's input: three `assay eval … --seed 1|2|3` at once into one --out/--name, repeated."""
    cases = write_jsonl(tmp_path / "cases.jsonl", two_variant_rows(n=12))
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "COLUMNS": "200"}
    for _round in range(2):  # each round: 3 processes racing for one set (~10 s each on a loaded 2-core box)
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "assay.cli", "eval", str(cases), "--out", str(out), "--name", "same"]
                + ["--baseline", "base", "--seed", str(seed), "--quiet"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for seed in (1, 2, 3)
        ]
        for p in procs:
            _, stderr = p.communicate(timeout=300)
            assert p.returncode == 0, stderr
        res = run("report", "check", out / "same")
        assert res.exit_code == 0, res.output
        aggregate = json.loads((out / "same.aggregate.json").read_text(encoding="utf-8"))
        html = (out / "same.html").read_text(encoding="utf-8")
        ci = aggregate["variants"]["cand"]["dims"]["composite"]["ci"]
        assert f"[{ci[0]:.3f}, {ci[1]:.3f}]" in html  # the html shows this aggregate's CIs
