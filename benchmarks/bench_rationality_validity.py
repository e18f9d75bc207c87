"""Real-data validity of the rationality judge (issue #5 closing note). Needs ../shared/data.

tau-bench airline (gpt-4o, tasks 0–39, 4 trials each):
  1. import the trajectories to native traces (labels stay in the summary);
  2. fit the heuristic's weights on tasks 0–19 (:func:`fit_rule_params`) and check the fit equals
     the shipped ``DEFAULT_PARAMS``;
  3. on tasks 20–39 (and, for reference, 0–19): AUC and Spearman ρ against ``reward`` per axis and
     composite for the heuristic and the stub, and for the trivial baseline "trajectory length"
     (fewer messages → success), with 95% CIs from a bootstrap that resamples whole tasks.
  Target: heuristic composite AUC ≥ 0.75 on tasks 20–39 and ≥ the length baseline + 0.05.
Who&When (146 logs): the heuristic scores fixed windows of steps; how often the lowest-scoring
window holds the labelled mistake step, against chance and "always the first window".

Prints the tables and exits 1 when the tau-bench target is missed.
Run: ``.venv/bin/python benchmarks/bench_rationality_validity.py``
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from assay.importers.taubench import import_taubench
from assay.importers.whoandwhen import import_whoandwhen
from assay.judges.rationality import AXES, composite, stub_scores
from assay.judges.rationality_rules import DEFAULT_PARAMS, heuristic_scores
from assay.judges.rationality_validity import auc_difference, fit_rule_params, label_validity, window_localisation

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
TAU = DATA / "tau_bench" / "gpt-4o-airline.tasks00-39.json"
TARGET_AUC, TARGET_MARGIN = 0.75, 0.05


def main() -> int:
    if not TAU.is_file():
        print(f"missing {TAU}: this benchmark needs the shared data", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    pairs = import_taubench(TAU)
    lengths = [len(r["traj"]) for r in json.loads(TAU.read_text(encoding="utf-8"))]
    rows = [(row, trace, n) for (row, trace), n in zip(pairs, lengths, strict=True)]
    train = [x for x in rows if x[0].labels["task_id"] <= 19]
    test = [x for x in rows if x[0].labels["task_id"] >= 20]
    fitted, train_auc = fit_rule_params([t for _, t, _ in train], [r.labels["reward"] == 1.0 for r, _, _ in train])
    print(
        f"fit on tasks 0–19 ({len(train)} runs): composite AUC {train_auc:.3f}; "
        f"{'equals' if fitted == DEFAULT_PARAMS else 'DIFFERS FROM'} DEFAULT_PARAMS"
    )
    if fitted != DEFAULT_PARAMS:
        print(f"  fitted: {fitted}\n  shipped: {DEFAULT_PARAMS}")
    result = {}
    for split, sel in (("tasks 20–39 (report)", test), ("tasks 0–19 (fit)", train)):
        scores = _scores(sel)
        labels = [r.labels["reward"] == 1.0 for r, _, _ in sel]
        clusters = [r.labels["task_id"] for r, _, _ in sel]
        table = label_validity(scores, labels, clusters, n_resamples=2000, seed=0)
        result[split] = table
        print(
            f"\n{split}: {len(sel)} runs, {sum(labels)} with reward 1, {len(set(clusters))} tasks "
            "(95% CIs resample whole tasks)"
        )
        print(f"  {'score':34s} {'AUC':>6s} {'95% CI':>16s} {'Spearman ρ':>11s} {'95% CI':>17s}")
        for name, r in table.items():
            print(
                f"  {name:34s} {_f(r['auc']):>6s} {_ci(r['auc_ci']):>16s} "
                f"{_f(r['rho'], True):>11s} {_ci(r['rho_ci'], True):>17s}"
            )
    scores = _scores(test)
    d = auc_difference(
        scores["heuristic composite"],
        scores["length (fewer messages)"],
        [r.labels["reward"] == 1.0 for r, _, _ in test],
        [r.labels["task_id"] for r, _, _ in test],
    )
    print(
        f"\nheuristic composite − length, AUC on tasks 20–39: {_f(d['diff'], True)} {_ci(d['ci'], True)} "
        f"(paired, tasks resampled; share of resamples ≤ 0: {_f(d['p_le_zero'])})"
    )
    report = result["tasks 20–39 (report)"]
    h, length = report["heuristic composite"]["auc"], report["length (fewer messages)"]["auc"]
    ok = h is not None and length is not None and h >= TARGET_AUC and h >= length + TARGET_MARGIN
    print(
        f"\ntarget: heuristic composite AUC {_f(h)} ≥ {TARGET_AUC} and ≥ length {_f(length)} + {TARGET_MARGIN} "
        f"(ratio to length {h / length:.3f}): {'MET' if ok else 'MISSED'}"
    )
    _who_and_when()
    print(f"\n({time.perf_counter() - t0:.1f} s)")
    return 0 if ok else 1


def _scores(sel: list) -> dict[str, list[float | None]]:
    memo: dict = {}
    heur = [heuristic_scores(t, memo=memo)[0] for _, t, _ in sel]
    stub = [stub_scores(t, r.id) for r, t, _ in sel]
    out: dict[str, list[float | None]] = {}
    for axis in AXES:
        out[f"heuristic {axis}"] = [s[axis] for s in heur]
    out["heuristic composite"] = [composite(s) for s in heur]
    for axis in AXES:
        out[f"stub {axis}"] = [s[axis] for s in stub]
    out["stub composite"] = [composite(s) for s in stub]
    out["length (fewer messages)"] = [float(-n) for _, _, n in sel]
    return out


def _who_and_when() -> None:
    src = DATA / "who_and_when"
    if not src.is_dir():
        print(f"\nWho&When: {src} missing, skipped")
        return
    pairs = import_whoandwhen(src)
    print(
        "\nWho&When: lowest-scoring window of the heuristic composite vs the labelled mistake step (ties share the hit)"
    )
    print(
        f"  {'subset':22s} {'window':>6s} {'logs':>5s} {'windows':>8s} {'hit rate':>9s} {'95% CI':>16s} "
        f"{'chance':>7s} {'first':>7s}"
    )
    for subset in ("algorithm-generated", "hand-crafted"):
        sel = [(r, t) for r, t in pairs if r.slice == subset]
        for size in (2, 3, 5, 10):
            res = window_localisation([t for _, t in sel], [r.labels["mistake_step"] for r, _ in sel], size=size)
            print(
                f"  {subset:22s} {size:>6d} {res['n']:>5d} {_f(res['mean_windows']):>8s} "
                f"{_f(res['hit_rate']):>9s} {_ci(res['hit_rate_ci']):>16s} "
                f"{_f(res['chance']):>7s} {_f(res['first_window']):>7s}"
            )


def _f(v: float | None, signed: bool = False) -> str:
    return "—" if v is None else (f"{v:+.3f}" if signed else f"{v:.3f}")


def _ci(ci: list | None, signed: bool = False) -> str:
    return "—" if not ci else f"[{_f(ci[0], signed)}, {_f(ci[1], signed)}]"


if __name__ == "__main__":
    sys.exit(main())
