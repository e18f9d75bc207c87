"""``assay cache stats [--json]`` and ``assay cache clear [--key PREFIX] [--expired]``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from assay.cache import MemoCache
from assay.cli import app
from memo_fixtures import UNSOURCED, Clock, Synth, apple

runner = CliRunner()


@pytest.fixture()
def db(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    clock = Clock(1_000.0)
    cache = MemoCache(url, clock=clock)
    for i in range(3):
        cache.get_or_create(f"memo:ID{i}:brief", apple(), Synth(), ttl_s=10.0 if i == 0 else 1e12)
    cache.get_or_create("memo:ID1:brief", apple(), Synth(), ttl_s=1e12)
    cache.get_or_create("other:X:full", apple(), Synth(UNSOURCED), ttl_s=60)
    return url


def run(*args):
    return runner.invoke(app, list(args))


def test_stats_json_and_table(db):
    r = run("--db", db, "cache", "stats", "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert (s["entries"], s["expired_entries"], s["hits"], s["lookups"]) == (3, 1, 1, 5)
    assert s["by_status"]["miss"] == 3 and s["by_status"]["gate_failed"] == 1 and s["bytes"] > 0
    assert "memo:ID" not in r.stdout
    r = run("--db", db, "cache", "stats")
    assert (
        r.exit_code == 0 and "3 entries (1 expired)" in r.stdout and "1 hits" in r.stdout and "gate_failed" in r.stdout
    )


def test_clear_by_prefix_expired_and_all(db):
    r = run("--db", db, "cache", "clear", "--expired", "--yes")
    assert (r.exit_code, r.stdout.strip()) == (0, "removed 1 entry")
    r = run("--db", db, "cache", "clear", "--key", "memo:ID2", "-y")
    assert (r.exit_code, r.stdout.strip()) == (0, "removed 1 entry")
    r = run("--db", db, "cache", "clear", "--yes")
    assert (r.exit_code, r.stdout.strip()) == (0, "removed 1 entry and the request counts")
    assert json.loads(run("--db", db, "cache", "stats", "--json").stdout)["lookups"] == 0


def test_db_option_env_and_bad_url(db, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_DB_URL", db)
    assert json.loads(run("cache", "stats", "--json").stdout)["entries"] == 3
    r = run("--db", "nosuchdialect://x", "cache", "stats")
    assert r.exit_code == 2 and r.stderr.startswith("error: database nosuchdialect://x: ")
    assert len(r.stderr.strip().splitlines()) == 1
    r = run("--db", "postgresql+psycopg://user:hunter2@localhost:1/db", "cache", "stats")
    assert r.exit_code == 2 and "hunter2" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_console_script_registers_the_group(db):
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_DB_URL"}
    r = subprocess.run(
        [sys.executable, "-c", "from assay.cli import main; main()", "--db", db, "cache", "stats", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["entries"] == 3


def test_a_database_error_mid_command_is_one_line_naming_the_database(db):
    """An error after the schema is ready (here a trigger that refuses the DELETE) is reported
    as :func:`assay.storage.describe_db_error` words it: ``database URL: reason``."""
    from sqlalchemy import text

    from assay.storage import make_engine

    engine = make_engine(db)
    with engine.begin() as conn:
        conn.execute(
            text(
                "CREATE TRIGGER no_delete BEFORE DELETE ON memo_cache BEGIN SELECT RAISE(ABORT, 'deletes refused'); END"
            )
        )
    engine.dispose()
    r = run("--db", db, "cache", "clear", "--yes")
    assert r.exit_code == 2 and r.stderr.strip() == f"error: database {db}: deletes refused"


def test_clear_without_yes_off_a_terminal_exits_2_and_deletes_nothing(db):
    for args in ([], ["--expired"], ["--key", "memo:"]):
        r = run("--db", db, "cache", "clear", *args)
        assert r.exit_code == 2, r.output
        assert "pass --yes to confirm (no terminal to ask on)" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert json.loads(run("--db", db, "cache", "stats", "--json").stdout)["entries"] == 3


@pytest.mark.parametrize("answer, left, said", [("y\n", 0, "removed 3 entries"), ("n\n", 3, "nothing deleted")])
def test_clear_asks_on_a_terminal(db, monkeypatch, answer, left, said):
    monkeypatch.setattr("assay.cli.cache._interactive", lambda: True)
    r = runner.invoke(app, ["--db", db, "cache", "clear"], input=answer)
    assert r.exit_code == 0, r.output
    assert "Delete every cache entry and the request counts from sqlite:///" in r.output and said in r.output
    assert json.loads(run("--db", db, "cache", "stats", "--json").stdout)["entries"] == left
