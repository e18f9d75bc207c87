"""The memo cache's tables and the statements of its hit path.

Tables (on :data:`assay.storage.metadata`, created idempotently on first use and by
``assay init-db``):

- ``memo_cache``: one row per key — snapshot ``fingerprint``, ``gate_version``, ``gate_mode``,
  ``synthesis_version``, the memo as JSON, its size in UTF-8 bytes, ``created_at`` /
  ``expires_at`` / ``last_hit_at`` (seconds since the Unix epoch) and the ``hits`` it served.
- ``memo_cache_counts``: requests by final status (``hit``, ``miss``, ``stale_*``, …).

The hit path's statements are built once here and bound per call (``b_*`` parameters).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    and_,
    bindparam,
    select,
    update,
)

from assay.cache.config import MAX_KEY_CHARS
from assay.storage import metadata

__all__ = ["memo_cache", "memo_cache_counts", "SELECT_ROW", "TOUCH_ROW", "BUMP_COUNT", "same_row"]

memo_cache = Table(
    "memo_cache",
    metadata,
    Column("key", String(MAX_KEY_CHARS), primary_key=True),
    Column("fingerprint", String(64), nullable=False),
    Column("gate_version", String(64), nullable=False),
    Column("gate_mode", String(16), nullable=False),
    Column("synthesis_version", Text, nullable=False),
    Column("memo", Text, nullable=False),
    Column("size_bytes", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("hits", Integer, nullable=False, default=0),
    Column("last_hit_at", Float),
    Index("ix_memo_cache_expires_at", "expires_at"),
)

memo_cache_counts = Table(
    "memo_cache_counts",
    metadata,
    Column("status", String(32), primary_key=True),
    Column("n", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)


#: The row of one key (``b_key``).
SELECT_ROW = select(memo_cache).where(memo_cache.c.key == bindparam("b_key"))
#: Count a hit on exactly one row version (``b_key``, ``b_fp``, ``b_created``; ``b_now``).
TOUCH_ROW = (
    update(memo_cache)
    .where(
        memo_cache.c.key == bindparam("b_key"),
        memo_cache.c.fingerprint == bindparam("b_fp"),
        memo_cache.c.created_at == bindparam("b_created"),
    )
    .values(hits=memo_cache.c.hits + 1, last_hit_at=bindparam("b_now"))
)
#: Add one to a status count that exists (``b_status``, ``b_now``).
BUMP_COUNT = (
    update(memo_cache_counts)
    .where(memo_cache_counts.c.status == bindparam("b_status"))
    .values(n=memo_cache_counts.c.n + 1, updated_at=bindparam("b_now"))
)


def same_row(row: Any) -> ColumnElement[bool]:
    """The condition matching exactly the stored version of ``row`` (key, fingerprint, created_at)."""
    return and_(
        memo_cache.c.key == row.key,
        memo_cache.c.fingerprint == row.fingerprint,
        memo_cache.c.created_at == row.created_at,
    )
