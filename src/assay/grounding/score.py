"""One scoring path: an answer against its snapshot → gate, completeness, impersonal, rubric inputs.

:func:`score_answer` is what ``assay eval`` (per case), ``assay gate``, the validity checks and
the memo cache call; none of them runs the gate and its signals on its own. The memo cache's
hit path asks for the gate alone (``gate_only=True``): it re-gates a stored memo and must stay
within its latency budget, so nothing else is computed there. The faithfulness judge is not
part of this path (it is an LLM call, batched by the eval runner); its score joins the rubric
inputs there.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.facts import Snapshot
from assay.grounding.completeness import CompletenessResult, completeness
from assay.grounding.gate import GateResult, Mode, check_answer
from assay.grounding.impersonal import ImpersonalResult, check_impersonal
from assay.grounding.index import IndexCache, SnapshotIndex

__all__ = ["AnswerScores", "Reference", "score_answer"]

#: A gold reference answer: its text, a number, or several of either (see
#: :func:`~assay.grounding.completeness.completeness`).
Reference = str | float | list[str | float]


@dataclass(frozen=True, slots=True)
class AnswerScores:
    """The deterministic scores of one answer.

    ``gate``: the sourcing gate (:class:`~assay.grounding.gate.GateResult`); ``completeness``
    and ``impersonal``: the two signals, ``None`` when only the gate was asked for
    (``gate_only``). A frozen dataclass, not a pydantic model: it is built on the memo cache's
    hit path, and its parts are pydantic models already (``model_dump`` them for JSON).
    """

    gate: GateResult
    completeness: CompletenessResult | None = None
    impersonal: ImpersonalResult | None = None

    @property
    def sourcing(self) -> float | None:
        """Matched ÷ checkable quantities, 4 decimals; ``None`` when nothing was checkable; 0 when
        the only numbers are unchecked (status ``unchecked``: not proven)."""
        if self.gate.status == "unchecked":
            return 0.0
        s = self.gate.sourcing
        return None if s is None else round(s, 4)

    @property
    def rubric_inputs(self) -> dict[str, float | None]:
        """``{"sourcing", "completeness", "impersonal"}`` scores in [0, 1] (or ``None``: not
        measured), in that order, for :func:`~assay.grounding.rubric.compose` (which also takes
        the judge's ``faithfulness``)."""
        return {
            "sourcing": self.sourcing,
            "completeness": None if self.completeness is None else self.completeness.score,
            "impersonal": None if self.impersonal is None else self.impersonal.score,
        }


def score_answer(
    answer: str,
    snapshot: Snapshot,
    *,
    question: str | None = None,
    reference: Reference | None = None,
    mode: Mode = "auto",
    index: SnapshotIndex | None = None,
    indexes: IndexCache | None = None,
    fingerprint: str | None = None,
    gate_only: bool = False,
) -> AnswerScores:
    """Score ``answer`` against ``snapshot``: the sourcing gate in ``mode``, then completeness
    (against ``reference`` when given, else the snapshot's material facts) and the impersonal
    check.

    ``question`` is an input of the gate (it licenses the sign of a magnitude and a sum, see
    :func:`~assay.grounding.gate.check_answer`). Reuse: ``index`` is the snapshot's
    :class:`~assay.grounding.index.SnapshotIndex`; or ``indexes`` an
    :class:`~assay.grounding.index.IndexCache` to take it from (keyed by ``fingerprint``,
    computed when not given), which also supplies the answer's parsed claims. With neither, the
    index is built for this call. ``gate_only``: run the gate alone (``completeness`` and
    ``impersonal`` are ``None``). The gate result is exactly ``check_answer(answer, snapshot,
    mode=mode, question=question)`` in every case. Never raises on answer content.
    """
    claims = indexes.claims_of(answer) if indexes is not None else None
    if index is None and indexes is not None:
        index = indexes.get(snapshot, fingerprint)
    gate = check_answer(answer, snapshot, mode=mode, index=index, claims=claims, question=question)
    if gate_only:
        return AnswerScores(gate)
    return AnswerScores(
        gate,
        completeness(answer, snapshot, gate, reference=reference),
        check_impersonal(answer),
    )
