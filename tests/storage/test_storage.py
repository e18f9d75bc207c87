"""Storage: DB location precedence, idempotent schema creation with its version, ``assay init-db``."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, select, text
from typer.testing import CliRunner

from assay.cli import app
from assay.cli.common import redact
from assay.storage import (
    HEAD_REVISION,
    SCHEMA_VERSION,
    SchemaVersionError,
    StorageError,
    init_db,
    make_engine,
    resolve_db_url,
    schema_info,
)


@pytest.fixture(autouse=True)
def _clean_env(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_DB_URL", raising=False)
    monkeypatch.delenv("ASSAY_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))


def _versions(url: str) -> list[int]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return [r.version for r in conn.execute(select(schema_info.c.version).order_by(schema_info.c.id))]
    finally:
        engine.dispose()


# --- resolve_db_url ------------------------------------------------------------------------


def test_precedence_cli_over_env_over_home(tmp_path, monkeypatch):
    home = tmp_path / "ah"
    monkeypatch.setenv("ASSAY_HOME", str(home))
    assert resolve_db_url() == f"sqlite:///{home / 'assay.db'}"
    monkeypatch.setenv("ASSAY_DB_URL", "sqlite:///from-env.db")
    assert resolve_db_url() == "sqlite:///from-env.db"
    assert resolve_db_url(None) == "sqlite:///from-env.db"
    assert resolve_db_url("sqlite:///from-cli.db") == "sqlite:///from-cli.db"


def test_default_home_is_dot_assay_in_the_user_home(tmp_path):
    assert resolve_db_url() == f"sqlite:///{tmp_path / 'userhome' / '.assay' / 'assay.db'}"


def test_empty_env_values_fall_through(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_DB_URL", "")
    monkeypatch.setenv("ASSAY_HOME", "")
    assert resolve_db_url("") == f"sqlite:///{tmp_path / 'userhome' / '.assay' / 'assay.db'}"


def test_assay_home_expands_tilde(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", "~/custom")
    assert resolve_db_url() == f"sqlite:///{tmp_path / 'userhome' / 'custom' / 'assay.db'}"


# --- init_db -------------------------------------------------------------------------------


def test_init_db_is_idempotent_and_records_the_schema_version(tmp_path):
    url = f"sqlite:///{tmp_path / 'deep' / 'dir' / 'a.db'}"  # the SQLite folder is created
    engine = make_engine(url)
    try:
        assert init_db(engine) == SCHEMA_VERSION
        tables = set(inspect(engine).get_table_names())
        assert init_db(engine) == SCHEMA_VERSION
        assert set(inspect(engine).get_table_names()) == tables
    finally:
        engine.dispose()
    assert {"schema_info", "verdicts", "llm_cache", "alembic_version"} <= tables
    assert _versions(url) == [SCHEMA_VERSION]  # one row, not one per call


def test_older_schema_is_upgraded_and_newer_is_refused(tmp_path):
    """Older: a database without ``alembic_version`` (made before Alembic) is adopted as revision
    0001 and its ``schema_info`` gets the version; newer: a revision this code does not ship."""
    from assay.storage import migrations

    url = f"sqlite:///{tmp_path / 'v.db'}"
    engine = make_engine(url)
    try:
        with engine.begin() as conn:  # what the code before Alembic made: revision 0001's tables, version 1
            migrations.upgrade(conn, "0001")
            conn.execute(text("DROP TABLE alembic_version"))
            schema_info.create(conn, checkfirst=True)
            conn.execute(schema_info.delete())
            conn.execute(schema_info.insert().values(version=1, assay_version="0.1.0"))
        assert init_db(engine) == SCHEMA_VERSION
        assert _versions(url) == sorted({1, SCHEMA_VERSION})
        assert _revisions(engine) == [HEAD_REVISION]
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": f"{SCHEMA_VERSION + 1:04d}"})
        with pytest.raises(SchemaVersionError, match="newer than this assay") as err:
            init_db(engine)
    finally:
        engine.dispose()
    assert isinstance(err.value, RuntimeError) and isinstance(err.value, StorageError)


def _revisions(engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())


def test_unusable_databases_raise_storage_error(tmp_path):
    with pytest.raises(StorageError, match="not a URL"):
        make_engine("definitely not a url")
    notdb = tmp_path / "notdb.db"
    notdb.write_text("this is not a database, just text " * 100)
    for url in (f"sqlite:///{notdb}", f"sqlite:///{tmp_path}"):
        engine = make_engine(url)
        try:
            with pytest.raises(StorageError, match=f"database {url}: "):
                init_db(engine)
        finally:
            engine.dispose()


# --- the CLI -------------------------------------------------------------------------------


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def test_cli_init_db_with_global_db_option(tmp_path):
    db = tmp_path / "cli.db"
    for _ in range(2):  # idempotent
        res = run("--db", f"sqlite:///{db}", "init-db")
        assert res.exit_code == 0, res.output
        assert res.stdout.strip() == f"schema version {SCHEMA_VERSION} ready at sqlite:///{db}"
    assert _versions(f"sqlite:///{db}") == [SCHEMA_VERSION]


def test_cli_precedence_db_option_over_env_over_home(tmp_path):
    home, env_db, cli_db = tmp_path / "home", tmp_path / "env.db", tmp_path / "cli.db"
    res = run("init-db", env={"ASSAY_HOME": str(home)})
    assert res.exit_code == 0, res.output
    assert (home / "assay.db").exists()
    res = run("init-db", env={"ASSAY_HOME": str(tmp_path / "unused"), "ASSAY_DB_URL": f"sqlite:///{env_db}"})
    assert res.exit_code == 0 and env_db.exists() and not (tmp_path / "unused").exists()
    res = run("--db", f"sqlite:///{cli_db}", "init-db", env={"ASSAY_DB_URL": f"sqlite:///{tmp_path / 'not-this.db'}"})
    assert res.exit_code == 0 and cli_db.exists() and not (tmp_path / "not-this.db").exists()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "is not a URL"),  # was a traceback with exit 1
        ("sqlite:///{tmp}", "unable to open database file"),  # a directory
        ("sqlite:///{tmp}/notdb.db", "file is not a database"),
        ("sqlite:///{tmp}/blocker/x.db", "blocker"),  # parent is a file
    ],
)
def test_cli_init_db_bad_database_exit_2_with_one_line(tmp_path, url, message):
    (tmp_path / "notdb.db").write_text("plain text, not SQLite " * 100)
    (tmp_path / "blocker").write_text("a file")
    res = run("--db", url.format(tmp=tmp_path), "init-db")
    assert res.exit_code == 2, res.output
    assert message in res.stderr
    assert "Traceback" not in res.output and len(res.stderr.strip().splitlines()) == 1


def test_password_is_hidden_in_printed_urls():
    assert (
        redact("postgresql+psycopg://alice:s3cret@db.example:5432/assay")
        == "postgresql+psycopg://alice:***@db.example:5432/assay"
    )
    assert redact("sqlite:////tmp/a.db") == "sqlite:////tmp/a.db"


def test_storage_errors_hide_the_password(tmp_path):
    (tmp_path / "nd.db").write_text("plain text, not SQLite " * 100)
    with pytest.raises(StorageError) as err:
        make_engine(f"sqlite://bob:s3cret@/{tmp_path / 'nd.db'}")  # was an uncaught ArgumentError
    assert "s3cret" not in str(err.value) and "bob:***" in str(err.value)
    with pytest.raises(StorageError, match="^database nosuchdialect://host/db: "):
        make_engine("nosuchdialect://host/db")


def test_unreachable_postgresql_is_one_line_without_the_password():
    """With the ``postgres`` extra: a refused connection is a one-line StorageError; without it:
    ModuleNotFoundError naming the extra. Port 1 on localhost refuses at once."""
    url = "postgresql+psycopg://alice:hunter2@127.0.0.1:1/assay"
    try:
        import psycopg  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(ModuleNotFoundError, match=r"assay\[postgres\]"):
            make_engine(url)
        return
    engine = make_engine(url)
    try:
        with pytest.raises(StorageError) as err:
            init_db(engine)
    finally:
        engine.dispose()
    msg = str(err.value)
    assert "database postgresql+psycopg://alice:***@127.0.0.1:1/assay: " in msg
    assert "hunter2" not in msg and "\n" not in msg


def test_regression_unsupported_dialect_is_one_clear_line():
    """``--db mysql://…`` printed "No module named 'MySQLdb'"."""
    with pytest.raises(StorageError, match="unsupported database 'mysql': use sqlite:///PATH or postgresql"):
        make_engine("mysql://u:secret@h/db")
    r = CliRunner().invoke(app, ["--db", "mysql://u:secret@h/db", "init-db"])
    assert r.exit_code == 2 and "unsupported database" in r.output and "secret" not in r.output


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+psycopg://u:pw@127.0.0.1:notaport/a", "the port is not a number"),
        ("postgresql+asyncpg://u@h/db", "driver 'asyncpg' is not supported"),
        ("sqlite:///", "in-memory SQLite database is not supported"),
        ("sqlite:///:memory:", "in-memory SQLite database is not supported"),
    ],
)
def test_regression_url_mistakes_are_named(url, message):
    with pytest.raises(StorageError, match=message):
        make_engine(url)


