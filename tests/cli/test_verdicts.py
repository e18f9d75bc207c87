"""``assay verdicts add|search|stats``: output shapes, the global --db, bad input → exit 2, nothing inserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from assay.cli import app
from verdict_fixtures import DECOYS, FIXTURE, QUERY, TRUE_MATCH

runner = CliRunner()


@pytest.fixture()
def files(tmp_path):
    vfile = tmp_path / "verdicts.jsonl"
    vfile.write_text("".join(json.dumps(v) + "\n" for v in FIXTURE))
    qfile = tmp_path / "query.json"
    qfile.write_text(json.dumps({"fields": QUERY["fields"]}))
    return vfile, qfile, f"sqlite:///{tmp_path / 'cli.db'}"


def _run(*args):
    return runner.invoke(app, list(map(str, args)))


def test_add_search_json_and_stats(files):
    vfile, qfile, db = files
    r = _run("--db", db, "verdicts", "add", vfile)
    assert r.exit_code == 0, r.output
    assert f"added {len(FIXTURE)} verdict(s) to store 'default' ({len(FIXTURE)} in all)" in r.stdout
    r = _run("--db", db, "verdicts", "search", "--query", qfile, "-k", "20", "--json")
    assert r.exit_code == 0, r.output
    arr = json.loads(r.stdout)
    assert [set(x) for x in arr] == [{"id", "score", "components", "decision"}] * len(FIXTURE)
    assert arr[0]["id"] == TRUE_MATCH and arr[0]["score"] == pytest.approx(1.0)
    assert arr[0]["components"] == {"cost_codes": 1.0, "measure_type": 1.0, "claimed_saving": 1.0}
    assert {x["id"] for x in arr[-2:]} == set(DECOYS)
    assert [x["score"] for x in arr] == sorted((x["score"] for x in arr), reverse=True)
    r = _run("--db", db, "verdicts", "search", "--query", qfile, "-k", "3")
    assert r.exit_code == 0 and TRUE_MATCH in r.stdout and "cost_codes" in r.stdout
    r = _run("--db", db, "verdicts", "stats", "--json")
    assert r.exit_code == 0
    st = json.loads(r.stdout)
    assert st["n"] == len(FIXTURE) and st["decisions"] == {"approve": 11, "reject": 3}
    r = _run("--db", db, "verdicts", "stats")
    assert r.exit_code == 0 and f"{len(FIXTURE)} verdict(s)" in r.stdout and "renegotiation" in r.stdout


def test_bad_line_exits_2_naming_file_and_line_and_inserts_nothing(files, tmp_path):
    vfile, qfile, db = files
    lines = vfile.read_text().splitlines()
    lines[4] = lines[4].replace('"claimed_saving": 120000', '"claimed_saving": -120000')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    r = _run("--db", db, "verdicts", "add", bad)
    assert r.exit_code == 2
    assert (
        r.stderr.strip() == f"error: {bad}:5: fields.claimed_saving: must not be negative, got -120000 "
        "(the spec sets allow_negative: false)"
    )
    r = _run("--db", db, "verdicts", "stats", "--json")
    assert json.loads(r.stdout)["n"] == 0


def test_re_adding_the_same_file_changes_nothing_and_a_changed_one_names_the_conflict(files, tmp_path):
    vfile, _, db = files
    assert _run("--db", db, "verdicts", "add", vfile).exit_code == 0
    r = _run("--db", db, "verdicts", "add", vfile)
    assert r.exit_code == 0, r.output
    n = len(FIXTURE)
    assert f"added 0 verdict(s) to store 'default', {n} already there unchanged ({n} in all)" in r.stdout
    changed = tmp_path / "changed.jsonl"
    changed.write_text(
        json.dumps(dict(FIXTURE[0], decision="reject")) + "\n" + json.dumps(dict(FIXTURE[0], id="new-one")) + "\n"
    )
    r = _run("--db", db, "verdicts", "add", changed)
    assert r.exit_code == 2
    assert (
        f"{changed}:1: id: 'v-01-led' is already in store 'default' with another decision "
        "(stored 'approve', given 'reject')" in r.stderr
    )
    assert json.loads(_run("--db", db, "verdicts", "stats", "--json").stdout)["n"] == n  # nothing inserted


def test_a_store_that_does_not_exist_exits_2_naming_the_stores(files):
    vfile, qfile, db = files
    assert _run("--db", db, "verdicts", "add", vfile, "--store", "plans").exit_code == 0
    for cmd in (["search", "--query", qfile], ["search", "--query", qfile, "--json"], ["stats"]):
        for store in ("typo", "default"):
            r = _run("--db", db, "verdicts", *cmd, "--store", store)
            assert r.exit_code == 2, (cmd, store, r.output)
            assert r.stderr.strip() == (
                f"error: --store {store!r}: no such verdict store; stores here: 'plans' ({len(FIXTURE)} verdicts)"
            )
    r = _run("--db", db, "verdicts", "search", "--query", qfile, "--store", "plans")
    assert r.exit_code == 0 and TRUE_MATCH in r.stdout


@pytest.mark.parametrize(
    "query, message",
    [
        ({"fields": {"cost_code": ["A"]}}, "fields.cost_code: unknown field"),
        (
            {"fields": {"cost_codes": "FAC-ENERGY"}},
            "fields.cost_codes: expected a list of strings, got a string ('FAC-ENERGY')",
        ),
        ({"fields": {"claimed_saving": -1}}, "fields.claimed_saving: must not be negative"),
    ],
)
def test_bad_query_exits_2_naming_the_field(files, tmp_path, query, message):
    vfile, _, db = files
    q = tmp_path / "bad_query.json"
    q.write_text(json.dumps(query))
    r = _run("--db", db, "verdicts", "search", "--query", q)
    assert r.exit_code == 2
    assert r.stderr.strip().startswith(f"error: {q}: {message}")
    assert len(r.stderr.strip().splitlines()) == 1


def test_empty_store_search_and_spec_file(files, tmp_path):
    _, qfile, db = files
    r = _run("--db", db, "verdicts", "search", "--query", qfile, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout) == []
    r = _run("--db", db, "verdicts", "search", "--query", qfile)
    assert r.exit_code == 0 and "is empty" in r.stderr
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps(
            {
                "fields": {
                    "cost_codes": {"kind": "set", "weight": 0.7},
                    "measure_type": {"kind": "category", "weight": 0.4},
                }
            }
        )
    )
    r = _run("--db", db, "verdicts", "add", "--spec", spec, files[0])
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {spec}: <spec>: weights must sum to 1, got 1.1")


def test_store_created_with_a_spec_keeps_it(files, tmp_path):
    vfile, qfile, db = files
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps(
            {
                "fields": {
                    "cost_codes": {"kind": "set", "weight": 0.5},
                    "measure_type": {"kind": "category", "weight": 0.3},
                    "claimed_saving": {"kind": "bucket", "weight": 0.2, "edges": [10000, 100000]},
                }
            }
        )
    )
    assert _run("--db", db, "verdicts", "add", "--store", "edges", "--spec", spec, vfile).exit_code == 0
    arr = json.loads(
        _run("--db", db, "verdicts", "search", "--store", "edges", "--query", qfile, "-k", "14", "--json").stdout
    )
    by_id = {x["id"]: x for x in arr}
    assert by_id["v-05-fleet"]["components"]["claimed_saving"] == 0.0  # 120,000 ≥ the 100,000 edge
    assert by_id["v-12-water"]["components"]["claimed_saving"] == 1.0  # 30,000 and 45,000 share [1e4, 1e5)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"fields": {"cost_codes": {"kind": "set", "weight": 1.0}}}))
    r = _run("--db", db, "verdicts", "add", "--store", "edges", "--spec", other, vfile)
    assert r.exit_code == 2 and "store 'edges' was created with another spec" in r.stderr


def test_db_option_precedence_over_env(files, tmp_path, monkeypatch):
    vfile, _, db = files
    env_db = tmp_path / "env.db"
    monkeypatch.setenv("ASSAY_DB_URL", f"sqlite:///{env_db}")
    assert _run("--db", db, "verdicts", "add", vfile).exit_code == 0
    assert json.loads(_run("verdicts", "stats", "--json").stdout)["n"] == 0  # the env database
    assert json.loads(_run("--db", db, "verdicts", "stats", "--json").stdout)["n"] == len(FIXTURE)


def test_unusable_database_is_one_line(files, tmp_path):
    vfile, _, _ = files
    r = _run("--db", "nosuchdialect://x", "verdicts", "add", vfile)
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "nosuchdialect" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_console_script_registers_the_group(files):
    vfile, qfile, db = files
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_DB_URL",)}
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "--db", db, "verdicts"]
    r = subprocess.run([*cmd, "add", str(vfile)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [*cmd, "search", "--query", str(qfile), "-k", "1", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["id"] == TRUE_MATCH


@pytest.mark.parametrize("width", ["60", "80"])
def test_the_search_table_folds_to_the_terminal_and_cuts_no_number(files, width):
    vfile, qfile, db = files
    assert _run("--db", db, "verdicts", "add", vfile).exit_code == 0
    r = runner.invoke(app, ["--db", db, "verdicts", "search", "--query", str(qfile), "-k", "3"], env={"COLUMNS": width})
    assert r.exit_code == 0, r.output
    table = [line for line in r.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert max(len(line) for line in table) <= int(width) and "…" not in r.stdout
    assert r.stdout.count("1.000") >= 4 and TRUE_MATCH in r.stdout
