"""Floor calibration from graded deliveries: keep grade-3 memories, drop grade-0 ones.

A floor suppresses candidates whose model score is below it. A guessed floor is dangerous:
one real deployment found its floor dropped 56% of the memories its agent graded most useful.
:func:`calibrate_floor` chooses the floor from the delivery log instead, per model
(``reranker_model``; ``"composite"`` for deliveries ranked by the composite alone), on the
score the floor applies to: the model's raw score (``score_components["reranker"]`` when a
blend ordered the delivery, else ``score``).

For a floor ``f`` (a memory is kept when its score ≥ ``f``): ``grade3_dropped`` = share of
grade-3 deliveries below ``f``; ``grade0_kept`` = share of grade-0 deliveries at or above it.
The chosen floor maximises Youden's J = (1 − grade3_dropped) − grade0_kept (Youden, "Index for
rating diagnostic tests", Cancer 1950) over every observed score (ties: the lower floor, which
drops less); grades 1–2 do not vote. A floor whose ``grade3_dropped`` exceeds
``max_grade3_drop`` (default 10%) is refused: the result then has ``floor: null``, the
refused optimum and the best floor within the limit (the J-optimum among floors that respect
it). Nothing here holds a memory or search id.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import select

from assay.memory.learning.pairs import TooFewLabelsError
from assay.memory.models import StoreView
from assay.memory.tables import memory_deliveries

__all__ = ["DEFAULT_MAX_GRADE3_DROP", "calibrate_floor", "floor_point", "graded_scores", "calibrate_store", "COMPOSITE"]

#: Largest share of grade-3 deliveries a floor may drop before it is refused.
DEFAULT_MAX_GRADE3_DROP = 0.10
#: Group name of deliveries ordered by the composite score alone.
COMPOSITE = "composite"


def floor_point(floor: float, grade3: np.ndarray, grade0: np.ndarray) -> dict[str, float]:
    """``{"floor", "grade3_dropped", "grade0_kept", "j"}`` for keeping scores ≥ ``floor``."""
    d3 = float(np.mean(grade3 < floor)) if grade3.size else 0.0
    k0 = float(np.mean(grade0 >= floor)) if grade0.size else 0.0
    return {
        "floor": float(floor),
        "grade3_dropped": round(d3, 6),
        "grade0_kept": round(k0, 6),
        "j": round((1 - d3) - k0, 6),
    }


def calibrate_floor(
    grade3: Sequence[float],
    grade0: Sequence[float],
    *,
    max_grade3_drop: float = DEFAULT_MAX_GRADE3_DROP,
    proposed: float | None = None,
    curve_points: int = 21,
) -> dict[str, Any]:
    """Choose (or, with ``proposed``, check) a floor from grade-3 and grade-0 scores.

    Returns ``{"status": "ok" | "refused", "floor": float | None, "grade3_dropped",
    "grade0_kept", "j", "max_grade3_drop", "optimum": point, "within_limit": point, "curve":
    [points at score quantiles], "n_grade3", "n_grade0"}``. ``proposed``: judge that floor
    instead of the optimum. ``ValueError`` for no grade-3 or no grade-0 score, a non-finite
    score, or ``max_grade3_drop`` outside [0, 1].
    """
    if not 0.0 <= max_grade3_drop <= 1.0:
        raise ValueError(f"max_grade3_drop must be in [0, 1], got {max_grade3_drop}")
    g3, g0 = np.asarray(grade3, dtype=np.float64), np.asarray(grade0, dtype=np.float64)
    if not g3.size or not g0.size:
        raise ValueError(f"need graded deliveries of grade 3 and of grade 0 (have {g3.size} and {g0.size})")
    if not (np.all(np.isfinite(g3)) and np.all(np.isfinite(g0))):
        raise ValueError("scores must be finite")
    cands = np.unique(np.concatenate([g3, g0]))
    points = [floor_point(f, g3, g0) for f in cands]
    optimum = max(points, key=lambda p: (p["j"], -p["floor"]))
    allowed = [p for p in points if p["grade3_dropped"] <= max_grade3_drop + 1e-12]
    within = max(allowed, key=lambda p: (p["j"], -p["floor"])) if allowed else floor_point(float(cands[0]), g3, g0)
    judged = floor_point(float(proposed), g3, g0) if proposed is not None else optimum
    ok = judged["grade3_dropped"] <= max_grade3_drop + 1e-12
    qs = np.unique(np.quantile(np.concatenate([g3, g0]), np.linspace(0, 1, max(2, curve_points))))
    return {
        "status": "ok" if ok else "refused",
        "floor": judged["floor"] if ok else None,
        "grade3_dropped": judged["grade3_dropped"],
        "grade0_kept": judged["grade0_kept"],
        "j": judged["j"],
        "max_grade3_drop": max_grade3_drop,
        "proposed": proposed,
        "optimum": optimum,
        "within_limit": within,
        "curve": [floor_point(float(f), g3, g0) for f in qs],
        "n_grade3": int(g3.size),
        "n_grade0": int(g0.size),
    }


def graded_scores(store: StoreView) -> dict[str, dict[int, list[float]]]:
    """``{model: {grade: [raw scores]}}`` of every graded delivery in the store's log (see the
    module docstring for which score); deliveries without a finite score are left out."""
    d = memory_deliveries.c
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(d.reranker_model, d.score, d.score_components, d.grade).where(d.grade.is_not(None))
        ).all()
    out: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        comps = r.score_components or {}
        raw = comps.get("reranker", r.score) if r.reranker_model is not None else r.score
        if isinstance(raw, (int, float)) and math.isfinite(raw):
            out[r.reranker_model or COMPOSITE][int(r.grade)].append(float(raw))
    return {m: dict(g) for m, g in out.items()}


def calibrate_store(
    store: StoreView,
    *,
    model: str | None = None,
    max_grade3_drop: float = DEFAULT_MAX_GRADE3_DROP,
    proposed: float | None = None,
    curve_points: int = 21,
) -> dict[str, Any]:
    """Calibrate every model of the log (or only ``model``): ``{"models": {name: result | {"status":
    "insufficient", "n_grade3", "n_grade0"}}, "max_grade3_drop"}``. ``ValueError`` when the log
    has no graded delivery of ``model``; :class:`~assay.memory.learning.pairs.TooFewLabelsError`
    (a ``ValueError``) when it has no graded delivery at all."""
    scores = graded_scores(store)
    if model is not None:
        if model not in scores:
            known = ", ".join(sorted(scores)) or "none"
            raise ValueError(f"no graded delivery ranked by {model!r} (models with grades: {known})")
        scores = {model: scores[model]}
    if not scores:
        raise TooFewLabelsError("no graded delivery in the log: grade searches first (assay memory grade)")
    out: dict[str, Any] = {}
    for name in sorted(scores):
        g = scores[name]
        g3, g0 = g.get(3, []), g.get(0, [])
        if not g3 or not g0:
            out[name] = {"status": "insufficient", "n_grade3": len(g3), "n_grade0": len(g0)}
            continue
        out[name] = calibrate_floor(
            g3, g0, max_grade3_drop=max_grade3_drop, proposed=proposed, curve_points=curve_points
        )
    return {"models": out, "max_grade3_drop": max_grade3_drop}
