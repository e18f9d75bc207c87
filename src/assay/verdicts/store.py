"""VerdictStore: verdicts persisted on assay's storage, retrieved by structural similarity.

Tables: :mod:`assay.verdicts.tables` (on :data:`assay.storage.metadata`, created idempotently on
first use); statistics: :mod:`assay.verdicts.stats`.

Retrieval scores in process with :class:`~assay.verdicts.similarity.SimilarityIndex`, loaded
once and kept current by the store's ``revision``: new rows (``seq`` above the last seen) are
appended; a count mismatch (rows committed out of ``seq`` order, or deleted) triggers a full
reload. The optional embedding term takes an :class:`~assay.embedding.Embedder` (the one
embedder contract of assay, shared with memory). Only portable SQLAlchemy Core is used here;
dialect specifics live in :mod:`assay.storage`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Engine, Text, func, select, type_coerce, update
from sqlalchemy.exc import IntegrityError

from assay.cases import InputProblem
from assay.embedding import Embedder
from assay.storage import decode_json_texts, init_db, make_engine, upsert
from assay.verdicts.models import ScoredVerdict, Verdict, VerdictFileError, VerdictQuery, load_verdicts, parse_query
from assay.verdicts.similarity import SimilarityIndex
from assay.verdicts.spec import DEFAULT_SPEC, SimilaritySpec, SpecError
from assay.verdicts.stats import store_stats
from assay.verdicts.tables import verdict_stores, verdicts_table

__all__ = ["AddResult", "DuplicateVerdictError", "VerdictStore", "store_sizes"]

#: Rows per ``IN (...)`` list and per embedding batch: below SQLite's 999-parameter floor.
_CHUNK = 500


class DuplicateVerdictError(VerdictFileError):
    """An id repeated in the input, or already stored with other content; nothing was inserted."""


@dataclass(frozen=True)
class AddResult:
    """What an add did: ``added`` new verdicts, ``unchanged`` ones already stored identically."""

    added: int
    unchanged: int


def store_sizes(url: str | Engine | None = None) -> dict[str, int]:
    """Every verdict store of the database, name → verdict count, by name (``{}`` when none)."""
    engine = url if isinstance(url, Engine) else make_engine(url)
    init_db(engine)
    t = verdict_stores.c
    with engine.connect() as conn:
        return {r.name: int(r.n) for r in conn.execute(select(t.name, t.n).order_by(t.name))}


class VerdictStore:
    """A named, persistent collection of verdicts with structural retrieval.

    ``url`` is a database URL or an :class:`~sqlalchemy.Engine` (``None``: resolved by
    :func:`assay.storage.resolve_db_url`). ``spec`` is used when the store is created (on first
    :meth:`add`; default :data:`DEFAULT_SPEC`); for an existing store it must equal the stored
    spec, else :class:`SpecError`. A spec with an embedding term needs an ``embedder`` (an
    :class:`~assay.embedding.Embedder`: ``model`` and ``embed(texts)`` are used here) to add and
    retrieve (``ValueError`` naming the store otherwise; :meth:`stats` works without).
    Not thread-safe; one instance per thread or task.
    """

    def __init__(
        self,
        url: str | Engine | None = None,
        *,
        name: str = "default",
        spec: SimilaritySpec | None = None,
        embedder: Embedder | None = None,
    ):
        if not name.strip() or len(name) > 200:
            raise ValueError(f"store name must be 1–200 characters, got {len(name)}")
        self.engine = url if isinstance(url, Engine) else make_engine(url)
        init_db(self.engine)
        self.name = name
        self.embedder = embedder
        with self.engine.connect() as conn:
            row = conn.execute(select(verdict_stores.c.spec).where(verdict_stores.c.name == name)).first()
        stored = SimilaritySpec.model_validate(row.spec) if row is not None else None
        if stored is not None and spec is not None and spec != stored:
            raise SpecError(
                f"store {name!r} was created with another spec ({_spec_diff(stored, spec)}); "
                "use a new store name for a different spec"
            )
        self.spec: SimilaritySpec = stored or spec or DEFAULT_SPEC
        self._index: SimilarityIndex | None = None
        self._revision: int | None = None

    # -- writing ------------------------------------------------------------------------------

    def add(self, verdicts: Iterable[Verdict | Mapping[str, Any]]) -> int:
        """Insert verdicts in one transaction; returns how many were new. All or nothing.

        Idempotent: a verdict already stored identically (same id and content) is left as it is.
        Fields are validated against the spec (``FieldValueError`` naming the field). Raises
        :class:`DuplicateVerdictError` when an id repeats, or is stored with other content
        (naming what differs).
        """
        numbered = []
        for i, v in enumerate(verdicts, start=1):
            if isinstance(v, Verdict):
                v = v.model_copy(update={"fields": self.spec.validate_fields(v.fields)})
            else:
                v = Verdict.model_validate({**v, "fields": self.spec.validate_fields(v.get("fields"))})
            numbered.append((i, v))
        return self._insert(numbered, where="<verdicts>").added

    def add_file(self, path: str | Path) -> int:
        """Insert every verdict of a JSONL file in one transaction; returns how many were new."""
        return self.add_file_result(path).added

    def add_file_result(self, path: str | Path) -> AddResult:
        """Insert every verdict of a JSONL file in one transaction: what was added, what was
        already stored identically (adding a file twice changes nothing).

        Raises :class:`VerdictFileError` (``file:line: field: problem`` for every bad line, and
        for ids stored with other content); nothing from the file is inserted then.
        """
        return self._insert(load_verdicts(path, self.spec), where=str(path))

    def exists(self) -> bool:
        """Whether the store was ever created (by a first :meth:`add`) in this database."""
        with self.engine.connect() as conn:
            row = conn.execute(select(verdict_stores.c.name).where(verdict_stores.c.name == self.name)).first()
        return row is not None

    # -- reading ------------------------------------------------------------------------------

    def retrieve(self, query: VerdictQuery | Mapping[str, Any], k: int = 5) -> list[ScoredVerdict]:
        """The ``k`` most similar verdicts, best first; ties by verdict id ascending.

        ``query`` is ``{"fields": {...}, "description": ...}`` (fields a subset of the spec's;
        :class:`~assay.verdicts.models.QueryError` naming the field otherwise). Returns fewer
        than ``k`` when the store is smaller, ``[]`` when it is empty. Scores in [0, 1].
        """
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        q = parse_query(query, self.spec)
        self._check_embedder()
        index = self._sync()
        q_emb = None
        if self.spec.embedding.weight > 0 and len(index):
            # both checked above: the embedder by _check_embedder, the description by parse_query
            assert self.embedder is not None and q.description is not None
            q_emb = np.asarray(self.embedder.embed([q.description]))[0]
        hits = index.top_k(q.fields, k, query_embedding=q_emb)
        if not hits:
            return []
        by_seq = self._fetch([h.key for h in hits])
        return [
            ScoredVerdict(verdict=by_seq[h.key], score=h.score, components=h.components, rank=i)
            for i, h in enumerate(hits, start=1)
        ]

    def get(self, verdict_id: str) -> Verdict | None:
        """The stored verdict with this id, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(verdicts_table).where(verdicts_table.c.store == self.name, verdicts_table.c.id == verdict_id)
            ).first()
        return _to_verdict(row) if row is not None else None

    def count(self) -> int:
        """How many verdicts the store holds (0 for a store never written)."""
        with self.engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(verdicts_table).where(verdicts_table.c.store == self.name)
                ).scalar_one()
            )

    def __len__(self) -> int:
        return self.count()

    def stats(self) -> dict[str, Any]:
        """Aggregate description of the store (no verdict ids): see :func:`assay.verdicts.stats.store_stats`."""
        return store_stats(self.engine, self.name, self.spec)

    # -- internals ----------------------------------------------------------------------------

    def _insert(self, numbered: list[tuple[int, Verdict]], *, where: str) -> AddResult:
        if not numbered:
            return AddResult(0, 0)
        self._check_embedder()
        seen: dict[str, int] = {}
        dupes = []
        for line, v in numbered:
            if v.id in seen:
                dupes.append(
                    InputProblem(
                        file=where, line=line, field="id", problem=f"duplicate id {v.id!r}; first at line {seen[v.id]}"
                    )
                )
            seen.setdefault(v.id, line)
        if dupes:
            raise DuplicateVerdictError(dupes)
        for attempt in (1, 2):  # a concurrent writer may insert one of these ids first
            with self.engine.connect() as conn:
                stored = self._stored(conn, list(seen))
            self._check_conflicts(numbered, stored, where)
            new = [v for _, v in numbered if v.id not in stored]
            if not new:
                return AddResult(added=0, unchanged=len(numbered))
            embeddings = self._embed([v.description for v in new]) if self.spec.embedding.weight > 0 else None
            rows = [self._row(v, None if embeddings is None else embeddings[i]) for i, v in enumerate(new)]
            try:
                with self.engine.begin() as conn:
                    self._claim_store(conn, len(rows))
                    if set(self._stored(conn, [v.id for v in new])):  # inserted since: start again
                        raise IntegrityError("verdict ids inserted concurrently", None, Exception())
                    conn.execute(verdicts_table.insert(), rows)
                return AddResult(added=len(rows), unchanged=len(numbered) - len(rows))
            except IntegrityError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _check_conflicts(self, numbered: list[tuple[int, Verdict]], stored: dict[str, Verdict], where: str) -> None:
        """Raise :class:`DuplicateVerdictError` for each stored id whose content differs."""
        conflicts = [
            InputProblem(
                file=where,
                line=line,
                field="id",
                problem=f"{v.id!r} is already in store {self.name!r} with another "
                f"{_differences(stored[v.id], v)}; give it a new id, or leave it out",
            )
            for line, v in numbered
            if v.id in stored and stored[v.id] != v
        ]
        if conflicts:
            raise DuplicateVerdictError(conflicts)

    def _check_embedder(self) -> None:
        if self.spec.embedding.weight > 0 and self.embedder is None:
            raise ValueError(
                f"store {self.name!r}: the spec's embedding term has weight {self.spec.embedding.weight:g}; "
                "pass an embedder (VerdictStore(..., embedder=...))"
            )

    def _claim_store(self, conn: Any, n_new: int) -> None:
        """Create the store row or bump its revision — the transaction's first statement is a
        write, so it holds the write lock before reading anything — then check its spec."""
        t = verdict_stores.c
        upsert(
            conn,
            verdict_stores,
            {"name": self.name, "spec": self.spec.to_json(), "revision": 1, "n": n_new},
            ["name"],
            update={"revision": t.revision + 1, "n": t.n + n_new},
        )
        stored = conn.execute(select(t.spec).where(t.name == self.name)).scalar_one()
        if SimilaritySpec.model_validate(stored) != self.spec:
            raise SpecError(f"store {self.name!r} was created by another process with another spec; reopen it")

    def _stored(self, conn: Any, ids: list[str]) -> dict[str, Verdict]:
        """The stored verdicts among ``ids``, by id."""
        c = verdicts_table.c
        found: dict[str, Verdict] = {}
        for i in range(0, len(ids), _CHUNK):
            rows = conn.execute(select(verdicts_table).where(c.store == self.name, c.id.in_(ids[i : i + _CHUNK])))
            found.update((r.id, _to_verdict(r)) for r in rows)
        return found

    def _row(self, v: Verdict, emb: np.ndarray | None) -> dict[str, Any]:
        assert emb is None or self.embedder is not None  # an embedding comes from the embedder
        return {
            "store": self.name,
            "id": v.id,
            "fields": v.fields,
            "decision": v.decision,
            "rationale": v.rationale,
            "description": v.description,
            "created_at": v.created_at,
            "source": v.source,
            "embedding": None if emb is None else np.asarray(emb, dtype="<f4").tobytes(),
            "embedding_model": None if emb is None or self.embedder is None else self.embedder.model,
        }

    def _embed(self, texts: list[str]) -> list[np.ndarray]:
        embedder = self.embedder
        assert embedder is not None  # called only with the embedding term on (_check_embedder ran)
        out: list[np.ndarray] = []
        for i in range(0, len(texts), _CHUNK):
            batch = np.asarray(embedder.embed(texts[i : i + _CHUNK]), dtype=np.float32)
            if batch.ndim != 2 or batch.shape[0] != len(texts[i : i + _CHUNK]):
                raise ValueError(
                    f"embedder {embedder.model!r} returned shape {batch.shape} for {len(texts[i : i + _CHUNK])} texts"
                )
            out.extend(batch)
        return out

    def _sync(self) -> SimilarityIndex:
        """Bring the in-memory index up to the store's revision (append new rows or reload)."""
        c = verdicts_table.c
        cols = [c.seq, c.id, type_coerce(c.fields, Text).label("fields_json")]
        if self.spec.embedding.weight > 0:
            cols += [c.embedding, c.embedding_model, c.description]
        with self.engine.connect() as conn:
            rev = conn.execute(select(verdict_stores.c.revision).where(verdict_stores.c.name == self.name)).scalar()
            if self._index is not None and rev == self._revision:
                return self._index
            index = self._index if self._index is not None else SimilarityIndex(self.spec)
            last = index.keys[-1] if len(index) else 0
            rows = conn.execute(select(*cols).where(c.store == self.name, c.seq > last).order_by(c.seq)).all()
            total = conn.execute(
                select(func.count()).select_from(verdicts_table).where(c.store == self.name)
            ).scalar_one()
            if len(index) + len(rows) != total:
                index = SimilarityIndex(self.spec)
                rows = conn.execute(select(*cols).where(c.store == self.name).order_by(c.seq)).all()
        vectors = self._vectors(rows) if self.spec.embedding.weight > 0 else None
        index.extend(
            [r.seq for r in rows], [r.id for r in rows], decode_json_texts([r.fields_json for r in rows]), vectors
        )
        self._index, self._revision = index, rev
        return index

    def _vectors(self, rows: Sequence[Any]) -> list[np.ndarray]:
        """Stored embeddings of ``rows``; missing or other-model ones are computed and saved."""
        assert self.embedder is not None  # called only with the embedding term on (_check_embedder ran)
        model = self.embedder.model
        stale = [i for i, r in enumerate(rows) if r.embedding is None or r.embedding_model != model]
        stale_set = set(stale)
        vecs: list[Any] = [
            None if i in stale_set else np.frombuffer(r.embedding, dtype="<f4") for i, r in enumerate(rows)
        ]
        if stale:
            fresh = self._embed([rows[i].description for i in stale])
            with self.engine.begin() as conn:
                for i, v in zip(stale, fresh, strict=True):
                    vecs[i] = v
                    conn.execute(
                        update(verdicts_table)
                        .where(verdicts_table.c.seq == rows[i].seq)
                        .values(embedding=np.asarray(v, dtype="<f4").tobytes(), embedding_model=model)
                    )
        return vecs

    def _fetch(self, seqs: list[int]) -> dict[int, Verdict]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(verdicts_table).where(verdicts_table.c.seq.in_(seqs))).all()
        return {r.seq: _to_verdict(r) for r in rows}


