"""The eval runner: cases in, per-case records and a per-variant aggregate out.

For each case: sourcing gate → completeness → impersonal → faithfulness judge (when chosen) →
rubric. Then per variant and dimension: mean, std, 95% bootstrap CI, effective_n; the no_claims,
gate-fail and unchecked rates, the ``scale_from_display`` count; the paired lift of every variant
against the baseline over shared ``id``s; optionally the agreement of "gate failed" with a binary
label. The aggregate never holds a case
id (bottom-k rows are ranks + a salted key + variant + slice + score).

The headline ``composite`` (schema 2, issue 16) counts an answer without a checkable claim
(``no_claims``) as 0, because it did not do the job, except on a case marked ``expect_refusal``,
where declining is the job (1). Beside it: ``composite_answered`` (the rubric composite of the
answers with claims: schema 1's ``composite``) and ``coverage`` (1 when the answer has a claim).
Ranking and lift use the headline, so a variant cannot climb by refusing.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.cases import Case
from assay.grounding import GATE_VERSION, IndexCache, SnapshotIndex, score_answer
from assay.grounding.rubric import DEFAULT_WEIGHTS, DIMENSIONS, compose
from assay.judges.faithfulness import JudgeVerdict, make_faithfulness_judge
from assay.results import EvalAggregateV2, LabelAgreement, PairedLift, case_key, composite_meaning
from assay.results.breakdown import breakdown, coverage_flags, label_agreement
from assay.results.summarize import paired_lift, summarize_variants
from assay.stats import paired_bootstrap

__all__ = ["EvalConfig", "evaluate_case", "run_eval", "aggregate_records", "compare_runs", "REPORT_DIMS"]

#: Dimensions reported: the headline composite first, then the answered-only composite, the
#: coverage and the rubric's dimensions.
REPORT_DIMS: tuple[str, ...] = ("composite", "composite_answered", "coverage", *DIMENSIONS)
#: Dimensions without bottom-k rows: coverage is 0/1 and its 0s are the no_claims cases.
_NO_BOTTOM = frozenset({"coverage"})
#: The eval's rates per variant (shares of the variant's cases, 4 decimals).
_RATES = {
    "no_claims_rate": lambda r: r["status"] == "no_claims",
    "gate_fail_rate": lambda r: r["status"] == "fail",
    "unchecked_rate": lambda r: r["status"] == "unchecked",
}
#: The eval's counts per variant: quantities matched through the displayed-value rule (issue 15).
_COUNTS = {"scale_from_display": lambda r: sum(bool(c.get("scale_from_display")) for c in r.get("checks", ()))}


@dataclass(frozen=True)
class EvalConfig:
    """Options of one eval run (the CLI flags of ``assay eval``)."""

    name: str = "eval"
    mode: str = "auto"
    judge: str = "none"
    high_stakes: bool = False
    escalate: bool = False
    cache_dir: str | None = None
    token_budget: int | None = None
    db_url: str | None = None
    baseline: str | None = None
    label_field: str | None = None
    positive: str | None = None
    exclude_labels: tuple[str, ...] = ()
    n_resamples: int = 10_000
    seed: int = 0
    bottom_k: int = 3
    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    #: The run's id, written into all four report files (default: a fresh uuid4 hex per run).
    run_id: str | None = None
    #: Salt of the anonymised case keys (default: 16 random bytes per run, kept in the local file only).
    salt: str | None = None
    #: A variant whose coverage differs from the baseline's by more than this is flagged (issue 16:
    #: 10 percentage points; a variant that says less is not comparable on its headline alone).
    coverage_gap: float = 0.10


def evaluate_case(
    case: Case, config: EvalConfig, *, index: SnapshotIndex | None = None, verdict: JudgeVerdict | None = None
) -> dict[str, Any]:
    """Score one case; returns its local record (``id``, ``variant``, ``slice``, ``status``,
    ``scores`` per dimension + ``composite`` (headline), ``composite_answered`` and ``coverage``,
    ``reasons``, ``weights_used``, details, ``answer``). Headline: ``no_claims`` → 0, or 1 when
    ``case.expect_refusal``; otherwise the rubric composite."""
    scored = score_answer(
        case.answer,
        case.snapshot(),
        question=case.question,
        reference=case.reference,
        mode=config.mode,  # type: ignore[arg-type]  # EvalConfig.mode is a str; the CLI passes a Mode
        index=index,
    )
    gate, comp, imp = scored.gate, scored.completeness, scored.impersonal
    assert comp is not None and imp is not None  # not gate_only
    faith = verdict.score if verdict is not None and verdict.status == "scored" else None
    scores: dict[str, float | None] = {**scored.rubric_inputs, "faithfulness": faith}
    rubric = compose(scores, weights=config.weights, faithfulness_backend=verdict.backend if verdict else None)
    reasons: dict[str, str] = {
        "sourcing": f"{gate.n_matched}/{gate.n_checkable} quantities matched ({gate.mode} mode)"
        if gate.checks
        else "only unchecked numbers (unchecked)"
        if gate.status == "unchecked"
        else "no checkable quantity (no_claims)",
        "completeness": _completeness_reason(comp),
        "impersonal": f"{len(imp.flags)} flag(s): " + ", ".join(f.rule for f in imp.flags)
        if imp.flags
        else "no personalised advice",
    }
    if verdict is not None:
        reasons["faithfulness"] = verdict.reason or f"{verdict.status} by {verdict.backend}"
    reasons.update({f"dropped.{k}": v for k, v in rubric.dropped.items()})
    label = case.get_field(config.label_field) if config.label_field else None
    answered = gate.status != "no_claims"
    headline = rubric.composite if answered else (1.0 if case.expect_refusal else 0.0)
    if not answered:
        reasons["composite"] = (
            "no checkable claim on an expect_refusal case: scores 1"
            if case.expect_refusal
            else "no checkable claim: the answer did not do the job, scores 0"
        )
    return {
        "id": case.id,
        "variant": case.variant,
        "slice": case.slice,
        "status": gate.status,
        "mode": gate.mode,
        "expect_refusal": case.expect_refusal,
        "scores": {
            "composite": headline,
            "composite_answered": rubric.composite if answered else None,
            "coverage": 1.0 if answered else 0.0,
            **scores,
        },
        "reasons": reasons,
        "weights_used": rubric.weights_used,
        "violations": [v.model_dump() for v in gate.violations],
        "checks": [c.model_dump(exclude_defaults=True) for c in gate.checks],
        "completeness": comp.model_dump(),
        "impersonal_flags": [f.model_dump() for f in imp.flags],
        "faithfulness": verdict.model_dump() if verdict is not None else None,
        "label": _label_text(label),
        "answer": case.answer,
    }


def run_eval(
    cases: Sequence[Case],
    config: EvalConfig,
    *,
    on_case: Callable[[int], None] | None = None,
    on_verdict: Callable[[JudgeVerdict, dict[str, Any]], None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Evaluate ``cases``; returns ``(local, aggregate)`` dicts (schema 2; shapes in DESIGN.md).

    Snapshot indexes are reused across cases with the same fingerprint (variants of one
    question share their data). ``on_case(i)`` is called after each case is scored and
    ``on_verdict(verdict, usage)`` after each judge verdict (``usage``: the client's live
    counts, :meth:`assay.llm.LLMClient.usage`, ``{}`` without a client), for progress bars.
    """
    judge_opts: dict[str, Any] = {"escalate": config.escalate, "cache_dir": config.cache_dir, "db_url": config.db_url}
    if config.token_budget is not None:
        judge_opts["token_budget"] = config.token_budget
    judge = make_faithfulness_judge(config.judge, high_stakes=config.high_stakes, **judge_opts)
    verdicts: Sequence[JudgeVerdict | None] = (
        _judge_live(judge, cases, on_verdict) if judge is not None else [None] * len(cases)
    )
    indexes = IndexCache()
    run_id = config.run_id or uuid.uuid4().hex
    salt = config.salt or secrets.token_hex(16)
    records = []
    for i, case in enumerate(cases):
        record = evaluate_case(case, config, index=indexes.get(case.snapshot()), verdict=verdicts[i])
        key = case_key(salt, case.id, case.variant)
        head = {"id": case.id, "variant": case.variant, "slice": case.slice, "key": key}
        records.append(head | record)  # the key after the slice, as EvalCaseRecordV2 orders the file
        if on_case:
            on_case(i)
    backend = judge.backend if judge else "none"
    local = {
        "schema": 2,
        "kind": "eval",
        "run_id": run_id,
        "backend": backend,
        "gate_version": GATE_VERSION,
        "salt": salt,
        "cases": records,
    }
    aggregate = aggregate_records(
        records,
        config,
        backend=backend,
        model=judge.model if judge else None,
        judge_notes=judge.notes if judge else (),
        run_id=run_id,
    )
    if judge is not None:
        # n_unscored, reasons, usage: no case ids (with a judge, every case has its verdict)
        aggregate["judge"] = judge.summary([v for v in verdicts if v is not None])
    return local, aggregate


