"""Column helpers of the in-process index: a growable numpy column and the vectorised recency."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Grow", "recency_of"]


class Grow:
    """A 1-D numpy array with amortised O(1) append; ``a`` is the backing array (use ``a[:n]``)."""

    def __init__(self, dtype: Any):
        self.a = np.zeros(1024, dtype=dtype)
        self.n = 0

    def append_zero(self) -> None:
        if self.n == self.a.shape[0]:
            grown = np.zeros(2 * self.a.shape[0], dtype=self.a.dtype)
            grown[: self.n] = self.a
            self.a = grown
        self.n += 1


def recency_of(created: np.ndarray, now: float, half_life_days: float) -> np.ndarray:
    """:func:`~assay.memory.retrieval.scoring.recency_component` of many memories at once:
    ``0.5 ** (max(0, age) / half_life)`` (float64, (0, 1]) for ``created`` epoch seconds (NaN,
    unknown → 0) at ``now`` epoch seconds. Non-increasing in ``now − created``."""
    age_days = np.maximum(0.0, (now - created) / 86400.0)
    out = np.power(0.5, age_days / half_life_days)
    return np.where(np.isnan(out), 0.0, out)
