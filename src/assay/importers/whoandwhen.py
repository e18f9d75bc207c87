"""Who&When failure-attribution logs → native traces + an eval summary.

Source format (mingyin1/Agents_Failure_Attribution ``Who&When/``): one JSON object per file in
``Algorithm-Generated/`` (CaptainAgent teams; steps ``{role, name, content}``) and
``Hand-Crafted/`` (Magentic-One; steps ``{role, content}`` with roles such as ``Orchestrator
(thought)``, ``WebSurfer``). Each log is annotated with the agent (``mistake_agent``) and the
step index into ``history`` (``mistake_step``) that caused the failure.

Mapping (one trace per log):

- ``steps``: every history entry, in order; ``actor`` = ``name`` when present, else ``role``.
  Code-execution output (``Computer_terminal`` / ``ComputerTerminal``) is a ``tool_result``,
  flagged ``error`` on a non-zero exit code, a traceback or an ``Error:`` line.
- ``planner.stage_sequence``: one stage per step, the actor; ``planner.query_type``: the
  question classified by keyword (``file``, ``count``, ``compute``, ``web``, ``lookup``);
  ``planner.pipeline``: ``captainagent`` or ``magentic-one``; top-k and budget stay ``None``.
- ``planner.attempts``: every failed execution (``tool_error: …``), every execution right after
  a failed one (``after_tool_error``), and every step that repeats an earlier step of the same
  actor word for word (``same_content_as_step: k``).
- ``synthesis_llm_call``: the last step that is not a bare ``TERMINATE`` (completion), written
  from all steps before it (prompt).

``mistake_step``, ``mistake_agent`` and the correctness flag go to the summary row's ``labels``
only; ``mistake_reason``, ``ground_truth`` and ``system_prompt`` are not copied anywhere.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from assay.importers.base import OnProgress
from assay.traces import Attempt, CaseResult, LLMCall, Planner, Step, Trace, read_json

__all__ = ["import_whoandwhen", "classify_question"]

_SUBSETS = {"Algorithm-Generated": ("ag", "captainagent"), "Hand-Crafted": ("hc", "magentic-one")}
_TOOL_ACTORS = {"computer_terminal", "computerterminal"}
_ERROR = re.compile(
    r"exitcode:\s*[1-9]|execution failed|Traceback \(most recent call last\)|^\s*\w*Error:", re.I | re.M
)
_QUESTION_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (n, re.compile(rx, re.I))
    for n, rx in (
        ("file", r"attached|spreadsheet|\.xlsx|\.csv|\.pdf|image|file|audio|video"),
        ("count", r"\bhow many\b|\bnumber of\b|\bcount\b"),
        ("compute", r"\bcalculate|\bcompute|\bhow much|\baverage|\btotal|\bpercent"),
        ("web", r"website|wikipedia|web page|\burl\b|online|google|search"),
        ("lookup", r"\bwhat\b|\bwho\b|\bwhich\b|\bwhen\b|\bwhere\b"),
    )
)


def import_whoandwhen(
    src: str | os.PathLike[str], *, on_progress: OnProgress | None = None
) -> list[tuple[CaseResult, Trace]]:
    """Read the Who&When root folder, one of its subfolders, or one log file.
    ``on_progress(done, total)``: log files converted so far.

    Returns ``(summary row, trace)`` pairs ordered by subset and file number; case ids are
    ``whowhen-<ag|hc>-<n:03d>``, slices ``algorithm-generated`` / ``hand-crafted``. Raises
    ``ValueError`` naming ``file: field: problem`` for a malformed log.
    """
    src = Path(src)
    if src.is_file():
        files = [src]
    else:
        subdirs = [src / s for s in _SUBSETS if (src / s).is_dir()] or [src]
        files = [f for d in subdirs for f in sorted(d.glob("*.json"), key=_file_number)]
    if not files:
        raise ValueError(f"{src}: no Who&When *.json log")
    out = []
    for f in files:
        out.append(_convert(f))
        if on_progress:
            on_progress(len(out), len(files))
    return out


def classify_question(text: str) -> str:
    """The query type of a task question (keyword rules, first match wins; ``other`` if none)."""
    for name, rx in _QUESTION_TYPES:
        if rx.search(text or ""):
            return name
    return "other"


# --- helpers -------------------------------------------------------------------------------


def _file_number(path: Path) -> tuple[int, str]:
    return (int(path.stem), path.name) if path.stem.isdigit() else (1 << 30, path.name)


def _convert(path: Path) -> tuple[CaseResult, Trace]:
    log = read_json(path)
    if not isinstance(log, dict):
        raise ValueError(f"{path}: <root>: expected an object")
    history = log.get("history")
    if not isinstance(history, list) or not history:
        raise ValueError(f"{path}: history: missing or empty")
    subset = path.parent.name
    short, pipeline = _SUBSETS.get(subset, ("ww", "unknown"))
    steps = [_step(i, h, path) for i, h in enumerate(history)]
    planner = Planner(
        query_type=classify_question(str(log.get("question") or "")),
        pipeline=pipeline,
        stage_sequence=tuple(s.actor for s in steps),
        attempts=tuple(_attempts(steps)),
    )
    labels: dict[str, Any] = {}
    if "mistake_step" in log:
        try:
            labels["mistake_step"] = int(str(log["mistake_step"]).strip())
        except ValueError:
            raise ValueError(f"{path}: mistake_step: not an integer: {log['mistake_step']!r}") from None
    if "mistake_agent" in log:
        labels["mistake_agent"] = str(log["mistake_agent"])
    correct = log.get("is_correct", log.get("is_corrected"))
    if isinstance(correct, bool):
        labels["is_correct"] = correct
    n = path.stem if path.stem.isdigit() else re.sub(r"\W+", "_", path.stem)
    case_id = f"whowhen-{short}-{int(n):03d}" if n.isdigit() else f"whowhen-{short}-{n}"
    row = CaseResult(
        id=case_id,
        slice=subset.lower() if subset in _SUBSETS else None,
        trace_path=f"traces/{case_id}.json",
        labels=labels,
    )
    trace = Trace(
        planner=planner,
        synthesis_llm_call=_synthesis(steps),
        steps=tuple(steps),
        source={"format": "who-and-when", "file": f"{subset}/{path.name}"},
    )
    return row, trace


def _step(i: int, h: Any, path: Path) -> Step:
    if not isinstance(h, dict):
        raise ValueError(f"{path}: history[{i}]: expected an object")
    content = h.get("content")
    content = (
        content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content is not None else ""
    )
    actor = str(h.get("name") or h.get("role") or "unknown")
    if actor.lower() in _TOOL_ACTORS:
        return Step(
            index=i, actor=actor, kind="tool_result", name=actor, content=content, error=bool(_ERROR.search(content))
        )
    return Step(index=i, actor=actor, kind="message", content=content)


def _attempts(steps: list[Step]) -> list[Attempt]:
    out: list[Attempt] = []
    seen: dict[tuple[str, str], int] = {}
    last_exec_error = False
    for s in steps:
        reasons: list[str] = []
        key = (s.actor, " ".join(s.content.split()))
        if key[1] and key in seen:
            reasons.append(f"same_content_as_step: {seen[key]}")
        if s.kind == "tool_result":
            if last_exec_error:
                reasons.append("after_tool_error")
            if s.error:
                reasons.append(f"tool_error: {_first_error_line(s.content)}")
            last_exec_error = s.error
        if reasons:
            out.append(
                Attempt(
                    stage=s.actor,
                    step=s.index,
                    outcome="error" if s.error else "ok",
                    verification_reasons=tuple(reasons),
                )
            )
        seen.setdefault(key, s.index)
    return out


def _first_error_line(text: str) -> str:
    m = _ERROR.search(text)
    line = text[m.start() :].strip().splitlines()[0] if m else ""
    return line[:120]


def _synthesis(steps: list[Step]) -> LLMCall | None:
    final = next(
        (
            k
            for k in range(len(steps) - 1, -1, -1)
            if steps[k].content.strip() and steps[k].content.strip().upper() != "TERMINATE"
        ),
        None,
    )
    if final is None:
        return None
    return LLMCall(
        user_prompt_text="\n".join(f"[{s.actor}] {s.content}" for s in steps[:final]),
        completion_text=steps[final].content,
    )
