"""Storage on both backends (issue 10): schema creation and versions, portable upserts, vectors,
pgvector detection, concurrent schema creation, and what a user sees when the server is
unreachable or goes away mid-run. PostgreSQL runs in throwaway clusters owned by the test run
(tests/conftest.py); the restart tests get a cluster of their own."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, func, inspect, select, text
from sqlalchemy.exc import StatementError

from assay.storage import (
    HEAD_REVISION,
    SCHEMA_VERSION,
    DatabaseUnavailableError,
    FloatVector,
    SchemaVersionError,
    describe_db_error,
    init_db,
    insert_ignore,
    make_engine,
    schema_info,
    upsert,
    vector_support,
)
from init_db_race import race_init_db
from store_workloads import WORKLOADS

TESTS = Path(__file__).resolve().parents[1]

# A table of this module only (its own MetaData: never part of assay's schema).
_md = MetaData()
_kv = Table(
    "storage_test_kv",
    _md,
    Column("k", String(32), primary_key=True),
    Column("n", Integer, nullable=False),
    Column("note", String(32)),
)
_vec = Table("storage_test_vec", _md, Column("id", Integer, primary_key=True), Column("v", FloatVector))


def _assay(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assay.cli", *args], capture_output=True, text=True, timeout=120)


# --- the same behaviour on both backends ------------------------------------------------------


def test_init_db_is_idempotent_and_versions_the_schema(db_url):
    engine = make_engine(db_url)
    assert init_db(engine) == SCHEMA_VERSION == init_db(engine)
    tables = set(inspect(engine).get_table_names())
    assert {
        "schema_info",
        "memo_cache",
        "memo_cache_counts",
        "llm_cache",
        "verdicts",
        "verdict_stores",
        "alembic_version",
    } <= tables
    with engine.begin() as conn:
        assert list(conn.execute(select(schema_info.c.version)).scalars()) == [SCHEMA_VERSION]
        assert list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars()) == [HEAD_REVISION]
        conn.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": f"{SCHEMA_VERSION + 1:04d}"})
    with pytest.raises(SchemaVersionError, match=f"schema version {SCHEMA_VERSION + 1} is newer than this assay"):
        init_db(engine)
    engine.dispose()


def test_upsert_and_insert_ignore_are_one_statement_on_both(db_url):
    engine = make_engine(db_url)
    _md.create_all(engine)
    with engine.begin() as conn:
        assert insert_ignore(conn, _kv, {"k": "a", "n": 1, "note": "first"}, ["k"]) is True
        assert (
            insert_ignore(conn, _kv, {"k": "a", "n": 9, "note": "second"}, ["k"]) is False
        )  # first writer's row stays
        upsert(conn, _kv, {"k": "b", "n": 1}, ["k"], update={"n": _kv.c.n + 1})
        upsert(conn, _kv, {"k": "b", "n": 1}, ["k"], update={"n": _kv.c.n + 1})
        upsert(conn, _kv, {"k": "a", "n": 5, "note": "replaced"}, ["k"])  # default: every non-key column
    with engine.connect() as conn:
        assert sorted(conn.execute(select(_kv.c.k, _kv.c.n, _kv.c.note)).all()) == [
            ("a", 5, "replaced"),
            ("b", 2, None),
        ]
    engine.dispose()


def test_float_vectors_round_trip_exactly(db_url):
    engine = make_engine(db_url)
    _md.create_all(engine)
    v = np.array([0.1, -2.5, 3e-8, 1e30], dtype=np.float32)
    with engine.begin() as conn:
        conn.execute(_vec.insert(), [{"id": 1, "v": v}, {"id": 2, "v": [1, 2, 3]}, {"id": 3, "v": None}])
        with pytest.raises(StatementError, match="1-d and finite"):  # SQLAlchemy wraps the type's ValueError
            conn.execute(_vec.insert().values(id=4, v=[1.0, float("nan")]))
    with engine.connect() as conn:
        got = dict(conn.execute(select(_vec.c.id, _vec.c.v)).all())
    assert got[1].dtype == np.float32 and np.array_equal(got[1], v)
    assert got[2].tolist() == [1.0, 2.0, 3.0] and got[3] is None
    engine.dispose()


def test_four_processes_creating_the_schema_at_once_all_succeed(db_url):
    results = race_init_db(db_url, 4, timeout_s=120)
    assert results == [("ok", SCHEMA_VERSION)] * 4
    engine = make_engine(db_url)
    with engine.connect() as conn:  # one upgrade happened: one version row, one revision
        assert list(conn.execute(select(schema_info.c.version)).scalars()) == [SCHEMA_VERSION]
        assert list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars()) == [HEAD_REVISION]
    engine.dispose()


# --- messages --------------------------------------------------------------------------------


def test_describe_db_error_is_one_line_without_the_password():
    class Driver(Exception):
        pass

    e = Driver('could not log in with "hunter2"\n  second line')
    assert (
        describe_db_error(e, "postgresql+psycopg://alice:hunter2@db:5432/assay")
        == 'database postgresql+psycopg://alice:***@db:5432/assay: could not log in with "***"'
    )
    assert describe_db_error(Driver(""), "sqlite:////x.db") == "database sqlite:////x.db: Driver"


def test_unreachable_server_is_one_line_from_the_library_and_the_cli(postgres_cluster):
    url = postgres_cluster.url().replace(f":{postgres_cluster.port}/", ":1/")  # a closed port
    engine = make_engine(url)
    with pytest.raises(DatabaseUnavailableError) as err:
        init_db(engine)
    msg = str(err.value)
    assert msg.startswith("cannot connect: database postgresql+psycopg://postgres:***@127.0.0.1:1/postgres: ")
    assert postgres_cluster.password not in msg and "\n" not in msg
    for args in (["init-db"], ["cache", "stats"], ["verdicts", "stats"]):
        r = _assay("--db", url, *args)
        assert r.returncode == 2, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
        assert "127.0.0.1:1" in r.stderr and postgres_cluster.password not in r.stderr + r.stdout


# --- vectors: which path runs where ------------------------------------------------------------


def test_vector_path_is_numpy_on_sqlite_and_on_debian_postgresql(tmp_path, postgresql_url):
    assert vector_support(make_engine(f"sqlite:///{tmp_path / 'v.db'}")).path == "numpy"
    vs = vector_support(make_engine(postgresql_url))
    assert (vs.path, vs.version) == ("numpy", None) and "without the pgvector extension" in vs.detail


def test_vector_path_is_pgvector_where_the_extension_exists(pgvector_url):
    engine = make_engine(pgvector_url)
    vs = vector_support(engine, create=False)
    assert vs.path == "numpy" and "not created" in vs.detail
    vs = vector_support(engine)
    assert vs.path == "pgvector" and vs.version and vs.detail.startswith(f"pgvector {vs.version}")
    with engine.connect() as conn:  # the extension really works: cosine similarity = 1 - distance
        sim = conn.execute(text("SELECT 1 - ('[1,0,0]'::vector <=> '[1,1,0]'::vector)")).scalar_one()
    assert sim == pytest.approx(2**-0.5)
    assert vector_support(engine).path == "pgvector"  # installed now: no CREATE needed
    engine.dispose()


def test_pgvector_refused_falls_back_to_numpy_and_says_why(pgvector_cluster, pgvector_url):
    role = "app_" + pgvector_url.rsplit("/", 1)[1]
    pgvector_cluster._admin(f"CREATE ROLE {role} LOGIN PASSWORD 'app-pw-123'")
    url = pgvector_url.replace(f"postgres:{pgvector_cluster.password}@", f"{role}:app-pw-123@")
    vs = vector_support(make_engine(url))
    assert vs.path == "numpy" and "refused" in vs.detail and "permission denied" in vs.detail
    assert "app-pw-123" not in vs.detail


# --- a server that goes away -----------------------------------------------------------------


@pytest.fixture(scope="module")
def own_cluster(postgres_cluster):
    """A cluster these tests may stop and start without disturbing the session's."""
    from pg_cluster import start_cluster

    cluster = start_cluster(postgres_cluster.bin_dir)
    yield cluster
    cluster.destroy()


