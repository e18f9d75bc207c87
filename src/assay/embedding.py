"""The one embedder contract of assay: texts in, one float vector per text out.

Agent memory (:mod:`assay.memory`) and the verdict store (:mod:`assay.verdicts`) both take an
embedder; they are sibling capability rooms, so the contract lives here, below both, rather than
in either one. Implementations live with their users (the packaged MiniLM and the hashing
embedder: :mod:`assay.memory.retrieval.embeddings`). numpy only: importing this module loads
no model and no torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder", "runtime_label"]


@runtime_checkable
class Embedder(Protocol):
    """``embed(texts) -> float32 array (len(texts), dim)``; ``model`` is the embedder's identity, ``dim`` the width.

    ``model`` is the identity of the *weights* — model name and revision, e.g.
    ``"sentence-transformers/all-MiniLM-L6-v2@53aa51172d14"`` — never of the runtime: an ONNX or
    int8 runtime of the same weights has the same ``model`` (their vectors are comparable) and
    tells itself apart by an optional ``runtime`` label (:func:`runtime_label`). ``model`` is
    stored with every vector, so vectors of two models never mix: the memory store refuses a
    search or an add by another embedder (``assay memory reembed`` converts a store on purpose);
    the verdict store re-encodes the rows of another model. Memory wants unit-length rows (zero
    for a text without terms; it normalises what it gets) and reads ``dim`` to size its vector
    mirror and check precomputed vectors; the verdict store accepts rows of any norm and never
    reads ``dim``.
    """

    model: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def runtime_label(embedder: Embedder) -> str:
    """The embedder's ``runtime`` label (what computes the vectors, e.g. ``"onnxruntime int8"``),
    or ``"unspecified"`` for an embedder without one. Reported, never compared: identity is ``model``."""
    return str(getattr(embedder, "runtime", None) or "unspecified")
