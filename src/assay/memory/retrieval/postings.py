"""The keyword component's inverted index: keyword term → rows, scored for one query at once.

Each row of a :class:`~assay.memory.retrieval.index.MemoryIndex` holds the terms of its
keywords (:func:`~assay.memory.text.keyword_terms`); :class:`KeywordPostings` maps every term to
the rows holding it. :meth:`KeywordPostings.scores` is
:func:`~assay.memory.retrieval.scoring.keyword_component` for many rows at once — the
IDF-weighted share of the query's terms found among a row's keyword terms, with
:func:`~assay.memory.retrieval.scoring.bm25_idf` over the indexed rows — summing the query terms
in sorted order, so the numbers are the same on every run.
"""

from __future__ import annotations

import math
from collections.abc import Set

import numpy as np

from assay.memory.retrieval.scoring import bm25_idf

__all__ = ["KeywordPostings"]


class KeywordPostings:
    """Keyword terms per row and the inverted index term → rows (rows are positions 0 … n−1)."""

    def __init__(self) -> None:
        self._terms: list[frozenset[str]] = []
        self._rows: dict[str, set[int]] = {}
        self._arrays: dict[str, np.ndarray] = {}  # term → its rows as an array, rebuilt after a change

    def __len__(self) -> int:
        return len(self._terms)

    def append(self) -> None:
        """Add a row without keyword terms (its position is the previous length)."""
        self._terms.append(frozenset())

    def set(self, row: int, terms: Set[str]) -> None:
        """Make ``terms`` the keyword terms of ``row`` (postings of removed and added terms updated)."""
        new = frozenset(terms)
        old = self._terms[row]
        if new == old:
            return
        for t in old - new:
            self._rows[t].discard(row)
            self._arrays.pop(t, None)
        for t in new - old:
            self._rows.setdefault(t, set()).add(row)
            self._arrays.pop(t, None)
        self._terms[row] = new

    def scores(self, cand: np.ndarray, query_terms: Set[str]) -> np.ndarray:
        """The keyword component (float64 in [0, 1]) of the rows ``cand`` for a query's terms;
        all zero for a query without terms (see the module docstring)."""
        n = len(self)
        idf = {t: bm25_idf(len(self._rows.get(t, ())), n) for t in query_terms}
        total = math.fsum(idf.values())
        if total <= 0.0:
            return np.zeros(cand.size)
        acc = np.zeros(n)
        for t in sorted(query_terms):  # fixed order: the sum is the same on every run
            rows = self._term_rows(t)
            if rows.size:
                acc[rows] += idf[t]
        return np.minimum(1.0, acc[cand] / total)

    def hits(self, query_terms: Set[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, scores)``: the rows holding at least one query term (sorted int64) and their
        keyword component — the nonzero entries of :meth:`scores`, bit for bit (the same
        additions in the same term order), in O(Σ df · log) instead of O(n). Empty for a query
        without terms."""
        n = len(self)
        idf = {t: bm25_idf(len(self._rows.get(t, ())), n) for t in query_terms}
        total = math.fsum(idf.values())
        parts = [(self._term_rows(t), idf[t]) for t in sorted(query_terms)]
        parts = [(r, x) for r, x in parts if r.size]
        if total <= 0.0 or not parts:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if len(parts) == 1:  # a term's rows are kept sorted (_term_rows)
            rows, x = parts[0]
            return rows, np.minimum(1.0, np.full(rows.size, 0.0 + x) / total)
        flat = np.concatenate([r for r, _ in parts])
        weight = np.concatenate([np.full(r.size, x) for r, x in parts])
        rows, inverse = np.unique(flat, return_inverse=True)
        acc = np.bincount(inverse, weights=weight, minlength=rows.size)  # sequential: term order per row
        return rows, np.minimum(1.0, acc / total)

    def _term_rows(self, t: str) -> np.ndarray:
        """The rows holding term ``t``, sorted (int64; cached until the term's rows change: a
        read-only array, never written by a caller)."""
        arr = self._arrays.get(t)
        if arr is None:
            arr = np.sort(np.fromiter(self._rows.get(t, ()), dtype=np.int64))
            arr.flags.writeable = False
            self._arrays[t] = arr
        return arr
