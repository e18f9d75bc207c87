"""The beat-the-incumbent gate: a trained student is deployed only when it orders held-out pairs better.

:func:`train_and_deploy` loads exported labels, builds pairs (:mod:`assay.memory.learning.pairs`),
trains a candidate (:mod:`assay.memory.learning.train`), then scores the incumbent and the candidate on
the SAME held-out pairs — pure agent grades, from groups never trained on:

- the incumbent is what :func:`~assay.memory.learning.resolution.resolve_reranker` returns now (a
  deployed student, a configured large or small cross-encoder), as it serves — blended with
  the composite — or, when nothing is deployed, the composite score itself (recorded with each
  delivery);
- the candidate is scored as it would serve: saved, loaded the way search loads a student
  (same length, same int8 setting), blended with the composite at ``blend_weight``.

Held-out pairwise agreement (:func:`pairwise_agreement`): the share of pairs ``(better,
worse)`` a system scores in that order, ties counted 0.5. The candidate is installed in the
student folder only if ``candidate − incumbent >= deploy_margin`` (default 0.02: two points of
agreement, above the noise of a few hundred pairs), atomically (staged next to it, renamed);
``auto_promote_safe`` is true when the candidate's agreement is ≥ 0.90. A model card
(:data:`~assay.memory.learning.rerankers.CARD_NAME`) inside the folder records data size, split, seed,
agreements, date and base model. Blend normalisation here runs over a query's held-out
memories (in search: over its 50-candidate pool).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.atomic import atomic_write_json
from assay.memory.config import RerankerSettings
from assay.memory.learning.pairs import Pair, SplitBy, build_dataset, load_labels
from assay.memory.learning.rerankers import CARD_NAME, CrossEncoderReranker, Resolution, blend_scores
from assay.memory.learning.resolution import DeviceFacts, probe_device, resolve_reranker, student_ready
from assay.memory.learning.train import TrainConfig, train_pairwise

__all__ = [
    "DEFAULT_DEPLOY_MARGIN",
    "AUTO_PROMOTE_AGREEMENT",
    "GateDecision",
    "DeployReport",
    "pairwise_agreement",
    "composite_scores",
    "system_scores",
    "gate",
    "train_and_deploy",
    "install_student",
]

#: Default margin by which the candidate must beat the incumbent's held-out agreement.
DEFAULT_DEPLOY_MARGIN = 0.02
#: Held-out agreement at or above which a candidate is flagged ``auto_promote_safe``.
AUTO_PROMOTE_AGREEMENT = 0.90
#: :func:`train_and_deploy`'s training configuration unless one is given (frozen: safe to share).
DEFAULT_TRAIN_CONFIG = TrainConfig()

ItemKey = tuple[str, str]  # (query_id, memory_id)


@dataclass(frozen=True)
class GateDecision:
    """Both agreements on the same ``n_pairs`` held-out pairs, the margin and the decision."""

    incumbent: str
    incumbent_agreement: float
    candidate_agreement: float
    margin: float
    deploy_margin: float
    n_pairs: int
    deployed: bool
    auto_promote_safe: bool
    margin_ci: list[float] | None = None
    pairs_sha256: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (no ids: the pair list is named by its hash only)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class DeployReport:
    """What :func:`train_and_deploy` did: the gate, the dataset counts, training figures, card."""

    decision: GateDecision
    dataset: dict[str, Any]
    training: dict[str, Any]
    candidate_raw_agreement: float
    student_dir: str
    card: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "decision": self.decision.to_dict(),
            "candidate_raw_agreement": self.candidate_raw_agreement,
            "dataset": self.dataset,
            "training": self.training,
            "student_dir": self.student_dir,
            "card": self.card,
        }


def pairwise_agreement(pairs: Sequence[Pair], scores: Mapping[ItemKey, float | None]) -> float:
    """Share of ``pairs`` whose ``pos`` scores above its ``neg``; a tie — or an unknown score
    on either side — counts 0.5. ``ValueError`` for no pairs."""
    if not pairs:
        raise ValueError("pairwise agreement needs at least one pair")
    total = 0.0
    for p in pairs:
        a, b = scores.get((p.query_id, p.pos.memory_id)), scores.get((p.query_id, p.neg.memory_id))
        total += 0.5 if a is None or b is None or a == b else (1.0 if a > b else 0.0)
    return total / len(pairs)


def composite_scores(pairs: Sequence[Pair]) -> dict[ItemKey, float | None]:
    """The composite score recorded with each item's delivery (``None`` when unknown: a tie)."""
    return {(p.query_id, it.memory_id): it.composite for p in pairs for it in (p.pos, p.neg)}


