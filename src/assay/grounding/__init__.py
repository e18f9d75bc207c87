"""Grounding: is every number of an answer backed by the data, and what else does it get right.

:func:`score_answer` is the one scoring path (gate, completeness, impersonal, rubric inputs);
:class:`IndexCache` the one cache of snapshot indexes by fingerprint. Modules, bottom up:
``candidates`` (numbers an answer may be backed by, derivations), ``match`` (precision, units,
signs), ``passages`` (source passages as candidates), ``index`` (a snapshot's candidates,
:class:`IndexCache`), ``gate`` (the sourcing gate, :data:`GATE_VERSION`), ``completeness``,
``impersonal``, ``rubric`` (the composite), ``score`` (:func:`score_answer`) and ``validity``
(perturbations and the real-data validity checks of the gate).
"""

from assay.grounding.gate import GATE_VERSION, GateResult, Mode, check_answer
from assay.grounding.index import IndexCache, SnapshotIndex
from assay.grounding.score import AnswerScores, Reference, score_answer

__all__ = [
    "score_answer",
    "AnswerScores",
    "Reference",
    "IndexCache",
    "SnapshotIndex",
    "check_answer",
    "GateResult",
    "GATE_VERSION",
    "Mode",
]
