"""Re-embedding a store on purpose: every memory's vector replaced by another embedder's.

The only place a store's vectors change embedder (a search or an add by another embedder is
refused: :mod:`assay.memory.retrieval.identity`). :func:`reembed_store` encodes every memory's
text with the store's embedder, reporting progress, then writes all the vectors in one
transaction under the memories write lock (:func:`~assay.memory.retrieval.writes.bump_revision`):
other processes see the old vectors or the new ones, never a mix; a memory added meanwhile by
another writer is encoded inside that transaction. The pgvector mirror is updated in the same
transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import select, update

from assay.memory.models import StoreView
from assay.memory.retrieval.embeddings import canonical_identity, embed_texts
from assay.memory.retrieval.identity import stored_identities, stored_names
from assay.memory.retrieval.vectors import VectorPath, sync_vectors
from assay.memory.retrieval.writes import bump_revision
from assay.memory.tables import memories

__all__ = ["ReembedReport", "reembed_store"]

_CHUNK = 500


@dataclass(frozen=True)
class ReembedReport:
    """What :func:`reembed_store` did: ``reembedded`` memories now of ``identity``, ``before``
    ``{identity: memories}`` as found, ``total`` memories in the store, ``seconds`` spent."""

    reembedded: int
    identity: str
    before: dict[str, int]
    total: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values (no memory ids)."""
        return {
            "reembedded": self.reembedded,
            "identity": self.identity,
            "before": self.before,
            "total": self.total,
            "seconds": round(self.seconds, 3),
        }


def reembed_store(
    store: StoreView,
    vector_path: VectorPath,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    force: bool = False,
) -> ReembedReport:
    """Re-encode the memories of ``store`` whose vector is not of ``store.embedder`` (every
    memory with ``force``) and write them in one transaction.

    ``on_progress(done, total)``: called after each embedding batch (texts, not bytes).
    Returns a :class:`ReembedReport`; ``reembedded`` is 0 when every vector already belongs to
    the embedder (nothing written). Raises the embedder's errors (``ModuleNotFoundError`` for a
    missing ``ml`` extra) before anything is written.
    """
    import time

    t0 = time.perf_counter()
    emb = store.embedder
    ident = canonical_identity(emb.model)
    names = stored_names(ident)
    with store.engine.connect() as conn:
        before = stored_identities(conn)
        todo_q = select(memories.c.seq, memories.c.text).order_by(memories.c.seq)
        if not force:
            todo_q = todo_q.where(memories.c.embedding_model.not_in(names) | memories.c.embedding_model.is_(None))
        rows = conn.execute(todo_q).all()
        total = int(sum(before.values()))
    batch = max(1, store.settings.encode_batch_size)
    vectors: list[np.ndarray] = []
    for i in range(0, len(rows), batch):
        vectors.extend(embed_texts(emb, [r.text for r in rows[i : i + batch]], batch))
        if on_progress is not None:
            on_progress(min(i + batch, len(rows)), len(rows))
    done = {r.seq for r in rows}
    n = 0
    if rows:
        with store.engine.begin() as conn:
            rev = bump_revision(conn)
            late = [  # written by another process since the read above, with another embedder
                r
                for r in conn.execute(
                    select(memories.c.seq, memories.c.text).where(
                        memories.c.embedding_model.not_in(names) | memories.c.embedding_model.is_(None)
                    )
                )
                if r.seq not in done
            ]
            if late:
                rows = [*rows, *late]
                vectors.extend(embed_texts(emb, [r.text for r in late], batch))
            for r, v in zip(rows, vectors, strict=True):
                conn.execute(
                    update(memories)
                    .where(memories.c.seq == r.seq)
                    .values(embedding=v, embedding_model=ident, revision=rev)
                )
            seqs = [r.seq for r in rows]
            for j in range(0, len(seqs), _CHUNK):
                sync_vectors(vector_path, conn, memories.c.seq.in_(seqs[j : j + _CHUNK]))
            n = len(rows)
    with store.engine.connect() as conn:
        total = sum(stored_identities(conn).values())
    return ReembedReport(n, ident, before, total, time.perf_counter() - t0)
