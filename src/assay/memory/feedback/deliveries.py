"""The delivery log: writing delivered memories (retrying when the database is busy) and reading them back.

Every memory a search returns is one row of ``memory_deliveries`` under the search's
``search_id`` (see :mod:`assay.memory.tables` for the columns). Rows are written in one
transaction per search. On SQLite several processes share the file through WAL; a writer that
finds the database locked past the busy timeout — or, on PostgreSQL, a serialisation failure or
deadlock — retries the whole transaction with exponential backoff and jitter, so concurrent
agents lose no delivery. On SQLite the delivery transaction may commit under its own
``PRAGMA synchronous`` (``MemorySettings.delivery_synchronous``: ``"NORMAL"``, no fsync at its
commit), the connection's level restored after it, so the store's other writes keep theirs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import OperationalError

from assay.memory.tables import memory_deliveries

__all__ = ["log_deliveries", "write_with_retry", "deliveries_of", "is_busy_error", "UnknownSearchError"]

T = TypeVar("T")

#: Attempts of a write transaction and the first backoff (doubling, ×[0.5, 1.5) jitter): 8
#: attempts wait up to ~13 s in all on top of SQLite's own 30 s busy timeout per attempt.
RETRY_ATTEMPTS = 8
RETRY_BASE_DELAY_S = 0.05

#: The ``PRAGMA synchronous`` levels a transaction may ask for (see :func:`write_with_retry`).
SYNCHRONOUS_LEVELS = ("NORMAL", "FULL")


class UnknownSearchError(ValueError, LookupError):
    """No delivery was logged under the given search id."""


def log_deliveries(engine: Engine, rows: Sequence[Mapping[str, Any]], *, synchronous: str | None = None) -> int:
    """Insert delivery rows in one transaction (retried when busy); returns how many.

    ``synchronous``: on SQLite, the ``PRAGMA synchronous`` this transaction commits under (see
    :func:`write_with_retry`; a search passes ``MemorySettings.delivery_synchronous``); ``None``
    keeps the connection's own."""
    if not rows:
        return 0
    write_with_retry(
        engine, lambda conn: conn.execute(memory_deliveries.insert(), [dict(r) for r in rows]), synchronous=synchronous
    )
    return len(rows)


def write_with_retry(
    engine: Engine,
    fn: Callable[[Any], T],
    *,
    attempts: int = RETRY_ATTEMPTS,
    base_delay_s: float = RETRY_BASE_DELAY_S,
    synchronous: str | None = None,
) -> T:
    """Run ``fn(conn)`` in a transaction; on a busy/locked database retry the whole transaction.

    ``synchronous`` (``"NORMAL"`` or ``"FULL"``; SQLite only, ignored elsewhere): the
    ``PRAGMA synchronous`` of this transaction alone, set before it begins (SQLite refuses it
    inside one) and the connection's own level restored after it commits or rolls back. In WAL
    mode ``"NORMAL"`` commits without an fsync: the commit survives an application crash or
    SIGKILL, and a power loss may roll back only the last such commits (until the next fsync of
    the log: a checkpoint, or any later commit under ``FULL``). ``None``: the connection's own.

    Raises the last ``OperationalError`` after ``attempts`` tries, and any other error at once;
    ``ValueError`` for another ``synchronous``.
    """
    if synchronous is not None and synchronous not in SYNCHRONOUS_LEVELS:
        raise ValueError(f"synchronous must be None or one of {', '.join(SYNCHRONOUS_LEVELS)}, got {synchronous!r}")
    rng = random.Random()
    for attempt in range(attempts):
        try:
            if synchronous is None or engine.dialect.name != "sqlite":
                with engine.begin() as conn:
                    return fn(conn)
            with engine.connect() as conn, _sqlite_synchronous(conn, synchronous), conn.begin():
                return fn(conn)
        except OperationalError as e:
            if attempt == attempts - 1 or not is_busy_error(e):
                raise
            time.sleep(base_delay_s * (2**attempt) * (0.5 + rng.random()))
    raise AssertionError("unreachable")  # pragma: no cover


@contextmanager
def _sqlite_synchronous(conn: Connection, level: str) -> Iterator[None]:
    """``PRAGMA synchronous`` of SQLite connection ``conn`` set to ``level`` for the transaction
    inside, then restored. Through the driver's connection: outside SQLAlchemy's transaction,
    which has not begun yet. A connection whose level cannot be restored is invalidated (closed,
    never handed out again by the pool) and the transaction's outcome stands: an error there,
    after the commit, must not make a caller write the deliveries again."""
    raw = conn.connection.driver_connection
    assert raw is not None
    before = int(raw.execute("PRAGMA synchronous").fetchone()[0])
    raw.execute(f"PRAGMA synchronous={level}")
    try:
        yield
    finally:
        try:
            raw.execute(f"PRAGMA synchronous={before}")
        except Exception:  # noqa: BLE001 - the connection goes; the transaction is already decided
            conn.invalidate()


def is_busy_error(e: OperationalError) -> bool:
    """True for errors a retry can cure: SQLite ``database is locked``/``busy``, PostgreSQL
    serialisation failure (40001) or deadlock (40P01)."""
    code = getattr(e.orig, "sqlstate", None) or getattr(e.orig, "pgcode", None)
    if code in ("40001", "40P01"):
        return True
    msg = str(e.orig).lower()
    return "locked" in msg or "busy" in msg


def deliveries_of(engine: Engine, search_id: str) -> list[Any]:
    """The delivery rows of one search, by rank (``[]`` for an unknown search id)."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(memory_deliveries)
                .where(memory_deliveries.c.search_id == search_id)
                .order_by(memory_deliveries.c.rank)
            )
        )
