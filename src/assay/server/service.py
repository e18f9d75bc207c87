"""The memory service behind every route: one warm store, serialised, with idempotent writes.

:class:`MemoryService` owns one :class:`assay.memory.MemoryStore` (its embedder, reranker and
in-process index loaded once, at :meth:`~MemoryService.warm_up`) behind a lock — a store is
one-thread — and turns each operation into a JSON-ready dict. Writes take an optional
idempotency key (:meth:`~MemoryService.idempotent`): the response of the first request with a
key is recorded in ``server_requests`` and replayed to every retry with the same key and body;
the same key with another body is refused (:class:`IdempotencyConflict`). The writes are
idempotent by construction, so the record can follow the work: a search with a key gets a
``search_id`` derived from it (delivery ids from that and the rank: a second insert fails on the
key instead of duplicating), memories are keyed by id or text, grades and engagement overwrite.

Queries may be embedded by another runtime of the store's weights than its writes
(:func:`assay.server.query.query_embedder_for`: the int8 ONNX MiniLM for a MiniLM store,
``ServerSettings.query_embedder``): every search reads the store through a
:class:`~assay.server.query.QueryView` whose ``embedder`` is the query embedder, while adds
(and the index's catch-up of a row without a vector) use the store's own.

State lives in the store (the session map of the hooks is a cache in front of the delivery
log), so several servers can share one PostgreSQL database. The one exception is by choice:
the hook-reply counters of ``/v1/stats`` (``hook_replies_this_process``, see
:meth:`MemoryService.note_reply`) are per-process diagnostics, named and dated as such.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from assay.embedding import Embedder, runtime_label
from assay.memory import MemoryStore
from assay.memory.feedback.deliveries import UnknownSearchError, deliveries_of, write_with_retry
from assay.memory.feedback.engagement import engage
from assay.memory.feedback.grades import apply_grades
from assay.memory.feedback.stats import memory_stats
from assay.memory.models import SearchHit, now_utc
from assay.memory.retrieval.search import search as search_store
from assay.server.query import QueryView
from assay.server.tables import server_requests
from assay.storage import insert_ignore

__all__ = [
    "MemoryService",
    "IdempotencyConflict",
    "derived_search_id",
    "UnknownSearchError",
    "UnknownExperimentError",
    "unknown_experiment",
]


class IdempotencyConflict(ValueError):
    """An idempotency key reused with another route or body (HTTP 422)."""


class UnknownExperimentError(ValueError, LookupError):
    """No experiment of that name (HTTP 404; ``assay serve --experiment``: exit 2). A typo used to
    give every unit the control arm, silently."""


def unknown_experiment(ab: Any | None, name: str) -> UnknownExperimentError | None:
    """The error naming the known experiments when ``ab`` (an
    :class:`~assay.memory.experiments.ExperimentStore`; ``None``: a database without any) has
    none called ``name``, else ``None``. A cached "unknown" is read again (an experiment started
    a moment ago counts)."""
    if ab is not None and (ab.config(name) is not None or ab.config(name, fresh=True) is not None):
        return None
    known = (", ".join(ab.names()) if ab is not None else "") or "none yet: start one with 'assay memory ab start'"
    return UnknownExperimentError(f"unknown experiment {name!r} (known: {known})")


def derived_search_id(key: str) -> str:
    """The ``search_id`` of a search sent with idempotency key ``key``: 32 hex digits of SHA-256."""
    return hashlib.sha256(f"assay-search\x1f{key}".encode()).hexdigest()[:32]


def body_digest(body: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a request body (sorted keys): what a retry must repeat."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class MemoryService:
    """One warm memory store serving the routes (thread-safe: every store call holds one lock).

    ``store``: the :class:`~assay.memory.MemoryStore` to serve. ``reload``: called by
    :meth:`reload` (``POST /v1/admin/reload``) to build a fresh store — how a server picks up a
    newly deployed reranker or model without a restart; default: the same URL and settings.
    ``query_embedder``: embeds the search queries instead of the store's embedder (same
    weights identity: :func:`query_embedder_for`); ``None``: the store's. The reranker is the
    store's (:attr:`MemoryStore.reranker`: while none is served it asks again every
    ``MemorySettings.reranker_recheck_s``; ``reload`` picks a newly deployed one up at once).
    """

    def __init__(
        self,
        store: MemoryStore,
        *,
        reload: Callable[[], MemoryStore] | None = None,
        query_embedder: Embedder | None = None,
    ):
        self.store = store
        self.query_embedder = query_embedder
        self._reload = reload
        self.lock = threading.RLock()
        self.replies = {"stop_events": 0, "malformed_lines": 0}  # this process's (note_reply)
        self.started_at = now_utc()
        self._ab: Any = None
        self._key_locks: dict[str, list[Any]] = {}  # key → [lock, requests holding or waiting]

    # -- lifecycle ------------------------------------------------------------------------------

    def warm_up(self) -> dict[str, Any]:
        """Load the embedders (one embedding each: the store's for writes, the query one), the
        reranker and the index now, not on the first request."""
        with self.lock:
            self.store.embedder.embed(["warm-up"])
            query = self.query_embedder or self.store.embedder
            query.embed(["warm-up"])
            reranker = self.store.reranker
            n = len(self.store.index())
        return {
            "memories_indexed": n,
            "embedder": self.store.embedder.model,
            "embedder_runtime": runtime_label(self.store.embedder),
            "query_embedder_runtime": runtime_label(query),
            "reranker": getattr(reranker, "model", None),
        }

    def reload(self) -> dict[str, Any]:
        """Swap in a fresh store (re-resolving the reranker: a newly deployed student) and warm it."""
        with self.lock:
            if self._reload is not None:
                self.store = self._reload()
            else:
                self.store = MemoryStore(self.store.engine, settings=self.store.settings, embedder=self.store.embedder)
            return self.warm_up()

    # -- idempotency ----------------------------------------------------------------------------

    def idempotent(
        self, route: str, key: str | None, body: Mapping[str, Any], work: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """``work()``'s response, or the recorded one when ``key`` was seen with this route and body.

        Raises :class:`IdempotencyConflict` for a key seen with another route or body. Without a
        key the work simply runs (no record). In one server, requests with the same key run one
        at a time (a lock per key held from the check to the record): a second request with
        another body waits for the first, then is refused without running its work — a 422
        wrote nothing. Servers sharing a database do not share that lock."""
        if key is None:
            return work()
        if not 0 < len(key) <= 200:
            raise ValueError(f"Idempotency-Key: {len(key)} characters, expected 1 to 200")
        digest = body_digest(body)
        with self._key_lock(key):  # check, work and record as one: a concurrent twin waits, then replays or is refused
            return self._claimed(key, route, digest, work)

    @contextmanager
    def _key_lock(self, key: str) -> Iterator[None]:
        """Hold ``key``'s lock; the lock is dropped from the table only when no request holds or
        waits for it (a count per key), so a request arriving while a twin waits takes the same
        lock, not a new one — even when the first request's work raised and recorded nothing."""
        with self.lock:
            entry = self._key_locks.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self.lock:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._key_locks[key]

    def _claimed(self, key: str, route: str, digest: str, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        known = self._recorded(key)
        if known is not None:
            return self._replay(known, route, digest)
        response = work()
        rec = {"key": key, "route": route, "body_sha256": digest, "status": 200, "response": response}
        write_with_retry(
            self.store.engine,
            lambda conn: insert_ignore(conn, server_requests, {**rec, "created_at": now_utc()}, ["key"]),
        )
        winner = self._recorded(key)  # a concurrent request with the same key may have recorded first
        return response if winner is None else self._replay(winner, route, digest)

    def _recorded(self, key: str) -> Any:
        with self.store.engine.connect() as conn:
            return conn.execute(select(server_requests).where(server_requests.c.key == key)).first()

    @staticmethod
    def _replay(row: Any, route: str, digest: str) -> dict[str, Any]:
        if row.route != route or row.body_sha256 != digest:
            raise IdempotencyConflict(
                f"Idempotency-Key was first used for {row.route} with another body; use a new key for a new request"
            )
        return dict(row.response)

    # -- operations -----------------------------------------------------------------------------

    def add(self, memories: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Add memories (each a :class:`~assay.memory.models.MemoryIn` as JSON); the store's
        :class:`~assay.memory.retrieval.writes.AddResult` as a dict. Re-adding an id is a no-op."""
        with self.lock:
            return asdict(self.store.add(memories))

    def ab_assign(self, experiment: str, units: Sequence[str], exclude: bool = False) -> list[dict[str, Any]]:
        """``[{"unit", "arm", "version", "instruction"}]`` for ``units`` in ``experiment``
        (control, unstamped, when it is not running): the pinned ``assay memory ab assign`` shape.
        :class:`UnknownExperimentError` for a name no experiment has."""
        ab = self._checked_experiments(experiment)
        return [_arm_json(ab.assign(experiment, u, exclude=exclude)) for u in units]

    def ab_stamp(
        self,
        experiment: str,
        unit: str,
        memories: Sequence[Mapping[str, Any]],
        *,
        exclude: bool = False,
        source_ref: str | None = None,
    ) -> dict[str, Any]:
        """Write ``memories`` for ``unit`` stamped with its arm, in one transaction: the add result
        and the arm. :class:`UnknownExperimentError` for a name no experiment has."""
        from assay.memory.experiments import write_memories

        arm = self._checked_experiments(experiment).assign(experiment, unit, exclude=exclude)
        with self.lock:
            result = write_memories(self.store, memories, arm, source_ref=source_ref)
        return {**asdict(result), "arm": _arm_json(arm)}

    def hook_arm(self, experiment: str, session: str | None, search_id: str | None) -> Any:
        """The :class:`~assay.memory.experiments.Arm` of one hook turn in ``experiment`` (its
        ``unit``: ``session`` → the hook's ``session`` id, ``prompt`` → the prompt's
        ``search_id``); control, unstamped, for one not running or switched off
        (``ASSAY_AB_ENABLED=0``). ``None`` (the hooks write unstamped, inject no instruction) when
        the turn has no unit or no experiment has that name (``assay serve`` refuses such a
        name at start)."""
        ab = self._experiments()
        with self.lock:
            cfg = ab.config(experiment)
            if cfg is None:
                return None
            unit = search_id if cfg.unit == "prompt" else session
            return None if not unit else ab.assign(experiment, unit)

    def _checked_experiments(self, experiment: str) -> Any:
        ab = self._experiments()
        with self.lock:
            problem = unknown_experiment(ab, experiment)
        if problem is not None:
            raise problem
        return ab

    def _experiments(self) -> Any:
        from assay.memory.experiments import ExperimentStore

        with self.lock:
            if self._ab is None:
                self._ab = ExperimentStore(self.store.engine)
            return self._ab

    def search(
        self,
        context: str,
        *,
        k: int,
        scope: str | None = None,
        session_id: str | None = None,
        restrict_to_scope: bool = False,
        key: str | None = None,
    ) -> dict[str, Any]:
        """Search and log the deliveries; ``{"search_id", "query", "hits": [...]}``. With an
        idempotency ``key`` the search id derives from it and a repeat returns the logged deliveries."""
        sid = derived_search_id(key) if key is not None else None
        with self.lock:
            if sid is not None and (logged := self._logged(sid)) is not None:
                return logged
            source = QueryView(self.store, self.query_embedder or self.store.embedder, self.store.reranker)
            try:
                res = search_store(
                    source,
                    context,
                    k,
                    scope=scope,
                    session_id=session_id,
                    restrict_to_scope=restrict_to_scope,
                    search_id=sid,
                )
            except IntegrityError:  # another server logged this search between the check and the insert
                assert sid is not None
                logged = self._logged(sid)
                if logged is None:
                    raise
                return logged
        return {"search_id": res.search_id, "query": res.query, "hits": [_hit(h) for h in res.hits]}

    def _logged(self, search_id: str) -> dict[str, Any] | None:
        rows = deliveries_of(self.store.engine, search_id)
        if not rows:
            return None
        mems = self.store.get_many([r.memory_id for r in rows])
        hits = [
            {
                "memory_id": r.memory_id,
                "text": mems[r.memory_id].text if r.memory_id in mems else None,
                "rank": r.rank,
                "score": r.score,
                "delivery_id": r.id,
                "scope": r.scope,
            }
            for r in rows
        ]
        return {"search_id": search_id, "query": rows[0].query, "hits": hits}

    def respond(self, search_id: str, response: str, *, prompt: str | None = None) -> dict[str, Any]:
        """Record the agent's response and label engagement for every delivery of ``search_id``."""
        with self.lock:
            return engage(self.store, search_id, response, prompt=prompt).to_dict()

    def grade(self, search_id: str, grades: str) -> dict[str, Any]:
        """Apply a grade field (``"m12:3, m7:0!"``) to the deliveries of ``search_id``."""
        with self.lock:
            return apply_grades(self.store, search_id, grades).to_dict()

    def stats(self) -> dict[str, Any]:
        """:func:`assay.memory.feedback.stats.memory_stats` of the store (aggregates only: no ids)."""
        with self.lock:
            return memory_stats(self.store)

    def note_reply(self, malformed: int) -> None:
        """Count one Stop hook processed and its malformed reply-block lines, in this process.

        Per-process diagnostics by choice, not store state: they say what *this* server has
        answered since it started (is the reply-block parser seeing malformed lines now?), as a
        request counter does. What the agent's replies *did* — grades, engagement, new memories
        — is in the store already; persisting the counters would add a write to every Stop,
        on one row that servers sharing a PostgreSQL database would contend for, and a schema
        revision, for a number that is only read as a health sign. ``/v1/stats`` names them
        ``hook_replies_this_process``, with the process's start (:meth:`process_replies`)."""
        with self.lock:
            self.replies["stop_events"] += 1
            self.replies["malformed_lines"] += malformed

    def process_replies(self) -> dict[str, Any]:
        """``{"since", "stop_events", "malformed_lines"}``: the counters of :meth:`note_reply`
        (this process only; ``since``: when it started, ISO 8601 UTC)."""
        with self.lock:
            return {"since": self.started_at.isoformat(), **self.replies}

    def count(self) -> int:
        """How many memories are stored."""
        with self.lock:
            return self.store.count()


def _hit(h: SearchHit) -> dict[str, Any]:
    return {
        "memory_id": h.memory.id,
        "text": h.memory.text,
        "rank": h.rank,
        "score": h.score,
        "delivery_id": h.delivery_id,
        "scope": h.memory.scope,
    }


def _arm_json(arm: Any) -> dict[str, Any]:
    return {"unit": arm.unit, "arm": arm.name, "version": arm.version, "instruction": arm.instruction}
