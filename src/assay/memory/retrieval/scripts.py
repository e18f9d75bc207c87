"""Warn when most memories are written in a script the store's embedder was not trained on.

all-MiniLM-L6-v2 was trained on English sentence pairs (Reimers & Gurevych 2019; the model
card's training data is English): on Korean, Chinese or Japanese text its cosine is close to
noise (issue 16: "지민은 어디에서 일해?" returned an unrelated memory first). The keyword
component and BM25 still match such memories lexically (character bigrams,
:func:`assay.memory.text.tokens`), so retrieval works, but the user should know the dense
part does not. :func:`script_warning` is what ``assay memory add`` and ``assay memory stats``
print, and why the composite scales the similarity of such a query down
(``MemorySettings.untrained_script_similarity``, :func:`trained_on`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import select

from assay.memory.retrieval.embeddings import MINILM_IDENTITY, canonical_identity
from assay.memory.retrieval.identity import stored_identities
from assay.memory.tables import memories
from assay.memory.text import dominant_script

__all__ = ["TRAINED_SCRIPTS", "script_warning", "script_shares", "trained_on", "WARN_SHARE", "SAMPLE"]

#: The scripts each embedder was trained on; an embedder not listed (the hashing embedder:
#: its tokens are script-agnostic) is never warned about.
TRAINED_SCRIPTS = {MINILM_IDENTITY: frozenset({"Latin"})}

#: "Most memories": more than half of them (by their dominant script).
WARN_SHARE = 0.5

#: At most this many memories (the latest by insertion) are read to decide: a share, not a census.
SAMPLE = 5000


def trained_on(embedder: Any, text: str) -> bool:
    """Whether ``embedder`` was trained on the dominant script of ``text`` (``True`` for an
    embedder not in :data:`TRAINED_SCRIPTS`, and for a text without letters)."""
    trained = TRAINED_SCRIPTS.get(canonical_identity(embedder.model))
    if trained is None:
        return True
    script = dominant_script(text)
    return script is None or script in trained


def script_shares(texts: list[str]) -> dict[str, float]:
    """``{script: share of texts whose letters are mostly in it}`` over the texts with letters."""
    counts = Counter(s for s in map(dominant_script, texts) if s is not None)
    n = sum(counts.values())
    return {k: v / n for k, v in counts.most_common()} if n else {}


def script_warning(store: Any) -> str | None:
    """One line when more than :data:`WARN_SHARE` of the store's memories are mostly in scripts
    its embedder (the stored vectors' identity, else the configured one) was not trained on;
    ``None`` otherwise (an empty store, a script-agnostic embedder, mostly trained scripts)."""
    with store.engine.connect() as conn:
        held = stored_identities(conn)
        texts = list(conn.execute(select(memories.c.text).order_by(memories.c.seq.desc()).limit(SAMPLE)).scalars())
    ident = max(held, key=lambda k: held[k]) if held else canonical_identity(store.embedder.model)
    trained = TRAINED_SCRIPTS.get(canonical_identity(ident))
    if trained is None or not texts:
        return None
    shares = script_shares(texts)
    untrained = {k: v for k, v in shares.items() if k not in trained}
    total = sum(untrained.values())
    if total <= WARN_SHARE:
        return None
    which = ", ".join(f"{k} {v:.0%}" for k, v in untrained.items())
    return (
        f"{total:.0%} of the memories ({len(texts):,} read) are mostly in scripts the embedder {ident} was not "
        f"trained on ({which}; it was trained on {', '.join(sorted(trained))} text only): its similarity is "
        "unreliable there and retrieval rests on keyword matching (README: non-English memories)"
    )
