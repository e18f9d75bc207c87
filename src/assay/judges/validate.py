"""Validity of the faithfulness judge on labelled data: HaluEval QA and FaithBench.

``validate_judge("halueval"|"faithbench", SRC, backend=…)`` judges every labelled case
(:mod:`assay.judges.validation_sets`) and compares the judge's call with the gold label:

- The judge calls a case *hallucinated* when it is ``scored`` with a score below 1 (at least one
  claim unsupported). ``rejected``/``skipped`` cases have no call: they are left out of every
  rate and counted (``n_unscored``, ``coverage`` = scored ÷ n) — never counted as right or wrong.
- ``accuracy`` = share of scored cases called right. ``balanced_accuracy`` = (TPR + TNR) / 2 with
  hallucinated as the positive class (Brodersen et al., ICPR 2010); ``None`` when a class has no
  scored case. CIs: 95 % percentile bootstrap from :func:`assay.stats.summarize`, resampling
  clusters (a HaluEval record's two answers together). Balanced accuracy is bootstrapped as the
  class-reweighted mean of per-case correctness (weight n ÷ (2·n_class), class sizes fixed at the
  observed ones), whose mean is exactly (TPR + TNR) / 2.
- FaithBench ``span_recall`` = share of annotated Unwanted spans (in scored samples) overlapped by
  a claim the judge marked unsupported; CI resamples samples. The ``anchors`` are the detectors
  whose outputs FaithBench ships (HHEM-2.1, GPT-4o, …), scored the same way on the same samples
  the judge scored (and on all samples, ``anchors_all``). Both label readings (``strict``:
  Questionable = faithful; ``inclusive``: Questionable = hallucinated) are reported.

The stub backend is a hash of the request: its figures must sit at chance (≈ 0.5 balanced
accuracy) — that is the floor a real backend has to clear.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.cases import Case
from assay.judges.faithfulness import DEFAULT_TOKEN_BUDGET, FaithfulnessJudge, JudgeVerdict, make_faithfulness_judge
from assay.judges.validation_sets import LabelledCase, load_faithbench, load_halueval
from assay.stats import summarize

__all__ = ["DATASETS", "validate_judge", "binary_metrics", "span_recall", "sample_groups"]

DATASETS: tuple[str, ...] = ("halueval", "faithbench")


def validate_judge(
    dataset: str,
    src: str | Path,
    *,
    backend: str = "stub",
    limit: int | None = None,
    sample_seed: int = 0,
    high_stakes: bool = False,
    escalate: bool = False,
    cache_dir: str | Path | None = None,
    db_url: str | None = None,
    token_budget: int | None = DEFAULT_TOKEN_BUDGET,
    n_resamples: int = 10_000,
    seed: int = 0,
    on_loaded: Callable[[int], None] | None = None,
    on_case: Callable[[int], None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Judge the labelled cases of ``dataset`` at ``src`` and measure agreement with the labels.

    ``limit``: judge a seeded random sample of that many records (HaluEval: question records, two
    cases each; FaithBench: samples). Returns ``(local, aggregate)``: ``local`` has per-case
    records (ids); ``aggregate`` has the figures of the module docstring and no case id.
    Raises ``ValueError`` (unknown dataset/backend, ``limit < 1``), ``FileNotFoundError`` and
    :class:`assay.cases.CaseFileError` (malformed data), as :func:`make_faithfulness_judge`.
    """
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}: use {' or '.join(DATASETS)}")
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be >= 1, got {limit}")
    items = load_halueval(src) if dataset == "halueval" else load_faithbench(src)
    items = sample_groups(items, limit, sample_seed)
    if on_loaded:
        on_loaded(len(items))
    judge = make_faithfulness_judge(
        backend,
        high_stakes=high_stakes,
        escalate=escalate,
        cache_dir=cache_dir,
        db_url=db_url,
        token_budget=token_budget,
    )
    if judge is None:
        raise ValueError("validation needs a judge backend other than none")
    cases = [it.case for it in items]
    verdicts = judge.judge_many(cases) if on_case is None else _judge_counting(judge, cases, on_case)
    stat = {"n_resamples": n_resamples, "seed": seed}
    readings = list(items[0].hallucinated) if items else []
    pred = [_call(v) for v in verdicts]
    groups = [it.group for it in items]
    aggregate: dict[str, Any] = {
        "schema": 1,
        "kind": "judge_validation",
        "dataset": dataset,
        "backend": judge.backend,
        "model": judge.model,
        "n": len(items),
        "sample": {"limit": limit, "seed": sample_seed},
        "judge": judge.summary(verdicts),
        "readings": {r: binary_metrics(pred, [it.hallucinated[r] for it in items], groups, **stat) for r in readings},
        "by_origin": {},
        "notes": list(judge.notes),
    }
    for origin in sorted({it.origin for it in items}):
        idx = [i for i, it in enumerate(items) if it.origin == origin]
        aggregate["by_origin"][origin] = {
            r: binary_metrics(
                [pred[i] for i in idx], [items[i].hallucinated[r] for i in idx], [groups[i] for i in idx], **stat
            )
            for r in readings
        }
    if dataset == "faithbench":
        aggregate["span_recall"] = span_recall(items, verdicts, **stat)
        detectors = sorted({d for it in items for d in it.anchors})
        scored = [i for i, p in enumerate(pred) if p is not None]
        aggregate["anchors"] = {
            r: {
                d: binary_metrics(
                    [items[i].anchors.get(d) for i in scored],
                    [items[i].hallucinated[r] for i in scored],
                    [groups[i] for i in scored],
                    **stat,
                )
                for d in detectors
            }
            for r in readings
        }
        aggregate["anchors_all"] = {
            r: {
                d: binary_metrics(
                    [it.anchors.get(d) for it in items], [it.hallucinated[r] for it in items], groups, **stat
                )
                for d in detectors
            }
            for r in readings
        }
        aggregate["notes"].append(
            "FaithBench readings: strict = any Unwanted annotation; inclusive = any Unwanted or Questionable; "
            f"HHEM scores read as hallucinated below 0.5; anchors on the {len(scored)} samples the judge scored"
        )
    if judge.backend == "stub":
        aggregate["notes"].append("stub backend: a hash of the request — chance-level figures are expected (the floor)")
    local = {
        "schema": 1,
        "kind": "judge_validation",
        "dataset": dataset,
        "backend": judge.backend,
        "cases": [
            {
                "id": it.case.id,
                "variant": it.case.variant,
                "slice": it.case.slice,
                "origin": it.origin,
                "status": v.status,
                "scores": {"faithfulness": v.score},
                "reasons": {"faithfulness": v.reason},
                "labels": it.hallucinated,
                "predicted_hallucinated": p,
                "claims": [c.model_dump() for c in v.claims],
            }
            for it, v, p in zip(items, verdicts, pred, strict=True)
        ],
    }
    return local, aggregate


