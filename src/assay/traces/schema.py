"""The native trace schema and the eval summary that lists traces (pydantic models), and what the
rationality axes read from a trace: :func:`axis_inputs` / :func:`has_axis_input`, stage verbs
(:data:`STATE_VERBS`, :func:`is_state_changing`) and :func:`window_trace`. The format is
described in :mod:`assay.traces`; reading and writing files is :mod:`assay.traces.files`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AXES",
    "Attempt",
    "CaseResult",
    "EvalSummary",
    "LLMCall",
    "Planner",
    "RetrievalBudget",
    "STATE_VERBS",
    "Step",
    "TRACE_SCHEMA",
    "Trace",
    "TraceHead",
    "axis_inputs",
    "has_axis_input",
    "is_state_changing",
    "stage_verb",
    "window_trace",
]

#: The rationality axes, in report order.
AXES: tuple[str, ...] = ("planner_decomposition", "retrieval_recalls", "answer_reasoning")

TRACE_SCHEMA = 1

#: Verbs that make a stage state-changing (the first word of its name: ``cancel_reservation``).
#: Shared by the importers (``after_state_change`` reasons) and the heuristic rules.
STATE_VERBS = frozenset(
    {
        "book",
        "cancel",
        "update",
        "create",
        "delete",
        "send",
        "modify",
        "set",
        "add",
        "remove",
        "insert",
        "write",
        "post",
        "put",
        "patch",
        "issue",
        "refund",
        "exchange",
        "return",
        "submit",
    }
)


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class RetrievalBudget(_Lenient):
    """Why the planner chose its retrieval budget (``reason``), and the budget itself if known."""

    reason: str | None = None
    max_calls: int | None = None


class Attempt(_Lenient):
    """One retry of a stage: which stage, its arguments, what happened, and why it was retried.

    ``outcome``: ``ok`` | ``error`` | ``empty`` (the call returned nothing) | ``None`` (unknown).
    ``step``: index into :attr:`Trace.steps` of the call, when known.
    """

    stage: str | None = None
    step: int | None = None
    arguments: Any = None
    outcome: Literal["ok", "error", "empty"] | None = None
    verification_reasons: tuple[str, ...] = ()


class Planner(_Lenient):
    """The plan: query type, pipeline name, stages run in order, retrieval settings, retries."""

    query_type: str | None = None
    pipeline: str | None = None
    stage_sequence: tuple[str, ...] = ()
    selected_top_k: int | None = None
    retrieval_budget: RetrievalBudget | None = None
    attempts: tuple[Attempt, ...] = ()


class LLMCall(_Lenient):
    """The call that wrote the final answer: its user prompt and its completion."""

    user_prompt_text: str
    completion_text: str
    model: str | None = None


class Step(_Lenient):
    """One event of the trace, in order.

    ``kind``: ``message`` (a turn of text), ``tool_call`` (``name`` + ``arguments``) or
    ``tool_result`` (``name`` + ``content``, ``error`` when the tool reported an error).
    ``actor``: who acted (``user``, ``assistant``, an agent's name, a tool's name).
    """

    index: int
    actor: str
    kind: Literal["message", "tool_call", "tool_result"] = "message"
    name: str | None = None
    arguments: Any = None
    content: str = ""
    error: bool = False


class Trace(_Lenient):
    """A native trace. ``planner`` is required; ``synthesis_llm_call`` only with a full capture."""

    schema_version: int = Field(default=TRACE_SCHEMA, alias="schema")
    planner: Planner
    synthesis_llm_call: LLMCall | None = None
    steps: tuple[Step, ...] = ()
    source: dict[str, Any] = Field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The trace as a JSON-ready dict (``schema`` key, ``None`` fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class TraceHead(_Lenient):
    """The fields the stub and LLM backends read; parsing skips ``steps`` (no Step objects built)."""

    schema_version: int = Field(default=TRACE_SCHEMA, alias="schema")
    planner: Planner
    synthesis_llm_call: LLMCall | None = None
    source: dict[str, Any] = Field(default_factory=dict)


class CaseResult(_Lenient):
    """One summary row: the case id, its slice, where its trace is, and optional labels."""

    id: str = Field(min_length=1)
    slice: str | None = None
    trace_path: str | None = None
    labels: dict[str, Any] = Field(default_factory=dict)


class EvalSummary(_Lenient):
    """An eval summary: the cases whose traces are judged, and the file it came from."""

    case_results: tuple[CaseResult, ...]
    path: Path | None = None


def axis_inputs(trace: Trace, axis: str) -> dict[str, Any] | None:
    """The input subset of ``axis`` (the keys are the field paths it reads), or ``None``.

    ``planner_decomposition`` → ``{"planner.query_type", "planner.pipeline",
    "planner.stage_sequence", "planner.selected_top_k", "planner.retrieval_budget.reason"}``;
    ``retrieval_recalls`` → ``{"planner.attempts[*].verification_reasons": [[…], …]}``;
    ``answer_reasoning`` → ``{"synthesis_llm_call.user_prompt_text",
    "synthesis_llm_call.completion_text"}``, or ``None`` when the trace has no synthesis call.
    Missing optional fields are ``null``; lists are JSON lists. An axis with nothing to judge is
    ``None`` too: ``planner_decomposition`` when the trace records neither a stage nor a step
    (no decomposition to judge; with steps, an empty ``stage_sequence`` is a decision — to use
    no tool — and is judged), ``retrieval_recalls`` when it records no stage, attempt or step.
    Raises ``ValueError`` for an unknown axis.
    """
    if not has_axis_input(trace, axis):
        return None
    p = trace.planner
    if axis == "planner_decomposition":
        return {
            "planner.query_type": p.query_type,
            "planner.pipeline": p.pipeline,
            "planner.stage_sequence": list(p.stage_sequence),
            "planner.selected_top_k": p.selected_top_k,
            "planner.retrieval_budget.reason": p.retrieval_budget.reason if p.retrieval_budget else None,
        }
    if axis == "retrieval_recalls":
        return {"planner.attempts[*].verification_reasons": [list(a.verification_reasons) for a in p.attempts]}
    call = trace.synthesis_llm_call  # answer_reasoning: has_axis_input checked that it is set
    assert call is not None
    return {
        "synthesis_llm_call.user_prompt_text": call.user_prompt_text,
        "synthesis_llm_call.completion_text": call.completion_text,
    }


def has_axis_input(trace: Trace, axis: str) -> bool:
    """Whether ``axis`` can be measured on ``trace`` (:func:`axis_inputs` is not ``None``), without
    building the input subset. Raises ``ValueError`` for an unknown axis."""
    p = trace.planner
    if axis == "planner_decomposition":
        return bool(p.stage_sequence or trace.steps)
    if axis == "retrieval_recalls":
        return bool(p.stage_sequence or p.attempts or trace.steps)
    if axis == "answer_reasoning":
        return trace.synthesis_llm_call is not None
    raise ValueError(f"unknown axis {axis!r}: use one of {', '.join(AXES)}")


def is_state_changing(stage: str) -> bool:
    """True when the stage's first word (split on ``_``, ``-``, ``.``, space) is in :data:`STATE_VERBS`."""
    return stage_verb(stage) in STATE_VERBS


