"""Structural similarity: a pure scalar rule and a vectorised index that computes the same numbers.

:func:`similarity` is the reference definition (one query, one verdict). :class:`SimilarityIndex`
scores one query against every indexed verdict at once with numpy — set fields through an
inverted index (postings per code, ``np.bincount`` of the query codes' postings gives ``|A ∩ B|``
for every row), category and bucket fields as integer-code arrays compared to the query's code —
and adds the weighted components in the spec's field order, so its scores are bit-identical to
:func:`similarity` (same IEEE operations in the same order). Ranking is by score descending, ties
broken by verdict id ascending (code-point order), selected in O(n) with ``np.partition``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from assay.verdicts.spec import FieldSpec, SimilaritySpec, bucket_of

__all__ = ["similarity", "component", "SimilarityIndex", "Hit", "top_k_order"]

#: Largest k ranked by walking down score levels (see :func:`top_k_order`); above, np.partition.
_LEVEL_WALK_MAX_K = 64

#: Bucket code of a verdict without a value for a bucket field; equals no query bucket.
_NO_BUCKET = np.iinfo(np.int64).min


def similarity(
    query: Mapping[str, Any], verdict: Mapping[str, Any], spec: SimilaritySpec, *, cosine: float | None = None
) -> tuple[float, dict[str, float]]:
    """Score one verdict's canonical ``fields`` against a query's: ``(score, components)``.

    ``components[f]`` is field ``f``'s unweighted similarity in [0, 1] (:func:`component`);
    ``score = Σ weight_f · components[f]`` summed in spec order, in [0, 1]. With an embedding
    term (weight > 0), ``cosine`` is the cosine of the two description embeddings; the
    component is ``max(0, cosine)`` (0 when ``None``) and is reported as ``"embedding"``.
    """
    score = 0.0
    comps: dict[str, float] = {}
    for name, fs in spec.fields.items():
        c = component(fs, query.get(name), verdict.get(name))
        comps[name] = c
        score += fs.weight * c
    if spec.embedding.weight > 0:
        c = max(0.0, float(cosine)) if cosine is not None else 0.0
        comps["embedding"] = c
        score += spec.embedding.weight * c
    return score, comps


def component(fs: FieldSpec, q: Any, v: Any) -> float:
    """Unweighted similarity of two canonical values of one field (0 when either is absent):
    Jaccard for ``set`` (0 for two empty sets), equality for ``category``, same bucket for ``bucket``."""
    if q is None or v is None:
        return 0.0
    if fs.kind == "set":
        a, b = set(q), set(v)
        inter = len(a & b)
        union = len(a) + len(b) - inter
        return inter / union if union else 0.0
    if fs.kind == "category":
        return 1.0 if q == v else 0.0
    return 1.0 if bucket_of(q, fs) == bucket_of(v, fs) else 0.0


class Hit(NamedTuple):
    """One ranked row of an index: the caller's ``key`` (e.g. a database row id), the verdict id,
    the score and the per-field components."""

    key: int
    id: str
    score: float
    components: dict[str, float]


class SimilarityIndex:
    """In-memory, append-only columns of canonical verdict fields for vectorised scoring.

    Memory is O(total set items + n) integers, plus ``n × d`` float32 when the spec has an
    embedding term. Appends are O(items); the arrays are rebuilt lazily on the next query after
    appends (one sort over the set items, O(m log m)).
    """

    def __init__(self, spec: SimilaritySpec):
        self.spec = spec
        self._keys: list[int] = []
        self._ids: list[str] = []
        self._vocab: dict[str, dict[str, int]] = {n: {} for n, f in spec.fields.items() if f.kind != "bucket"}
        self._set_rows: dict[str, list[int]] = {n: [] for n, f in spec.fields.items() if f.kind == "set"}
        self._set_codes: dict[str, list[int]] = {n: [] for n in self._set_rows}
        self._set_sizes: dict[str, list[int]] = {n: [] for n in self._set_rows}
        self._codes: dict[str, list[int]] = {n: [] for n, f in spec.fields.items() if f.kind != "set"}
        self._vectors: list[np.ndarray] = []
        self._dim: int | None = None
        self._frozen: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def keys(self) -> list[int]:
        """The caller keys in insertion order."""
        return self._keys

    def add(self, key: int, id: str, fields: Mapping[str, Any], embedding: np.ndarray | None = None) -> None:
        """Append one verdict (see :meth:`extend`)."""
        self.extend([key], [id], [fields], None if embedding is None else [embedding])

    def extend(
        self,
        keys: Sequence[int],
        ids: Sequence[str],
        fields: Sequence[Mapping[str, Any]],
        embeddings: Sequence[np.ndarray | None] | None = None,
    ) -> None:
        """Append verdicts: caller ``keys``, verdict ``ids``, canonical ``fields`` (see
        :meth:`SimilaritySpec.validate_fields`) and, when the spec has an embedding term, their
        description embeddings (1-D, any norm). O(total set items).

        Raises ``ValueError`` when the lengths differ, or an embedding is missing or of another
        dimension than earlier ones; nothing is appended then.
        """
        if not len(keys) == len(ids) == len(fields):
            raise ValueError(f"keys, ids and fields differ in length ({len(keys)}, {len(ids)}, {len(fields)})")
        vectors: list[np.ndarray] = []
        if self.spec.embedding.weight > 0:
            embs = embeddings if embeddings is not None else [None] * len(keys)
            vectors = [self._unit(e, f"verdict {i!r}") for i, e in zip(ids, embs, strict=True)]
        row0 = len(self._keys)
        for name, fs in self.spec.fields.items():
            values = [f.get(name) for f in fields]
            if fs.kind == "set":
                vocab, rows, codes, sizes = (
                    self._vocab[name],
                    self._set_rows[name],
                    self._set_codes[name],
                    self._set_sizes[name],
                )
                for row, items in enumerate(values, start=row0):
                    items = items or ()
                    codes.extend([vocab.setdefault(it, len(vocab)) for it in items])
                    rows.extend([row] * len(items))
                    sizes.append(len(items))
            elif fs.kind == "category":
                vocab = self._vocab[name]
                self._codes[name].extend([-1 if v is None else vocab.setdefault(v, len(vocab)) for v in values])
            else:
                self._codes[name].extend([_NO_BUCKET if v is None else bucket_of(v, fs) for v in values])
        self._vectors.extend(vectors)
        self._keys.extend(keys)
        self._ids.extend(ids)
        self._frozen = None

    def score(
        self, query: Mapping[str, Any], *, query_embedding: np.ndarray | None = None
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Scores of every indexed row for canonical query ``fields``: ``(scores[n], {field: components[n]})``.

        Equal, bit for bit, to :func:`similarity` row by row (the embedding term up to float32
        rounding of the stored vectors). Raises ``ValueError`` when the spec has an embedding
        term and ``query_embedding`` is missing or of the wrong dimension.
        """
        fz = self._freeze()
        n = len(self._keys)
        scores = np.zeros(n, dtype=np.float64)
        comps: dict[str, np.ndarray] = {}
        for name, fs in self.spec.fields.items():
            value = query.get(name)
            if value is None:
                c = np.zeros(n)
            elif fs.kind == "set":
                c = self._jaccard(name, value, fz, n)
            elif fs.kind == "category":
                code = self._vocab[name].get(value, -2)
                c = (fz["codes"][name] == code).astype(np.float64)
            else:
                c = (fz["codes"][name] == bucket_of(value, fs)).astype(np.float64)
            comps[name] = c
            scores += fs.weight * c
        if self.spec.embedding.weight > 0:
            q = self._unit(query_embedding, "the query")
            c = np.maximum(fz["vectors"] @ q, 0.0).astype(np.float64) if n else np.zeros(0)
            comps["embedding"] = c
            scores += self.spec.embedding.weight * c
        return scores, comps

    def top_k(self, query: Mapping[str, Any], k: int, *, query_embedding: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` best rows (fewer when the index is smaller), best first, ties by id ascending."""
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        if not self._keys or k == 0:
            return []
        scores, comps = self.score(query, query_embedding=query_embedding)
        rows = top_k_order(scores, self._freeze()["id_rank"], k)
        return [
            Hit(self._keys[r], self._ids[r], float(scores[r]), {f: float(c[r]) for f, c in comps.items()}) for r in rows
        ]

    # -- internals ----------------------------------------------------------------------------

    def _freeze(self) -> dict[str, Any]:
        if self._frozen is not None:
            return self._frozen
        fz: dict[str, Any] = {"postings": {}, "codes": {}, "sizes": {}}
        for name in self._set_rows:
            rows = np.asarray(self._set_rows[name], dtype=np.int64)
            codes = np.asarray(self._set_codes[name], dtype=np.int64)
            order = np.argsort(codes, kind="stable")
            ptr = np.zeros(len(self._vocab[name]) + 1, dtype=np.int64)
            np.cumsum(np.bincount(codes, minlength=len(self._vocab[name])), out=ptr[1:])
            fz["postings"][name] = (rows[order], ptr)
            fz["sizes"][name] = np.asarray(self._set_sizes[name], dtype=np.float64)
        for name, column in self._codes.items():
            fz["codes"][name] = np.asarray(column, dtype=np.int64)
        if self.spec.embedding.weight > 0:
            fz["vectors"] = (
                np.vstack(self._vectors) if self._vectors else np.zeros((0, self._dim or 1), dtype=np.float32)
            )
        ids = np.asarray(self._ids, dtype=str)
        rank = np.empty(len(ids), dtype=np.int64)
        rank[np.argsort(ids, kind="stable")] = np.arange(len(ids))
        fz["id_rank"] = rank
        self._frozen = fz
        return fz

    def _jaccard(self, name: str, items: Sequence[str], fz: dict[str, Any], n: int) -> np.ndarray:
        vocab = self._vocab[name]
        posting_rows, ptr = fz["postings"][name]
        codes = sorted({vocab[i] for i in items if i in vocab})
        parts = [posting_rows[ptr[c] : ptr[c + 1]] for c in codes]
        inter = np.bincount(np.concatenate(parts), minlength=n).astype(np.float64) if parts else np.zeros(n)
        union = fz["sizes"][name] + float(len(set(items))) - inter
        out = np.zeros(n, dtype=np.float64)
        np.divide(inter, union, out=out, where=union > 0)
        return out

    def _unit(self, vec: np.ndarray | None, what: str) -> np.ndarray:
        if vec is None:
            raise ValueError(
                f"{what} has no embedding, but the spec's embedding term has weight {self.spec.embedding.weight:g}"
            )
        v = np.asarray(vec, dtype=np.float32).reshape(-1)
        if self._dim is None:
            self._dim = v.shape[0]
        elif v.shape[0] != self._dim:
            raise ValueError(f"{what}: embedding dimension {v.shape[0]} differs from the index's {self._dim}")
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else v


def top_k_order(scores: np.ndarray, id_rank: np.ndarray, k: int) -> np.ndarray:
    """Row indices of the ``k`` best rows: score descending, then ``id_rank`` ascending.

    O(n) per call. For ``k <= 64`` it walks down the distinct score levels from the top (at most
    ``k`` levels, each one vectorised pass), which stays fast when most scores tie (many rows
    share no structure and score 0), where ``np.partition`` degrades. For larger ``k`` the k-th
    largest score comes from ``np.partition``. Rows tied at the cut are chosen by id rank with
    ``np.argpartition``; only the ≤ k survivors are sorted.
    """
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k == n:
        cand = np.arange(n)
    elif k <= _LEVEL_WALK_MAX_K:
        picked, need, ceiling = [], k, np.inf
        while need > 0:
            level = np.where(scores < ceiling, scores, -np.inf).max()
            tied = np.flatnonzero(scores == level)
            if tied.shape[0] > need:
                tied = tied[np.argpartition(id_rank[tied], need - 1)[:need]]
            picked.append(tied)
            need -= tied.shape[0]
            ceiling = level
        cand = np.concatenate(picked)
    else:
        thr = np.partition(scores, n - k)[n - k]
        above = np.flatnonzero(scores > thr)
        tied = np.flatnonzero(scores == thr)
        need = k - above.shape[0]
        if tied.shape[0] > need:
            tied = tied[np.argpartition(id_rank[tied], need - 1)[:need]]
        cand = np.concatenate([above, tied])
    return cand[np.lexsort((id_rank[cand], -scores[cand]))]
