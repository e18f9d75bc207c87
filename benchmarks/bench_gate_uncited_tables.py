"""The uncited gate on TAT-QA sentences against the tables as text: per perturbation class (gate-18).

The validity suite (``bench_gate_validity.py``, ``assay gate validity``) gates TAT-QA uncited against
the importer's facts; a RAG answer is gated against raw pages. Here the same sentences are gated,
markers stripped, against each table's context as one passage — its rows with cells joined by
`` | ``, then its paragraphs (``bench_gate_vs_grounded_check.passage_text``, the grounded-check
workload's passages) — so what is measured is the passage reader: row items, column years, page
currency. Sets: the templated sentences (one per in-scope question,
:func:`~assay.grounding.perturbations.templated_case`) and the third template sets (every row and
year, or pair of years, of one snapshot per table: levels, changes, % changes;
:mod:`assay.grounding.table_sentences`). Per set: gold acceptance and each perturbation class's
false-accept rate (:data:`~assay.grounding.perturbations.CLASSES`, perturbed on the case's facts,
so a ``period_swap`` names another year of the table), each with its 95% Wilson interval.
``--before SRC`` also gates them under another tree's ``src`` (a subprocess) and prints its counts
beside, with the ratio of this tree's count to it (false accepts: below 1 is better; gold: above 1), e.g.
main before gate-18, 9aecb5f: ``git worktree add /tmp/gate-g17 9aecb5f``.

    python benchmarks/bench_gate_uncited_tables.py [--before /tmp/gate-g17/src]
"""

from __future__ import annotations

import json
import sys

from _common import shared_data_or_exit, statuses_under
from bench_gate_vs_grounded_check import MARKERS, passage_text, tatqa_contexts

SETS = ("templated sentences", "table levels", "table changes", "table % changes")


def statuses() -> dict[str, dict[str, list[str]]]:
    """Per set, per class (``gold`` first), the gate's status on each case (in order; a case a class
    does not perturb is left out of that class)."""
    from assay.facts import Snapshot
    from assay.grounding import IndexCache, check_answer
    from assay.grounding.perturbations import CLASSES, templated_case
    from assay.grounding.table_sentences import (
        change_sentences,
        level_sentences,
        one_per_table,
        percent_change_sentences,
    )
    from assay.importers.tatqa import import_tatqa

    src = shared_data_or_exit("tatqa")
    contexts = tatqa_contexts(src)
    gold = [c for c in import_tatqa(src) if c.meta.get("in_scope")]
    tables = one_per_table(gold)
    sets = {
        "templated sentences": [t for t in map(templated_case, gold) if t is not None],
        "table levels": [t for c in tables for t in level_sentences(c)],
        "table changes": [t for c in tables for t in change_sentences(c)],
        "table % changes": [t for c in tables for t in percent_change_sentences(c)],
    }
    indexes = IndexCache()
    out: dict[str, dict[str, list[str]]] = {}
    for name, cases in sets.items():
        by_class: dict[str, list[str]] = {"gold": [], **{k: [] for k in CLASSES}}
        for case in cases:
            snap = Snapshot(sources=(passage_text(case, contexts),))
            idx = indexes.get(snap)
            for cls in by_class:
                p = case if cls == "gold" else CLASSES[cls](case)
                if p is not None:
                    answer = MARKERS.sub("", p.answer).strip()
                    got = check_answer(answer, snap, mode="uncited", index=idx, question=p.question)
                    by_class[cls].append(got.status)
        out[name] = by_class
    return out


def main() -> int:
    if "--statuses-only" in sys.argv:  # the --before subprocess
        print(json.dumps(statuses()))
        return 0
    from assay.grounding.suite import wilson

    now = statuses()
    before = None
    if "--before" in sys.argv:
        src = sys.argv[sys.argv.index("--before") + 1]
        before = statuses_under(src, __file__, "git worktree add /tmp/gate-g17 9aecb5f")
    for name in SETS:
        print(f"tatqa {name}, uncited on the tables as text:")
        for cls, got in now[name].items():
            k = sum(s == "pass" for s in got)
            r = wilson(k, len(got))
            what = "gold accepted" if cls == "gold" else f"{cls} false accepts"
            line = f"  {what:28} {k:5}/{len(got):<5} {r.rate or 0:.1%} [{r.low or 0:.1%}, {r.high or 0:.1%}]"
            if before is not None and cls in before[name]:
                b = before[name][cls]
                kb = sum(s == "pass" for s in b)
                ratio = f"{k / kb:.2f}" if kb else "n/a"
                line += f" | before: {kb}/{len(b)}, ratio {ratio}"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
