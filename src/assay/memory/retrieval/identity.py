"""Which embedder a store's vectors belong to, and the refusal to mix or silently replace them.

A store's embedder is the identity (``embedding_model``, :class:`assay.embedding.Embedder`'s
``model``: the weights, model name and revision, never the runtime) stored with its vectors.
A search or an add whose embedder has another identity is refused with
:class:`EmbedderMismatchError` naming both: searching would otherwise need every vector
re-encoded (the 41 s that issue 16 measured on 2,046 memories), and in a shared database
processes with different settings would flip the vectors back and forth. Converting a store is
an explicit act, ``assay memory reembed`` (:mod:`assay.memory.retrieval.reembed`).
Identities stored by earlier versions are read through
:func:`~assay.memory.retrieval.embeddings.canonical_identity`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select

from assay.memory.retrieval.embeddings import LEGACY_IDENTITIES, canonical_identity, embedder_name
from assay.memory.tables import memories

__all__ = ["EmbedderMismatchError", "stored_identities", "check_store_embedder", "stored_names"]


class EmbedderMismatchError(ValueError):
    """A search or add by an embedder other than the one the store's vectors belong to.

    ``stored``: ``{identity: number of memories}`` of the store's vectors; ``embedder``: the
    identity of the embedder that was asked to search or add; ``action``: ``"search"`` or
    ``"add"``. The message names both, the ``--embedder`` that matches the store, and
    ``assay memory reembed`` for converting the store on purpose. A ``ValueError``: the CLI
    exits 2 (nothing written).
    """

    def __init__(self, stored: Mapping[str, int], embedder: str, *, action: str):
        self.stored = dict(stored)
        self.embedder = embedder
        self.action = action
        held = ", ".join(
            f"{ident} ({_name(ident)}; {n:,} memor{'y' if n == 1 else 'ies'})" for ident, n in stored.items()
        )
        match = [embedder_name(i) for i in stored]
        use = f"--embedder {match[0]} (or ASSAY_MEMORY_EMBEDDER={match[0]})" if len(match) == 1 and match[0] else None
        mine = embedder_name(embedder)
        super().__init__(
            f"embedder mismatch: the store's vectors are {held}, but this {action} embeds with {embedder} "
            f"({_name(embedder)}); the store is never re-embedded by a {action}: "
            + (f"use {use}, or " if use else "")
            + f"re-embed it on purpose with `assay memory reembed --embedder {mine or '<name>'}`"
        )


def _name(identity: str) -> str:
    name = embedder_name(identity)
    return f"--embedder {name}" if name else "not a built-in embedder"


def stored_names(identity: str) -> list[str]:
    """Every ``embedding_model`` value that stands for ``identity`` (itself and its legacy names)."""
    ident = canonical_identity(identity)
    return [ident, *sorted(k for k, v in LEGACY_IDENTITIES.items() if v == ident)]


def stored_identities(conn: Any) -> dict[str, int]:
    """``{identity: memories}`` of the vectors stored in ``memories`` (legacy names canonicalised;
    rows without a vector are not counted). One ``GROUP BY`` over the table."""
    out: dict[str, int] = {}
    rows = conn.execute(
        select(memories.c.embedding_model, func.count())
        .where(memories.c.embedding.is_not(None))
        .group_by(memories.c.embedding_model)
    )
    for model, n in rows:
        key = canonical_identity(model or "(unnamed)")
        out[key] = out.get(key, 0) + int(n)
    return out


def check_store_embedder(engine: Any, identity: str, *, action: str) -> None:
    """Raise :class:`EmbedderMismatchError` when the store holds vectors of an identity other
    than ``identity``; an empty store accepts any embedder."""
    with engine.connect() as conn:
        held = stored_identities(conn)
    ident = canonical_identity(identity)
    if any(k != ident for k in held):
        raise EmbedderMismatchError(held, ident, action=action)
