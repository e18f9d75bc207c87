"""The eval runner: cases in, per-case records and a per-variant aggregate out.

For each case: sourcing gate → completeness → impersonal → faithfulness judge (when chosen) →
rubric. Then per variant and dimension: mean, std, 95% bootstrap CI, effective_n; the no_claims
and gate-fail rates; the paired lift of every variant against the baseline over shared ``id``s;
optionally the agreement of "gate failed" with a binary label. The aggregate never holds a case
id (bottom-k rows are ranks + variant + slice + score).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.cases import Case
from assay.grounding import GATE_VERSION, IndexCache, SnapshotIndex, score_answer
from assay.grounding.rubric import DEFAULT_WEIGHTS, DIMENSIONS, compose
from assay.judges.faithfulness import JudgeVerdict, make_faithfulness_judge
from assay.results import EvalAggregateV1, LabelAgreement, PairedLift
from assay.results.summarize import paired_lift, summarize_variants
from assay.stats import agreement, paired_bootstrap

__all__ = ["EvalConfig", "evaluate_case", "run_eval", "aggregate_records", "compare_runs", "REPORT_DIMS"]

#: Dimensions reported, composite first.
REPORT_DIMS: tuple[str, ...] = ("composite", *DIMENSIONS)
#: The eval's rates per variant (shares of the variant's cases, 4 decimals).
_RATES = {
    "no_claims_rate": lambda r: r["status"] == "no_claims",
    "gate_fail_rate": lambda r: r["status"] == "fail",
}


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


def evaluate_case(
    case: Case, config: EvalConfig, *, index: SnapshotIndex | None = None, verdict: JudgeVerdict | None = None
) -> dict[str, Any]:
    """Score one case; returns its local record (``id``, ``variant``, ``slice``, ``status``,
    ``scores`` per dimension + composite, ``reasons``, ``weights_used``, details)."""
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
    return {
        "id": case.id,
        "variant": case.variant,
        "slice": case.slice,
        "status": gate.status,
        "mode": gate.mode,
        "scores": {"composite": rubric.composite, **scores},
        "reasons": reasons,
        "weights_used": rubric.weights_used,
        "violations": [v.model_dump() for v in gate.violations],
        "checks": [c.model_dump(exclude_defaults=True) for c in gate.checks],
        "completeness": comp.model_dump(),
        "impersonal_flags": [f.model_dump() for f in imp.flags],
        "faithfulness": verdict.model_dump() if verdict is not None else None,
        "label": _label_text(label),
    }


def run_eval(
    cases: Sequence[Case],
    config: EvalConfig,
    *,
    on_case: Callable[[int], None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Evaluate ``cases``; returns ``(local, aggregate)`` dicts (shapes in DESIGN.md).

    Snapshot indexes are reused across cases with the same fingerprint (variants of one
    question share their data). ``on_case(i)`` is called after each case (progress bars).
    """
    judge_opts: dict[str, Any] = {"escalate": config.escalate, "cache_dir": config.cache_dir, "db_url": config.db_url}
    if config.token_budget is not None:
        judge_opts["token_budget"] = config.token_budget
    judge = make_faithfulness_judge(config.judge, high_stakes=config.high_stakes, **judge_opts)
    verdicts: Sequence[JudgeVerdict | None] = judge.judge_many(cases) if judge is not None else [None] * len(cases)
    indexes = IndexCache()
    records = []
    for i, case in enumerate(cases):
        records.append(evaluate_case(case, config, index=indexes.get(case.snapshot()), verdict=verdicts[i]))
        if on_case:
            on_case(i)
    backend = judge.backend if judge else "none"
    local = {"schema": 1, "kind": "eval", "backend": backend, "gate_version": GATE_VERSION, "cases": records}
    aggregate = aggregate_records(
        records, config, backend=backend, model=judge.model if judge else None, judge_notes=judge.notes if judge else ()
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
) -> dict[str, Any]:
    """Per-variant statistics, lift vs baseline, agreement and bottom-k of local ``records``.

    Returns the aggregate file's JSON object (:class:`assay.results.EvalAggregateV1`); the
    figures come from :func:`assay.results.summarize.summarize_variants` and
    :func:`~assay.results.summarize.paired_lift`. Raises ``ValueError`` when ``config.baseline``
    is not a variant of ``records``.
    """
    n_resamples, seed = config.n_resamples, config.seed
    summary = summarize_variants(
        records, REPORT_DIMS, rates=_RATES, n_resamples=n_resamples, seed=seed, bottom_k=config.bottom_k
    )
    notes = list(judge_notes)
    baseline = config.baseline
    lift: dict[str, dict[str, PairedLift]] = {}
    if baseline is not None:
        lift = paired_lift(records, REPORT_DIMS, baseline, n_resamples=n_resamples, seed=seed)
    elif len(summary.variants) > 1:
        notes.append("no --baseline given: lift not computed")
    if backend == "stub":
        notes.append(
            "faithfulness from the stub backend (a hash, not a quality signal) is shown but not in the composite"
        )
    agreement_ = _agreement(records, config)
    if agreement_ is not None and agreement_["tp"] + agreement_["fn"] == 0:
        notes.append(
            f"no compared case has {config.label_field} = {config.positive!r}: recall and κ are undefined "
            "(labels are compared as text; JSON true/false/numbers as written in JSON)"
        )
    return EvalAggregateV1(
        schema=1,
        kind="eval",
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
        lift=lift,
        agreement=None if agreement_ is None else LabelAgreement.model_validate(agreement_),
        bottom=summary.bottom,
    ).to_json()


