"""``NAME.local.json``: the per-case records of one run (case ids included; never shared).

Every local file is ``{"schema", "kind", "backend", …, "cases": [record, …]}``; every record has
``id`` (the question/task, shared by every variant's answer to it), ``variant``, ``slice``,
``status``, ``scores`` (dimension or axis → number in [0, 1] or ``null`` = not measured) and
``reasons`` (dimension → one line). The kinds add their own fields:

- ``eval`` (:class:`EvalLocalV1`): the gate's verdict and its details per case
  (:class:`EvalCaseRecord`);
- ``rationality`` (:class:`RationalityLocalV1`): the trace a case was judged from and the
  judge's details (:class:`RationalityCaseRecord`).

The grounding and judge details (violations, checks, completeness, verdicts) are kept as the
JSON objects their own models dump: this module sits below the rooms that define them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field

from assay.results._base import Number, ResultModel

__all__ = [
    "CaseRecord",
    "EvalCaseRecord",
    "EvalLocalV1",
    "LocalFile",
    "RationalityCaseRecord",
    "RationalityLocalV1",
]


class CaseRecord(ResultModel):
    """One case of a local file, any kind: the fields every judge and report relies on."""

    id: str
    variant: str
    slice: str | None = None
    status: str | None = None
    scores: dict[str, Number | None]
    reasons: dict[str, str] = Field(default_factory=dict)


class EvalCaseRecord(CaseRecord):
    """An ``eval`` case: the gate's status and mode, the scores per dimension and composite, and the
    details behind them (as :mod:`assay.grounding` and :mod:`assay.judges` dump them)."""

    status: Literal["pass", "fail", "no_claims"]
    mode: str | None = None
    weights_used: dict[str, Number] = Field(default_factory=dict)
    violations: list[dict[str, Any]] = Field(default_factory=list)
    checks: list[dict[str, Any]] = Field(default_factory=list)
    completeness: dict[str, Any] = Field(default_factory=dict)
    impersonal_flags: list[dict[str, Any]] = Field(default_factory=list)
    #: The faithfulness judge's verdict, ``None`` when no judge ran.
    faithfulness: dict[str, Any] | None = None
    #: The ``--label-field`` value as text (JSON values as JSON writes them), ``None`` if unlabelled.
    label: str | None = None

    key_order: ClassVar[tuple[str, ...]] = (
        "id",
        "variant",
        "slice",
        "status",
        "mode",
        "scores",
        "reasons",
        "weights_used",
        "violations",
        "checks",
        "completeness",
        "impersonal_flags",
        "faithfulness",
        "label",
    )


class RationalityCaseRecord(CaseRecord):
    """A ``rationality`` case (variant ``all``): where its trace is, whether the trace holds the
    synthesis call, the summary's labels, and the judge's status, scores, tokens and details.

    ``model``, ``cached`` and ``details`` are present only when the backend gave them (the LLM
    backend: model and cache hit; the heuristic: the rule findings).
    """

    status: Literal["scored", "missing_trace", "rejected", "skipped"]
    trace_path: str | None = None
    has_synthesis_llm_call: bool = False
    labels: dict[str, Any] = Field(default_factory=dict)
    tokens: int = 0
    model: str | None = None
    cached: bool | None = None
    details: dict[str, Any] | None = None

    key_order: ClassVar[tuple[str, ...]] = (
        "id",
        "variant",
        "slice",
        "trace_path",
        "has_synthesis_llm_call",
        "labels",
        "status",
        "scores",
        "reasons",
        "tokens",
        "model",
        "cached",
        "details",
    )


class LocalFile(ResultModel):
    """A local file of any kind: schema, kind, backend and the case records."""

    schema_version: int = Field(alias="schema")
    kind: str
    backend: str | None = None
    cases: Sequence[CaseRecord]


class EvalLocalV1(LocalFile):
    """``eval`` local file, schema 1: ``{"schema": 1, "kind": "eval", "backend", "gate_version", "cases"}``."""

    schema_version: Literal[1] = Field(alias="schema")
    kind: Literal["eval"]
    gate_version: str | None = None
    cases: list[EvalCaseRecord]

    key_order: ClassVar[tuple[str, ...]] = ("schema", "kind", "backend", "gate_version", "cases")


class RationalityLocalV1(LocalFile):
    """``rationality`` local file, schema 1: ``{"schema": 1, "kind": "rationality", "backend",
    "model", "cases"}`` (``model``: the judge model, ``sha256`` for the stub, the rules version
    for the heuristic)."""

    schema_version: Literal[1] = Field(alias="schema")
    kind: Literal["rationality"]
    model: str | None = None
    cases: list[RationalityCaseRecord]

    key_order: ClassVar[tuple[str, ...]] = ("schema", "kind", "backend", "model", "cases")
