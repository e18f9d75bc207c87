"""``NAME.local.json``: the per-case records of one run (case ids included; never shared).

Every local file is ``{"schema", "kind", "backend", …, "cases": [record, …]}``; every record has
``id`` (the question/task, shared by every variant's answer to it), ``variant``, ``slice``,
``status``, ``scores`` (dimension or axis → number in [0, 1] or ``null`` = not measured) and
``reasons`` (dimension → one line). The kinds add their own fields:

- ``eval`` (:class:`EvalLocalV2`, and :class:`EvalLocalV1` as written before the coverage
  headline): the gate's verdict and its details per case (:class:`EvalCaseRecordV2`,
  :class:`EvalCaseRecord`);
- ``rationality`` (:class:`RationalityLocalV1`): the trace a case was judged from and the
  judge's details (:class:`RationalityCaseRecord`).

The grounding and judge details (violations, checks, completeness, verdicts) are kept as the
JSON objects their own models dump: this module sits below the rooms that define them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field

from assay.results._base import Number, ResultModel

__all__ = [
    "CaseRecord",
    "EvalCaseRecord",
    "EvalCaseRecordV2",
    "EvalLocalV1",
    "EvalLocalV2",
    "LocalFile",
    "RationalityCaseRecord",
    "RationalityLocalV1",
    "case_key",
]

#: Hex digits of a case key: 10 (40 bits) keep keys distinct within any run assay handles
#: (birthday bound ~1e6 cases) while staying short in a table.
KEY_HEX = 10


def case_key(salt: str, case_id: str, variant: str) -> str:
    """The anonymised key of case ``(case_id, variant)`` in a run: the first :data:`KEY_HEX` hex
    digits of SHA-256 over ``salt``, the id and the variant (NUL-separated). Without the salt (kept
    only in the run's local file) the key cannot be tied to an id, and another run's keys differ."""
    digest = hashlib.sha256("\0".join((salt, case_id, variant)).encode("utf-8")).hexdigest()
    return digest[:KEY_HEX]


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

    status: Literal["pass", "fail", "no_claims", "unchecked"]
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


class EvalCaseRecordV2(EvalCaseRecord):
    """An ``eval`` case of schema 2. ``scores.composite`` is the headline (a ``no_claims`` answer
    scores 0, or 1 when the case ``expect_refusal``), ``scores.composite_answered`` the rubric's
    composite of an answer with claims (``None`` for ``no_claims``; schema 1's ``composite``) and
    ``scores.coverage`` 1 when the answer made a checkable claim, else 0. ``answer`` is the case's
    answer text (pairwise judges read it); ``key`` the run's salted hash of ``(id, variant)`` that
    the aggregate's bottom-k rows show instead of the id."""

    answer: str | None = None
    expect_refusal: bool = False
    key: str | None = None

    key_order: ClassVar[tuple[str, ...]] = (
        "id",
        "variant",
        "slice",
        "key",
        "status",
        "mode",
        "expect_refusal",
        "scores",
        "reasons",
        "weights_used",
        "violations",
        "checks",
        "completeness",
        "impersonal_flags",
        "faithfulness",
        "label",
        "answer",
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


class EvalLocalV2(LocalFile):
    """``eval`` local file, schema 2: ``{"schema": 2, "kind": "eval", "run_id", "backend",
    "gate_version", "salt", "cases"}``. ``run_id`` is shared by the run's four report files;
    ``salt`` (kept only here) makes the records' ``key`` (:func:`assay.results.case_key`), so
    this file maps the aggregate's anonymised keys back to case ids."""

    schema_version: Literal[2] = Field(alias="schema")
    kind: Literal["eval"]
    run_id: str | None = None
    gate_version: str | None = None
    salt: str | None = None
    cases: list[EvalCaseRecordV2]

    key_order: ClassVar[tuple[str, ...]] = ("schema", "kind", "run_id", "backend", "gate_version", "salt", "cases")


class RationalityLocalV1(LocalFile):
    """``rationality`` local file, schema 1: ``{"schema": 1, "kind": "rationality", "backend",
    "model", "cases"}`` (``model``: the judge model, ``sha256`` for the stub, the rules version
    for the heuristic)."""

    schema_version: Literal[1] = Field(alias="schema")
    kind: Literal["rationality"]
    model: str | None = None
    cases: list[RationalityCaseRecord]

    key_order: ClassVar[tuple[str, ...]] = ("schema", "kind", "backend", "model", "cases")