def test_regression_init_db_refuses_a_foreign_table_with_the_same_name(tmp_path):
    """init-db said "ready" over a memo_cache table of other columns; the next query failed."""
    import sqlite3

    db = tmp_path / "foreign.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE memo_cache (x INTEGER)")
    with pytest.raises(SchemaVersionError, match="memo_cache exists but lacks column.*size_bytes"):
        init_db(make_engine(f"sqlite:///{db}"))
    r = CliRunner().invoke(app, ["--db", f"sqlite:///{db}", "init-db"])
    assert r.exit_code == 2 and "lacks column" in r.output and "Traceback" not in r.output


def test_unwritable_sqlite_folder_is_named_in_the_error(tmp_path, monkeypatch):
    from assay.storage import describe_db_error

    class Orig(Exception):
        pass

    err = Orig("unable to open database file")
    monkeypatch.setattr("assay.storage.engine.os.access", lambda path, mode: False)  # a read-only mount, even for root
    msg = describe_db_error(err, f"sqlite:///{tmp_path}/x.db")
    assert f"SQLite must be able to write in {tmp_path}" in msg
    monkeypatch.undo()
    assert "must be able to write" not in describe_db_error(err, f"sqlite:///{tmp_path}/x.db")


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://postgres@127.0.0.1:1/db?password=S3CRETpw",
        "postgresql+psycopg:///db?host=/tmp&password=S3CRETpw",
        "postgresql+psycopg://u:S3CRETpw@127.0.0.1:1/db?sslpassword=S3CRETpw",
    ],
)
def test_regression_query_string_passwords_are_hidden(url):
    """A password given as ?password=… was printed in plain text (init-db, cache stats, errors)."""
    from assay.storage import describe_db_error, safe_url

    assert "S3CRETpw" not in safe_url(url) and "***" in safe_url(url)
    assert "S3CRETpw" not in describe_db_error(Exception("FATAL: password S3CRETpw rejected"), url)
    r = CliRunner().invoke(app, ["--db", url, "cache", "stats"])
    assert r.exit_code != 0 and "S3CRETpw" not in r.output


