"""The gate's year rules on the sentences three helpers wrote to break them (issue 15, gate-15).

Corpus: ``benchmarks/data/gate_year_hunts.json`` — 888 "true" sentences (each figure stated as its
cited fact's, period included, often beside another year in another role: a founding year, a
forecast, a range, a document's year, a fiscal year named by its end date) and 210 "false" ones (a
fact's figure stated as another year's: "However, in 2021, net income was $97.0 billion [F7]" on
FY2023's net income), over 8 snapshots (Apple's FY2023/FY2022 facts, a retailer labelled by its
fiscal year's first year, a calendar-year bank, a Korean company, Sony, Walmart, Microsoft quarters,
a TAT-QA-style table). Labels are the hunts' own (about 18 of hunt 3's "true" ones are not clean).

Printed per hunt and in all: false accepts (false sentences that pass) and false rejects (true
sentences that do not). ``--before SRC`` also gates the corpus under another tree's ``src`` in a
subprocess (the baseline: main before gate-15, 392ea35, ``git worktree add /tmp/gate-392
392ea35``) and prints its figures, the ratio of false accepts to it, and the true sentences that
passed there and fail here (newly rejected), verbatim.

    python benchmarks/bench_gate_year_hunts.py [--before /tmp/gate-392/src]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _common import statuses_under

CORPUS = Path(__file__).resolve().parent / "data" / "gate_year_hunts.json"


def statuses() -> list[str]:
    """The gate's status on every sentence of the corpus, in order (this process's ``assay``)."""
    from assay.facts import Fact, Snapshot
    from assay.grounding import check_answer

    doc = json.loads(CORPUS.read_text(encoding="utf-8"))
    snaps = {k: Snapshot(facts=[Fact.model_validate(f) for f in v]) for k, v in doc["snapshots"].items()}
    return [check_answer(s["answer"], snaps[s["snapshot"]]).status for s in doc["sentences"]]


def counts(sentences: list[dict[str, object]], status: list[str], hunt: int | None) -> tuple[int, int, int, int]:
    """``(false accepts, false sentences, false rejects, true sentences)`` of ``hunt`` (None: all)."""
    rows = [(s, st) for s, st in zip(sentences, status, strict=True) if hunt is None or s["hunt"] == hunt]
    false = [st for s, st in rows if s["truth"] == "false"]
    true = [st for s, st in rows if s["truth"] == "true"]
    return sum(st == "pass" for st in false), len(false), sum(st != "pass" for st in true), len(true)


def main() -> int:
    if "--statuses-only" in sys.argv:  # the --before subprocess
        print(json.dumps(statuses()))
        return 0
    sentences = json.loads(CORPUS.read_text(encoding="utf-8"))["sentences"]
    now = statuses()
    before = None
    if "--before" in sys.argv:
        src = sys.argv[sys.argv.index("--before") + 1]
        before = statuses_under(src, __file__, "git worktree add /tmp/gate-392 392ea35")
    for hunt in (1, 2, 3, None):
        fa, nf, fr, nt = counts(sentences, now, hunt)
        line = f"{'all hunts' if hunt is None else f'hunt {hunt}':9}: false accepts {fa}/{nf}, false rejects {fr}/{nt}"
        if before is not None:
            bfa, _, bfr, _ = counts(sentences, before, hunt)
            ratio = f"{fa / bfa:.2f}" if bfa else "n/a"
            line += f" | before: false accepts {bfa}/{nf} (ratio {ratio}), false rejects {bfr}/{nt}"
        print(line)
    if before is not None:
        newly = [s for s, b, n in zip(sentences, before, now, strict=True) if s["truth"] == "true" and b == "pass" != n]
        print(f"true sentences that passed before and fail now: {len(newly)}")
        for s in newly:
            print(f"  [{s['snapshot']}] {s['answer']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
