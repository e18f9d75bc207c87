"""Reading and writing trace files: the eval summary, one trace, any JSON file of a trace format
(the importers), where a summary row's trace is, and a whole trace set. Every problem is a
:class:`TraceError` whose message is ``file[:line]: field: problem``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay.atomic import atomic_write_json, check_writable_dir
from assay.traces.schema import CaseResult, EvalSummary, Trace, TraceHead

__all__ = ["TraceError", "load_summary", "load_trace", "read_json", "resolve_trace_path", "write_trace_set"]


class TraceError(ValueError):
    """A summary or trace file that cannot be used; the message is ``file[:line]: field: problem``."""


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
        head = TraceHead.model_validate_json(text)
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
        return Trace.model_construct(**dict(TraceHead.model_validate(data)), steps=())
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
