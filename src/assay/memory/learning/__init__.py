"""Learning: the second-stage reranker — its implementations, which one serves, and the student loop.

:mod:`.rerankers` (cross-encoder rerankers: loading, floors, blend, fallback), :mod:`.resolution`
(which reranker serves: by name, or a deployed student / large / small cross-encoder from
:class:`~assay.memory.config.RerankerSettings`), :mod:`.pairs` (training pairs from exported
labels), :mod:`.train` (pairwise fine-tuning), :mod:`.deploy` (the beat-the-incumbent gate) and
:mod:`.calibrate` (floors from graded deliveries).

Learning may import :mod:`assay.memory.retrieval`, :mod:`assay.memory.feedback` and the
top-level memory modules; nothing below imports learning (the package :mod:`assay.memory` wires
its resolution into the store it exports).
"""