def test_a_restart_between_writes_is_survived(own_cluster):
    from assay.cache import MemoCache, memo_cache
    from store_workloads import _memo

    cache, memo = MemoCache(own_cluster.create_database("between")), _memo()
    cache.store("a", memo, ttl_s=60, gate_mode="auto")
    own_cluster.stop()
    own_cluster.start()
    cache.store("b", memo, ttl_s=60, gate_mode="auto")  # the pool's pre-ping reconnects
    with cache.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(memo_cache)).scalar_one() == 2
    cache.engine.dispose()


@pytest.mark.parametrize("workload", sorted(WORKLOADS))
def test_a_lost_connection_fails_clearly_keeps_what_was_written_and_a_rerun_continues(own_cluster, workload, tmp_path):
    url, n, k = own_cluster.create_database(f"lost_{workload}"), 300, 120
    flag = tmp_path / "go"
    cmd = [sys.executable, str(TESTS / "support" / "store_workloads.py"), workload, "--db", url, "--n", str(n)]
    writer = subprocess.Popen(
        [*cmd, "--pause-before-commit", str(k), "--pause-file", str(flag)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while not Path(f"{flag}.reached").exists():
            assert writer.poll() is None and time.monotonic() < deadline, writer.communicate()
            time.sleep(0.05)
        before = WORKLOADS[workload].present(url, 0, n)  # committed so far; the writer holds an open transaction
        own_cluster.stop()  # "fast": ends the writer's session mid-transaction, like a server restart
        flag.touch()
        _, stderr = writer.communicate(timeout=60)
    finally:
        if writer.poll() is None:
            writer.kill()
        if not own_cluster.running():
            own_cluster.start()
    assert writer.returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: lost the connection: database postgresql+psycopg://postgres:***@"
    ), stderr
    assert "rerun" in lines[0] and own_cluster.password not in stderr
    assert 0 < len(before) < n
    assert WORKLOADS[workload].present(url, 0, n) == before  # written before: intact; the open transaction: gone
    rerun = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert f"wrote {n - len(before)} rows ({len(before)} already present)" in rerun.stdout
    assert WORKLOADS[workload].check(url, 1, n) == []
