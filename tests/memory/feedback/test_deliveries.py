"""The delivery log's write: each search's deliveries in one transaction, committed on SQLite under
``MemorySettings.delivery_synchronous`` (``NORMAL``: no fsync) while the store's other writes keep
the engine's level, and the connection's level restored whatever happens in the transaction."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, event, func, select
from sqlalchemy.exc import OperationalError

from assay.memory import MemorySettings, MemoryStore
from assay.memory.feedback.deliveries import log_deliveries, write_with_retry
from assay.memory.tables import memory_deliveries
from assay.storage import init_db

HASHING = MemorySettings(embedder="hashing")
FULL, NORMAL = 2, 1  # PRAGMA synchronous's numbers


def _levels_at_commit(engine) -> list[tuple[int, bool]]:
    """``(PRAGMA synchronous, delivery rows written?)`` at every commit of ``engine`` from now on
    (SQLAlchemy's ``commit`` event runs just before the driver's commit)."""
    seen: list[tuple[int, bool]] = []

    @event.listens_for(engine, "commit")
    def _commit(conn):
        raw = conn.connection.driver_connection
        seen.append((raw.execute("PRAGMA synchronous").fetchone()[0], bool(conn.info.pop("delivered", False))))

    @event.listens_for(engine, "before_execute")
    def _before(conn, clauseelement, *args):
        if getattr(clauseelement, "table", None) is memory_deliveries:
            conn.info["delivered"] = True

    return seen


def _pooled_level(engine) -> int:
    with engine.connect() as conn:
        return int(conn.exec_driver_sql("PRAGMA synchronous").scalar_one())


def _store(url: str, **settings) -> MemoryStore:
    store = MemoryStore(url, settings=HASHING.with_(**settings))
    store.add([{"id": f"m{i}", "text": f"note {i} about the Lisbon offsite"} for i in range(6)])
    return store


def test_sqlite_delivery_commits_without_fsync_and_other_writes_keep_full(tmp_path):
    store = _store(f"sqlite:///{tmp_path / 'a.db'}")
    seen = _levels_at_commit(store.engine)
    store.search("Lisbon offsite", 3)
    store.add([{"id": "m9", "text": "a memory written after the search"}])
    store.search("offsite", 2)
    assert seen == [(NORMAL, True), (FULL, False), (NORMAL, True)]
    assert _pooled_level(store.engine) == FULL  # the connection handed back has its level again
    assert store.engine.pool.checkedin() == 1  # one connection, reused: the same one each time


@pytest.mark.parametrize("level", [None, "FULL"])
def test_sqlite_delivery_fsyncs_when_asked(tmp_path, level):
    store = _store(f"sqlite:///{tmp_path / 'a.db'}", delivery_synchronous=level)
    seen = _levels_at_commit(store.engine)
    store.search("Lisbon offsite", 3)
    assert seen == [(FULL, True)]


def test_level_is_restored_after_a_failed_or_retried_transaction(tmp_path):
    store = _store(f"sqlite:///{tmp_path / 'a.db'}")
    levels = []

    def fails(conn):
        levels.append(conn.exec_driver_sql("PRAGMA synchronous").scalar_one())
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        write_with_retry(store.engine, fails, synchronous="NORMAL")
    assert levels == [NORMAL] and _pooled_level(store.engine) == FULL

    calls = []

    def flaky(conn):
        calls.append(conn.exec_driver_sql("PRAGMA synchronous").scalar_one())
        if len(calls) < 3:
            raise OperationalError("INSERT", {}, Exception("database is locked"))
        return "ok"

    assert write_with_retry(store.engine, flaky, base_delay_s=0.001, synchronous="NORMAL") == "ok"
    assert calls == [NORMAL] * 3 and _pooled_level(store.engine) == FULL


class _FailingRestore(sqlite3.Connection):
    """A driver connection whose ``PRAGMA synchronous`` back to FULL fails once armed."""

    armed = False

    def execute(self, sql, *args):
        if _FailingRestore.armed and sql == f"PRAGMA synchronous={FULL}":
            _FailingRestore.armed = False
            raise sqlite3.OperationalError("disk I/O error")
        return super().execute(sql, *args)


def test_a_connection_whose_level_cannot_be_restored_is_dropped_and_the_write_stands(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'a.db'}", connect_args={"factory": _FailingRestore})
    init_db(engine)
    row = {
        "id": "d1",
        "search_id": "s1",
        "memory_id": "m1",
        "query": "q",
        "rank": 1,
        "score": 0.5,
        "score_components": {},
        "arm": "default",
        "version": "v",
        "created_at": datetime.now(UTC),
    }
    opened: list[object] = []
    event.listen(engine, "connect", lambda dbapi_conn, _record: opened.append(dbapi_conn))
    assert _pooled_level(engine) == FULL and not opened  # init_db's connection, reused
    _FailingRestore.armed = True
    assert log_deliveries(engine, [row], synchronous="NORMAL") == 1  # committed: no error, no second write
    assert not _FailingRestore.armed  # the restore did fail
    assert _pooled_level(engine) == FULL and len(opened) == 1  # that connection was closed: a fresh one
    with engine.connect() as conn:
        assert conn.execute(select(memory_deliveries.c.id)).scalars().all() == ["d1"]


def test_every_delivery_is_written_once_on_both_backends(db_url):
    store = _store(db_url)
    ids = [store.search(q, 4).search_id for q in ("Lisbon", "offsite note", "note 3", "about the")]
    with store.engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(memory_deliveries)).scalar_one()
        n_ids = conn.execute(select(func.count(func.distinct(memory_deliveries.c.search_id)))).scalar_one()
    assert (n, n_ids, len(set(ids))) == (16, 4, 4)
    assert log_deliveries(store.engine, [], synchronous="NORMAL") == 0


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="synchronous must be"):
        write_with_retry(None, lambda conn: None, synchronous="OFF")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="delivery_synchronous"):
        MemorySettings(delivery_synchronous="OFF")  # type: ignore[arg-type]
