"""The perturbation suite run on a set of gold cases: false-accept rate per class next to gold acceptance.

:func:`run_suite` gates every gold case in one mode; for each class of
:data:`~assay.grounding.perturbations.CLASSES` it perturbs every gold case the gate ACCEPTS (a
perturbation of an answer already rejected says nothing about soundness) and counts how many
perturbed answers still pass: the false-accept rate. In uncited mode the case is perturbed with
its citation markers (they name the facts the perturbation uses) and gated with the markers
stripped. Rates carry a 95% Wilson score interval (:func:`wilson`, from
``scipy.stats.binomtest(...).proportion_ci(method="wilson")``): unlike the normal
approximation it stays inside [0, 1] and is informative at k = 0 (n = 300, k = 0 → upper 1.3%).

:func:`dataset_sets` names the measured sets of each dataset (``tatqa``: gold figures, the
templated sentences, the second template sets (profit/loss, change: one sentence per question)
and the third (``tatqa table …``: a sentence for every row and year, or pair of years, of each
table — levels, profit/loss, changes, percent changes), each cited and uncited;
``financebench``: correct real answers, uncited; ``example``: the bundled memos, auto mode) and
:func:`format_table` prints them as one table. :func:`pooled` adds, per mode, the four "tatqa table …"
sets summed (:data:`POOLED_SETS`): each class's count over every table sentence it perturbs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from scipy import stats as _sps

from assay.cases import Case, load_cases
from assay.claims import DEFAULT_CITATION_PATTERN
from assay.grounding.gate import Mode
from assay.grounding.index import IndexCache
from assay.grounding.perturbations import CLASSES, CaseChange, templated_case
from assay.grounding.row_templates import direction_case, sign_case
from assay.grounding.score import score_answer
from assay.grounding.table_sentences import (
    change_sentences,
    level_sentences,
    one_per_table,
    percent_change_sentences,
    profit_loss_sentences,
)

__all__ = ["Rate", "SuiteResult", "wilson", "run_suite", "dataset_sets", "format_table", "pooled", "Dataset"]
__all__ += ["POOLED_NAME", "POOLED_SETS", "POOLED_NOTE"]

Dataset = Literal["tatqa", "financebench", "example"]


@dataclass(frozen=True)
class Rate:
    """``k`` of ``n`` with its 95% Wilson interval (``None`` rate and bounds when ``n == 0``)."""

    k: int
    n: int
    rate: float | None
    low: float | None
    high: float | None

    def to_dict(self) -> dict[str, object]:
        return {"k": self.k, "n": self.n, "rate": self.rate, "ci95": [self.low, self.high]}


def wilson(k: int, n: int) -> Rate:
    """``k``/``n`` with the 95% Wilson score interval (scipy); ``ValueError`` when ``k > n``."""
    if n == 0:
        return Rate(k, n, None, None, None)
    ci = _sps.binomtest(k, n).proportion_ci(0.95, method="wilson")
    return Rate(k, n, round(k / n, 4), round(float(ci.low), 4), round(float(ci.high), 4))


@dataclass
class SuiteResult:
    """One measured set in one mode: gold acceptance and each class's false-accept rate."""

    name: str
    mode: Mode
    gold: Rate
    classes: dict[str, Rate] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)
    #: Every false accept as ``(class, case id, perturbed answer)``: per-case, for a ``*.local.json``
    #: only (case ids never reach the aggregate, :meth:`to_dict`).
    false_accepts: list[tuple[str, str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "set": self.name,
            "mode": self.mode,
            "gold_acceptance": self.gold.to_dict(),
            "false_accept": {k: v.to_dict() for k, v in self.classes.items()},
        }


def run_suite(
    name: str,
    cases: Iterable[Case],
    mode: Mode,
    classes: dict[str, CaseChange] = CLASSES,
    *,
    n_examples: int = 3,
) -> SuiteResult:
    """Gold acceptance and per-class false-accept rates of ``cases`` gated in ``mode`` (see module doc).

    Keeps up to ``n_examples`` false accepts per class (answer texts: case ids stay out) and
    every false accept with its case id in ``false_accepts`` (for a ``*.local.json``).
    """
    indexes = IndexCache()
    n = acc = 0
    counts = {c: [0, 0] for c in classes}
    examples: dict[str, list[str]] = {c: [] for c in classes}
    accepted: list[tuple[str, str, str]] = []
    for case in cases:
        snap = case.snapshot()
        idx = indexes.get(snap)
        n += 1
        if _gate(case, mode, idx, snap) != "pass":
            continue
        acc += 1
        for cname, change in classes.items():
            p = change(case)
            if p is None:
                continue
            counts[cname][1] += 1
            if _gate(p, mode, idx, snap) == "pass":
                counts[cname][0] += 1
                accepted.append((cname, case.id, p.answer))
                if len(examples[cname]) < n_examples:
                    examples[cname].append(p.answer)
    rates = {c: wilson(k, m) for c, (k, m) in counts.items()}
    return SuiteResult(name, mode, wilson(acc, n), rates, examples, accepted)


def dataset_sets(dataset: Dataset, src: str | Path) -> list[tuple[str, Mode, list[Case]]]:
    """The measured sets of ``dataset`` read from ``src`` as ``(name, mode, cases)``.

    ``tatqa``: in-scope gold cases (``meta.in_scope``), their templated sentences
    (:func:`~assay.grounding.perturbations.templated_case`), the second template sets of
    :mod:`assay.grounding.row_templates` (profit/loss sentences, change sentences; a sentence
    repeated on the same snapshot by several questions of one table counted once) and the third
    of :mod:`assay.grounding.table_sentences` ("tatqa table levels", "… profit/loss", "…
    changes", "… % changes": every row and year, or pair of years, of each table once, on
    :func:`~assay.grounding.table_sentences.one_per_table`'s snapshot), each cited and uncited;
    ``financebench``: answers labelled "Correct Answer", uncited; ``example``: a cases JSONL (the
    bundled ``examples/apple_fy2023_memos.jsonl``), auto mode. Raises ``FileNotFoundError``.
    """
    if dataset == "tatqa":
        from assay.importers.tatqa import import_tatqa

        gold = [c for c in import_tatqa(src) if c.meta.get("in_scope")]
        templ = [t for t in map(templated_case, gold) if t is not None]
        signed = _distinct(t for t in map(sign_case, gold) if t is not None)
        changes = _distinct(t for t in map(direction_case, gold) if t is not None)
        tables = one_per_table(gold)
        every = [
            (name, _distinct(t for c in tables for t in make(c)))
            for name, make in (
                ("tatqa table levels", level_sentences),
                ("tatqa table profit/loss", profit_loss_sentences),
                ("tatqa table changes", change_sentences),
                ("tatqa table % changes", percent_change_sentences),
            )
        ]
        return [
            ("tatqa gold figures", "cited", gold),
            ("tatqa gold figures", "uncited", gold),
            ("tatqa templated sentences", "cited", templ),
            ("tatqa templated sentences", "uncited", templ),
            ("tatqa profit/loss sentences", "cited", signed),
            ("tatqa profit/loss sentences", "uncited", signed),
            ("tatqa change sentences", "cited", changes),
            ("tatqa change sentences", "uncited", changes),
            *((name, mode, cs) for name, cs in every for mode in ("cited", "uncited")),
        ]
    if dataset == "financebench":
        from assay.importers.financebench import import_financebench

        correct = [c for c in import_financebench(src) if c.meta.get("human_label") == "Correct Answer"]
        return [("financebench correct answers", "uncited", correct)]
    return [("example memos", "auto", load_cases(src))]


#: The sets :func:`pooled` sums per mode: the third template sets (:mod:`assay.grounding.table_sentences`),
#: each a different claim family (a level, a signed level, a change, a percent change) stated once per
#: in-scope cell or pair of cells of one snapshot per table: no sentence is in two of them, though one
#: result cell is stated both as a level and as a profit or loss. The first and second template sets
#: are left out: their sentences repeat these on the same facts (a question's first result fact is one
#: of its table's result cells). Why pool: a class that only a few rows carry (``sign_word``: result
#: rows alone, 124–174 sentences a set on the shared TAT-QA tables) cannot prove a 1% bound in one set
#: (0/n needs n ≥ 381), while the class's promise — a stated loss on a profit fails, whatever the
#: claim's form — is measured on every family. The pooled cases are clustered by table (the cells of
#: one table share its labels), so the bound is read beside the per-set rows, not instead of them.
POOLED_SETS = ("tatqa table levels", "tatqa table profit/loss", "tatqa table changes", "tatqa table % changes")
#: The pooled rows' set name, and the line printed under a table that has them (what they sum, and why
#: their interval is read beside the rows it sums).
POOLED_NAME = "tatqa table sets, summed"
POOLED_NOTE = (
    f"'{POOLED_NAME}': the four 'tatqa table …' rows of its mode added up (not the other tatqa sets; its "
    "false accepts are theirs, listed under them); the cells of one table are alike, so its interval, "
    "which takes the sentences as independent, is read beside those rows, not instead of them."
)


def pooled(results: Sequence[SuiteResult], names: Sequence[str] = POOLED_SETS) -> list[SuiteResult]:
    """Per mode (in first-seen order), one :class:`SuiteResult` named :data:`POOLED_NAME` whose gold
    acceptance and per-class counts are the sums ``k``/``n`` over the ``results`` whose set is in
    ``names`` (:data:`POOLED_SETS`), with the Wilson interval of the sums; ``[]`` when no result is
    of those sets. Neither examples nor false accepts are kept: they are the sets' own, listed with
    them (a ``--local`` file would list each twice)."""
    by_mode: dict[str, list[SuiteResult]] = {}
    for r in results:
        if r.name in names:
            by_mode.setdefault(r.mode, []).append(r)
    out = []
    for rs in by_mode.values():
        classes = list(dict.fromkeys(c for r in rs for c in r.classes))
        sums = {
            c: (sum(r.classes[c].k for r in rs if c in r.classes), sum(r.classes[c].n for r in rs if c in r.classes))
            for c in classes
        }
        gold = wilson(sum(r.gold.k for r in rs), sum(r.gold.n for r in rs))
        out.append(
            SuiteResult(
                POOLED_NAME,
                rs[0].mode,
                gold,
                {c: wilson(k, n) for c, (k, n) in sums.items()},
            )
        )
    return out


def format_table(results: Sequence[SuiteResult]) -> str:
    """One plain-text table: per set and mode, gold acceptance then each class's false accepts."""
    head = f"{'set':28} {'mode':8} {'class':15} {'k/n':>11} {'rate':>7} {'95% CI (Wilson)':>17}"
    lines = [head, "-" * len(head)]
    for r in results:
        rows = [("gold accepted", r.gold), *r.classes.items()]
        for cname, rate in rows:
            if rate.rate is None:
                lines.append(f"{r.name:28} {r.mode:8} {cname:15} {'0/0':>11} {'n/a':>7} {'':>17}")
                continue
            assert rate.low is not None and rate.high is not None
            ci = f"[{100 * rate.low:.2f}, {100 * rate.high:.2f}]%"
            lines.append(
                f"{r.name:28} {r.mode:8} {cname:15} {f'{rate.k}/{rate.n}':>11} {100 * rate.rate:6.2f}% {ci:>17}"
            )
    if any(r.name == POOLED_NAME for r in results):
        lines.append(POOLED_NOTE)
    return "\n".join(lines)


# --- helpers -------------------------------------------------------------------------------


def _distinct(cases: Iterable[Case]) -> list[Case]:
    """``cases`` without repeats of one (answer, snapshot fingerprint): questions of one table
    template the same sentence, which is one measurement, not several."""
    seen: set[tuple[str, str]] = set()
    out = []
    for c in cases:
        key = (c.answer, c.snapshot().fingerprint())
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


_MARKERS = re.compile(r"\s*" + DEFAULT_CITATION_PATTERN)


def _gate(case: Case, mode: Mode, idx: object, snap: object) -> str:
    from assay.facts import Snapshot
    from assay.grounding.index import SnapshotIndex

    assert isinstance(idx, SnapshotIndex) and isinstance(snap, Snapshot)
    answer = _MARKERS.sub("", case.answer) if mode == "uncited" else case.answer
    return score_answer(answer, snap, question=case.question, mode=mode, index=idx, gate_only=True).gate.status