def compare_runs(a: dict[str, Any], b: dict[str, Any], *, n_resamples: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """Paired lift per dimension of run ``b`` over run ``a`` (two ``*.local.json`` dicts).

    Pairs on ``(id, variant)``; pairs with a missing side are dropped and ``n_pairs`` says how
    many remained. Returns ``{"n_a", "n_b", "notes", "lift": {dim: {"diff", "ci", "n_pairs"}}}``;
    ``notes`` says when the runs differ in kind, gate version or judge backend (their scores may
    then not be comparable) or when a stub faithfulness is compared.
    """

    def keyed(run: dict[str, Any], d: str) -> dict[str, float | None]:
        return {f"{r['id']}\x00{r['variant']}": r["scores"].get(d) for r in run["cases"]}

    dims = [d for d in REPORT_DIMS if any(d in r["scores"] for r in a["cases"])]
    notes = [
        f"{key} differs: A {a.get(key)!r}, B {b.get(key)!r}"
        for key in ("kind", "gate_version", "backend")
        if a.get(key) != b.get(key)
    ]
    if "stub" in (a.get("backend"), b.get("backend")) and "faithfulness" in dims:
        notes.append("faithfulness from the stub backend is a hash, not a quality signal: its lift means nothing")
    return {
        "schema": 1,
        "kind": "compare",
        "n_a": len(a["cases"]),
        "n_b": len(b["cases"]),
        "notes": notes,
        "lift": {
            d: paired_bootstrap(keyed(b, d), keyed(a, d), n_resamples=n_resamples, seed=seed).to_dict() for d in dims
        },
    }


# --- helpers -------------------------------------------------------------------------------


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


def _agreement(records: Sequence[dict[str, Any]], config: EvalConfig) -> dict[str, Any] | None:
    if not config.label_field or config.positive is None:
        return None
    excluded: dict[str, int] = defaultdict(int)
    no_claims = unlabelled = 0
    predicted: list[bool] = []
    actual: list[bool] = []
    for r in records:
        label = r["label"]
        if label is None:
            unlabelled += 1
        elif label in config.exclude_labels:
            excluded[label] += 1
        elif r["status"] == "no_claims":
            no_claims += 1
        else:
            predicted.append(r["status"] == "fail")
            actual.append(label == config.positive)
    result = agreement(predicted, actual).to_dict()
    return {
        "label_field": config.label_field,
        "positive": config.positive,
        "predicted": "gate failed",
        "excluded": dict(excluded),
        "no_claims_left_out": no_claims,
        "unlabelled_left_out": unlabelled,
        **result,
    }
