"""The rubric: one composite score per answer from weighted dimensions.

Dimensions and default weights, declared here and nowhere else:

- ``sourcing`` 0.55 — matched ÷ checkable quantities from the sourcing gate. Dominant: it is the
  deterministic, explainable proof the product exists for; a wrong number is the costliest
  error in a memo.
- ``faithfulness`` 0.20 — the per-claim judge's share of supported claims: catches unsupported
  *wording* the number gate cannot see; an LLM estimate, so weighted below the proof.
- ``completeness`` 0.15 — material facts / reference numbers stated: a signal (answers may
  legitimately be brief), so it moves the composite without dominating it.
- ``impersonal`` 0.10 — no personalised advice: a compliance floor; any violation is also
  visible in its own column.

A dimension that is missing (``None``) is dropped and the remaining weights are renormalised;
the record says which were used. A case with ``sourcing is None`` (``no_claims``: a refusal or
an answer with nothing checkable) gets composite ``None``: refusals must not rank high.
A ``stub`` faithfulness is shown but never enters the composite (it is a hash, not a quality
signal, and would reorder variants at random).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["DEFAULT_WEIGHTS", "DIMENSIONS", "RubricResult", "compose"]

DIMENSIONS: tuple[str, ...] = ("sourcing", "completeness", "impersonal", "faithfulness")
DEFAULT_WEIGHTS: Mapping[str, float] = {
    "sourcing": 0.55,
    "faithfulness": 0.20,
    "completeness": 0.15,
    "impersonal": 0.10,
}


@dataclass(frozen=True)
class RubricResult:
    """Composite in [0, 1] (or None), the renormalised weights used and the dimensions dropped."""

    composite: float | None
    weights_used: dict[str, float] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)


def compose(
    scores: Mapping[str, float | None],
    *,
    weights: Mapping[str, float] = DEFAULT_WEIGHTS,
    faithfulness_backend: str | None = None,
) -> RubricResult:
    """Weighted mean of the available dimensions of ``scores`` (each in [0, 1] or None).

    ``faithfulness_backend == "stub"`` excludes faithfulness. Returns composite ``None`` when
    sourcing is ``None`` or no weighted dimension is available. Raises ``ValueError`` on a
    negative weight or a score outside [0, 1].
    """
    if any(w < 0 for w in weights.values()):
        raise ValueError("rubric weights must be non-negative")
    dropped: dict[str, str] = {}
    avail: dict[str, float] = {}
    values: dict[str, float] = {}
    for dim, w in weights.items():
        s = scores.get(dim)
        if dim == "faithfulness" and faithfulness_backend == "stub" and s is not None:
            dropped[dim] = "stub backend: shown, not scored"
            continue
        if s is None:
            dropped[dim] = "not measured"
            continue
        if not 0.0 <= s <= 1.0:
            raise ValueError(f"{dim} score {s!r} outside [0, 1]")
        if w > 0:
            avail[dim] = w
            values[dim] = float(s)
    if scores.get("sourcing") is None:
        return RubricResult(None, {}, dropped | {"composite": "no checkable quantity (no_claims)"})
    total = sum(avail.values())
    if total == 0:
        return RubricResult(None, {}, dropped)
    used = {d: w / total for d, w in avail.items()}
    composite = sum(used[d] * values[d] for d in used)
    return RubricResult(round(composite, 4), {d: round(w, 4) for d, w in used.items()}, dropped)
