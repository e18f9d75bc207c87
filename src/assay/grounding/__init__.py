"""Grounding: is every number of an answer backed by the data, and what else does it get right.

:class:`IndexCache` is the one cache of snapshot indexes by fingerprint. Modules, bottom up:
``candidates`` (numbers an answer may be backed by, derivations), ``match`` (precision, units,
signs), ``passages`` (source passages as candidates), ``index`` (a snapshot's candidates,
:class:`IndexCache`), ``gate`` (the sourcing gate, :data:`GATE_VERSION`), ``completeness``,
``impersonal`` and ``rubric`` (the composite).
"""

from assay.grounding.gate import GATE_VERSION, GateResult, Mode, check_answer
from assay.grounding.index import IndexCache, SnapshotIndex

__all__ = [
    "IndexCache",
    "SnapshotIndex",
    "check_answer",
    "GateResult",
    "GATE_VERSION",
    "Mode",
]
