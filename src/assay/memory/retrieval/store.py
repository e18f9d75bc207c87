"""MemoryStore: memories persisted on assay's storage, ranked in process, deliveries logged.

Writing (:meth:`MemoryStore.add`): keywords come from the writer, else are derived from the
memory's own text (:func:`~assay.memory.text.derive_keywords`); a memory whose text duplicates
one already stored in the same scope (:func:`~assay.memory.text.dedupe_key`) is not added: its
keywords are unioned into the stored row, and — when it arrives under another id, i.e. as an
independent observation — it corroborates the stored memory (re-sending the same id is
idempotent). A memory with ``supersedes`` marks those memories superseded (excluded from
search) and counts a contradiction against each. Confidence is the posterior
:func:`~assay.memory.retrieval.scoring.reliability` of the writer's prior and these counts.
Vectors are encoded in batches on insert (precomputed ones accepted) and stored with the row.
Planning and writing an insert live in :mod:`assay.memory.retrieval.ingest`.

Reading: the in-process :class:`~assay.memory.retrieval.index.MemoryIndex` follows the store
revision (``memory_state``), reloading only rows written since. Searching and delivery logging
live in :mod:`assay.memory.retrieval.search`. The vector path (numpy, or pgvector on PostgreSQL
where the extension is present) is chosen at start-up (:mod:`assay.memory.retrieval.vectors`);
every write of vectors updates pgvector's mirror in the same transaction. Only portable
SQLAlchemy Core is used here.

The reranker is injected (:class:`~assay.memory.models.Reranker`): retrieval serves the one it is
given and never chooses one itself (:meth:`MemoryStore.resolve_reranker` returns none here); the
package's :class:`assay.memory.MemoryStore` resolves it through :mod:`assay.memory.learning`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError
from sqlalchemy import Engine, func, select, update

from assay.cases import InputProblem
from assay.embedding import Embedder
from assay.jsonl import as_utc, validation_problems
from assay.memory.config import MemorySettings, default_settings
from assay.memory.models import Memory, MemoryFileError, MemoryIn, Reranker, SearchHit, load_memories
from assay.memory.retrieval.embeddings import ProgressEmbedder, canonical_identity, embed_texts, make_embedder
from assay.memory.retrieval.identity import EmbedderMismatchError
from assay.memory.retrieval.index import IndexRow, MemoryIndex
from assay.memory.retrieval.reembed import ReembedReport, reembed_store
from assay.memory.retrieval.rows import CHUNK, INDEX_COLS, REVISION_SQL, HitCache, read_memories
from assay.memory.retrieval.search import SearchResult, rank_hits, search
from assay.memory.retrieval.vectors import VectorPath, open_vector_path, sync_vectors
from assay.memory.retrieval.writes import AddResult, add_memories, adjust_memory, supersede_memory
from assay.memory.tables import memories, memory_state
from assay.storage import decode_json_texts, init_db, insert_ignore, make_engine

__all__ = ["MemoryStore"]


class MemoryStore:
    """A persistent agent memory with composite retrieval and a delivery log.

    ``url``: a database URL or an Engine (``None``: :func:`assay.storage.resolve_db_url`).
    ``settings``: :class:`~assay.memory.config.MemorySettings` (default
    :func:`~assay.memory.config.default_settings`). ``embedder``: an
    :class:`~assay.embedding.Embedder` (``model``, ``dim``, ``embed(texts)``); default: built from
    ``settings.embedder`` on first use. ``reranker``: a :class:`~assay.memory.models.Reranker`
    (``model``, ``rerank(query, memories) -> scores``); default: :meth:`resolve_reranker`.
    One store per thread; several processes may share one database.
    """

    def __init__(
        self,
        url: str | Engine | None = None,
        *,
        settings: MemorySettings | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
    ):
        self.engine = url if isinstance(url, Engine) else make_engine(url)
        init_db(self.engine)
        self.settings = settings or default_settings()
        self._embedder = embedder
        self._reranker = reranker
        self._reranker_asked: float | None = None  # monotonic time of the last "none" answer
        self._clock: Callable[[], float] = time.monotonic
        self._index: MemoryIndex | None = None
        self._revision: int | None = None
        self._hits = HitCache()  # delivered memories by id, see indexed_memories
        self._ensure_state()
        self.vector_path: VectorPath = open_vector_path(self.engine, self.settings, lambda: self.embedder)

    @property
    def embedder(self) -> Embedder:
        """The embedder (built from ``settings.embedder`` on first access)."""
        if self._embedder is None:
            s = self.settings
            self._embedder = (
                make_embedder(s.embedder, batch_size=s.encode_batch_size, threads=s.embed_threads)
                if s.embedder == "minilm"
                else make_embedder(s.embedder)
            )
        return self._embedder

    def report_embedding(self, report: Callable[[int], None], batch: int | None = None) -> None:
        """From now on, call ``report(n)`` after every ``n`` texts this store embeds (progress
        bars): the embedder is wrapped in a :class:`~assay.memory.retrieval.embeddings.ProgressEmbedder`
        of the same identity, slicing by ``batch`` texts (default ``settings.encode_batch_size``)."""
        self._embedder = ProgressEmbedder(self.embedder, report, batch or self.settings.encode_batch_size)

    @property
    def reranker(self) -> Reranker | None:
        """The reranker this store serves, or ``None`` (the composite ranks): the one passed in, else
        :meth:`resolve_reranker`, asked again at most every ``settings.reranker_recheck_s`` seconds
        until it names one (then kept for the store's life)."""
        if self._reranker is None and (
            self._reranker_asked is None or self._clock() - self._reranker_asked >= self.settings.reranker_recheck_s
        ):
            self._reranker = self.resolve_reranker()
            self._reranker_asked = self._clock()
        return self._reranker

    def resolve_reranker(self) -> Reranker | None:
        """The reranker to serve when none was passed: none here — retrieval does not choose one.

        :class:`assay.memory.MemoryStore` overrides this with learning's resolution
        (:func:`assay.memory.learning.resolution.store_reranker`: ``settings.reranker`` by name,
        else the cross-encoder that ``ASSAY_RERANKER_*`` configures — a deployed student first —
        or none, deciding "none" without importing torch)."""
        return None

    # -- writing ------------------------------------------------------------------------------

    def add(
        self,
        items: Iterable[MemoryIn | Mapping[str, Any]],
        *,
        embeddings: np.ndarray | None = None,
        embedding_model: str | None = None,
    ) -> AddResult:
        """Add memories in one transaction (all or nothing); see the module docstring for merging.

        ``embeddings``: optional precomputed vectors ``(len(items), dim)`` (any norm; stored
        unit-length), instead of per-item ``embedding`` fields; ``embedding_model`` names
        their model (default: this store's embedder; another identity is refused, like an add
        into a store whose vectors belong to another embedder:
        :class:`~assay.memory.retrieval.identity.EmbedderMismatchError`). Raises :class:`MemoryFileError` with
        every problem (an id repeated with another text, an id stored with another text, an
        unknown ``supersedes`` id, a vector of the wrong dimension, a pydantic field error).
        """
        numbered: list[tuple[int, MemoryIn]] = []
        problems: list[InputProblem] = []
        for i, m in enumerate(items, start=1):
            rec, probs = (m, []) if isinstance(m, MemoryIn) else _validate(m, i)
            problems.extend(probs)
            if rec is not None:  # None only with its problems listed: raised below
                numbered.append((i, rec))
        if problems:
            raise MemoryFileError(problems)
        return self._add(numbered, where="<memories>", embeddings=embeddings, embedding_model=embedding_model)

    def add_file(self, path: str | Path) -> AddResult:
        """Add every memory of a JSONL file (:func:`~assay.memory.models.load_memories`) in one transaction."""
        return self._add(load_memories(path), where=str(path), embeddings=None, embedding_model=None)

    def corroborate(self, memory_id: str, n: int = 1) -> Memory:
        """Count ``n`` corroborations for a memory; returns it updated. ``KeyError`` if unknown."""
        return self._adjust(memory_id, plus=n, minus=0)

    def contradict(self, memory_id: str, n: int = 1) -> Memory:
        """Count ``n`` contradictions against a memory; returns it updated. ``KeyError`` if unknown."""
        return self._adjust(memory_id, plus=0, minus=n)

    def supersede(self, old_id: str, new_id: str) -> None:
        """Mark ``old_id`` superseded by ``new_id`` (both stored; ``KeyError`` otherwise) and
        count a contradiction against it. Superseded memories are never delivered."""
        supersede_memory(self.engine, old_id, new_id, strength=self.settings.confidence_prior_strength)

    def reembed(self, *, on_progress: Callable[[int, int], None] | None = None, force: bool = False) -> ReembedReport:
        """Re-encode every memory stored with another embedder (all of them with ``force``) with
        this store's embedder, in one transaction; see :mod:`assay.memory.retrieval.reembed`.
        The in-process index is rebuilt on the next read."""
        rep = reembed_store(self, self.vector_path, on_progress=on_progress, force=force)
        self._index, self._revision = None, None
        self._hits.clear()
        return rep

    # -- reading ------------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        """The stored memory with this id, or ``None``."""
        return self.get_many([memory_id]).get(memory_id)

    def get_many(self, ids: Sequence[str]) -> dict[str, Memory]:
        """``{id: Memory}`` for the stored ones among ``ids``."""
        return read_memories(self.engine, ids)

    def indexed_memories(self, ids: Sequence[str]) -> dict[str, Memory]:
        """``{id: Memory}`` for the stored ones among ``ids`` (memories the index just ranked), as
        of the index's revision or later: what :meth:`get_many` returns, the recently delivered
        ones from a cache (:class:`~assay.memory.retrieval.rows.HitCache`).

        The cache holds rows read at or after the index's revision; :meth:`index` drops every
        memory whose row it reloads (every write — corroboration, contradiction, supersession,
        keyword union, re-embedding — stamps the rows it touches with a new revision,
        :mod:`assay.memory.retrieval.writes`), so a cached memory is never older than the index
        that ranked it. Use :meth:`get_many` for a read that must see writes made since.
        """
        return self._hits.get(ids, self.get_many)

    def count(self) -> int:
        """How many memories are stored (superseded ones included)."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(memories)).scalar_one())

    def index(self) -> MemoryIndex:
        """The in-process index, brought up to the store's revision. Raises
        :class:`~assay.memory.retrieval.identity.EmbedderMismatchError` when the store's vectors
        belong to another embedder (they are never re-encoded by a read).

        The revision check runs on every search: a constant statement through the driver
        (:data:`~assay.memory.retrieval.rows.REVISION_SQL`, no SQL compilation; 115 µs vs 270 µs
        for the Core ``select``, measured on SQLite)."""
        with self.engine.connect() as conn:
            rev = int(conn.exec_driver_sql(REVISION_SQL).scalar_one())
            if self._index is not None and rev == self._revision:
                return self._index
            since = -1 if self._revision is None else self._revision
            rows = conn.execute(select(*INDEX_COLS).where(memories.c.revision > since).order_by(memories.c.seq)).all()
        index = self._index if self._index is not None else MemoryIndex()
        self._hits.drop([r.id for r in rows])  # written since the cached copies were read
        if rows:
            keywords = decode_json_texts([r.keywords_json for r in rows])
            vectors = self._vectors(rows)
            index.upsert(
                [
                    IndexRow(
                        r.seq,
                        r.id,
                        r.text,
                        kw,
                        r.scope or None,
                        r.confidence,
                        _utc(r.created_at),
                        r.superseded_by is not None,
                        bool(r.is_correction),
                        v,
                    )
                    for r, kw, v in zip(rows, keywords, vectors, strict=True)
                ]
            )
        self._index, self._revision = index, rev
        return index

    def rank(
        self,
        query: str,
        k: int,
        *,
        scope: str | None = None,
        restrict_to_scope: bool = False,
        ranker: str = "composite",
        now: datetime | None = None,
    ) -> list[SearchHit]:
        """Rank without logging (evaluation, previews): the top ``k`` hits with components.

        ``ranker``: ``"composite"`` or ``"dense"`` here (BM25 and reranker rankings are in
        :mod:`assay.memory.retrieval.evaluate` and :mod:`assay.memory.retrieval.search`). ``query`` is used as given
        (no cleaning); blank → ``ValueError`` before any embedding.
        """
        return rank_hits(self, query, k, scope=scope, restrict_to_scope=restrict_to_scope, ranker=ranker, now=now)

    def search(
        self,
        context_window: str,
        k: int = 5,
        *,
        scope: str | None = None,
        session_id: str | None = None,
        restrict_to_scope: bool = False,
        explain: bool = False,
        search_id: str | None = None,
    ) -> SearchResult:
        """Search and log the deliveries; see :func:`assay.memory.retrieval.search.search`."""
        return search(
            self,
            context_window,
            k,
            scope=scope,
            session_id=session_id,
            restrict_to_scope=restrict_to_scope,
            explain=explain,
            search_id=search_id,
        )

    # -- internals ----------------------------------------------------------------------------

    def _add(
        self,
        numbered: list[tuple[int, MemoryIn]],
        *,
        where: str,
        embeddings: np.ndarray | None,
        embedding_model: str | None,
    ) -> AddResult:
        return add_memories(
            self, self.vector_path, numbered, where=where, embeddings=embeddings, embedding_model=embedding_model
        )

    def _adjust(self, memory_id: str, *, plus: int, minus: int) -> Memory:
        adjust_memory(self.engine, memory_id, plus=plus, minus=minus, strength=self.settings.confidence_prior_strength)
        got = self.get(memory_id)
        assert got is not None
        return got

    def _ensure_state(self) -> None:
        with self.engine.connect() as conn:
            if conn.execute(select(memory_state.c.name).where(memory_state.c.name == "memories")).first() is not None:
                return
        with self.engine.begin() as conn:  # another process may create it at the same time: kept once
            insert_ignore(conn, memory_state, {"name": "memories", "revision": 0}, ["name"])

    def _vectors(self, rows: Sequence[Any]) -> list[np.ndarray | None]:
        """Stored vectors of ``rows``; a row without one (none is written so) is encoded now and
        saved. Vectors of another embedder are never replaced here: :class:`EmbedderMismatchError`
        (convert the store on purpose with :func:`~assay.memory.retrieval.reembed.reembed_store`)."""
        model = canonical_identity(self.embedder.model)
        other: dict[str, int] = {}
        for r in rows:
            if r.embedding is not None and canonical_identity(r.embedding_model or "(unnamed)") != model:
                key = canonical_identity(r.embedding_model or "(unnamed)")
                other[key] = other.get(key, 0) + 1
        if other:
            raise EmbedderMismatchError(other, model, action="search")
        out: list[np.ndarray | None] = [r.embedding for r in rows]
        stale = [i for i, v in enumerate(out) if v is None]
        if stale:
            fresh = embed_texts(self.embedder, [rows[i].text for i in stale], self.settings.encode_batch_size)
            with self.engine.begin() as conn:
                for i, v in zip(stale, fresh, strict=True):
                    out[i] = v
                    conn.execute(
                        update(memories)
                        .where(memories.c.seq == rows[i].seq, memories.c.embedding.is_(None))
                        .values(embedding=v, embedding_model=self.embedder.model)
                    )
                for j in range(0, len(stale), CHUNK):
                    sync_vectors(
                        self.vector_path, conn, memories.c.seq.in_([rows[i].seq for i in stale[j : j + CHUNK]])
                    )
        return out


# --- helpers -------------------------------------------------------------------------------


def _validate(m: Mapping[str, Any], i: int) -> tuple[MemoryIn | None, list[InputProblem]]:
    try:
        return MemoryIn.model_validate(dict(m)), []
    except ValidationError as e:
        return None, validation_problems(e, file="<memories>", line=i, what="<memory>")


_utc = as_utc  # SQLite keeps no offset; rows are stored in UTC
