"""Validity of the sourcing gate: perturbations of answers, and the real-data checks that use them.

Perturbations (pure functions of the answer text): :class:`MovedUnit` (``moved_unit``) moves
every stated number by one displayed unit in its last digit — the gate must reject the moved
answer. :func:`move_number` moves one quantity (the memo-cache soak tampers a stored memo with
it). The gate-soundness suite adds its perturbations here, each a :class:`Perturbation`.

Real-data checks (the figures of issue 2's closing note):

- :func:`tatqa_validity` — TAT-QA gold answers (in scope = number-bearing span answers and
  one-operation arithmetic): the gate should accept ≥99% of gold answers (cited mode) and reject
  ≥99% of the same answers moved by one displayed unit; in uncited mode (markers stripped,
  checked against all facts of the table) the false-accept rate of moved answers should be ≤5%.
- :func:`financebench_validity` — FinanceBench real model answers, uncited against the evidence
  pages: per human label the share of answers that fail, pass or are no_claims;
  precision/recall of "fails" against "Incorrect Answer" with refusals excluded; the
  false-accept rate of *correct* answers that passed, moved by one displayed unit.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from assay.cases import Case
from assay.claims import DEFAULT_CITATION_PATTERN, Quantity, extract_quantities
from assay.facts import Snapshot
from assay.grounding.gate import GateResult, Mode
from assay.grounding.index import IndexCache, SnapshotIndex
from assay.grounding.score import score_answer
from assay.stats import agreement

__all__ = [
    "Perturbation",
    "MovedUnit",
    "PERTURBATIONS",
    "move_number",
    "move_all_numbers",
    "tatqa_validity",
    "financebench_validity",
]


class Perturbation(Protocol):
    """A change of an answer's text that the gate must notice; ``name`` identifies it in reports."""

    name: ClassVar[str]

    def apply(self, answer: str) -> str:
        """The perturbed answer (the same text when there is nothing to perturb)."""
        ...


@dataclass(frozen=True)
class MovedUnit:
    """Every stated number moved by ``units`` displayed units (:func:`move_all_numbers`)."""

    name: ClassVar[str] = "moved_unit"
    units: int = 1

    def apply(self, answer: str) -> str:
        """``answer`` with every quantity moved by :attr:`units` in its last displayed digit."""
        return move_all_numbers(answer, self.units)


#: The perturbations the gate is checked against, in report order.
PERTURBATIONS: tuple[Perturbation, ...] = (MovedUnit(),)


def move_number(text: str, q: Quantity, units: int = 1) -> str:
    """``text`` with quantity ``q``'s number moved by ``units`` in its last displayed digit.

    ``$383.3 billion`` → ``$383.4 billion``; ``(1,577)`` → ``(1,578)`` (the magnitude moves, so a
    negative gets more negative); thousands separators and decimals are kept. Range ends and
    signs keep their form.
    """
    s, e = q.span
    m = _DIGITS.search(text, s, e)
    if m is None:
        return text
    raw = m.group(0)
    sep = "," if "," in raw else (" " if " " in raw else "")
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    scaled = int(re.sub(r"[^\d]", "", raw)) + units
    if scaled < 0:
        scaled = abs(scaled)
    int_part, frac = divmod(scaled, 10**decimals)
    int_text = f"{int_part:,}".replace(",", sep) if sep else str(int_part)
    new = int_text + (f".{frac:0{decimals}d}" if decimals else "")
    if raw.startswith("."):
        new = new.lstrip("0") or "0"
    return text[: m.start()] + new + text[m.end() :]


def move_all_numbers(text: str, units: int = 1) -> str:
    """Every quantity of ``text`` moved by ``units`` displayed units (right to left, spans stay valid)."""
    for q in sorted(extract_quantities(text), key=lambda q: q.span[0], reverse=True):
        text = move_number(text, q, units)
    return text


