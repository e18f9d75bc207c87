"""The gate on the sentences a helper wrote to break it other than by a year (issue 15, gate-16).

Corpus: ``benchmarks/data/gate_nonyear_hunt.json`` — 90 pairs of a false sentence and its true
counterpart (groups A–J: A two items' values swapped in one sentence, B an item word the labels
lack, C a unit or denominator word, D a comparison's direction or base, E a move's way, F a bound
stated with a verb, G a denial, H a percentage-point change stated as a percent, I an uncited
passage's line item, J a forecast), and 20 true sentences the hunt found rejected, over the
bundled example's facts, a segment snapshot and three passages. Labels are the hunt's own.

Printed per group and in all: false accepts (false sentences that pass) and true counterparts that
do not pass; then the true sentences rejected. ``--before SRC`` also gates the corpus under another
tree's ``src`` in a subprocess (the hunt's tree: a1d97de, ``git worktree add /tmp/gate-a1d a1d97de``)
and prints its figures beside.

    python benchmarks/bench_gate_nonyear_hunt.py [--before /tmp/gate-a1d/src]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _common import statuses_under

CORPUS = Path(__file__).resolve().parent / "data" / "gate_nonyear_hunt.json"


def statuses() -> dict[str, list[str]]:
    """The gate's status on every sentence: ``false``, ``true`` (of each pair, in order) and ``true_only``."""
    from assay.facts import Fact, Snapshot
    from assay.grounding import check_answer

    doc = json.loads(CORPUS.read_text(encoding="utf-8"))
    snaps = {
        k: Snapshot(facts=[Fact.model_validate(f) for f in v["facts"]], sources=tuple(v["sources"]))
        for k, v in doc["snapshots"].items()
    }

    def status(answer: str, snap: str, mode: str) -> str:
        return check_answer(answer, snaps[snap], mode=mode).status  # type: ignore[arg-type]

    pairs = doc["pairs"]
    return {
        "false": [status(p["false"], p["snapshot"], p["mode"]) for p in pairs],
        "true": [status(p["true"], p["snapshot"], p["mode"]) for p in pairs],
        "true_only": [status(s["answer"], s["snapshot"], s["mode"]) for s in doc["true_only"]],
    }


def figures(doc: dict, got: dict[str, list[str]], group: str | None) -> tuple[int, int, int]:
    """``(false accepts, pairs, true counterparts not passing)`` of ``group`` (None: all)."""
    rows = [i for i, p in enumerate(doc["pairs"]) if group is None or p["group"] == group]
    return (
        sum(got["false"][i] == "pass" for i in rows),
        len(rows),
        sum(got["true"][i] != "pass" for i in rows),
    )


def main() -> int:
    if "--statuses-only" in sys.argv:  # the --before subprocess
        print(json.dumps(statuses()))
        return 0
    doc = json.loads(CORPUS.read_text(encoding="utf-8"))
    now = statuses()
    before = None
    if "--before" in sys.argv:
        src = sys.argv[sys.argv.index("--before") + 1]
        before = statuses_under(src, __file__, "git worktree add /tmp/gate-a1d a1d97de")
    for group in [*sorted({p["group"] for p in doc["pairs"]}), None]:
        fa, n, tr = figures(doc, now, group)
        line = f"{'all' if group is None else group:3}: false accepts {fa}/{n}, true counterparts failing {tr}/{n}"
        if before is not None:
            bfa, _, btr = figures(doc, before, group)
            line += f" | before: {bfa}/{n}, {btr}/{n}"
        print(line)
    rejected = sum(s != "pass" for s in now["true_only"])
    line = f"true sentences rejected: {rejected}/{len(now['true_only'])}"
    if before is not None:
        line += f" | before: {sum(s != 'pass' for s in before['true_only'])}/{len(before['true_only'])}"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
