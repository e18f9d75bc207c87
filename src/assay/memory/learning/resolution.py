"""Which reranker serves memory search: by name, or the cross-encoder the settings configure.

A store serves :func:`store_reranker` of its settings (the package's
:class:`assay.memory.MemoryStore` asks it; retrieval never chooses):

- ``MemorySettings.reranker`` set: the reranker registered under that name (:func:`load_reranker`:
  :data:`BUILTIN_RERANKERS` — ``auto`` is the resolution below, refusing to be none — then the
  :data:`ENTRY_POINT_GROUP` entry points of installed packages; a factory is called with no
  arguments and must return a :class:`~assay.memory.models.Reranker`);
- else :func:`configured_reranker` of :meth:`RerankerSettings.from_env
  <assay.memory.config.RerankerSettings.from_env>`: with nothing configured (no model folder, no
  deployed student) ``None`` — decided from settings and file checks alone, without importing
  torch, so memory search stays torch-free — else the cross-encoder :func:`resolve_reranker`
  picks. Or pass an object: ``MemoryStore(url, reranker=obj)``.

:func:`resolve_reranker` is a pure function of the :class:`~assay.memory.config.RerankerSettings`
and the :class:`DeviceFacts` (plus whether a trained student sits in its directory):

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

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import MappingProxyType

from assay.memory.config import MemorySettings, RerankerSettings
from assay.memory.learning.rerankers import CARD_NAME, CrossEncoderReranker, Resolution
from assay.memory.models import Reranker

__all__ = [
    "store_reranker",
    "load_reranker",
    "available_rerankers",
    "BUILTIN_RERANKERS",
    "ENTRY_POINT_GROUP",
    "configured_reranker",
    "build_reranker",
    "auto_reranker",
    "DeviceFacts",
    "resolve_reranker",
    "probe_device",
    "student_ready",
]

#: Rerankers shipped with assay: name → ``"module:factory"`` (read-only).
BUILTIN_RERANKERS: Mapping[str, str] = MappingProxyType({"auto": "assay.memory.learning.resolution:auto_reranker"})

#: Entry-point group through which other packages register rerankers (its name predates the
#: ``learning`` folder and is kept: installed packages register under it).
ENTRY_POINT_GROUP = "assay.memory.rerankers"


@dataclass(frozen=True)
class DeviceFacts:
    """What the machine offers: ``cuda`` (a CUDA device is usable), ``vram_gb`` (total memory of
    device 0 in decimal GB, 0 without one), ``name`` (the device's name, for reports)."""

    cuda: bool = False
    vram_gb: float = 0.0
    name: str | None = None


def store_reranker(settings: MemorySettings) -> Reranker | None:
    """The reranker a store with ``settings`` serves: ``settings.reranker`` by name
    (:func:`load_reranker`; ``ValueError`` when unknown), else :func:`configured_reranker` (``None``
    when nothing is configured). See the module docstring."""
    if settings.reranker:
        return load_reranker(settings.reranker)
    return configured_reranker()


def load_reranker(name: str) -> Reranker:
    """Build the reranker registered as ``name``. ``ValueError`` naming the known ones when unknown,
    or when the factory's object lacks ``model``/``rerank``."""
    target = BUILTIN_RERANKERS.get(name)
    if target is not None:
        mod, _, attr = target.partition(":")
        factory = getattr(importlib.import_module(mod), attr)
    else:
        eps = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
        if not eps:
            known = ", ".join(available_rerankers()) or "none is installed"
            raise ValueError(f"unknown reranker {name!r} (known: {known})")
        factory = eps[0].load()
    obj = factory()
    if not isinstance(obj, Reranker):
        raise ValueError(f"reranker {name!r}: the factory returned {type(obj).__name__}, which lacks model / rerank()")
    return obj


def available_rerankers() -> list[str]:
    """Names of the rerankers that :func:`load_reranker` can build, sorted."""
    return sorted(set(BUILTIN_RERANKERS) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def configured_reranker(settings: RerankerSettings | None = None) -> CrossEncoderReranker | None:
    """The resolved reranker for ``settings`` (default :meth:`RerankerSettings.from_env
    <assay.memory.config.RerankerSettings.from_env>`), or ``None``. With nothing configured (no
    model path, no deployed student) that is decided from settings and file checks alone, without
    importing torch. The model loads on first use."""
    s = settings if settings is not None else RerankerSettings.from_env()
    if not (s.small_model or s.large_model or student_ready(s.student_dir)):
        return None
    return build_reranker(s)


def build_reranker(settings: RerankerSettings, device: DeviceFacts | None = None) -> CrossEncoderReranker | None:
    """:func:`resolve_reranker` with the probed (or given) device facts → the reranker, ``None`` for kind none."""
    res = resolve_reranker(
        settings,
        device if device is not None else probe_device(settings),
        student_present=student_ready(settings.student_dir),
    )
    return None if res.kind == "none" else CrossEncoderReranker(res, settings)


def auto_reranker() -> CrossEncoderReranker:
    """Factory of the built-in reranker name ``auto`` (:data:`BUILTIN_RERANKERS`): the resolution of
    :meth:`RerankerSettings.from_env <assay.memory.config.RerankerSettings.from_env>`.
    ``ValueError`` when it resolves to none."""
    r = configured_reranker()
    if r is None:
        raise ValueError(
            "reranker 'auto': nothing configured — set ASSAY_RERANKER_STUDENT (a trained student's folder), "
            "ASSAY_RERANKER_SMALL or ASSAY_RERANKER_LARGE (a local cross-encoder folder)"
        )
    return r


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
