"""Real-data validity of the sourcing gate: acceptance of gold answers, rejection of moved ones.

TAT-QA (gold answers, in scope = number-bearing span answers and one-operation arithmetic):
the gate should accept ≥99% of gold answers (cited mode) and reject ≥99% of the same answers
moved by one displayed unit; in uncited mode (markers stripped, checked against all facts of
the table) the false-accept rate of moved answers should be ≤5%.

FinanceBench (real model answers, uncited against the evidence pages): per human label the
share of answers that fail, pass or are no_claims; precision/recall of "fails" against
"Incorrect Answer" with refusals excluded; the false-accept rate of *correct* answers that
passed, moved by one displayed unit.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from assay.cases import Case
from assay.claims import DEFAULT_CITATION_PATTERN
from assay.grounding.gate import SnapshotIndex, check_answer
from assay.perturb import move_all_numbers
from assay.stats import agreement

__all__ = ["tatqa_validity", "financebench_validity"]


def tatqa_validity(cases: Iterable[Case]) -> dict[str, Any]:
    """Acceptance / rejection rates on TAT-QA gold cases (``meta.in_scope`` marks scope).

    Returns counts and rates: ``accept_gold`` (cited), ``reject_moved`` (cited),
    ``false_accept_moved_uncited``, plus per answer_type breakdown and out-of-scope reasons.
    """
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
        g = check_answer(case.answer, snap, mode="cited", index=idx)
        moved = move_all_numbers(case.answer)
        gm = check_answer(moved, snap, mode="cited", index=idx)
        plain = re.sub(DEFAULT_CITATION_PATTERN, "", case.answer)
        gu = check_answer(plain, snap, mode="uncited", index=idx)
        gmu = check_answer(move_all_numbers(plain), snap, mode="uncited", index=idx)
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
    excluded, no_claims left out and counted) and the false-accept rate of moved correct answers."""
    per_label: dict[str, Counter[str]] = defaultdict(Counter)
    predicted: list[bool] = []
    actual: list[bool] = []
    no_claims_left_out = refusals = 0
    moved_n = moved_accept = 0
    indexes: dict[str, SnapshotIndex] = {}
    for case in cases:
        snap = case.snapshot()
        fp = snap.fingerprint()
        idx = indexes.get(fp) or indexes.setdefault(fp, SnapshotIndex.build(snap))
        g = check_answer(case.answer, snap, mode="uncited", index=idx)
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
            gm = check_answer(move_all_numbers(case.answer), snap, mode="uncited", index=idx)
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


def _rate(k: int, n: int) -> dict[str, Any]:
    return {"k": k, "n": n, "rate": round(k / n, 4) if n else None}