def stage_verb(stage: str) -> str:
    """The first word of a stage name, lower-cased (``cancel_reservation`` → ``cancel``)."""
    return re.split(r"[_\-\s.]", stage.strip().lower(), maxsplit=1)[0]


def window_trace(trace: Trace, start: int, stop: int) -> Trace:
    """The sub-trace of ``steps[start:stop]``: stages, attempts and synthesis of that window only.

    ``stage_sequence`` keeps the window's stages (one per step, ``actor`` or tool name);
    ``attempts`` keep those whose ``step`` lies in the window; ``synthesis_llm_call`` becomes the
    window's text (completion) written from everything before the window (prompt). Used to localise
    the weakest stretch of a long trace (Who&When windows). Requires ``0 <= start < stop``.
    """
    if not 0 <= start < stop:
        raise ValueError(f"window [{start}, {stop}) is empty or negative")
    steps = trace.steps[start:stop]
    attempts = tuple(a for a in trace.planner.attempts if a.step is not None and start <= a.step < stop)
    planner = trace.planner.model_copy(
        update={"stage_sequence": tuple(_stage_name(s) for s in steps), "attempts": attempts}
    )
    synthesis = None
    if steps:
        synthesis = LLMCall(
            user_prompt_text="\n".join(s.content for s in trace.steps[:start]),
            completion_text="\n".join(s.content for s in steps),
        )
    return trace.model_copy(update={"planner": planner, "steps": steps, "synthesis_llm_call": synthesis})


# --- helpers -------------------------------------------------------------------------------


def _stage_name(step: Step) -> str:
    return step.name if step.kind == "tool_call" and step.name else step.actor
