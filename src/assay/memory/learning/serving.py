"""Serving the registry's deployed reranker: this host's pointer, followed without a restart.

:func:`registry_reranker` returns a :class:`RegistryReranker` when this host has a deployment in
the model registry (:mod:`assay.memory.learning.registry`), else ``None`` (the store then serves
what ``ASSAY_RERANKER_*`` configures, as before the registry). The served object re-reads the
pointer at most every ``RerankerSettings.registry_check_s`` seconds; when it names another
version whose folder this host holds, the next search is ranked by that model (and records its
version as ``reranker_model``). A pointer to a folder this host lacks is not followed: the model
already loaded keeps serving. With ``apply_floor`` on, the version's calibrated floor applies
(and a rollback brings back the older model's own floor).

Torch-free until a search reranks: building the cross-encoder object loads nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from sqlalchemy import Engine

from assay.memory.config import RerankerSettings
from assay.memory.learning.registry import ModelRecord, deployed_model
from assay.memory.learning.rerankers import CrossEncoderReranker, Resolution
from assay.memory.models import Memory, SearchHit

__all__ = ["RegistryReranker", "registry_reranker"]


def registry_reranker(engine: Engine, host: str, settings: RerankerSettings) -> RegistryReranker | None:
    """A :class:`RegistryReranker` when ``host`` has a deployed model whose folder it holds, else
    ``None``."""
    record = deployed_model(engine, host, init=False)
    if record is None or not record.folder_ready():
        return None
    return RegistryReranker(engine, host, settings, record)


class RegistryReranker:
    """The deployed model of ``host``, swapped when the pointer moves (see the module docstring).

    ``model`` (recorded with each delivery) is the served cross-encoder's name: the version's
    ``model_id`` (= the registry version), with ``-int8`` when quantised. ``version``: the
    registry version now served.
    """

    def __init__(
        self,
        engine: Engine,
        host: str,
        settings: RerankerSettings,
        record: ModelRecord,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.host = host
        self.settings = settings
        self._clock = clock
        self._checked = clock()
        self._serve(record)

    @property
    def model(self) -> str:
        """The served model's name, as deliveries record it."""
        return self._current().model

    @model.setter
    def model(self, value: str) -> None:  # the Reranker protocol declares a plain attribute
        raise AttributeError("a RegistryReranker's model follows the registry; deploy or roll back instead")

    @property
    def version(self) -> str:
        """The registry version served now."""
        self._current()
        return self._version

    def rerank(self, query: str, memories: Sequence[Memory | str]) -> list[float]:
        """Raw scores of the served model (see :meth:`CrossEncoderReranker.rerank`)."""
        return self._current().rerank(query, memories)

    def rerank_pool(self, query: str, pool: Sequence[SearchHit], k: int) -> list[SearchHit]:
        """The served model's floor-and-blend of the pool (:meth:`CrossEncoderReranker.rerank_pool`)."""
        return self._current().rerank_pool(query, pool, k)

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Raw scores of ``(query, text)`` pairs by the served model."""
        return self._current().score_pairs(pairs)

    def _current(self) -> CrossEncoderReranker:
        now = self._clock()
        if now - self._checked >= self.settings.registry_check_s:
            self._checked = now
            record = deployed_model(self.engine, self.host, init=False)
            if record is not None and record.version != self._version and record.folder_ready():
                self._serve(record)
        return self._served

    def _serve(self, record: ModelRecord) -> None:
        assert record.path is not None
        floor = record.floor if self.settings.apply_floor else None
        device = "cpu"
        if self.settings.gpu:
            from assay.memory.learning.resolution import probe_device

            device = "cuda" if probe_device(self.settings.with_(student_dir=record.path)).cuda else "cpu"
        reason = f"registry: {record.version}"
        res = Resolution("student", record.path, device, floor, self.settings.blend_weight, reason)
        self._served = CrossEncoderReranker(res, self.settings)
        self._version = record.version
