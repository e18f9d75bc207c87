"""tau-bench historical trajectories → native traces + an eval summary.

Source format (sierra-research/tau-bench ``historical_trajectories/*.json``): a JSON list of
``{task_id, trial, reward, info, traj}``; ``traj`` holds OpenAI-style messages (``system``,
``user``, ``assistant`` with text and/or ``tool_calls``, ``tool`` results).

Mapping (one trace per run):

- ``planner.query_type``: the first user turn classified by keyword (:func:`classify_request`);
  ``planner.pipeline``: ``tau-bench/<domain>/tool-calling``; ``planner.stage_sequence``: the
  tool-call names in order; ``selected_top_k`` and ``retrieval_budget`` stay ``None`` (tau-bench
  agents have neither).
- ``planner.attempts``: every repeated ``get_*``/``search_*``/``list_*`` call, every call of a
  tool right after that tool returned an error, and every call that returned an error. Its
  ``verification_reasons`` say what could justify it: ``same_arguments`` / ``new_arguments:
  <keys>``, ``after_tool_error``, ``after_empty_result``, ``after_user_turn``,
  ``after_state_change`` (a state-changing call succeeded since the previous call), and
  ``tool_error: <message>`` when the call itself failed.
- ``synthesis_llm_call``: ``completion_text`` = the final assistant turn with text;
  ``user_prompt_text`` = the evidence before it, the user turns and the tool outputs, one per line
  as ``[user] …`` / ``[tool <name>] …`` (the system policy is in ``steps``, not repeated here).
- ``steps``: every message (tool calls one step each; tool results flagged ``error`` when they
  start with ``Error``).

The trace never carries ``info`` (the user-simulator instruction, gold actions, reward details):
``reward`` (plus ``task_id`` and ``trial``) goes to the summary row's ``labels`` only.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from assay.importers.base import OnProgress
from assay.traces import Attempt, CaseResult, LLMCall, Planner, Step, Trace, is_state_changing, read_json

__all__ = ["import_taubench", "classify_request", "LOOKUP_PREFIXES"]

#: Tool-name prefixes of read-only lookups: repeating one is a re-call that needs a reason.
LOOKUP_PREFIXES: tuple[str, ...] = ("get_", "search_", "list_")

#: First-user-turn keywords → query type, first match wins (cancellation before modification:
#: "cancel … and get a refund" is a cancellation). Coarse by design; documented in the README.
_QUERY_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx, re.I))
    for name, rx in (
        ("cancel", r"\bcancel"),
        ("baggage", r"\b(bag|bags|baggage|luggage)\b"),
        ("modify", r"\b(chang|modif|upgrad|downgrad|remov|add|switch|updat|swap|move)\w*"),
        ("book", r"\b(book|reserv|fly|flight to|trip to)\w*"),
        ("complaint", r"\b(refund|compensat|delay|insurance|upset|complain|cancelled)\w*"),
        ("account", r"\b(balance|gift card|certificate|points|membership|status)\b"),
    )
)


def import_taubench(
    src: str | os.PathLike[str], *, on_progress: OnProgress | None = None
) -> list[tuple[CaseResult, Trace]]:
    """Read one tau-bench trajectories file (or every ``*.json`` in a folder), in record order.
    ``on_progress(done, total)``: runs converted so far, of those in the files opened so far.

    Returns ``(summary row, trace)`` pairs; case ids are ``taubench-<domain>-<task:03d>-<trial>``
    and trace paths ``traces/<id>.json`` (see :func:`assay.traces.write_trace_set`). Raises
    ``ValueError`` naming ``file: [i].field: problem`` for a malformed record.
    """
    src = Path(src)
    files = sorted(src.glob("*.json")) if src.is_dir() else [src]
    if not files:
        raise ValueError(f"{src}: no *.json trajectory file")
    out: list[tuple[CaseResult, Trace]] = []
    seen: set[str] = set()
    total = 0
    for f in files:
        records = read_json(f)
        if not isinstance(records, list):
            raise ValueError(f"{f}: <root>: expected a list of runs")
        domain = next((d for d in ("airline", "retail") if d in f.name), "tau")
        total += len(records)
        for i, rec in enumerate(records):
            row, trace = _convert(rec, domain, f"{f}: [{i}]")
            if row.id in seen:
                raise ValueError(f"{f}: [{i}]: duplicate run {row.id}")
            seen.add(row.id)
            trace = trace.model_copy(update={"source": {"format": "tau-bench", "file": f.name, "record": i}})
            out.append((row, trace))
            if on_progress:
                on_progress(len(out), total)
    return out


def classify_request(text: str) -> str:
    """The query type of a first user turn: ``cancel``, ``baggage``, ``modify``, ``book``,
    ``complaint``, ``account`` or ``other`` (keyword rules, first match wins)."""
    for name, rx in _QUERY_TYPES:
        if rx.search(text or ""):
            return name
    return "other"


# --- helpers -------------------------------------------------------------------------------


def _convert(rec: Any, domain: str, where: str) -> tuple[CaseResult, Trace]:
    if not isinstance(rec, dict):
        raise ValueError(f"{where}: expected an object")
    for key in ("task_id", "reward", "traj"):
        if key not in rec:
            raise ValueError(f"{where}.{key}: missing")
    if not isinstance(rec["traj"], list):
        raise ValueError(f"{where}.traj: expected a list of messages")
    task, trial = rec["task_id"], rec.get("trial", 0)
    if not isinstance(task, int) or not isinstance(trial, int):
        raise ValueError(f"{where}.task_id: task_id and trial must be integers")
    steps = _steps(rec["traj"], where)
    first_user = next((s.content for s in steps if s.actor == "user"), "")
    query_type = classify_request(first_user)
    planner = Planner(
        query_type=query_type,
        pipeline=f"tau-bench/{domain}/tool-calling",
        stage_sequence=tuple(s.name or "" for s in steps if s.kind == "tool_call"),
        attempts=tuple(_attempts(steps)),
    )
    case_id = f"taubench-{domain}-{task:03d}-{trial}"
    row = CaseResult(
        id=case_id,
        slice=query_type,
        trace_path=f"traces/{case_id}.json",
        labels={"reward": float(rec["reward"]), "task_id": task, "trial": trial},
    )
    return row, Trace(planner=planner, synthesis_llm_call=_synthesis(steps), steps=tuple(steps))


def _steps(traj: list[Any], where: str) -> list[Step]:
    steps: list[Step] = []
    names: dict[str, str] = {}
    for j, m in enumerate(traj):
        if not isinstance(m, dict) or "role" not in m:
            raise ValueError(f"{where}.traj[{j}].role: missing")
        role, content = m["role"], m.get("content")
        text = content if isinstance(content, str) else ""
        if role == "system":
            steps.append(Step(index=len(steps), actor="system", kind="message", content=text))
            continue
        if role == "tool":
            name = m.get("name") or names.get(m.get("tool_call_id", ""), "tool")
            steps.append(
                Step(
                    index=len(steps),
                    actor=name,
                    kind="tool_result",
                    name=name,
                    content=text,
                    error=text.startswith("Error"),
                )
            )
            continue
        if text.strip():
            steps.append(Step(index=len(steps), actor=role, kind="message", content=text))
        for tc in m.get("tool_calls") or []:
            fn = (tc or {}).get("function") or {}
            name = fn.get("name")
            if not isinstance(name, str):
                raise ValueError(f"{where}.traj[{j}].tool_calls.function.name: missing")
            names[tc.get("id", "")] = name
            steps.append(
                Step(index=len(steps), actor=role, kind="tool_call", name=name, arguments=_args(fn.get("arguments")))
            )
    return steps


def _args(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _attempts(steps: list[Step]) -> list[Attempt]:
    """Retries and failed calls with their reasons (see the module docstring)."""
    out: list[Attempt] = []
    last: dict[str, tuple[Any, str]] = {}  # tool → (arguments, outcome) of its previous call
    user_since: dict[str, bool] = {}
    change_since: dict[str, bool] = {}
    for k, s in enumerate(steps):
        if s.kind == "message" and s.actor == "user":
            user_since = {name: True for name in user_since}
        if s.kind != "tool_call" or not s.name:
            continue
        result = steps[k + 1] if k + 1 < len(steps) and steps[k + 1].kind == "tool_result" else None
        outcome: Literal["ok", "error", "empty"] = (
            "error"
            if result is not None and result.error
            else (
                "empty"
                if result is not None and result.content.strip() in ("", "[]", "{}") and not s.name.startswith("think")
                else "ok"
            )
        )
        if outcome == "ok" and is_state_changing(s.name):
            change_since = {name: True for name in change_since}
        prev = last.get(s.name)
        reasons: list[str] = []
        if prev is not None and (s.name.startswith(LOOKUP_PREFIXES) or prev[1] == "error"):
            reasons.append(
                "same_arguments"
                if prev[0] == s.arguments
                else "new_arguments: " + ",".join(_changed(prev[0], s.arguments))
            )
            if prev[1] == "error":
                reasons.append("after_tool_error")
            if prev[1] == "empty":
                reasons.append("after_empty_result")
            if user_since.get(s.name):
                reasons.append("after_user_turn")
            if change_since.get(s.name):
                reasons.append("after_state_change")
        if outcome == "error":
            reasons.append(f"tool_error: {result.content[:120] if result else ''}".rstrip())
        if reasons:
            out.append(
                Attempt(
                    stage=s.name,
                    step=s.index,
                    arguments=s.arguments,
                    outcome=outcome,
                    verification_reasons=tuple(reasons),
                )
            )
        last[s.name] = (s.arguments, outcome)
        user_since[s.name] = False
        change_since[s.name] = False
    return out


def _changed(a: Any, b: Any) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        return keys or ["<order>"]
    return ["<value>"]


def _synthesis(steps: list[Step]) -> LLMCall | None:
    final = next(
        (k for k in range(len(steps) - 1, -1, -1) if steps[k].kind == "message" and steps[k].actor == "assistant"), None
    )
    if final is None:
        return None
    evidence = [
        f"[{s.actor}] {s.content}" if s.kind == "message" else f"[tool {s.name}] {s.content}"
        for s in steps[:final]
        if (s.kind == "message" and s.actor == "user") or s.kind == "tool_result"
    ]
    return LLMCall(user_prompt_text="\n".join(evidence), completion_text=steps[final].content)
