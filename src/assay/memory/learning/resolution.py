"""Which cross-encoder serves memory search: settings, device facts and the pure resolution.

:func:`resolve_reranker` is a pure function of the :class:`RerankerSettings` and the
:class:`DeviceFacts` (plus whether a trained student sits in its directory):

1. a trained student (``student_dir`` holding a model and its ``model_card.json``) overrides
   everything — it was deployed because it beat what served before (:mod:`.deploy`);
2. else the configured ``large_model`` on CUDA, when ``gpu`` is on and the GPU has at least
   ``min_vram_gb`` (default 6 GB) of memory;
3. else the configured ``small_model`` on CPU;
4. else none: search ranks by the composite score alone, and the composite is the incumbent.

Nothing here imports torch except :func:`probe_device`, and it only when the answer can change
the resolution. Loading and scoring are in :mod:`assay.memory.learning.rerankers`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "RerankerSettings",
    "DeviceFacts",
    "Resolution",
    "resolve_reranker",
    "probe_device",
    "student_ready",
    "CARD_NAME",
]

#: The model card written next to (inside) a deployed student's folder.
CARD_NAME = "model_card.json"

Kind = Literal["student", "large", "small", "none"]


@dataclass(frozen=True)
class RerankerSettings:
    """Reranker settings in one place, each default with its rationale.

    - ``student_dir``: folder of the trained student (``assay memory train --out``); used when
      it holds a model and its card. ``None``: no student.
    - ``small_model`` / ``large_model``: local folders of off-the-shelf cross-encoders (e.g. an
      MS MARCO MiniLM on CPU, a bge-reranker-large on GPU); ``None``: not configured.
    - ``gpu``: allow CUDA (default on: the large model is only worth it on a GPU).
    - ``min_vram_gb``: 6 GB (decimal) of GPU memory for the large model — a 560M-parameter
      cross-encoder in fp16 needs ≈ 1.1 GB of weights plus activations for a 50-candidate pool at
      512 tokens; 6 GB leaves room for the agent's own model on consumer cards.
    - ``small_floor`` / ``large_floor`` / ``student_floor``: suppression floors on each model's
      raw score (a candidate scoring below is not delivered); ``None`` = off. Off by default:
      a floor must be calibrated on graded deliveries (``assay memory calibrate``) — a guessed
      floor can drop the memories the agent finds most useful.
    - ``blend_weight``: weight of the model in the blend with the composite, in [0, 1]; 0.5
      trusts both equally (1 = model order alone, 0 = composite order).
    - ``max_length``: tokens per (query, memory) pair, 128 (a memory is a note, not a document;
      longer inputs cost time quadratically in attention).
    - ``batch_size``: pairs per forward pass, 10: pairs are sorted by length first, and small
      batches of similar lengths waste less on padding than one padded batch (on 1 CPU thread,
      20 LoCoMo candidates: p95 89 ms at 10 vs 121 ms at 20; ``bench_rerank_latency.py``).
    - ``threads``: torch intra-op threads set at load (process-wide); ``None`` keeps torch's.
    - ``int8``: dynamic int8 quantisation of the linear layers on CPU (ignored on CUDA). On by
      default: it is what meets the latency target (20 candidates p95 ≤ 120 ms on CPU; fp32 is
      ≈ 2.4× slower) — ``benchmarks/bench_rerank_latency.py`` measures both and how many
      candidate orders int8 keeps; ``bench_rerank_locomo.py`` the held-out agreement change.
      The deploy gate scores a candidate under the same setting, so it judges what will serve.
    """

    student_dir: str | None = None
    small_model: str | None = None
    large_model: str | None = None
    gpu: bool = True
    min_vram_gb: float = 6.0
    small_floor: float | None = None
    large_floor: float | None = None
    student_floor: float | None = None
    blend_weight: float = 0.5
    max_length: int = 128
    batch_size: int = 10
    threads: int | None = None
    int8: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.blend_weight <= 1.0:
            raise ValueError(f"blend_weight must be in [0, 1], got {self.blend_weight}")
        if not self.min_vram_gb >= 0:
            raise ValueError(f"min_vram_gb must be >= 0, got {self.min_vram_gb}")
        if self.max_length < 8 or self.batch_size < 1 or (self.threads is not None and self.threads < 1):
            raise ValueError("max_length must be >= 8, batch_size >= 1, threads >= 1 or None")
        for name in ("small_floor", "large_floor", "student_floor"):
            v = getattr(self, name)
            if v is not None and not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number or None, got {v}")

    def with_(self, **changes: Any) -> RerankerSettings:
        """A copy with ``changes`` applied (validated again)."""
        return replace(self, **changes)

    @classmethod
    def from_env(cls, environ: Any = None) -> RerankerSettings:
        """Settings from ``ASSAY_RERANKER_*`` variables: ``STUDENT``, ``SMALL``, ``LARGE`` (folders),
        ``GPU`` (0/1), ``MIN_VRAM_GB``, ``BLEND``, ``FLOOR_SMALL``, ``FLOOR_LARGE``,
        ``FLOOR_STUDENT``, ``MAX_LENGTH``, ``THREADS``, ``INT8`` (0/1, default 1). Unset → the default.
        ``ValueError`` naming the variable for a value that does not parse."""
        env = os.environ if environ is None else environ
        kw: dict[str, Any] = {}
        for key, field, conv in _ENV:
            raw = env.get(f"ASSAY_RERANKER_{key}")
            if raw is None or not raw.strip():
                continue
            try:
                kw[field] = conv(raw.strip())
            except ValueError:
                raise ValueError(f"ASSAY_RERANKER_{key}={raw!r}: not a valid {conv.__name__.lstrip('_')}") from None
        return cls(**kw)


def _bool(v: str) -> bool:
    if v.lower() in ("1", "true", "yes", "on"):
        return True
    if v.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(v)


_ENV = [
    ("STUDENT", "student_dir", str),
    ("SMALL", "small_model", str),
    ("LARGE", "large_model", str),
    ("GPU", "gpu", _bool),
    ("MIN_VRAM_GB", "min_vram_gb", float),
    ("BLEND", "blend_weight", float),
    ("FLOOR_SMALL", "small_floor", float),
    ("FLOOR_LARGE", "large_floor", float),
    ("FLOOR_STUDENT", "student_floor", float),
    ("MAX_LENGTH", "max_length", int),
    ("THREADS", "threads", int),
    ("INT8", "int8", _bool),
]


@dataclass(frozen=True)
class DeviceFacts:
    """What the machine offers: ``cuda`` (a CUDA device is usable), ``vram_gb`` (total memory of
    device 0 in decimal GB, 0 without one), ``name`` (the device's name, for reports)."""

    cuda: bool = False
    vram_gb: float = 0.0
    name: str | None = None


@dataclass(frozen=True)
class Resolution:
    """The reranker to serve: ``kind`` (student | large | small | none), its folder ``path``,
    ``device`` (cpu | cuda), ``floor`` on its raw score (``None`` = off), ``blend_weight``, and
    ``reason`` — one line saying why this one."""

    kind: Kind
    path: str | None
    device: str
    floor: float | None
    blend_weight: float
    reason: str


def resolve_reranker(settings: RerankerSettings, device: DeviceFacts, *, student_present: bool) -> Resolution:
    """Pick the reranker (see the module docstring for the order). Pure: no I/O, no torch.

    ``student_present``: :func:`student_ready` of ``settings.student_dir``. The student runs on
    CUDA whenever ``gpu`` is on and a device is present (it is small); the large model needs
    ``vram_gb >= min_vram_gb``; the small model always runs on CPU.
    """
    s, w = settings, settings.blend_weight
    cuda_ok = s.gpu and device.cuda
    if s.student_dir and student_present:
        return Resolution(
            "student",
            s.student_dir,
            "cuda" if cuda_ok else "cpu",
            s.student_floor,
            w,
            "a trained student is deployed in " + s.student_dir,
        )
    big_gpu = cuda_ok and device.vram_gb >= s.min_vram_gb
    if s.large_model and big_gpu:
        return Resolution(
            "large",
            s.large_model,
            "cuda",
            s.large_floor,
            w,
            f"large model on CUDA ({device.name or 'GPU'}, {device.vram_gb:.1f} GB >= {s.min_vram_gb:g} GB)",
        )
    why_not_large = ""
    if s.large_model:
        why_not_large = (
            "GPU use is off"
            if not s.gpu
            else "no CUDA device"
            if not device.cuda
            else f"GPU has {device.vram_gb:.1f} GB < {s.min_vram_gb:g} GB"
        ) + "; "
    if s.small_model:
        return Resolution("small", s.small_model, "cpu", s.small_floor, w, why_not_large + "small model on CPU")
    return Resolution("none", None, "cpu", None, w, why_not_large + "no reranker configured: the composite score ranks")


def student_ready(folder: str | os.PathLike[str] | None) -> bool:
    """True when ``folder`` holds a deployed student: its ``model_card.json`` and a ``config.json``.
    File checks only (no torch)."""
    if not folder:
        return False
    p = Path(folder)
    return (p / CARD_NAME).is_file() and (p / "config.json").is_file()


def probe_device(settings: RerankerSettings) -> DeviceFacts:
    """The CUDA facts of this machine, asked of torch only when an answer can change the
    resolution (GPU on and a large model or a present student); else no CUDA (no torch import)."""
    if not settings.gpu or not (settings.large_model or student_ready(settings.student_dir)):
        return DeviceFacts()
    import torch

    if not torch.cuda.is_available():
        return DeviceFacts()
    props = torch.cuda.get_device_properties(0)
    return DeviceFacts(cuda=True, vram_gb=props.total_memory / 1e9, name=props.name)
