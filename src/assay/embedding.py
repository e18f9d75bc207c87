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

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Protocol):
    """``embed(texts) -> float32 array (len(texts), dim)``; ``model`` names the model, ``dim`` the width.

    ``model`` is stored with every vector, so vectors of two models never mix: a store re-encodes
    the rows of another model. Memory wants unit-length rows (zero for a text without terms; it
    normalises what it gets) and reads ``dim`` to size its vector mirror and check precomputed
    vectors; the verdict store accepts rows of any norm and never reads ``dim``.
    """

    model: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...
