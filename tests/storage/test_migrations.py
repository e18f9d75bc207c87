"""Schema migrations (issue 14): Alembic revisions shipped in the package, run by ``init_db``.

The pre-Alembic database comes from a frozen dump of the code before this change
(``tests/support/storage_legacy_schema.*.sql``, loaded by ``storage_legacy_schema.py``), never from
today's table definitions. Every test that
takes ``db_url`` runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import tomllib
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, event, inspect, select, text
from typer.testing import CliRunner

import storage_legacy_schema as legacy
from assay import __version__
from assay.cli import app
from assay.storage import (
    HEAD_REVISION,
    SCHEMA_VERSION,
    SchemaVersionError,
    init_db,
    make_engine,
    migrations,
    schema_info,
    store_metadata,
)
from init_db_race import race_init_db

ROOT = Path(__file__).resolve().parents[2]

#: ``schema_info`` of a pre-Alembic database after its upgrade: the old row, plus one for the new
#: version when the code's schema is past 1.
_LEGACY_VERSIONS = [(1, "0.1.0")] + ([(SCHEMA_VERSION, __version__)] if SCHEMA_VERSION > 1 else [])


@pytest.fixture
def engine(db_url):
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


def _revisions(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())


def _versions(engine: Engine) -> list[tuple[int, str | None]]:
    with engine.connect() as conn:
        rows = conn.execute(select(schema_info.c.version, schema_info.c.assay_version).order_by(schema_info.c.id))
        return [tuple(r) for r in rows]


# --- the revisions themselves ------------------------------------------------------------------


def test_schema_version_names_the_one_head_and_revision_files_are_named_by_id():
    assert migrations.head_revision() == HEAD_REVISION == f"{SCHEMA_VERSION:04d}"
    versions = Path(migrations.SCRIPT_LOCATION) / "versions"
    files = sorted(p.name for p in versions.glob("*.py"))
    assert {f.split("_", 1)[0] for f in files} == set(migrations.known_revisions())
    assert all(re.fullmatch(r"\d{4}_[a-z0-9_]+\.py", f) for f in files), files


def test_the_migrations_ship_in_the_package():
    """Alembic needs env.py, the template and versions/*.py next to each other in the installed
    package: every such file is matched by pyproject's package-data (or is a module)."""
    pkg = resources.files("assay.storage.migrations")
    for name in ("env.py", "script.py.mako", "README.md", "versions/0001_initial_schema.py"):
        assert pkg.joinpath(name).is_file(), name
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["assay"]
    folder = Path(migrations.SCRIPT_LOCATION)
    for path in folder.rglob("*"):
        rel = path.relative_to(folder.parents[1]).as_posix()  # relative to src/assay
        if path.is_dir() or "__pycache__" in rel or (path.suffix == ".py" and path.parent == folder):
            continue  # modules of the package ship anyway
        assert any(fnmatch(rel, g) for g in globs), f"{rel} is not in [tool.setuptools.package-data]"


def test_head_creates_exactly_what_the_table_definitions_say(engine):
    """A drift check: a new column or table without its revision fails here (autogenerate's diff)."""
    assert init_db(engine) == SCHEMA_VERSION
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), store_metadata())
    assert diff == []


def test_revision_0001_is_the_schema_the_code_before_alembic_made(db_url, tmp_path, postgresql_cluster_or_none):
    """0001 creates exactly the tables, columns, keys and indexes the pre-Alembic code created."""
    fresh = make_engine(db_url)
    with fresh.begin() as conn:  # 0001 alone: later revisions add tables of their own
        migrations.upgrade(conn, "0001")
    old_url = _another_database(db_url, tmp_path, postgresql_cluster_or_none)
    legacy.create_legacy_database(old_url)
    old = make_engine(old_url)
    try:
        assert _schema(fresh) == _schema(old)
        if fresh.dialect.name == "sqlite":  # there the very statements are kept: compare them too
            assert _sqlite_ddl(fresh) == _sqlite_ddl(old) == list(legacy.SQLITE_DDL)
    finally:
        fresh.dispose()
        old.dispose()


# --- a database made before Alembic --------------------------------------------------------------


def test_a_pre_alembic_database_is_upgraded_in_place_and_every_row_is_found(db_url, engine):
    legacy.create_legacy_database(db_url)
    legacy.fill(db_url)
    assert init_db(engine) == SCHEMA_VERSION
    assert _revisions(engine) == [HEAD_REVISION]
    assert _versions(engine) == _LEGACY_VERSIONS  # the old row, and one more only if the version rose
    assert _rows(engine) == _expected_rows()
    _stores_read_and_write(engine)


def test_init_db_twice_changes_nothing_and_the_second_call_only_reads(db_url, engine):
    legacy.create_legacy_database(db_url)
    legacy.fill(db_url)
    init_db(engine)
    before = (_schema(engine), _rows(engine), _revisions(engine), _versions(engine))
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    assert init_db(engine) == SCHEMA_VERSION
    assert (_schema(engine), _rows(engine), _revisions(engine), _versions(engine)) == before
    writes = [s for s in statements if not re.match(r"\s*(SELECT|PRAGMA)\b", s, re.I)]
    assert writes == [], writes


def test_a_database_at_the_head_opens_without_importing_alembic(tmp_path):
    """The cheap path (every store opening): no Alembic import, so opening stays fast."""
    url = f"sqlite:///{tmp_path / 'ready.db'}"
    init_db(make_engine(url))
    code = (
        "import sys\nfrom assay.storage import init_db, make_engine\n"
        f"print(init_db(make_engine({url!r})), 'alembic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(SCHEMA_VERSION), "False"]


def test_a_too_new_database_is_refused_with_one_clear_line(db_url, engine):
    init_db(engine)
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE alembic_version SET version_num = '{SCHEMA_VERSION + 1:04d}'"))
    message = f"database schema version {SCHEMA_VERSION + 1} is newer than this assay ({SCHEMA_VERSION}); upgrade assay"
    with pytest.raises(SchemaVersionError, match=re.escape(message)):
        init_db(engine)
    r = CliRunner().invoke(app, ["--db", db_url, "init-db"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr


def test_a_pre_alembic_database_of_a_newer_version_is_refused(db_url, engine):
    legacy.create_legacy_database(db_url)
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE schema_info SET version = {SCHEMA_VERSION + 1}"))
    with pytest.raises(SchemaVersionError, match=f"schema version {SCHEMA_VERSION + 1} is newer than this assay"):
        init_db(engine)
    assert "alembic_version" not in inspect(engine).get_table_names()  # refused before anything was written


def test_a_foreign_table_is_refused_and_the_failed_upgrade_leaves_nothing(db_url, engine):
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE memo_cache (x INTEGER)"))
    with pytest.raises(SchemaVersionError, match="memo_cache exists but lacks column.*size_bytes"):
        init_db(engine)
    assert inspect(engine).get_table_names() == ["memo_cache"]  # the tables created before it: rolled back


def test_a_missing_table_of_a_pre_alembic_database_is_created(db_url, engine):
    """The old code created tables as they were added: a database from before memory_responses
    existed lacks it. Adoption creates it (and its rows elsewhere stay)."""
    legacy.create_legacy_database(db_url)
    legacy.fill(db_url)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE memory_responses"))
    init_db(engine)
    assert "memory_responses" in inspect(engine).get_table_names()
    expected = {**_expected_rows(), "memory_responses": []}
    assert _rows(engine) == expected


def test_processes_racing_to_upgrade_a_pre_alembic_database_all_succeed(db_url):
    legacy.create_legacy_database(db_url)
    legacy.fill(db_url)
    results = race_init_db(db_url, 3)
    assert results == [("ok", SCHEMA_VERSION)] * 3
    engine = make_engine(db_url)
    try:
        assert _revisions(engine) == [HEAD_REVISION] and _versions(engine) == _LEGACY_VERSIONS
        assert _rows(engine) == _expected_rows()
    finally:
        engine.dispose()


def test_threads_creating_two_new_databases_at_once_all_succeed(tmp_path):
    """Threads of one process: those on one database wait for its schema lock; those on another
    wait for the process's one Alembic run at a time (Alembic's ``op`` is a module-level proxy)."""
    urls = [f"sqlite:///{tmp_path / name}" for name in ("a.db", "b.db")] * 3
    barrier = threading.Barrier(len(urls))

    def open_and_init(url: str) -> int:
        engine = make_engine(url)
        barrier.wait(timeout=60)
        try:
            return init_db(engine)
        finally:
            engine.dispose()

    with ThreadPoolExecutor(len(urls)) as pool:
        assert list(pool.map(open_and_init, urls)) == [SCHEMA_VERSION] * len(urls)
    for url in set(urls):
        engine = make_engine(url)
        assert _revisions(engine) == [HEAD_REVISION] and [v for v, _ in _versions(engine)] == [SCHEMA_VERSION]
        engine.dispose()


# --- the developer entry point -------------------------------------------------------------------


def test_the_alembic_command_line_runs_with_assays_configuration(tmp_path):
    url = f"sqlite:///{tmp_path / 'dev.db'}"
    init_db(make_engine(url))
    cmd = [sys.executable, "-m", "assay.storage", "--db", url, "current"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"{HEAD_REVISION} (head)" in out.stdout


# --- helpers ---------------------------------------------------------------------------------------


@pytest.fixture
def postgresql_cluster_or_none(request, db_url):
    """The PostgreSQL cluster of a ``db_url`` on PostgreSQL (for a second database), else ``None``."""
    return request.getfixturevalue("postgres_cluster") if db_url.startswith("postgresql") else None


def _another_database(db_url: str, tmp_path: Path, cluster: Any) -> str:
    if cluster is None:
        return f"sqlite:///{tmp_path / 'legacy.db'}"
    name = db_url.rsplit("/", 1)[1] + "_legacy"
    return cluster.create_database(name)


def _schema(engine: Engine) -> dict[str, Any]:
    """Tables → columns (type, nullability, default), primary key, unique constraints, indexes, foreign keys."""
    insp, dialect = inspect(engine), engine.dialect
    out: dict[str, Any] = {}
    for name in sorted(set(insp.get_table_names()) - {"alembic_version"}):
        out[name] = {
            "columns": [
                (c["name"], c["type"].compile(dialect=dialect), c["nullable"], str(c.get("default")))
                for c in insp.get_columns(name)
            ],
            "pk": insp.get_pk_constraint(name)["constrained_columns"],
            "unique": sorted((u["name"] or "", tuple(u["column_names"])) for u in insp.get_unique_constraints(name)),
            "indexes": sorted((i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in insp.get_indexes(name)),
            "fks": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
                for f in insp.get_foreign_keys(name)
            ),
        }
    return out


def _sqlite_ddl(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name != 'alembic_version' ORDER BY rowid")
        )
        return [r[0] for r in rows]


def _rows(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    """Every row of every fixture table, read through today's table definitions, in ``seq`` or
    key order (``seq`` itself left out), values made comparable across backends."""
    tables = store_metadata().tables
    out: dict[str, list[dict[str, Any]]] = {}
    with engine.connect() as conn:
        for name in legacy.ROWS:
            t = tables[name]
            rows = conn.execute(select(t).order_by(*t.primary_key.columns)).mappings().all()
            out[name] = _in_key_order(name, [{k: _comparable(v) for k, v in r.items() if k != "seq"} for r in rows])
    return out


def _expected_rows() -> dict[str, list[dict[str, Any]]]:
    """:data:`legacy.ROWS` as :func:`_rows` reads them back."""
    return {
        name: _in_key_order(name, [{k: _comparable(v) for k, v in r.items()} for r in rows])
        for name, rows in legacy.ROWS.items()
    }


def _in_key_order(name: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of a ``seq`` table as they are (insertion order); others sorted by their key in Python
    (the server's collation may differ)."""
    key = [c.name for c in store_metadata().tables[name].primary_key.columns]
    return rows if key == ["seq"] else sorted(rows, key=lambda r: [r[k] for k in key])


def _comparable(v: Any) -> Any:
    if isinstance(v, datetime):  # SQLite keeps no offset (stored as UTC); PostgreSQL answers in its zone
        return (v.astimezone(UTC) if v.tzinfo else v.replace(tzinfo=UTC)).replace(tzinfo=None)
    if isinstance(v, np.ndarray) or (isinstance(v, list) and v and isinstance(v[0], float)):
        return np.asarray(v, dtype=np.float32).tolist()
    if isinstance(v, memoryview):
        return bytes(v)
    return v


def _stores_read_and_write(engine: Engine) -> None:
    """The stores open the upgraded database, find the old rows, and write new ones."""
    from assay.cache import MemoCache
    from assay.memory import MemoryStore
    from assay.verdicts.store import VerdictStore

    verdicts = VerdictStore(engine)
    assert verdicts.count() == 2 and verdicts.get("v-1").decision == "approved"
    memory = MemoryStore(engine)
    assert memory.count() == 2 and memory.get("m-2").superseded_by == "m-1"
    assert MemoCache(engine=engine).stats()["entries"] == 1
    with engine.begin() as conn:  # the autoincrement of the old table continues after the old rows
        conn.execute(
            store_metadata().tables["verdicts"].insert(),
            {"store": "default", "id": "v-3", "fields": {}, "decision": "d", "rationale": "r", "description": "x"},
        )
        assert conn.execute(text("SELECT seq FROM verdicts WHERE id = 'v-3'")).scalar_one() == 3
