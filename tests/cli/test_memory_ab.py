"""``assay memory ab …`` through the real CLI on SQLite and PostgreSQL: the pinned commands, JSON lines,
exit codes (promote 0/1, tick 0, usage 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ab_fixtures import fill_round, hashing_store
from assay.cli import app
from assay.memory.experiments import ExperimentSettings, ExperimentStore

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, list(map(str, args)))


@pytest.fixture
def started(db_url, tmp_path: Path) -> str:
    rules = tmp_path / "rules.md"
    rules.write_text("Be brief.\n", encoding="utf-8")
    r = _run(
        "--db",
        db_url,
        "memory",
        "ab",
        "start",
        "writer",
        "--control-version",
        "gen-7",
        "--control-rules",
        rules,
        "--candidate-version",
        "gen-7+b3",
        "--instruction",
        "Record units.",
        "--seed",
        "0",
        "--unit",
        "prompt",
        "--min-delivered",
        "50",
    )
    assert r.exit_code == 0, r.output
    assert "started writer: round 1, A=gen-7, B=gen-7+b3" in r.stdout
    return db_url


def test_assign_prints_one_json_object_per_unit(started):
    r = _run("--db", started, "memory", "ab", "assign", "writer", "p0", "p1", "p2")
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines == [
        {"unit": "p0", "arm": "A", "version": "gen-7", "instruction": None},
        {"unit": "p1", "arm": "B", "version": "gen-7+b3", "instruction": "Record units."},
        {"unit": "p2", "arm": "B", "version": "gen-7+b3", "instruction": "Record units."},
    ]
    r = _run("--db", started, "memory", "ab", "assign", "writer", "p1", "--exclude")
    assert json.loads(r.stdout) == {"unit": "p1", "arm": "A", "version": "gen-7", "instruction": None}


def test_promote_says_no_then_yes_and_tick_is_zero(started):
    r = _run("--db", started, "memory", "ab", "promote", "writer", "--dry-run")
    assert r.exit_code == 1 and "gate: NO" in r.stdout and "labelled deliveries" in r.stdout
    ab = ExperimentStore(started, settings=ExperimentSettings(cache_ttl_s=0))
    fill_round(ab, hashing_store(started), "writer", n_units=300, p_a=0.2, p_b=0.6, seed=1)
    r = _run("--db", started, "memory", "ab", "status", "writer", "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["round"] == 1 and s["decision"]["promote"] is True and s["srm"]["mismatch"] is False
    assert s["diffs"]["engagement:lexical"]["cs"][0] > 0
    r = _run("--db", started, "memory", "ab", "status", "writer")
    assert r.exit_code == 0 and "engagement (lexical)" in r.stdout and "anytime-valid" in r.stdout
    r = _run("--db", started, "memory", "ab", "promote", "writer", "--dry-run")
    assert r.exit_code == 0 and "gate: PROMOTE" in r.stdout
    r = _run(
        "--db", started, "memory", "ab", "queue", "writer", "--instruction", "Cite the source.", "--version", "gen-7+b4"
    )
    assert r.exit_code == 0, r.output
    r = _run("--db", started, "memory", "ab", "tick")
    assert r.exit_code == 0 and "writer: round 1: promoted" in r.stdout
    r = _run("--db", started, "memory", "ab", "tick")  # round 2 has no data yet: the gate says no, still exit 0
    assert r.exit_code == 0 and "writer: round 2: no" in r.stdout
    r = _run("--db", started, "memory", "ab", "promote", "writer")
    assert r.exit_code == 1 and "gate: NO" in r.stdout
    r = _run("--db", started, "memory", "ab", "assign", "writer", "p1")
    assert json.loads(r.stdout)["version"] in {"gen-7+b3", "gen-7+b4"}


def test_stop_makes_everything_control(started):
    r = _run("--db", started, "memory", "ab", "stop", "writer")
    assert r.exit_code == 0 and "stopped" in r.stdout
    r = _run("--db", started, "memory", "ab", "assign", "writer", "p1", "p2")
    assert all(json.loads(x)["arm"] == "A" for x in r.stdout.splitlines())


@pytest.mark.parametrize(
    "args,message",
    [
        (["assign", "nope", "p1"], "unknown experiment 'nope'"),
        (["status", "nope"], "unknown experiment 'nope'"),
        (["promote", "nope"], "unknown experiment 'nope'"),
        (["stop", "nope"], "unknown experiment 'nope'"),
        (["queue", "writer", "--instruction", "x", "--version", "gen-7"], "already the control"),
    ],
)
def test_usage_errors_exit_2_with_one_line(started, args, message):
    r = _run("--db", started, "memory", "ab", *args)
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_start_errors_exit_2(started, tmp_path):
    rules = tmp_path / "rules.md"
    rules.write_text("x", encoding="utf-8")
    base = ["--db", started, "memory", "ab", "start"]
    opts = ["--control-version", "a", "--control-rules", rules, "--candidate-version", "b", "--instruction", "i"]
    r = _run(*base, "writer", *opts)
    assert r.exit_code == 2 and "exists already" in r.stderr
    r = _run(*base, "other", *opts, "--allocation", "1.5")
    assert r.exit_code == 2 and "allocation" in r.stderr
    r = _run(
        *base,
        "other",
        "--control-version",
        "a",
        "--control-rules",
        tmp_path / "missing.md",
        "--candidate-version",
        "b",
        "--instruction",
        "i",
    )
    assert r.exit_code == 2 and "no such file" in r.stderr
