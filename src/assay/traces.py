"""Agent traces: assay's native trace schema, the eval summary that lists them, and loading.

A **trace** (one JSON object per file) records how an agent reached its answer. The three axes of
the rationality judge (:mod:`assay.judges.rationality`) read these fields:

- ``planner_decomposition`` ← ``planner.{query_type, pipeline, stage_sequence, selected_top_k,
  retrieval_budget.reason}``: what the question was classified as and which stages ran, in order;
- ``retrieval_recalls`` ← ``planner.attempts[*].verification_reasons``: one attempt per retry
  (a repeated lookup, a call after a tool error), with the reasons for it;
- ``answer_reasoning`` ← ``synthesis_llm_call.{user_prompt_text, completion_text}``: the prompt
  the final answer was written from and the answer. Present only when the full trace was
  captured; absent → that axis is ``None`` (not measured) for the case.

``steps`` (optional) is the ordered event log (messages, tool calls, tool results) the planner
fields were derived from; the ``heuristic`` backend reads it where a rule needs the sequence (a
tool error followed by nothing that reacts to it) and :func:`window_trace` cuts it into windows.
Unknown fields are ignored, so traces written by other tools load.

An **eval summary** lists the cases: ``{"case_results": [{"id", "slice", "trace_path",
"labels"?}, …]}`` (unknown fields ignored). ``labels`` (e.g. a task's ``reward``) are copied to the
per-case local records for validity analysis only; no judge backend reads them. A relative
``trace_path`` resolves against the summary's folder, or against ``traces_dir`` when given.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "AXES",
    "Attempt",
    "CaseResult",
    "EvalSummary",
    "LLMCall",
    "Planner",
    "RetrievalBudget",
    "Step",
    "Trace",
    "TraceError",
    "STATE_VERBS",
    "axis_inputs",
    "has_axis_input",
    "is_state_changing",
    "load_summary",
    "load_trace",
    "read_json",
    "resolve_trace_path",
    "stage_verb",
    "window_trace",
    "write_trace_set",
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


class TraceError(ValueError):
    """A summary or trace file that cannot be used; the message is ``file[:line]: field: problem``."""


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

    schema_version: int = Field(TRACE_SCHEMA, alias="schema")
    planner: Planner
    synthesis_llm_call: LLMCall | None = None
    steps: tuple[Step, ...] = ()
    source: dict[str, Any] = Field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The trace as a JSON-ready dict (``schema`` key, ``None`` fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class _TraceHead(_Lenient):
    """The fields the stub and LLM backends read; parsing skips ``steps`` (no Step objects built)."""

    schema_version: int = Field(TRACE_SCHEMA, alias="schema")
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


def load_summary(path: str | os.PathLike[str]) -> EvalSummary:
    """Read an eval summary JSON file.

    Raises :class:`TraceError` (``file[:line]: field: problem``) for unreadable files, invalid
    JSON, a missing/ill-typed ``case_results``, a row without ``id``, or a duplicate id.
    """
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise TraceError(f"{path}: <root>: expected a JSON object with case_results, got {type(data).__name__}")
    if "case_results" not in data:
        raise TraceError(f"{path}: case_results: missing")
    try:
        summary = EvalSummary.model_validate({"case_results": data["case_results"]})
    except ValidationError as e:
        raise TraceError(f"{path}: {_first_error(e)}") from None
    seen: set[str] = set()
    for i, row in enumerate(summary.case_results):
        if row.id in seen:
            raise TraceError(f"{path}: case_results[{i}].id: duplicate id {row.id!r}")
        seen.add(row.id)
    return summary.model_copy(update={"path": path})


def load_trace(path: str | os.PathLike[str], *, steps: bool = True) -> Trace:
    """Read one trace file; raises :class:`TraceError` naming the file and the bad field.

    A trace without a ``planner`` block is an error (``planner: missing``). With
    ``steps=False`` the ``steps`` list is neither validated nor kept (the returned trace has
    none): about 4× faster, for backends that read only the axis inputs (stub, LLM).
    """
    path = Path(path)
    text = _read_text(path)
    try:  # fast path: parse and validate in one go
        if steps:
            return Trace.model_validate_json(text)
        head = _TraceHead.model_validate_json(text)
        return Trace.model_construct(**dict(head), steps=())
    except ValidationError:
        pass  # the slow path below names the line or field
    data = _parse_json(path, text)
    if not isinstance(data, dict):
        raise TraceError(f"{path}: <root>: expected a JSON object, got {type(data).__name__}")
    if not isinstance(data.get("planner"), dict):
        raise TraceError(
            f"{path}: planner: missing" if data.get("planner") is None else f"{path}: planner: not an object"
        )
    try:
        if steps:
            return Trace.model_validate(data)
        return Trace.model_construct(**dict(_TraceHead.model_validate(data)), steps=())
    except ValidationError as e:
        raise TraceError(f"{path}: {_first_error(e)}") from None


def read_json(path: str | os.PathLike[str]) -> Any:
    """The parsed content of a JSON file (a leading UTF-8 BOM is accepted); raises
    :class:`TraceError` ``file: no such file`` / ``file: cannot read: …`` / ``file:line: <json>: …``.
    Shared by the summary loader and the trace importers."""
    path = Path(path)
    return _parse_json(path, _read_text(path))


def resolve_trace_path(
    summary_path: Path | None, trace_path: str, traces_dir: str | os.PathLike[str] | None = None
) -> Path:
    """Where a summary row's trace file is.

    Without ``traces_dir``: an absolute path as is; a relative one against the summary's folder.
    With ``traces_dir`` (which overrides the lookup): ``traces_dir/trace_path`` when relative and
    present, else ``traces_dir/<file name>`` when present, else the path as resolved without
    ``traces_dir`` (so a missing file is reported under its own name).
    """
    own = (
        trace_path
        if os.path.isabs(trace_path)
        else os.path.join(os.path.dirname(summary_path) if summary_path else os.getcwd(), trace_path)
    )
    if traces_dir is None:
        return Path(own)
    base = os.fspath(traces_dir)
    name = os.path.basename(trace_path)
    candidates = ([os.path.join(base, trace_path)] if not os.path.isabs(trace_path) else []) + [
        os.path.join(base, name)
    ]
    for c in candidates:
        if os.path.isfile(c):
            return Path(c)
    return Path(own) if os.path.isfile(own) else Path(candidates[-1])


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


def write_trace_set(
    out_dir: str | os.PathLike[str],
    traces: list[tuple[CaseResult, Trace]],
    *,
    summary_name: str = "summary.json",
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write each trace to ``out_dir/traces/<file>`` and the eval summary to ``out_dir/summary_name``.

    ``CaseResult.trace_path`` must be relative to ``out_dir``. Every file is written atomically;
    returns the summary path. ``extra`` adds top-level summary fields (e.g. the source's name).
    """
    from assay.atomic import atomic_write_json, check_writable_dir

    out = check_writable_dir(Path(out_dir))
    (out / "traces").mkdir(exist_ok=True)
    rows = []
    for row, trace in traces:
        if row.trace_path is None or Path(row.trace_path).is_absolute():
            raise ValueError(f"case {row.id!r}: trace_path must be relative to the output folder")
        atomic_write_json(out / row.trace_path, trace.to_json())
        rows.append(row.model_dump(mode="json", exclude_none=True))
    summary = {"schema": 1, **(extra or {}), "case_results": rows}
    return atomic_write_json(out / summary_name, summary)


# --- helpers -------------------------------------------------------------------------------


def _stage_name(step: Step) -> str:
    return step.name if step.kind == "tool_call" and step.name else step.actor


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")  # a leading BOM (Windows editors) is not content
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise TraceError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None


def _parse_json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceError(f"{path}:{e.lineno}: <json>: {e.msg}") from None


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".") or "<root>"
    return f"{loc}: {err['msg'].lower()}" + (f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else "")
