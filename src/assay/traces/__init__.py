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

The package: :mod:`assay.traces.schema` (the trace and summary models, the axis inputs, stage
verbs, trace windows) and :mod:`assay.traces.files` (reading summaries and traces with errors
that name the file and field, resolving trace paths, writing a trace set).
"""

from __future__ import annotations

from assay.traces.files import TraceError, load_summary, load_trace, read_json, resolve_trace_path, write_trace_set
from assay.traces.schema import (
    AXES,
    STATE_VERBS,
    Attempt,
    CaseResult,
    EvalSummary,
    LLMCall,
    Planner,
    RetrievalBudget,
    Step,
    Trace,
    axis_inputs,
    has_axis_input,
    is_state_changing,
    stage_verb,
    window_trace,
)

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
