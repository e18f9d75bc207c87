"""``assay gate FILE``: the sourcing gate on every case of a cases JSONL (``-``: standard input).

Exit codes (the one contract): 0 no case fails or is ``unchecked`` (and not every case is
``no_claims``), 1 any case fails or is ``unchecked`` (numbers the reader could not interpret are
not proven), 3 every case is ``no_claims`` (done, but nothing was measured), 2 bad input (one
line). ``--json`` prints one object per case (status, violations, unchecked spans, completeness,
impersonal); otherwise one line per case and a count.

``assay gate validity --dataset tatqa|financebench|example SRC``: the perturbation suite
(:mod:`assay.grounding.suite`): per measured set, gold acceptance and each perturbation class's
false-accept rate with a 95% Wilson interval, as one table (``--json``: the figures);
``--local PATH.local.json`` lists every false accept with its case id and perturbed answer.
It shows progress over the gold cases on stderr (TAT-QA's sets take about a minute; ``--quiet``
turns it off).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import typer
from rich.progress import Progress, TaskID

from assay.cases import Case, CaseFileError, load_cases
from assay.cli.app import app
from assay.cli.common import GateMode, UsageError, out, progress_bar, user_errors

__all__ = ["gate_cmd"]

_DATASETS = ("tatqa", "financebench", "example")


@app.command("gate")
def gate_cmd(
    ctx: typer.Context,
    file: str = typer.Argument(..., help="Cases JSONL ('-': standard input), or 'validity' (then SRC)."),
    src: Path | None = typer.Argument(None, help="gate validity: the dataset's folder or file."),
    mode: GateMode = typer.Option(GateMode.auto, "--mode", help="auto: cited when the answer has citation markers."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per case."),
    dataset: str | None = typer.Option(
        None,
        "--dataset",
        help="gate validity: tatqa (its four table sets also summed per mode), financebench or example.",
    ),
    local: Path | None = typer.Option(
        None, "--local", help="gate validity: write every false accept (case id, class, answer) to this *.local.json."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="gate validity: no progress bar (or lines off a terminal)."
    ),
) -> None:
    """Run the sourcing gate on every case; exit 1 when any case fails or is unchecked, 3 when
    every case is no_claims, 2 on bad input."""
    if file == "validity":
        with user_errors(ctx):
            source = ctx.get_parameter_source("mode")
            if source is not None and source.name == "COMMANDLINE":  # (was ignored: each set has its mode)
                raise UsageError("--mode belongs to 'assay gate': gate validity runs each set in its own mode")
        _validity(ctx, dataset, src, as_json, local, quiet)
        return
    from assay.grounding import IndexCache, score_answer

    with user_errors(ctx):
        if src is not None or dataset is not None or local is not None or quiet:
            raise UsageError("SRC, --dataset, --local and --quiet belong to 'assay gate validity'")
        cases = _load(file)
    counts = {"pass": 0, "fail": 0, "no_claims": 0, "unchecked": 0}
    indexes = IndexCache()  # variants of one question share their snapshot's index
    for case in cases:
        scored = score_answer(
            case.answer,
            case.snapshot(),
            question=case.question,
            reference=case.reference,
            mode=mode.value,
            indexes=indexes,
            gate_only=not as_json,
        )
        g = scored.gate
        counts[g.status] += 1
        if as_json:
            assert scored.completeness is not None and scored.impersonal is not None  # gate_only=False
            rec = {
                "id": case.id,
                "variant": case.variant,
                "status": g.status,
                "mode": g.mode,
                "violations": [v.model_dump() for v in g.violations],
                "unchecked": [u.model_dump() for u in g.unchecked],
                "scale_from_display": g.n_scale_from_display,  # matched through the displayed-value rule
                "completeness": scored.completeness.model_dump(),
                "impersonal": scored.impersonal.model_dump(),
            }
            out.print(json.dumps(rec, ensure_ascii=False), markup=False)
        else:
            detail = f"{g.n_matched}/{g.n_checkable} quantities matched" if g.checks else "nothing checkable"
            if g.unchecked:
                detail += f", {len(g.unchecked)} unchecked: " + ", ".join(repr(u.text) for u in g.unchecked[:3])
            line = f"{g.status.upper():9} {case.id} [{case.variant}] {g.mode}: {detail}"
            if g.violations:
                v = g.violations[0]
                line += f" — {v.kind} {v.quantity!r}: {v.reason}" + (
                    f" (+{len(g.violations) - 1} more)" if len(g.violations) > 1 else ""
                )
            out.print(line, markup=False)
    if not as_json:
        out.print(
            f"{len(cases)} case(s): {counts['pass']} pass, {counts['fail']} fail, "
            f"{counts['unchecked']} unchecked, {counts['no_claims']} no_claims",
            markup=False,
        )
    if counts["fail"] or counts["unchecked"]:
        raise typer.Exit(1)
    raise typer.Exit(3 if counts["no_claims"] == len(cases) else 0)


def _advancing(cases: list[Case], bar: Progress, task: TaskID) -> Iterator[Case]:
    """``cases``, advancing ``bar`` by one as each is handed on (after the one before it was gated)."""
    for case in cases:
        yield case
        bar.advance(task)


def _load(file: str) -> list[Case]:
    """Cases from a path, or from standard input for ``-`` (read whole as bytes, then validated
    as a file is: problems name ``<stdin>:LINE``, bytes that are not UTF-8 included)."""
    if file != "-":
        return load_cases(Path(file))
    data = sys.stdin.buffer.read()
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "stdin.jsonl"
        p.write_bytes(data)
        try:
            return load_cases(p)
        except CaseFileError as e:  # the temporary file's name means nothing to the user
            raise CaseFileError([pr.model_copy(update={"file": "<stdin>"}) for pr in e.problems]) from None


def _validity(
    ctx: typer.Context, dataset: str | None, src: Path | None, as_json: bool, local: Path | None, quiet: bool
) -> None:
    from assay.atomic import atomic_write_json, check_writable_dir
    from assay.grounding.suite import dataset_sets, format_table, pooled, run_suite

    with user_errors(ctx):
        if dataset not in _DATASETS:
            raise UsageError(f"--dataset: one of {', '.join(_DATASETS)}, got {dataset!r}")
        if src is None:
            raise UsageError("gate validity: SRC (the dataset's folder or file) is missing")
        if not src.exists():
            raise UsageError(f"{src}: no such file or folder")
        if local is not None:
            if not local.name.endswith(".local.json"):
                raise UsageError(f"--local: {local}: per-case output names end in .local.json (they hold case ids)")
            if local.is_dir():  # (found only at the end of the run before, as a traceback)
                raise UsageError(f"--local: {local}: is a directory, expected a file")
            check_writable_dir(local.parent)
        sets = dataset_sets(dataset, src)  # type: ignore[arg-type]
    with progress_bar("gate validity", quiet=quiet) as bar:  # each gold case with its perturbations
        task = bar.add_task("cases", total=sum(len(cases) for _, _, cases in sets))
        results = [run_suite(name, _advancing(cases, bar, task), m) for name, m, cases in sets]
    results += pooled(results)  # (tatqa) per mode, the four table sets summed (a line under the table says so)
    if local is not None:
        rows = [
            {"set": r.name, "mode": r.mode, "class": cls, "case_id": cid, "answer": answer}
            for r in results
            for cls, cid, answer in r.false_accepts
        ]
        atomic_write_json(local, rows)
    if as_json:
        out.print(json.dumps([r.to_dict() for r in results], ensure_ascii=False), markup=False)
    else:
        out.print(format_table(results), markup=False)
    # 3: done, but no set measured both a gold acceptance and a class's false accepts
    measured = any(r.gold.n and any(c.n for c in r.classes.values()) for r in results)
    raise typer.Exit(0 if measured else 3)