def system_scores(
    pairs: Sequence[Pair], score_pairs: Callable[[list[tuple[str, str]]], Sequence[float]], blend_weight: float
) -> tuple[dict[ItemKey, float | None], dict[ItemKey, float | None]]:
    """``(served, raw)`` scores of a model over the items of ``pairs``.

    ``raw``: ``score_pairs([(query, text), …])`` once per distinct item. ``served``: per query,
    :func:`~assay.memory.learning.rerankers.blend_scores` of raw and composite over that query's items;
    a query with an item of unknown composite score is served by the model alone.
    """
    items: dict[str, dict[str, tuple[str, Any]]] = defaultdict(dict)
    for p in pairs:
        for it in (p.pos, p.neg):
            items[p.query_id][it.memory_id] = (p.query, it)
    keys = [(q, m) for q in sorted(items) for m in sorted(items[q])]
    raw_list = [float(x) for x in score_pairs([(items[q][m][0], items[q][m][1].text) for q, m in keys])]
    if len(raw_list) != len(keys):
        raise ValueError(f"the model returned {len(raw_list)} scores for {len(keys)} pairs")
    raw: dict[ItemKey, float | None] = dict(zip(keys, raw_list, strict=True))
    served: dict[ItemKey, float | None] = {}
    for q in sorted(items):
        mids = sorted(items[q])
        comp = [items[q][m][1].composite for m in mids]
        r = [raw[(q, m)] for m in mids]
        w = blend_weight if all(c is not None for c in comp) else 1.0
        blended = blend_scores(r, [c if c is not None else 0.0 for c in comp], w)  # type: ignore[arg-type]
        served.update({(q, m): b for m, b in zip(mids, blended, strict=True)})
    return served, raw


def gate(
    pairs: Sequence[Pair],
    incumbent: Mapping[ItemKey, float | None],
    candidate: Mapping[ItemKey, float | None],
    *,
    incumbent_name: str,
    deploy_margin: float = DEFAULT_DEPLOY_MARGIN,
    seed: int = 0,
) -> GateDecision:
    """Decide on ONE pair list scored by both systems: deploy iff ``candidate − incumbent >=
    deploy_margin`` (and the candidate is strictly better). ``margin_ci``: 95% paired
    bootstrap CI of the per-query agreement difference (queries resampled; :mod:`assay.stats`)."""
    from assay.stats import paired_bootstrap  # scipy underneath: loaded when a gate runs, not on import

    if deploy_margin < 0:
        raise ValueError(f"deploy_margin must be >= 0, got {deploy_margin}")
    inc, cand = pairwise_agreement(pairs, incumbent), pairwise_agreement(pairs, candidate)
    by_q: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        by_q[p.query_id].append(p)
    pd = paired_bootstrap(
        {q: pairwise_agreement(ps, candidate) for q, ps in by_q.items()},
        {q: pairwise_agreement(ps, incumbent) for q, ps in by_q.items()},
        n_resamples=2000,
        seed=seed,
    )
    margin = cand - inc
    digest = hashlib.sha256(
        json.dumps([[p.query_id, p.pos.memory_id, p.neg.memory_id] for p in pairs]).encode()
    ).hexdigest()[:16]
    return GateDecision(
        incumbent=incumbent_name,
        incumbent_agreement=round(inc, 6),
        candidate_agreement=round(cand, 6),
        margin=round(margin, 6),
        deploy_margin=deploy_margin,
        n_pairs=len(pairs),
        deployed=margin > 0 and margin >= deploy_margin - 1e-12,
        auto_promote_safe=cand >= AUTO_PROMOTE_AGREEMENT,
        margin_ci=[round(x, 6) for x in pd.ci] if pd.ci else None,
        pairs_sha256=digest,
    )


