"""MemoCache: memos stored by key, served again only for provably unchanged data.

Tables and hit-path statements: :mod:`assay.cache.tables` (``memo_cache``, one row per key;
``memo_cache_counts``, requests by final status).

Concurrency: every write is one transaction — an upsert of the row (one ``INSERT … ON
CONFLICT DO UPDATE`` statement, :func:`assay.storage.upsert`) plus the status count — so a
reader sees the old row or the new one, never half of either (SQLite in WAL mode, or
PostgreSQL). Two processes that miss on the same key at the same time BOTH synthesise; the last
writer's memo stays. Either is correct: each was gated against its own snapshot, and a memo is
served only when its fingerprint equals the requester's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy import Engine, and_, case, delete, func, select
from sqlalchemy.engine import Connection, Row
from sqlalchemy.exc import DatabaseError

from assay.cache.config import INDEX_CACHE_SIZE, SQLITE_SYNCHRONOUS
from assay.cache.memo import (
    COUNTED_STATUSES,
    CacheStatus,
    GateMode,
    Memo,
    build_memo,
    check_request,
    failed_detail,
    gate_accepts,
    gate_answer,
    gate_summary,
)
from assay.cache.tables import BUMP_COUNT, SELECT_ROW, TOUCH_ROW, memo_cache, memo_cache_counts, same_row
from assay.facts import Snapshot
from assay.grounding import GATE_VERSION, GateResult, IndexCache
from assay.storage import SchemaVersionError, StorageError, init_db, make_engine, upsert

__all__ = ["MemoCache", "CacheResult", "Lookup"]


class CacheResult(BaseModel):
    """What :meth:`MemoCache.get_or_create` returns.

    ``memo``: the served (``hit``) or freshly synthesised memo — on ``gate_failed`` the failing
    memo, returned so the caller can act, and NOT stored. ``gate``: the gate result of this
    request against the fresh snapshot (for a hit: the re-gate). ``detail``: one line on why.
    """

    model_config = ConfigDict(frozen=True)
    memo: Memo
    status: CacheStatus
    gate: GateResult
    detail: str = ""

    @property
    def answer(self) -> str:
        return self.memo.answer


@dataclass(frozen=True)
class Lookup:
    """Outcome of :meth:`MemoCache.lookup`: ``memo`` and ``gate`` are set for a ``hit`` (``gate``
    also for ``regate_failed``)."""

    status: CacheStatus
    detail: str
    memo: Memo | None = None
    gate: GateResult | None = None


class MemoCache:
    """The fingerprinted memo cache on assay's store (``db_url`` resolved by
    :func:`assay.storage.resolve_db_url`; or pass an ``engine``).

    ``gate_version`` names the gate rules the stored memos were checked under (default
    :data:`assay.grounding.gate.GATE_VERSION`; injectable so tests and migrations can
    simulate a rule change). ``clock`` returns seconds since the epoch (injectable for TTL
    tests). ``index_cache_size``: see :data:`assay.cache.config.INDEX_CACHE_SIZE`.
    Database errors (``sqlalchemy.exc.SQLAlchemyError``) propagate: the cache never hides them.
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        engine: Engine | None = None,
        gate_version: str = GATE_VERSION,
        clock: Callable[[], float] = time.time,
        index_cache_size: int = INDEX_CACHE_SIZE,
    ):
        if not gate_version or len(gate_version) > 64:
            raise ValueError(f"gate_version must be a non-empty string of at most 64 characters, got {gate_version!r}")
        self.engine = engine if engine is not None else make_engine(db_url, sqlite_synchronous=SQLITE_SYNCHRONOUS)
        self.gate_version = gate_version
        self.clock = clock
        self.indexes = IndexCache(index_cache_size, claims_size=index_cache_size)
        self._ready = False
        self._ready_lock = threading.Lock()

    def get_or_create(
        self,
        key: str,
        snapshot: Snapshot,
        synthesize: Callable[[Snapshot], str],
        *,
        ttl_s: float,
        synthesis_version: str = "",
        gate_mode: GateMode = "auto",
        use_cache: bool = True,
        accept_no_claims: bool = False,
    ) -> CacheResult:
        """Serve the memo for ``key`` from the cache, or synthesise, gate and store a fresh one.

        A stored memo is served (``hit``) only when its key, snapshot fingerprint, synthesis
        version, gate version and gate mode all match, it is younger than both the TTL it was stored
        with and this request's ``ttl_s`` (seconds), AND
        it passes the gate against ``snapshot`` now. Otherwise ``synthesize(snapshot)`` is
        called once, its answer gated, and the memo stored when it passes; the status says why:
        ``miss`` (no entry), ``stale_fingerprint`` (the data changed), ``stale_synthesis`` (another
        ``synthesis_version``), ``stale_gate`` (gate version or mode changed), ``expired``,
        ``regate_failed`` (the stored memo fails today's gate; it is deleted), or ``gate_failed``
        (the fresh memo failed: returned, nothing stored). ``use_cache=False`` neither reads nor
        writes nor counts: ``bypassed`` (or ``gate_failed``). Checks are in that order; the first
        that applies names the status. ``accept_no_claims``: see :func:`gate_accepts`.

        Raises ``ValueError`` for an empty or over-long key, ``ttl_s`` not a positive finite
        number, or an unknown ``gate_mode``; ``TypeError`` when ``synthesize`` returns a non-str.
        """
        check_request(key, ttl_s, gate_mode)
        fp = snapshot.fingerprint()
        if not use_cache:
            memo = build_memo(
                snapshot,
                synthesize,
                fingerprint=fp,
                synthesis_version=synthesis_version,
                gate_mode=gate_mode,
                indexes=self.indexes,
                clock=self.clock,
            )
            ok = gate_accepts(memo.gate, accept_no_claims)
            return CacheResult(
                memo=memo,
                status="bypassed" if ok else "gate_failed",
                gate=memo.gate,
                detail="use_cache=False: cache neither read nor written" if ok else failed_detail(memo.gate),
            )
        found = self.lookup(
            key,
            snapshot,
            synthesis_version=synthesis_version,
            gate_mode=gate_mode,
            fingerprint=fp,
            ttl_s=ttl_s,
            accept_no_claims=accept_no_claims,
        )
        if found.status == "hit":
            assert found.memo is not None and found.gate is not None
            return CacheResult(memo=found.memo, status="hit", gate=found.gate, detail=found.detail)
        memo = build_memo(
            snapshot,
            synthesize,
            fingerprint=fp,
            synthesis_version=synthesis_version,
            gate_mode=gate_mode,
            indexes=self.indexes,
            clock=self.clock,
        )
        if not gate_accepts(memo.gate, accept_no_claims):
            self.record("gate_failed")
            return CacheResult(memo=memo, status="gate_failed", gate=memo.gate, detail=failed_detail(memo.gate))
        self.store(key, memo, ttl_s=ttl_s, gate_mode=gate_mode, status=found.status, accept_no_claims=accept_no_claims)
        return CacheResult(memo=memo, status=found.status, gate=memo.gate, detail=found.detail)

    def lookup(
        self,
        key: str,
        snapshot: Snapshot,
        *,
        synthesis_version: str = "",
        gate_mode: GateMode = "auto",
        fingerprint: str | None = None,
        ttl_s: float | None = None,
        accept_no_claims: bool = False,
    ) -> Lookup:
        """Look ``key`` up for ``snapshot`` without synthesising (the first half of
        :meth:`get_or_create`). Records a ``hit`` (row ``hits`` + status count, one
        transaction) and deletes a memo that fails the re-gate; every other outcome is recorded
        by the caller through :meth:`store` or :meth:`record`."""
        self._ensure_schema()
        fp = fingerprint or snapshot.fingerprint()
        with self.engine.connect() as conn:  # one connection; SQLite holds no lock during the re-gate
            row = conn.execute(SELECT_ROW, {"b_key": key}).first()
            found = self._check_row(row, snapshot, fp, synthesis_version, gate_mode, ttl_s, accept_no_claims)
            if row is None:  # a miss: nothing to touch or delete
                return found
            if found.status == "hit":
                now = self.clock()
                conn.execute(
                    TOUCH_ROW, {"b_key": row.key, "b_fp": row.fingerprint, "b_created": row.created_at, "b_now": now}
                )
                self._count(conn, "hit", now)
                conn.commit()
            elif found.status == "regate_failed":  # delete exactly this row version, never a newer one
                conn.execute(delete(memo_cache).where(same_row(row)))
                conn.commit()
        return found

    def store(
        self,
        key: str,
        memo: Memo,
        *,
        ttl_s: float,
        gate_mode: GateMode,
        status: CacheStatus = "miss",
        accept_no_claims: bool = False,
    ) -> None:
        """Upsert ``memo`` under ``key`` (expiring ``ttl_s`` from now) and count ``status``, in one
        transaction. Raises ``ValueError`` for a memo whose gate result does not pass (a memo that
        failed the gate is never stored) or for a bad key / TTL / mode."""
        check_request(key, ttl_s, gate_mode)
        if not gate_accepts(memo.gate, accept_no_claims):
            raise ValueError(f"refusing to store a memo that failed the gate ({gate_summary(memo.gate)})")
        self._ensure_schema()
        now = self.clock()
        text = memo.model_dump_json()
        values = {
            "key": key,
            "fingerprint": memo.fingerprint,
            "gate_version": self.gate_version,
            "gate_mode": gate_mode,
            "synthesis_version": memo.synthesis_version,
            "memo": text,
            "size_bytes": len(text.encode("utf-8")),
            "created_at": now,
            "expires_at": now + ttl_s,
            "hits": 0,
            "last_hit_at": None,
        }
        with self.engine.begin() as conn:
            upsert(conn, memo_cache, values, ["key"])
            self._count(conn, status, now)

    def record(self, status: CacheStatus) -> None:
        """Count one request that ended in ``status`` (one transaction)."""
        self._ensure_schema()
        with self.engine.begin() as conn:
            self._count(conn, status, self.clock())

    def stats(self) -> dict[str, Any]:
        """Entries, bytes and requests by status. Returns ``{"schema": 1, "kind": "cache_stats",
        "entries", "expired_entries", "bytes", "hits_on_entries", "lookups", "hits", "misses",
        "hit_rate" (None before any lookup), "by_status": {status: n}}``; never a key."""
        self._ensure_schema()
        now = self.clock()
        expired = func.sum(case((memo_cache.c.expires_at <= now, 1), else_=0))
        with self.engine.connect() as conn:
            entries, n_bytes, entry_hits, n_expired = conn.execute(
                select(
                    func.count(),
                    func.coalesce(func.sum(memo_cache.c.size_bytes), 0),
                    func.coalesce(func.sum(memo_cache.c.hits), 0),
                    func.coalesce(expired, 0),
                )
            ).one()
            counts = {s: int(n) for s, n in conn.execute(select(memo_cache_counts.c.status, memo_cache_counts.c.n))}
        by_status = {s: counts.pop(s, 0) for s in COUNTED_STATUSES} | counts
        lookups = sum(by_status.values())
        hits = by_status["hit"]
        return {
            "schema": 1,
            "kind": "cache_stats",
            "entries": int(entries),
            "expired_entries": int(n_expired),
            "bytes": int(n_bytes),
            "hits_on_entries": int(entry_hits),
            "lookups": lookups,
            "hits": hits,
            "misses": lookups - hits,
            "hit_rate": round(hits / lookups, 4) if lookups else None,
            "by_status": by_status,
        }

    def clear(self, *, prefix: str | None = None, expired: bool = False) -> dict[str, Any]:
        """Delete entries: those whose key starts with ``prefix`` and/or that have expired; with
        neither, every entry AND the status counts. Returns ``{"removed": n, "counts_reset": bool}``."""
        self._ensure_schema()
        conds = []
        if prefix is not None:
            if not prefix:
                raise ValueError("key prefix must be non-empty (omit it to clear everything)")
            conds.append(memo_cache.c.key.startswith(prefix, autoescape=True))
        if expired:
            conds.append(memo_cache.c.expires_at <= self.clock())
        with self.engine.begin() as conn:
            removed = conn.execute(delete(memo_cache).where(and_(*conds)) if conds else delete(memo_cache)).rowcount
            if not conds:
                conn.execute(delete(memo_cache_counts))
        return {"removed": int(removed), "counts_reset": not conds}

    # --- helpers ---------------------------------------------------------------------------

    def _check_row(
        self,
        row: Row[Any] | None,
        snapshot: Snapshot,
        fp: str,
        synthesis_version: str,
        gate_mode: GateMode,
        ttl_s: float | None,
        accept_no_claims: bool,
    ) -> Lookup:
        """The status of a stored row for this request, in the documented order of checks."""
        if row is None:
            return Lookup("miss", "no entry for this key")
        if row.fingerprint != fp:
            return Lookup("stale_fingerprint", "the data changed since the memo was written")
        if row.synthesis_version != synthesis_version:
            return Lookup("stale_synthesis", f"memo written by synthesis version {row.synthesis_version!r}")
        if row.gate_version != self.gate_version or row.gate_mode != gate_mode:
            return Lookup(
                "stale_gate",
                f"memo gated under {row.gate_version}/{row.gate_mode}, now {self.gate_version}/{gate_mode}",
            )
        now = self.clock()
        expires_at = row.expires_at if ttl_s is None else min(row.expires_at, row.created_at + ttl_s)
        if now >= expires_at:
            return Lookup("expired", f"TTL elapsed {now - expires_at:.0f} s ago")
        try:
            memo = Memo.model_validate_json(row.memo)
        except ValidationError:
            return Lookup("regate_failed", "stored memo is unreadable; deleted")
        if memo.fingerprint != fp:
            return Lookup("regate_failed", "stored memo's fingerprint disagrees with its row; deleted")
        gate = gate_answer(memo.answer, snapshot, gate_mode, fingerprint=fp, indexes=self.indexes)
        if not gate_accepts(gate, accept_no_claims):
            return Lookup("regate_failed", f"stored memo fails today's gate ({gate_summary(gate)}); deleted", gate=gate)
        return Lookup("hit", "fingerprint, versions and mode match; within TTL; re-gate passed", memo=memo, gate=gate)

    def _ensure_schema(self) -> None:
        if self._ready:
            return
        with self._ready_lock:
            if self._ready:
                return
            for attempt in range(3):
                try:
                    init_db(self.engine)
                    break
                except SchemaVersionError:
                    raise
                except (StorageError, DatabaseError):
                    # Two processes first using one database race in CREATE TABLE ("already
                    # exists"); the loser's next attempt finds the tables. Real faults recur.
                    if attempt == 2:
                        raise
            self._ready = True

    def _count(self, conn: Connection, status: str, now: float) -> None:
        """Add one to ``status``'s count: a plain UPDATE once the row exists (the hot path), an
        upsert the first time (two processes racing there both increment correctly)."""
        if conn.execute(BUMP_COUNT, {"b_status": status, "b_now": now}).rowcount == 0:
            upsert(
                conn,
                memo_cache_counts,
                {"status": status, "n": 1, "updated_at": now},
                ["status"],
                update={"n": memo_cache_counts.c.n + 1, "updated_at": now},
            )