def binary_metrics(
    predicted: Sequence[bool | None],
    actual: Sequence[bool],
    groups: Sequence[Hashable],
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> dict[str, Any]:
    """Accuracy and balanced accuracy of hallucination calls (``True`` = hallucinated).

    ``None`` predictions are unscored: dropped and counted. Returns ``{"n", "n_scored",
    "coverage", "tp", "fp", "fn", "tn", "tpr", "tnr", "accuracy": {"value", "ci"},
    "balanced_accuracy": {"value", "ci"}}`` (values in [0, 1] or ``None``; ``ci`` ``[lo, hi]`` or
    ``None``). Raises ``ValueError`` when the lengths differ.
    """
    if not len(predicted) == len(actual) == len(groups):
        raise ValueError(
            f"predicted, actual and groups differ in length: {len(predicted)}, {len(actual)}, {len(groups)}"
        )
    keep = [i for i, p in enumerate(predicted) if p is not None]
    p = np.array([bool(predicted[i]) for i in keep], dtype=bool)
    a = np.array([bool(actual[i]) for i in keep], dtype=bool)
    g = [groups[i] for i in keep]
    tp, fp = int(np.sum(p & a)), int(np.sum(p & ~a))
    fn, tn = int(np.sum(~p & a)), int(np.sum(~p & ~a))
    correct = (p == a).astype(float)
    acc = summarize(correct.tolist(), clusters=g, n_resamples=n_resamples, seed=seed)
    n_pos, n_neg = int(a.sum()), int((~a).sum())
    ba: dict[str, Any] = {"value": None, "ci": None}
    if n_pos and n_neg:
        weights = np.where(a, len(a) / (2 * n_pos), len(a) / (2 * n_neg))
        s = summarize((correct * weights).tolist(), clusters=g, n_resamples=n_resamples, seed=seed).to_dict()
        ba = {"value": s["mean"], "ci": s["ci"]}
    acc_d = acc.to_dict()
    return {
        "n": len(predicted),
        "n_scored": len(keep),
        "coverage": round(len(keep) / len(predicted), 6) if len(predicted) else None,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "tpr": round(tp / n_pos, 6) if n_pos else None,
        "tnr": round(tn / n_neg, 6) if n_neg else None,
        "accuracy": {"value": acc_d["mean"], "ci": acc_d["ci"]},
        "balanced_accuracy": ba,
    }


def span_recall(
    items: Sequence[LabelledCase], verdicts: Sequence[JudgeVerdict], *, n_resamples: int = 10_000, seed: int = 0
) -> dict[str, Any]:
    """Share of Unwanted spans (of scored cases) overlapped by a claim judged unsupported.

    Returns ``{"value", "ci", "n_spans", "n_samples"}``; ``value`` ``None`` with no span.
    Overlap: half-open ``[s, e)`` intervals intersect. Raises ``ValueError`` when ``items`` and
    ``verdicts`` differ in length (one verdict per case).
    """
    hits: list[float] = []
    keys: list[str] = []
    for it, v in zip(items, verdicts, strict=True):
        if v.status != "scored" or not it.unwanted_spans:
            continue
        bad = [c.span for c in v.claims if not c.supported]
        for s, e in it.unwanted_spans:
            hits.append(float(any(cs < e and s < ce for cs, ce in bad)))
            keys.append(it.group)
    r = summarize(hits, clusters=keys, n_resamples=n_resamples, seed=seed).to_dict()
    return {"value": r["mean"], "ci": r["ci"], "n_spans": len(hits), "n_samples": len(set(keys))}


def sample_groups(items: Sequence[LabelledCase], limit: int | None, seed: int) -> list[LabelledCase]:
    """A seeded random sample of ``limit`` groups (all of a group's cases kept, file order kept);
    all items when ``limit`` is ``None`` or not smaller than the number of groups."""
    order = list(dict.fromkeys(it.group for it in items))
    if limit is None or limit >= len(order):
        return list(items)
    chosen = set(np.random.default_rng(seed).choice(len(order), size=limit, replace=False).tolist())
    keep = {order[i] for i in chosen}
    return [it for it in items if it.group in keep]


def _judge_counting(
    judge: FaithfulnessJudge, cases: Sequence[Case], on_case: Callable[[int], None]
) -> list[JudgeVerdict]:
    """:meth:`FaithfulnessJudge.judge_many` with ``on_case(i)`` after each verdict (same
    concurrency bound, same order, same note on unscored cases)."""

    async def one(i: int, case: Case) -> JudgeVerdict:
        v = await judge.ajudge(case)
        on_case(i)
        return v

    async def run() -> list[JudgeVerdict]:
        try:
            return list(await asyncio.gather(*(one(i, c) for i, c in enumerate(cases))))
        finally:
            if judge.client is not None:
                await judge.client.aclose()

    verdicts = asyncio.run(run())
    s = judge.summary(verdicts)
    if s["n_unscored"] and not judge.not_configured:
        kinds = ", ".join(f"{n} {k}" for k, n in s["reasons"].items())
        judge.notes.append(
            f"faithfulness: {s['n_unscored']} of {s['n']} case(s) unscored "
            f"({s['n_rejected']} rejected, {s['n_skipped']} skipped: {kinds})"
        )
    return verdicts


def _call(v: JudgeVerdict) -> bool | None:
    """The judge's hallucination call: ``True`` when some claim is unsupported; ``None`` unscored."""
    return None if v.status != "scored" or v.score is None else v.score < 1.0