# --- helpers -------------------------------------------------------------------------------


def _to_verdict(row: Any) -> Verdict:
    # Verdict reads created_at as UTC (SQLite keeps no offset; stored as UTC)
    return Verdict(
        id=row.id,
        fields=row.fields,
        decision=row.decision,
        rationale=row.rationale,
        description=row.description,
        created_at=row.created_at,
        source=row.source,
    )


def _differences(stored: Verdict, given: Verdict) -> str:
    """``decision (stored 'approve', given 'reject')``, or the names of every field that differs."""
    a, b = stored.model_dump(), given.model_dump()
    diff = [k for k in a if a[k] != b[k]]
    if len(diff) == 1 and isinstance(a[diff[0]], str | None) and len(str(a[diff[0]])) <= 40:
        return f"{diff[0]} (stored {a[diff[0]]!r}, given {b[diff[0]]!r})"
    return ", ".join(diff)


def _spec_diff(a: SimilaritySpec, b: SimilaritySpec) -> str:
    da, db = a.to_json(), b.to_json()
    for key in sorted(set(da["fields"]) | set(db["fields"])):
        if da["fields"].get(key) != db["fields"].get(key):
            return f"fields.{key}: stored {da['fields'].get(key)} ≠ given {db['fields'].get(key)}"
    return f"embedding: stored {da['embedding']} ≠ given {db['embedding']}"