# --- issue 16: a named database's folder is never created; ASSAY_HOME named when it fails ----------


def test_a_db_option_in_a_missing_folder_exits_2_and_creates_nothing(tmp_path):
    missing = tmp_path / "nonexistent" / "dir"
    for args in (["init-db"], ["cache", "stats"], ["verdicts", "stats"], ["gate", str(tmp_path / "x.jsonl")]):
        res = run("--db", f"sqlite:///{missing / 'x.db'}", *args)
        assert res.exit_code == 2, (args, res.output)
        assert f"--db sqlite:///{missing / 'x.db'}: the folder {missing} does not exist" in res.output
        assert not (tmp_path / "nonexistent").exists()
    res = run("cache", "stats", env={"ASSAY_DB_URL": f"sqlite:///{missing / 'x.db'}"})
    assert res.exit_code == 2 and "ASSAY_DB_URL sqlite:///" in res.output and "does not exist" in res.output
    assert not (tmp_path / "nonexistent").exists()
    (tmp_path / "afile").write_text("x")
    res = run("--db", f"sqlite:///{tmp_path / 'afile' / 'x.db'}", "init-db")
    assert res.exit_code == 2 and "is not a folder" in res.output


def test_the_default_home_folder_is_still_created(tmp_path):
    home = tmp_path / "a" / "b" / "home"
    res = run("init-db", env={"ASSAY_HOME": str(home)})
    assert res.exit_code == 0, res.output
    assert (home / "assay.db").exists()


def test_an_unusable_assay_home_is_named(tmp_path):
    (tmp_path / "file").write_text("x")
    for home in ("/proc/nonexist", str(tmp_path / "file" / "home")):
        res = run("init-db", env={"ASSAY_HOME": home})
        assert res.exit_code == 2, res.output
        assert f"ASSAY_HOME={home}: cannot create the database folder" in res.output
        assert "Traceback" not in res.output and ": no such file" not in res.output