def aggregate_records(
    records: Sequence[dict[str, Any]],
    config: EvalConfig,
    *,
    backend: str = "none",
    model: str | None = None,
    judge_notes: Iterable[str] = (),
    run_id: str | None = None,
) -> dict[str, Any]:
    """Per-variant statistics, lift vs baseline, coverage flags, breakdown, agreement and bottom-k
    of local ``records``.

    Returns the aggregate file's JSON object (:class:`assay.results.EvalAggregateV2`); the
    figures come from :func:`assay.results.summarize.summarize_variants`,
    :func:`~assay.results.summarize.paired_lift` and :mod:`assay.results.breakdown`. Bottom-k
    rows carry the records' ``key`` when they have one. Raises ``ValueError`` when
    ``config.baseline`` is not a variant of ``records``.
    """
    n_resamples, seed = config.n_resamples, config.seed
    summary = summarize_variants(
        records,
        REPORT_DIMS,
        rates=_RATES,
        counts=_COUNTS,
        n_resamples=n_resamples,
        seed=seed,
        bottom_k=config.bottom_k,
        bottom_dims=[d for d in REPORT_DIMS if d not in _NO_BOTTOM],
        key_field="key" if any("key" in r for r in records) else None,
    )
    notes = list(judge_notes)
    baseline = config.baseline
    lift: dict[str, dict[str, PairedLift]] = {}
    if baseline is not None:
        lift = paired_lift(records, REPORT_DIMS, baseline, n_resamples=n_resamples, seed=seed)
    elif len(summary.variants) > 1:
        notes.append("no --baseline given: lift not computed")
    flags = coverage_flags(summary.variants, baseline, gap=config.coverage_gap) if baseline is not None else []
    notes += [
        f"coverage of {f['variant']} ({f['coverage']:.0%}) differs from the baseline's ({f['baseline_coverage']:.0%}) "
        f"by {abs(f['diff']) * 100:.0f} pp (> {config.coverage_gap * 100:.0f}): its composite is not comparable on "
        "its own; read composite_answered and coverage beside it"
        for f in flags
    ]
    if backend == "stub":
        notes.append(
            "faithfulness from the stub backend (a hash, not a quality signal) is shown but not in the composite"
        )
    agreement_ = label_agreement(records, config.label_field, config.positive, config.exclude_labels)
    if agreement_ is not None and agreement_["tp"] + agreement_["fn"] == 0:
        notes.append(
            f"no compared case has {config.label_field} = {config.positive!r}: recall and κ are undefined "
            "(labels are compared as text; JSON true/false/numbers as written in JSON)"
        )
    return EvalAggregateV2(
        schema=2,
        kind="eval",
        run_id=run_id,
        name=config.name,
        backend=backend,
        model=model,
        gate_version=GATE_VERSION,
        n=len(records),
        dims=list(REPORT_DIMS),
        baseline=baseline,
        weights=dict(config.weights),
        notes=notes,
        variants=summary.variants,
        coverage_flags=flags,
        lift=lift,
        breakdown=breakdown(records),
        agreement=None if agreement_ is None else LabelAgreement.model_validate(agreement_),
        bottom=summary.bottom,
    ).to_json()


