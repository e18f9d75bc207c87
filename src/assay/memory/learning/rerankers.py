"""Cross-encoder rerankers: loading once per process, floors, blend, fallback.

Which reranker serves is decided in :mod:`assay.memory.learning.resolution` (a student, else a
large model on a big enough GPU, else a small model on CPU, else none): it hands the chosen
model's :class:`Resolution` to :class:`CrossEncoderReranker`. Models are local folders (assay
works offline; nothing is downloaded); paths are settings. Each model has its own floor
(``small_floor``, ``large_floor``, ``student_floor``); the student's is off by default because
pairwise training fixes the order of scores, not their scale. A served model re-ranks the
composite's over-fetched candidate pool (``MemorySettings.rerank_depth``, 50 — not a truncated
top-k) through :func:`blend_scores`: ``w · minmax(model) + (1 − w) · minmax(composite)`` with
``w = blend_weight`` (default 0.5). A failure of the model (an exception, a wrong number of
scores, a non-finite score) leaves the caller's candidates untouched and returns them in
composite order (:func:`rerank_hits`).

Nothing here imports torch until a model is scored or loaded. A model loads once per process
(:func:`load_cross_encoder` caches by folder, device, length and quantisation, and by the
student card, so a redeployment loads afresh).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from assay.memory.config import RerankerSettings
from assay.memory.models import Memory, Reranker, SearchHit

__all__ = [
    "Resolution",
    "CrossEncoderReranker",
    "load_cross_encoder",
    "rerank_hits",
    "blend_scores",
    "minmax",
    "quiet_loading",
    "CARD_NAME",
]

#: The model card written next to (inside) a deployed student's folder.
CARD_NAME = "model_card.json"

Kind = Literal["student", "large", "small", "none"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Resolution:
    """The reranker to serve: ``kind`` (student | large | small | none), its folder ``path``,
    ``device`` (cpu | cuda), ``floor`` on its raw score (``None`` = off), ``blend_weight``, and
    ``reason`` — one line saying why this one. :func:`~assay.memory.learning.resolution.resolve_reranker`
    returns it; :class:`CrossEncoderReranker` serves it."""

    kind: Kind
    path: str | None
    device: str
    floor: float | None
    blend_weight: float
    reason: str


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` behind the :class:`~assay.memory.models.Reranker` seam.

    ``rerank(query, memories)`` → raw scores (the model's logit, higher is better);
    ``rerank_pool(query, hits, k)`` → the delivered hits after floor and blend (used by search).
    ``model`` (recorded as ``reranker_model``): the student's ``model_id`` from its card, else the
    folder's name; ``-int8`` is appended when quantised (its scores differ slightly).
    """

    def __init__(self, resolution: Resolution, settings: RerankerSettings):
        if resolution.kind == "none" or not resolution.path:
            raise ValueError("a CrossEncoderReranker needs a resolved model (kind student, large or small)")
        self.resolution = resolution
        self.settings = settings
        self.kind = resolution.kind
        self.floor = resolution.floor
        self.blend_weight = resolution.blend_weight
        self.int8 = settings.int8 and resolution.device == "cpu"
        self.card = _read_card(resolution.path) if resolution.kind == "student" else None
        base = (self.card or {}).get("model_id") or Path(resolution.path).name
        self.model = base + ("-int8" if self.int8 else "")

    def rerank(self, query: str, memories: Sequence[Memory | str]) -> list[float]:
        """Raw model scores of ``(query, memory.text)`` (or of plain strings), one per memory."""
        texts = [m if isinstance(m, str) else m.text for m in memories]
        return self.score_pairs([(query, t) for t in texts])

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Raw scores of ``(query, text)`` pairs, in their order (loads the model on first call).

        Pairs are scored in batches of ``batch_size`` after sorting by length, so each batch
        pads to a similar length (measured: 20 LoCoMo candidates p95 121 → 89 ms at batch 10)."""
        if not pairs:
            return []
        import torch

        ce = self.load()
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        with torch.inference_mode():
            out = ce.predict(
                [pairs[i] for i in order],
                batch_size=self.settings.batch_size,
                activation_fn=torch.nn.Identity(),
                convert_to_numpy=True,
                show_progress_bar=False,
            ).reshape(-1)
        scores = [0.0] * len(pairs)
        for j, i in enumerate(order):
            scores[i] = float(out[j])
        return scores

    def rerank_pool(self, query: str, pool: Sequence[SearchHit], k: int) -> list[SearchHit]:
        """The top ``k`` of the composite ``pool`` (``SearchHit`` objects, best first) after the
        floor and the blend; see :func:`rerank_hits`."""
        return rerank_hits(self, query, pool, k, blend_weight=self.blend_weight, floor=self.floor)

    def load(self) -> Any:
        """The loaded ``CrossEncoder`` (cached per process by :func:`load_cross_encoder`)."""
        path = self.resolution.path
        assert path is not None
        stamp = ""
        if self.card is not None:  # a redeployed student (new card, new files) is a new cache entry
            with contextlib.suppress(OSError):
                stamp = f"{self.card.get('model_id')}|{(Path(path) / CARD_NAME).stat().st_mtime_ns}"
        return load_cross_encoder(
            path, self.resolution.device, self.settings.max_length, self.int8, self.settings.threads, stamp
        )


@functools.lru_cache(maxsize=4)
def load_cross_encoder(
    path: str, device: str, max_length: int, int8: bool, threads: int | None, stamp: str = ""
) -> Any:
    """Load a cross-encoder folder once per process (cached on all arguments; ``stamp`` — the
    student card's model id and modification time — makes a redeployed student load afresh; a
    store keeps the reranker it resolved, so a new store or process serves a redeployment).

    Offline (``local_files_only``); the library's load messages are silenced. ``int8``: dynamic
    int8 quantisation of ``nn.Linear`` (CPU only). Raises ``ModuleNotFoundError`` naming the
    ``ml`` extra without torch/sentence-transformers, ``ValueError`` for a folder that is not a model.
    """
    try:
        import torch
        from sentence_transformers import CrossEncoder
    except ImportError as e:
        raise ModuleNotFoundError(f"rerankers need the 'ml' extra: pip install 'assay[ml]' ({e})") from None
    if not (Path(path) / "config.json").is_file():
        raise ValueError(f"{path}: not a model folder (no config.json)")
    if threads is not None:
        torch.set_num_threads(threads)
    with quiet_loading():
        ce = CrossEncoder(path, device=device, local_files_only=True, max_length=max_length)
        ce.eval()
        if int8:
            hf = ce.transformers_model
            q = torch.ao.quantization.quantize_dynamic(hf, {torch.nn.Linear}, dtype=torch.qint8)
            _swap_transformers_model(ce, hf, q)
    return ce


def rerank_hits(
    reranker: Reranker, query: str, pool: Sequence[SearchHit], k: int, *, blend_weight: float, floor: float | None
) -> list[SearchHit]:
    """Re-rank a composite candidate pool: the new top ``k`` ``SearchHit`` objects.

    ``pool``: the composite's hits best first (each with ``score`` and ``components``). Each
    memory's raw model score ``r`` (``reranker.rerank``) is dropped below ``floor`` (``None`` =
    off); the survivors are ordered by :func:`blend_scores` of ``r`` and the composite score
    (normalised over the whole pool), ties by composite rank. Each hit's ``score`` is the blend;
    ``components`` add ``"composite"`` and ``"reranker"`` (the raw score); ``reranker_model``
    names the model. On any failure of the model — an exception, a count other than one score
    per memory, a non-finite score — the pool's first ``k`` hits are returned as they were
    (composite order, ``reranker_model`` unset) and the failure is logged; ``pool`` is never
    modified.
    """
    hits = list(pool)
    if not hits:
        return []
    try:
        raw = [float(x) for x in reranker.rerank(query, [h.memory for h in hits])]
        if len(raw) != len(hits) or not all(math.isfinite(x) for x in raw):
            raise ValueError(f"returned {len(raw)} scores for {len(hits)} memories (need one finite score each)")
    except Exception as e:  # noqa: BLE001 - any model failure falls back to the composite order
        log.warning(
            "reranker %s failed (%s: %s); serving the composite order",
            getattr(reranker, "model", "?"),
            type(e).__name__,
            e,
        )
        return [h.model_copy(update={"rank": i}) for i, h in enumerate(hits[:k], start=1)]
    blended = blend_scores(raw, [float(h.score) for h in hits], blend_weight)
    keep = [i for i in range(len(hits)) if floor is None or raw[i] >= floor]
    order = sorted(keep, key=lambda i: (-blended[i], i))[:k]
    name = str(getattr(reranker, "model", "reranker"))
    return [
        hits[i].model_copy(
            update={
                "rank": j,
                "score": blended[i],
                "reranker_model": name,
                "components": {**(hits[i].components or {}), "composite": float(hits[i].score), "reranker": raw[i]},
            }
        )
        for j, i in enumerate(order, start=1)
    ]


def blend_scores(model_scores: Sequence[float], composite_scores: Sequence[float], weight: float) -> list[float]:
    """``weight · minmax(model) + (1 − weight) · minmax(composite)`` element-wise, in [0, 1].

    Both lists are min-max normalised over the same candidates (:func:`minmax`), so the blend
    is scale-free: a logit and a composite in [0, 0.7] weigh as ``weight`` says. ``ValueError``
    for lists of different lengths or ``weight`` outside [0, 1].
    """
    if len(model_scores) != len(composite_scores):
        raise ValueError(
            f"need as many model scores as composite scores, got {len(model_scores)} and {len(composite_scores)}"
        )
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be in [0, 1], got {weight}")
    m, c = minmax(model_scores), minmax(composite_scores)
    return [weight * a + (1.0 - weight) * b for a, b in zip(m, c, strict=True)]


def minmax(values: Sequence[float]) -> list[float]:
    """``(v − min) / (max − min)`` in [0, 1]. When all values are equal — one candidate, or a
    model that cannot tell them apart — every value maps to 1.0, not 0: a lone candidate is the
    best of its pool, and a constant list carries no order either way."""
    vals = [float(v) for v in values]
    if not vals:
        return []
    lo, hi = min(vals), max(vals)
    if not hi > lo:
        return [1.0] * len(vals)
    return [(v - lo) / (hi - lo) for v in vals]


@contextlib.contextmanager
def quiet_loading() -> Iterator[None]:
    """Silence the load chatter of transformers / sentence-transformers (progress bars, "load
    report" tables, conversion notices, deprecation warnings) while loading: library code never
    prints. Restores the previous logger levels afterwards."""
    names = ("transformers", "sentence_transformers", "torch")
    before = {n: logging.getLogger(n).level for n in names}
    hf_before: int | None = None  # transformers' verbosity before, set once its logging is imported
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_before = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()
    except ImportError:  # pragma: no cover - sentence-transformers depends on transformers
        pass
    try:
        for n in names:
            logging.getLogger(n).setLevel(logging.ERROR)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        for n, lvl in before.items():
            logging.getLogger(n).setLevel(lvl)
        if hf_before is not None:
            hf_logging.set_verbosity(hf_before)


def _swap_transformers_model(ce: Any, old: Any, new: Any) -> None:
    """Put the quantised HF model where the CrossEncoder's first module holds the original."""
    for mod in ce.modules():
        for name, child in list(mod.named_children()):
            if child is old:
                setattr(mod, name, new)
                return
    raise RuntimeError(
        "could not find the transformers model inside the CrossEncoder to quantise it"
    )  # pragma: no cover


def _read_card(path: str) -> dict[str, Any] | None:
    try:
        card = json.loads((Path(path) / CARD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return card if isinstance(card, dict) else None
