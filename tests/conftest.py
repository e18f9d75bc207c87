"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Fixtures that several folders use, defined in tests/support/ (on the path via pyproject's pytest
# `pythonpath`): the llama.cpp server with SmolLM2-135M.
pytest_plugins = ["llama_server"]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared benchmark data folder (``../shared/data`` next to the repo).

    Skips the test when it is absent, except under ``CI=true``, where a missing folder fails.
    """
    path = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    if not path.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared data folder not found at {path} (required when CI=true)")
        pytest.skip(f"shared data folder not found at {path}")
    return path


# --- PostgreSQL: throwaway clusters owned by the test run (issue 10) -----------------------------
# `postgres_cluster` (session) runs the system's PostgreSQL (Debian's package in CI); every test
# that asks for `postgresql_url` gets a fresh, empty database on it, dropped afterwards. `db_url`
# runs a test once on SQLite and once on PostgreSQL. `pgvector_url` is the same on the
# PostgreSQL + pgvector build bundled by the PyPI package `pgserver`. Locally a missing server
# or driver skips those tests with one line; under CI=true it fails them.


def _pg_leg_unavailable(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} (required when CI=true)", pytrace=False)
    pytest.skip(f"PostgreSQL leg skipped: {what}")


def _pg_session_cluster(bin_dir, missing: str):
    import importlib.util

    from pg_cluster import start_cluster

    if importlib.util.find_spec("psycopg") is None:
        _pg_leg_unavailable("the psycopg driver is not installed (pip install 'assay[postgres]')")
    if bin_dir is None:
        _pg_leg_unavailable(missing)
    return start_cluster(bin_dir)


@pytest.fixture(scope="session")
def postgres_cluster():
    """A PostgreSQL server (system binaries) started for this test run and removed after it."""
    from pg_cluster import system_bin_dir

    cluster = _pg_session_cluster(system_bin_dir(), "PostgreSQL server not installed (apt-get install postgresql)")
    yield cluster
    cluster.destroy()


@pytest.fixture(scope="session")
def pgvector_cluster():
    """A PostgreSQL server with the pgvector extension (PyPI ``pgserver``'s build) for this run."""
    from pg_cluster import pgserver_bin_dir

    cluster = _pg_session_cluster(
        pgserver_bin_dir(), "the pgvector path needs the PyPI package pgserver (pip install 'assay[dev]')"
    )
    yield cluster
    cluster.destroy()


@pytest.fixture(scope="session")
def _pg_database_names():
    import itertools

    return (f"t{i}" for i in itertools.count(1))


def _fresh_database(cluster, names):
    name = next(names)
    yield cluster.create_database(name)
    if cluster.running():  # a test that stopped the server has restarted it, or left it for teardown
        cluster.drop_database(name)


@pytest.fixture
def postgresql_url(postgres_cluster, _pg_database_names):
    """``postgresql+psycopg://…`` of a fresh, empty database (dropped after the test)."""
    yield from _fresh_database(postgres_cluster, _pg_database_names)


@pytest.fixture
def pgvector_url(pgvector_cluster, _pg_database_names):
    """``postgresql+psycopg://…`` of a fresh database on a server where pgvector is available."""
    yield from _fresh_database(pgvector_cluster, _pg_database_names)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh database URL, once per backend: ``sqlite:///<tmp>/assay.db`` and a new PostgreSQL
    database (see ``postgresql_url``). Stores' tests take it to run the same suite on both."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'assay.db'}"
    return request.getfixturevalue("postgresql_url")


_PG_SKIPPED = pytest.StashKey[dict]()


def _pg_leg_missing(config) -> dict[str, str]:
    """Cluster fixture → why it cannot run here (empty when everything is installed)."""
    import importlib.util

    from pg_cluster import pgserver_bin_dir, system_bin_dir

    if importlib.util.find_spec("psycopg") is None:
        why = "the psycopg driver is not installed (pip install 'assay[postgres]')"
        return {"postgres_cluster": why, "pgvector_cluster": why}
    missing = {}
    if system_bin_dir() is None:
        missing["postgres_cluster"] = "PostgreSQL server not installed (apt-get install postgresql)"
    if pgserver_bin_dir() is None:
        missing["pgvector_cluster"] = "the pgvector path needs the PyPI package pgserver (pip install 'assay[dev]')"
    return missing


def pytest_collection_modifyitems(config, items):
    """Locally, leave out the tests of a PostgreSQL leg that cannot run here, and say so in ONE
    line at the end (``pytest_terminal_summary``). Under CI=true nothing is left out: their
    fixtures fail instead."""
    if os.environ.get("CI") == "true":
        return
    missing = _pg_leg_missing(config)
    if not missing:
        return
    keep, dropped = [], {}
    for item in items:
        needs = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("db_url") == "postgresql":
            needs.add("postgres_cluster")
        if getattr(item, "name", None) in getattr(getattr(item, "module", None), "POSTGRESQL_TESTS", ()):
            needs.add("postgres_cluster")  # asks for the cluster at run time (request.getfixturevalue)
        why = next((missing[f] for f in ("postgres_cluster", "pgvector_cluster") if f in needs and f in missing), None)
        if why is None:
            keep.append(item)
        else:
            dropped.setdefault(why, []).append(item)
    if dropped:
        config.hook.pytest_deselected(items=[i for group in dropped.values() for i in group])
        items[:] = keep
        config.stash[_PG_SKIPPED] = {why: len(group) for why, group in dropped.items()}


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = config.stash.get(_PG_SKIPPED, None)
    if skipped:
        detail = "; ".join(f"{why} ({n} tests)" for why, n in skipped.items())
        terminalreporter.write_line(f"PostgreSQL leg skipped: {detail}")
