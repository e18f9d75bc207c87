"""Trajectory-rationality judge: did the agent get to its answer sensibly? Three axes per trace.

- ``planner_decomposition``: does the plan (query type, stages in order, retrieval settings) fit
  the question?
- ``retrieval_recalls``: is every retry driven by a reason (new evidence, an error, a change)?
- ``answer_reasoning``: is the final answer consistent with what was retrieved? Measured only
  when the trace holds the synthesis call (``None`` otherwise).

Inputs are an eval summary (``case_results: [{id, slice, trace_path}]``) and the native traces
it points to (:mod:`assay.traces`). Each axis is in [0, 1] with 4 decimals; ``composite`` is the
mean of the axes measured for the case. Backends (the same names in every flag and file):

- ``stub``: per axis, SHA-256 over the UTF-8 of the canonical JSON (``sort_keys=True``,
  ``separators=(",", ":")``, ``ensure_ascii=False``) of ``[axis input subset, axis, case id]``;
  score = ``int(first 8 hex digits, 16) / 0xFFFFFFFF`` rounded to 4 decimals. Byte-identical
  across runs and platforms, free, and **not a quality proxy**: it is the floor a real backend
  must beat (DESIGN.md, "The judge contract").
- ``heuristic``: deterministic rules (:mod:`assay.judges.rationality_rules`) whose validity beyond
  trajectory length is not established: on tau-bench tasks the project never saw, their AUC
  against reward did not beat trajectory length (issue 16), so the scores are not a quality signal
  either; they are not tuned further on tasks 0–39 (that would only fit them).
- ``openai_compatible``: one LLM call per case judging all three axes with the same context,
  through assay's LLM layer; replies are validated fail-closed (:mod:`assay.judges.rationality_llm`).

A missing or unreadable trace (no file, invalid JSON, no ``planner`` block) gives that case
``None`` on every axis with the reason, counted in ``n_missing_trace``; it is never a 0.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.results import RationalityAggregateV1
from assay.results.summarize import summarize_variants
from assay.traces import AXES, EvalSummary, Trace, TraceError, axis_inputs, load_summary, load_trace, resolve_trace_path

__all__ = [
    "AXES",
    "BACKENDS",
    "REPORT_DIMS",
    "judge_rationality",
    "stub_axis_score",
    "stub_scores",
    "aggregate_rationality",
    "composite",
    "resamples_for",
]

BACKENDS: tuple[str, ...] = ("stub", "heuristic", "openai_compatible")
#: Dimensions in the local ``scores`` and in the aggregate, report order.
REPORT_DIMS: tuple[str, ...] = (*AXES, "composite")
#: Model name recorded for the stub (there is no model: it is a hash).
STUB_MODEL = "sha256"
_STUB_NOTE = (
    "backend stub: each axis is SHA-256 of its input subset and the case id mapped to [0, 1] — "
    "a deterministic floor, not a quality proxy"
)
_HEURISTIC_NOTE = (
    "backend heuristic: deterministic rules whose validity beyond trajectory length is not established "
    "(on held-out tasks their AUC against reward did not beat trajectory length): not a quality signal"
)


def judge_rationality(
    summary: EvalSummary | str | os.PathLike[str],
    *,
    backend: str = "stub",
    traces_dir: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    token_budget: int = 200_000,
    name: str = "rationality",
    llm: Any = None,
    db_url: str | None = None,
    n_resamples: int | None = None,
    seed: int = 0,
    bottom_k: int = 3,
    on_case: Callable[[int], None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Judge every trace of ``summary``; returns ``(local, aggregate)`` (shapes in DESIGN.md).

    Args:
        summary: an :class:`~assay.traces.EvalSummary` or the path of a summary JSON file.
        backend: ``stub`` | ``heuristic`` | ``openai_compatible``.
        traces_dir: overrides where trace files are looked up (see
            :func:`assay.traces.resolve_trace_path`).
        cache_dir: ``openai_compatible`` only: the response cache goes to
            ``cache_dir/llm_cache.db`` (default: the store, ``db_url`` > ``ASSAY_DB_URL`` > …).
        token_budget: ``openai_compatible`` only: tokens reserved before each call (estimate);
            cases past the budget are ``skipped`` with reason ``budget``. Must be ``>= 0``.
        name: the run name written in the aggregate.
        llm: ``openai_compatible`` only: an :class:`assay.llm.base.LLMBackend` to use instead of
            the one configured from the environment (tests, other providers).
        n_resamples, seed: bootstrap settings (:func:`assay.stats.summarize`); ``None`` →
            :func:`resamples_for` the number of cases.
        bottom_k: lowest-scoring cases listed per axis (anonymised in the aggregate).
        on_case: called with the case index once each case is judged, in completion order (progress bars).

    Local records: ``{id, variant: "all", slice, status: scored|missing_trace|rejected|skipped,
    scores: {axis: float|None, composite}, reasons: {axis|trace|judge: str}, trace_path,
    has_synthesis_llm_call, labels, tokens}``.

    Raises:
        TraceError: ``summary`` is a path to a malformed summary (``file: field: problem``).
        ValueError: unknown backend, negative ``token_budget``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown rationality backend {backend!r}: use {', '.join(BACKENDS)}")
    if token_budget < 0:
        raise ValueError(f"token budget must be >= 0, got {token_budget}")
    if not isinstance(summary, EvalSummary):
        summary = load_summary(summary)
    steps = backend == "heuristic"  # the stub and the LLM read only the axis inputs
    rows = summary.case_results
    model: str | None
    usage: dict[str, Any] = {}
    notes: list[str] = []
    loaded: list[tuple[Trace | None, Path | None, str | None]] = []
    verdicts: list[dict[str, Any] | None] = []
    if backend in ("stub", "heuristic"):  # per case: load, score, count (progress is live)
        if backend == "stub":
            model = STUB_MODEL
            notes.append(_STUB_NOTE)
        else:
            from assay.judges.rationality_rules import RULES_VERSION, heuristic_scores

            model = RULES_VERSION
            notes.append(_HEURISTIC_NOTE)
        memo: dict[str, frozenset[str]] = {}
        for i, row in enumerate(rows):
            loaded.append(_load(summary, row.trace_path, traces_dir, steps))
            t = loaded[-1][0]
            if t is None:
                verdicts.append(None)
            elif backend == "stub":
                verdicts.append(_scored(stub_scores(t, row.id), {}))
            else:
                verdicts.append(_scored(*heuristic_scores(t, memo=memo)))
            if on_case:
                on_case(i)
    else:
        from assay.judges.rationality_llm import judge_traces_llm

        loaded = [_load(summary, row.trace_path, traces_dir, steps) for row in rows]
        result = judge_traces_llm(
            [t for t, _, _ in loaded],
            llm=llm,
            cache_dir=None if cache_dir is None else Path(cache_dir),  # str | Path downstream
            db_url=db_url,
            token_budget=token_budget,
            on_case=on_case,
        )
        model, verdicts, usage, llm_notes = result.model, result.verdicts, result.usage, result.notes
        notes += llm_notes
    records = [
        _record(row, trace, path, problem, verdicts[i])
        for i, (row, (trace, path, problem)) in enumerate(zip(rows, loaded, strict=True))
    ]
    local = {"schema": 1, "kind": "rationality", "backend": backend, "model": model, "cases": records}
    aggregate = aggregate_rationality(
        records,
        backend=backend,
        model=model,
        name=name,
        usage=usage,
        notes=notes,
        n_resamples=n_resamples,
        seed=seed,
        bottom_k=bottom_k,
    )
    return local, aggregate


def stub_axis_score(subset: Any, axis: str, case_id: str) -> float:
    """The stub score of one axis: SHA-256 of canonical JSON ``[subset, axis, case_id]`` → [0, 1].

    Canonical JSON: ``json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    encoded as UTF-8; score = ``round(int(hexdigest[:8], 16) / 0xFFFFFFFF, 4)``.
    """
    text = json.dumps([subset, axis, case_id], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return round(int(digest[:8], 16) / 0xFFFFFFFF, 4)


def stub_scores(trace: Trace, case_id: str) -> dict[str, float | None]:
    """Stub score of every axis of ``trace`` (``None`` where the axis has no input)."""
    out: dict[str, float | None] = {}
    for axis in AXES:
        subset = axis_inputs(trace, axis)
        out[axis] = None if subset is None else stub_axis_score(subset, axis, case_id)
    return out


def composite(scores: Mapping[str, float | None]) -> float | None:
    """Mean of the measured axes, 4 decimals; ``None`` when no axis was measured."""
    vals = [v for a in AXES if (v := scores.get(a)) is not None]
    return round(math.fsum(vals) / len(vals), 4) if vals else None


def resamples_for(n: int) -> int:
    """Bootstrap resamples for ``n`` cases: 10,000, lowered for large runs so that resamples × n
    stays ≤ 2·10⁷, but never below 2,000.

    Cost is linear in resamples × n (10,000 × 10,000 cases ≈ 1.3 s per axis here); 2,000
    resamples already pin the 2.5/97.5 % percentiles well (Efron & Tibshirani 1993, §19.3:
    1,000–2,000 for percentile intervals), and a run that large has a CI far narrower than the
    resampling noise matters for. The aggregate records the number used.
    """
    return max(2_000, min(10_000, 20_000_000 // max(n, 1)))


def aggregate_rationality(
    records: Sequence[Mapping[str, Any]],
    *,
    backend: str,
    model: str | None = None,
    name: str = "rationality",
    usage: Mapping[str, Any] | None = None,
    notes: Sequence[str] = (),
    n_resamples: int | None = None,
    seed: int = 0,
    bottom_k: int = 3,
) -> dict[str, Any]:
    """The aggregate of local ``records`` (one variant, ``all``); never holds a case id.

    Per dimension (the three axes and ``composite``): mean, std, 95% bootstrap CI and
    ``effective_n`` (:func:`assay.stats.summarize`; ``None`` dropped from the denominator, an axis
    with no samples has ``mean: null`` and no CI), a 10-bin histogram, and the ``bottom_k`` rows as
    rank + slice + score (:func:`assay.results.summarize.summarize_variants`). Counts: ``n``,
    ``n_missing_trace``, ``n_rejected``, ``n_skipped``, ``cases_with_synthesis_llm_call``. Returns
    the aggregate file's JSON object (:class:`assay.results.RationalityAggregateV1`).
    """
    n_resamples = resamples_for(len(records)) if n_resamples is None else n_resamples
    summary = summarize_variants(
        records, REPORT_DIMS, variants=("all",), n_resamples=n_resamples, seed=seed, bottom_k=bottom_k
    )
    notes = list(notes)
    missing = sum(r["status"] == "missing_trace" for r in records)
    rejected = sum(r["status"] == "rejected" for r in records)
    skipped = sum(r["status"] == "skipped" for r in records)
    with_call = sum(bool(r.get("has_synthesis_llm_call")) for r in records)
    if missing:
        notes.append(
            f"{missing} case(s) had no usable trace (missing file, invalid JSON or no planner block): "
            "their axes are not measured"
        )
    notes.append(
        f"synthesis_llm_call in {with_call} of {len(records)} trace(s); "
        f"missing trace {missing}, rejected {rejected}, skipped {skipped}"
    )
    if records and summary.variants["all"].dims["answer_reasoning"].effective_n == 0:
        notes.append(
            "answer_reasoning not measured on any case: "
            + (
                "no trace holds a synthesis_llm_call (full capture)"
                if with_call == 0
                else f"{with_call} trace(s) hold a synthesis_llm_call but none was scored (rejected or skipped)"
            )
        )
    return RationalityAggregateV1(
        schema=1,
        kind="rationality",
        name=name,
        backend=backend,
        model=model,
        n=len(records),
        dims=list(REPORT_DIMS),
        axes=list(AXES),
        cases_with_synthesis_llm_call=with_call,
        n_missing_trace=missing,
        n_rejected=rejected,
        n_skipped=skipped,
        usage=dict(usage or {}),
        n_resamples=n_resamples,
        baseline=None,
        notes=notes,
        variants=summary.variants,
        lift={},
        bottom=summary.bottom,
    ).to_json()


# --- helpers -------------------------------------------------------------------------------


def _load(
    summary: EvalSummary, trace_path: str | None, traces_dir: Any, steps: bool
) -> tuple[Trace | None, Path | None, str | None]:
    """``(trace, resolved path, None)`` or ``(None, path, problem)``."""
    if not trace_path:
        return None, None, "no trace_path in the summary row"
    path = resolve_trace_path(summary.path, trace_path, traces_dir)
    try:
        return load_trace(path, steps=steps), path, None
    except TraceError as e:
        return None, path, str(e)


def _scored(
    scores: Mapping[str, float | None], reasons: Mapping[str, str], details: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    out = {"status": "scored", "scores": dict(scores), "reasons": dict(reasons), "tokens": 0}
    if details:
        out["details"] = dict(details)
    return out


def _record(
    row: Any, trace: Trace | None, path: Path | None, problem: str | None, verdict: Mapping[str, Any] | None
) -> dict[str, Any]:
    base = {
        "id": row.id,
        "variant": "all",
        "slice": row.slice,
        "trace_path": str(path) if path else None,
        "has_synthesis_llm_call": bool(trace is not None and trace.synthesis_llm_call is not None),
        "labels": dict(row.labels),
    }
    if trace is None or verdict is None:
        none = {d: None for d in REPORT_DIMS}
        return {
            **base,
            "status": "missing_trace",
            "scores": none,
            "reasons": {"trace": problem or "no trace"},
            "tokens": 0,
        }
    scores = {a: verdict["scores"].get(a) for a in AXES}
    reasons = dict(verdict.get("reasons") or {})
    if trace.synthesis_llm_call is None:
        reasons.setdefault("answer_reasoning", "not measured: the trace has no synthesis_llm_call (no full capture)")
    rec = {
        **base,
        "status": verdict["status"],
        "scores": {**scores, "composite": composite(scores)},
        "reasons": reasons,
        "tokens": int(verdict.get("tokens") or 0),
    }
    for key in ("model", "cached", "details"):
        if key in verdict:
            rec[key] = verdict[key]
    return rec