def train_and_deploy(
    labels: str | Path,
    student_dir: str | Path,
    *,
    config: TrainConfig = DEFAULT_TRAIN_CONFIG,
    settings: RerankerSettings | None = None,
    min_gap: int = 2,
    split_by: SplitBy = "query",
    holdout: float = 0.2,
    engagement: bool = False,
    engagement_max_pairs: int = 5000,
    engagement_min_pos: float = 0.0,
    deploy_margin: float = DEFAULT_DEPLOY_MARGIN,
    device_facts: DeviceFacts | None = None,
    keep_candidate: str | Path | None = None,
    on_step: Callable[[int, int, float], None] | None = None,
    incumbent_dir: str | Path | None = None,
) -> DeployReport:
    """Labels → pairs → split → train → gate → install (or not). See the module docstring.

    ``settings``: the reranker settings now in force (default: from the environment); its
    ``student_dir`` is replaced by ``student_dir``. The split seed is ``config.seed``.
    ``keep_candidate``: also leave the candidate, with its card, in this folder when it is NOT
    deployed (to inspect or evaluate a rejected student; replaced if it holds one).
    ``incumbent_dir``: the student folder that serves now when it is not ``student_dir`` (the
    model registry trains each version into a new folder: the incumbent is the deployed version's
    folder, and a candidate that passes is installed in ``student_dir``). Raises
    ``ValueError``/:class:`~assay.memory.models.MemoryFileError` for bad input (unusable labels,
    no pairs, a ``student_dir`` that exists and is not a student), before any training.
    """
    target = Path(student_dir)
    for folder in (target, Path(keep_candidate) if keep_candidate is not None else None):
        if (
            folder is not None
            and folder.exists()
            and (not folder.is_dir() or (any(folder.iterdir()) and not student_ready(folder)))
        ):
            raise ValueError(f"{folder}: exists and is not a deployed student (no {CARD_NAME}); refusing to replace it")
    if keep_candidate is not None:
        Path(keep_candidate).parent.mkdir(parents=True, exist_ok=True)
    records = load_labels(labels)
    data = build_dataset(
        records,
        min_gap=min_gap,
        split_by=split_by,
        holdout=holdout,
        seed=config.seed,
        engagement=engagement,
        engagement_max_pairs=engagement_max_pairs,
        engagement_min_pos=engagement_min_pos,
    )
    s = (settings or RerankerSettings.from_env()).with_(student_dir=str(target))
    serving = s if incumbent_dir is None else s.with_(student_dir=str(incumbent_dir))
    facts = device_facts if device_facts is not None else probe_device(serving)
    res = resolve_reranker(serving, facts, student_present=student_ready(serving.student_dir))
    if res.kind == "none":
        inc_name, inc_scores = "composite", composite_scores(data.heldout)
    else:
        inc = CrossEncoderReranker(res, serving)
        inc_name = f"{res.kind}:{inc.model}"
        inc_scores, _ = system_scores(data.heldout, inc.score_pairs, res.blend_weight)
    result = train_pairwise(data.train, config, device_facts=facts, on_step=on_step)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{target.name}.candidate-{uuid.uuid4().hex[:8]}"
    try:
        result.model.save_pretrained(str(staging))
        cand = CrossEncoderReranker(
            Resolution(
                "student",
                str(staging),
                "cuda" if s.gpu and facts.cuda else "cpu",
                s.student_floor,
                s.blend_weight,
                "candidate",
            ),
            s,
        )
        cand_scores, cand_raw = system_scores(data.heldout, cand.score_pairs, s.blend_weight)
        decision = gate(
            data.heldout,
            inc_scores,
            cand_scores,
            incumbent_name=inc_name,
            deploy_margin=deploy_margin,
            seed=config.seed,
        )
        raw_agreement = round(pairwise_agreement(data.heldout, cand_raw), 6)
        now = datetime.now(UTC)
        card = _card(
            now,
            result,
            data.stats,
            config,
            decision,
            raw_agreement,
            s,
            dict(
                min_gap=min_gap,
                split_by=split_by,
                holdout=holdout,
                engagement=engagement,
                engagement_max_pairs=engagement_max_pairs,
                engagement_min_pos=engagement_min_pos,
            ),
        )
        atomic_write_json(staging / CARD_NAME, card)
        if decision.deployed:
            install_student(staging, target)
        elif keep_candidate is not None:
            install_student(staging, keep_candidate)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return DeployReport(
        decision=decision,
        dataset=data.stats,
        training=result.summary(),
        candidate_raw_agreement=raw_agreement,
        student_dir=str(target),
        card=card,
    )


def install_student(staging: str | Path, target: str | Path) -> None:
    """Replace ``target`` by the folder ``staging``: rename the old one aside, rename the new one
    in, delete the old. A reader sees the old or the new student, never a mix (on another file
    system than ``staging`` the new folder is copied in, which is not atomic)."""
    staging, target = Path(staging), Path(target)
    old = None
    if target.exists():
        old = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
        os.replace(target, old)
    try:
        os.replace(staging, target)
    except OSError:  # another file system: no atomic rename
        shutil.move(str(staging), str(target))
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _card(
    now: datetime,
    result: Any,
    stats: dict[str, Any],
    config: TrainConfig,
    decision: GateDecision,
    raw: float,
    s: RerankerSettings,
    data_opts: dict[str, Any],
) -> dict[str, Any]:
    created = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    model_id = (
        "student-"
        + now.strftime("%Y%m%dT%H%M%SZ")
        + "-"
        + hashlib.sha256(
            json.dumps([created, stats, config.as_dict()], sort_keys=True, default=str).encode()
        ).hexdigest()[:8]
    )
    return {
        "schema": 1,
        "kind": "assay-student-reranker",
        "model_id": model_id,
        "created_at": created,
        "base_model": result.base_model,
        "head": (
            "classification head added to the base and initialised at random (untrained) before this training"
            if result.head_untrained
            else "the base's trained one-label head, fine-tuned here"
        ),
        "loss": f"torch.nn.MarginRankingLoss(margin={config.margin}) over (query, memory) logits",
        "data": stats,
        "split": {"by": data_opts["split_by"], "holdout": data_opts["holdout"], "seed": config.seed},
        "pairs": {
            "min_gap": data_opts["min_gap"],
            "engagement": data_opts["engagement"],
            "engagement_max_pairs": data_opts["engagement_max_pairs"],
            "engagement_min_pos": data_opts["engagement_min_pos"],
        },
        "training": {**config.as_dict(), **result.summary()},
        "gate": {
            **decision.to_dict(),
            "candidate_raw_agreement": raw,
            "blend_weight": s.blend_weight,
            "int8": s.int8,
            "serve_max_length": s.max_length,
        },
        "floor": s.student_floor,
    }