def compare_runs(a: dict[str, Any], b: dict[str, Any], *, n_resamples: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """Paired lift per dimension of run ``b`` over run ``a`` (two ``*.local.json`` dicts).

    Pairs on ``(id, variant)``; pairs with a missing side are dropped and ``n_pairs`` says how
    many remained. Every dimension both runs scored is compared (eval's in :data:`REPORT_DIMS`
    order, then any other, e.g. the rationality axes, in the files' order). An eval schema-1
    file's ``composite`` is the answered-only composite, so it is compared as
    ``composite_answered``; a schema-1 run has no headline composite, so against a schema-2 run the
    headline is not compared, and a note says which composite was used (``composite`` in the
    result names each side's meaning, :func:`assay.results.composite_meaning`).

    Returns ``{"schema", "kind", "n_a", "n_b", "composite": {"a", "b"}, "notes", "lift": {dim:
    {"diff", "ci", "n_pairs"}}, "worse": [dims]}``; ``worse`` lists the dimensions whose 95% CI
    lies entirely below 0 (B significantly worse than A). ``notes`` says when the runs differ in
    kind, gate version or judge backend (their scores may then not be comparable) or when a stub
    faithfulness is compared.
    """
    meaning = {"a": composite_meaning(a), "b": composite_meaning(b)}
    cases = {
        "a": [_as_schema2(r, meaning["a"]) for r in a["cases"]],
        "b": [_as_schema2(r, meaning["b"]) for r in b["cases"]],
    }

    def keyed(side: str, d: str) -> dict[str, float | None]:
        return {f"{r['id']}\x00{r['variant']}": r["scores"].get(d) for r in cases[side]}

    def scored(side: str) -> list[str]:
        return list(dict.fromkeys(d for r in cases[side] for d in r["scores"]))

    in_a, in_b = scored("a"), scored("b")
    dims = [d for d in REPORT_DIMS if d in in_a and d in in_b]
    dims += [d for d in in_a if d in in_b and d not in dims]
    notes = [
        f"{key} differs: A {a.get(key)!r}, B {b.get(key)!r}"
        for key in ("kind", "gate_version", "backend")
        if a.get(key) != b.get(key)
    ]
    if "stub" in (a.get("backend"), b.get("backend")) and "faithfulness" in dims:
        notes.append("faithfulness from the stub backend is a hash, not a quality signal: its lift means nothing")
    old = [side.upper() for side in ("a", "b") if meaning[side] == "answered"]
    if old:
        compared = "composite_answered" + (" only: the headline composite is not compared" if len(old) == 1 else "")
        notes.append(
            f"{' and '.join(old)} {'is' if len(old) == 1 else 'are'} eval schema 1, whose composite is the "
            f"answered-only composite (no_claims left out); compared as {compared}"
        )
    lift = {
        d: paired_bootstrap(keyed("b", d), keyed("a", d), n_resamples=n_resamples, seed=seed).to_dict() for d in dims
    }
    return {
        "schema": 2,
        "kind": "compare",
        "n_a": len(a["cases"]),
        "n_b": len(b["cases"]),
        "composite": meaning,
        "notes": notes,
        "lift": lift,
        "worse": [d for d, r in lift.items() if r["ci"] is not None and r["ci"][1] < 0],
    }


# --- helpers -------------------------------------------------------------------------------


def _judge_live(
    judge: Any, cases: Sequence[Case], on_verdict: Callable[[JudgeVerdict, dict[str, Any]], None] | None
) -> list[JudgeVerdict]:
    """``judge.judge_many(cases)``, calling ``on_verdict`` as each verdict arrives (live counts)."""
    if on_verdict is None:
        return list(judge.judge_many(cases))

    async def one(case: Case) -> JudgeVerdict:
        verdict: JudgeVerdict = await judge.ajudge(case)
        on_verdict(verdict, judge.client.usage() if judge.client is not None else {})
        return verdict

    async def every() -> list[JudgeVerdict]:
        try:
            return list(await asyncio.gather(*(one(c) for c in cases)))
        finally:
            if judge.client is not None:
                await judge.client.aclose()

    verdicts = asyncio.run(every())
    summary = judge.summary(verdicts)
    if summary["n_unscored"] and not judge.not_configured:  # the note judge_many adds
        kinds = ", ".join(f"{n} {k}" for k, n in summary["reasons"].items())
        judge.notes.append(
            f"faithfulness: {summary['n_unscored']} of {summary['n']} case(s) unscored "
            f"({summary['n_rejected']} rejected, {summary['n_skipped']} skipped: {kinds})"
        )
    return verdicts


def _as_schema2(record: dict[str, Any], meaning: str | None) -> dict[str, Any]:
    """An eval schema-1 record's scores as schema 2 names them (``composite`` → ``composite_answered``)."""
    if meaning != "answered" or "composite" not in record["scores"]:
        return record
    scores = {("composite_answered" if d == "composite" else d): v for d, v in record["scores"].items()}
    return {**record, "scores": scores}


def _label_text(label: Any) -> str | None:
    """A label as the text ``--positive`` is compared with: strings as they are, other JSON values
    as JSON writes them (``true``, ``3``), so ``--positive true`` matches a JSON ``true``."""
    if label is None or isinstance(label, str):
        return label
    return json.dumps(label, ensure_ascii=False, sort_keys=True)


def _completeness_reason(comp: Any) -> str:
    if comp.basis == "reference":
        return f"states {comp.reference_recall:.0%} of the reference's {comp.n_reference} number(s)"
    if comp.basis == "material":
        return f"{len(comp.material_omitted)} of {comp.n_material} material fact(s) omitted"
    return "no reference and no material facts: not measured"