def tatqa_validity(cases: Iterable[Case]) -> dict[str, Any]:
    """Acceptance / rejection rates on TAT-QA gold cases (``meta.in_scope`` marks scope).

    Returns counts and rates: ``accept_gold`` (cited), ``reject_moved`` (cited),
    ``accept_gold_uncited``, ``false_accept_moved_uncited`` (each ``{"k", "n", "rate"}``), plus
    a per answer_type breakdown, out-of-scope reasons and up to 25 gold answers not accepted.
    """
    moved = MovedUnit()
    n = acc = rej = fa_unc = acc_unc = 0
    by_type: dict[str, Counter[str]] = defaultdict(Counter)
    out_of_scope: Counter[str] = Counter()
    failures: list[str] = []
    for case in cases:
        if not case.meta.get("in_scope"):
            out_of_scope[str(case.meta.get("out_of_scope_reason"))] += 1
            continue
        snap = case.snapshot()
        idx = SnapshotIndex.build(snap)
        n += 1
        t = str(case.meta.get("answer_type"))
        plain = re.sub(DEFAULT_CITATION_PATTERN, "", case.answer)
        g = _gate(case.answer, snap, "cited", idx, case.question)
        gm = _gate(moved.apply(case.answer), snap, "cited", idx, case.question)
        gu = _gate(plain, snap, "uncited", idx, case.question)
        gmu = _gate(moved.apply(plain), snap, "uncited", idx, case.question)
        acc += g.status == "pass"
        rej += gm.status == "fail"
        acc_unc += gu.status == "pass"
        fa_unc += gmu.status == "pass"
        by_type[t]["n"] += 1
        by_type[t]["accept"] += g.status == "pass"
        by_type[t]["reject_moved"] += gm.status == "fail"
        by_type[t]["false_accept_uncited"] += gmu.status == "pass"
        if g.status != "pass" and len(failures) < 25:
            failures.append(f"{case.id}: {case.answer!r} -> {[v.reason for v in g.violations][:1]}")
    return {
        "n_in_scope": n,
        "accept_gold": _rate(acc, n),
        "reject_moved": _rate(rej, n),
        "accept_gold_uncited": _rate(acc_unc, n),
        "false_accept_moved_uncited": _rate(fa_unc, n),
        "by_answer_type": {k: dict(v) for k, v in sorted(by_type.items())},
        "out_of_scope": dict(out_of_scope),
        "examples_not_accepted": failures,
    }


def financebench_validity(cases: Sequence[Case]) -> dict[str, Any]:
    """Gate outcome per human label, agreement of "fails" with "Incorrect Answer" (refusals
    excluded, no_claims left out and counted) and the false-accept rate of moved correct answers.

    Returns ``{"n", "per_label": {label: {status: {"k", "n", "rate", "count"}}},
    "fails_vs_incorrect": agreement counts and rates, "moved_correct_false_accept"}``.
    """
    moved = MovedUnit()
    per_label: dict[str, Counter[str]] = defaultdict(Counter)
    predicted: list[bool] = []
    actual: list[bool] = []
    no_claims_left_out = refusals = 0
    moved_n = moved_accept = 0
    indexes = IndexCache()
    for case in cases:
        snap = case.snapshot()
        idx = indexes.get(snap)
        g = _gate(case.answer, snap, "uncited", idx, case.question)
        label = str(case.meta.get("human_label"))
        per_label[label][g.status] += 1
        if label == "Refusal":
            refusals += 1
            continue
        if g.status == "no_claims":
            no_claims_left_out += 1
            continue
        predicted.append(g.status == "fail")
        actual.append(label == "Incorrect Answer")
        if label == "Correct Answer" and g.status == "pass":
            moved_n += 1
            gm = _gate(moved.apply(case.answer), snap, "uncited", idx, case.question)
            moved_accept += gm.status == "pass"
    return {
        "n": len(cases),
        "per_label": {
            k: {s: _rate(v[s], sum(v.values())) | {"count": v[s]} for s in ("pass", "fail", "no_claims")}
            for k, v in sorted(per_label.items())
        },
        "fails_vs_incorrect": agreement(predicted, actual).to_dict()
        | {"refusals_excluded": refusals, "no_claims_left_out": no_claims_left_out},
        "moved_correct_false_accept": _rate(moved_accept, moved_n) | {"n": moved_n},
    }


# --- helpers -------------------------------------------------------------------------------

_DIGITS = re.compile(r"\d{1,3}(?:[, \u202f\u00a0]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+")


def _gate(answer: str, snapshot: Snapshot, mode: Mode, index: SnapshotIndex, question: str | None = None) -> GateResult:
    """The gate of ``answer`` (to ``question``) in ``mode`` through the one scoring path (gate only)."""
    return score_answer(answer, snapshot, question=question, mode=mode, index=index, gate_only=True).gate


def _rate(k: int, n: int) -> dict[str, Any]:
    return {"k": k, "n": n, "rate": round(k / n, 4) if n else None}
