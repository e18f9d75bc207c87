"""Gate soundness per perturbation class: false-accept rate (95% Wilson CI) next to gold acceptance,
each beside the same rate measured with main's gate before issue 15.

Sets: TAT-QA gold figures, templated sentences, the second template sets (profit/loss
sentences, change sentences: :mod:`assay.grounding.row_templates`) and the third (a sentence
for every row and year of each table — levels, profit/loss, changes, percent changes:
:mod:`assay.grounding.table_sentences`), each cited and uncited, FinanceBench correct answers
(uncited) and the bundled example memos, and per mode the four "tatqa table" sets pooled
(:func:`~assay.grounding.suite.pooled`). Targets (issue 15), on the 95% upper bound:
cited ≤ 1% per class (≤ 2% ``moved_unit``), uncited ≤ 5%. Prints one table (and ``--json``
the figures); a dataset missing from ../shared/data is skipped with a line.

Before/after: the gold cases and their perturbations are made once, in THIS tree (the suite's
classes, :data:`assay.grounding.perturbations.CLASSES`); their answers and snapshots go as JSON
to a subprocess running another tree's ``check_answer`` (``--before SRC``; default
``/tmp/gate-before/src``, main at 609bb0e checked out by ``git worktree add /tmp/gate-before
609bb0e``), which sends back one status per answer. The "before" rate of a class counts the
perturbations of the gold cases THAT gate accepts, as :func:`~assay.grounding.suite.run_suite`
does for this tree's gate. The old gate takes no ``question`` and knows no ``displayed_value``
(it read every fact's value as displayed), so neither is sent to it; uncited answers are sent
with their markers stripped, as the suite gates them. ``--no-before`` skips the columns.

    python benchmarks/bench_gate_validity.py [--json] [--before SRC | --no-before]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BEFORE_DEFAULT = Path("/tmp/gate-before/src")


def gate_only(path: str) -> int:
    """The subprocess: gate every item of the JSON file at ``path`` with the tree on PYTHONPATH
    (imports only ``Snapshot`` and ``check_answer``, which every tree has) and print the statuses."""
    from assay.facts import Snapshot
    from assay.grounding import IndexCache, check_answer

    payload = json.loads(Path(path).read_text(encoding="utf-8"))
    snaps = [Snapshot.model_validate(s) for s in payload["snapshots"]]
    indexes = IndexCache()
    out = []
    for snap_i, answer, mode in payload["items"]:
        snap = snaps[snap_i]
        out.append(check_answer(answer, snap, mode=mode, index=indexes.get(snap)).status)
    print(json.dumps(out))
    return 0


def main() -> int:
    from _common import REPO, SHARED_DATA
    from assay.grounding.suite import dataset_sets, pooled, run_suite

    results, sets = [], []
    for dataset, src in (
        ("tatqa", SHARED_DATA / "tatqa"),
        ("financebench", SHARED_DATA / "financebench"),
        ("example", REPO / "examples" / "apple_fy2023_memos.jsonl"),
    ):
        if not src.exists():
            print(f"SKIP {dataset}: {src} not found (public data lives in ../shared/data)")
            continue
        for name, mode, cases in dataset_sets(dataset, src):  # type: ignore[arg-type]
            results.append(run_suite(name, cases, mode))
            sets.append((name, mode, cases))
    before_src = None if "--no-before" in sys.argv else _arg("--before", str(BEFORE_DEFAULT))
    before: list[dict[str, Any]] | None = None
    if before_src is not None and not Path(before_src).exists():
        print(f"SKIP before columns: {before_src} not found (git worktree add /tmp/gate-before 609bb0e)")
    elif before_src is not None:
        before = before_rates(sets, before_src)
    pool = pooled(results)  # per mode, the four "tatqa table" sets summed (suite.POOLED_SETS)
    if before is not None:
        before += [pooled_before(results, before, p.mode) for p in pool]
    results += pool
    print(table(results, before))
    if "--json" in sys.argv:
        rows = [r.to_dict() for r in results]
        for row, b in zip(rows, before or [], strict=False):
            row["before"] = {
                "gold_acceptance": b["gold"].to_dict(),
                "false_accept": {k: v.to_dict() for k, v in b["classes"].items()},
            }
        print(json.dumps(rows, indent=1))
    return 0


def before_rates(sets: list[tuple[str, str, list[Any]]], src: str) -> list[dict[str, Any]]:
    """Gold acceptance and per-class false accepts of each set under the gate at ``src`` (module doc)."""
    from assay.claims import DEFAULT_CITATION_PATTERN
    from assay.grounding.perturbations import CLASSES
    from assay.grounding.suite import wilson

    markers = re.compile(r"\s*" + DEFAULT_CITATION_PATTERN)
    snap_ids: dict[str, int] = {}
    snapshots: list[dict[str, Any]] = []
    items: list[tuple[int, str, str]] = []
    keys: list[tuple[int, int, str | None]] = []  # (set, case, class or None for the gold answer)
    for s, (_, mode, cases) in enumerate(sets):
        for i, case in enumerate(cases):
            snap = case.snapshot()
            fp = snap.fingerprint()
            if fp not in snap_ids:
                snap_ids[fp] = len(snapshots)
                snapshots.append(
                    {
                        "facts": [f.model_dump(exclude={"displayed_value"}) for f in snap.facts],
                        "sources": list(snap.sources),
                    }
                )
            for cname, answer in [(None, case.answer), *((c, _answer(ch(case))) for c, ch in CLASSES.items())]:
                if answer is None:
                    continue
                items.append((snap_ids[fp], markers.sub("", answer) if mode == "uncited" else answer, mode))
                keys.append((s, i, cname))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.json"
        path.write_text(json.dumps({"snapshots": snapshots, "items": items}, ensure_ascii=False), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": src}
        done = subprocess.run(
            [sys.executable, __file__, "--gate-only", str(path)], env=env, capture_output=True, text=True, check=True
        )
    statuses = json.loads(done.stdout.strip().splitlines()[-1])
    gold = {(s, i): st == "pass" for (s, i, c), st in zip(keys, statuses, strict=True) if c is None}
    out = []
    for s, (_, _, cases) in enumerate(sets):
        counts = {c: [0, 0] for c in CLASSES}
        for (ks, i, c), st in zip(keys, statuses, strict=True):
            if ks == s and c is not None and gold[(s, i)]:
                counts[c][1] += 1
                counts[c][0] += st == "pass"
        accepted = sum(gold[(s, i)] for i in range(len(cases)))
        out.append({"gold": wilson(accepted, len(cases)), "classes": {c: wilson(k, n) for c, (k, n) in counts.items()}})
    return out


def pooled_before(results: list[Any], before: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    """The "before" rates of :func:`~assay.grounding.suite.pooled`'s row of ``mode``: ``pooled``
    itself, over the before-rates of the same sets."""
    from assay.grounding.suite import SuiteResult, pooled

    rows = [SuiteResult(r.name, r.mode, b["gold"], b["classes"]) for r, b in zip(results, before, strict=False)]
    (row,) = [p for p in pooled(rows) if p.mode == mode]
    return {"gold": row.gold, "classes": row.classes}


def table(results: list[Any], before: list[dict[str, Any]] | None) -> str:
    """The suite's table with, beside each rate, the same rate under the gate before issue 15."""
    from assay.grounding.suite import POOLED_NAME, POOLED_NOTE

    head = f"{'set':28} {'mode':8} {'class':15} {'k/n':>11} {'rate':>7} {'95% CI (Wilson)':>17}"
    if before is not None:
        head += f" | {'before k/n':>11} {'rate':>7} {'95% CI (Wilson)':>17}"
    lines = [head, "-" * len(head)]
    for j, r in enumerate(results):
        rows = [("gold accepted", r.gold, None if before is None else before[j]["gold"])]
        rows += [(c, rate, None if before is None else before[j]["classes"][c]) for c, rate in r.classes.items()]
        for cname, rate, old in rows:
            line = f"{r.name:28} {r.mode:8} {cname:15} {_cells(rate)}"
            if before is not None:
                line += f" | {_cells(old)}"
            lines.append(line)
    if any(r.name == POOLED_NAME for r in results):
        lines.append(POOLED_NOTE)
    return "\n".join(lines)


# --- helpers -------------------------------------------------------------------------------


def _answer(case: Any) -> str | None:
    return None if case is None else case.answer


def _cells(rate: Any) -> str:
    if rate.rate is None:
        return f"{'0/0':>11} {'n/a':>7} {'':>17}"
    ci = f"[{100 * rate.low:.2f}, {100 * rate.high:.2f}]%"
    return f"{f'{rate.k}/{rate.n}':>11} {100 * rate.rate:6.2f}% {ci:>17}"


def _arg(flag: str, default: str) -> str:
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else default


if __name__ == "__main__":
    if "--gate-only" in sys.argv:  # the --before subprocess
        sys.exit(gate_only(sys.argv[sys.argv.index("--gate-only") + 1]))
    sys.exit(main())
