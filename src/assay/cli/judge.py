"""``assay judge validate``: the faithfulness judge's validity on HaluEval QA or FaithBench.

Thin: parses options, calls :func:`assay.judges.validate.validate_judge`, prints a table and,
with ``--out DIR``, writes ``DIR/NAME.local.json`` (per case, with ids), ``DIR/NAME.aggregate.json``
and ``DIR/NAME.md`` (figures only: the same tables as the console) atomically. Bad input exits 2
with one line; an LLM backend that scored no case exits 3 after writing (the measurement is
incomplete). Tables fold to the terminal width.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from assay.cli.app import judge_app
from assay.cli.common import db_errors, err, fmt_interval, fmt_number, out, progress_bar, user_errors

__all__ = ["EXIT_INCOMPLETE", "Backend", "Dataset", "validate_cmd"]

#: Exit status when an LLM judge that was asked for scored no case (README, exit codes).
EXIT_INCOMPLETE = 3


class Dataset(str, Enum):
    halueval = "halueval"
    faithbench = "faithbench"


class Backend(str, Enum):
    stub = "stub"
    openai_compatible = "openai_compatible"


@judge_app.command("validate")
def validate_cmd(
    ctx: typer.Context,
    src: Path = typer.Argument(
        ..., help="Dataset file or folder (HaluEval qa_*turn_data*.jsonl; FaithBench batch_*.json)."
    ),
    dataset: Dataset = typer.Option(..., "--dataset", help="Which labelled set SRC holds."),
    backend: Backend = typer.Option(
        Backend.stub, "--backend", help="Judge backend (stub = hash floor, not a quality signal)."
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Judge a seeded random sample of N records/samples."),
    sample_seed: int = typer.Option(0, "--sample-seed", help="Seed of the --limit sample."),
    high_stakes: bool = typer.Option(False, "--high-stakes", help="Use the stronger judge model."),
    escalate: bool = typer.Option(
        False, "--escalate", help="Re-judge unsupported claims and rejected replies with the stronger model."
    ),
    cache_dir: Path | None = typer.Option(
        None, "--cache-dir", help="LLM response cache in DIR/llm_cache.db (default: the store)."
    ),
    token_budget: int | None = typer.Option(
        None, "--token-budget", min=0, help="Token budget (default 2,000,000); the rest are skipped: budget."
    ),
    out_dir: Path | None = typer.Option(
        None, "--out", help="Write NAME.local.json, NAME.aggregate.json and NAME.md here."
    ),
    name: str | None = typer.Option(None, "--name", help="Report file stem (default validate-DATASET)."),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    as_json: bool = typer.Option(False, "--json", help="Print the aggregate JSON instead of tables."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar (or progress lines off a terminal)."),
) -> None:
    """Judge every labelled case and report accuracy, balanced accuracy (and FaithBench span recall
    and anchor detectors) with 95% bootstrap CIs. Exit 3 when an LLM backend scored no case."""
    from assay.atomic import atomic_write_json, atomic_write_text, check_writable_dir
    from assay.judges.faithfulness import DEFAULT_TOKEN_BUDGET
    from assay.judges.validate import validate_judge

    stem = name or f"validate-{dataset.value}"
    with user_errors(ctx), db_errors():
        if "/" in stem or "\\" in stem or stem.startswith("."):
            raise ValueError(f"--name {stem!r}: a plain file stem is needed")
        if out_dir is not None:
            check_writable_dir(out_dir)
        with progress_bar("judging", quiet=quiet) as bar:
            task = bar.add_task("cases", total=None)
            local, agg = validate_judge(
                dataset.value,
                src,
                backend=backend.value,
                limit=limit,
                sample_seed=sample_seed,
                high_stakes=high_stakes,
                escalate=escalate,
                cache_dir=cache_dir,
                db_url=ctx.obj["db"],
                token_budget=DEFAULT_TOKEN_BUDGET if token_budget is None else token_budget,
                seed=seed,
                on_loaded=lambda n: bar.update(task, total=n),
                on_case=lambda _i: bar.advance(task),
            )
        paths = []
        if out_dir is not None:
            paths = [
                atomic_write_json(out_dir / f"{stem}.local.json", local),
                atomic_write_json(out_dir / f"{stem}.aggregate.json", agg),
                atomic_write_text(out_dir / f"{stem}.md", _markdown(agg)),
            ]
    if as_json:
        out.print(json.dumps(agg, indent=2), markup=False)
    else:
        _print_tables(agg)
    for note in agg["notes"]:
        err.print(f"note: {note}", markup=False)
    for p in paths:
        out.print(str(p), markup=False)
    if backend is not Backend.stub and agg["judge"]["n_scored"] == 0:
        err.print(
            f"error: judge {agg['backend']} scored 0 of {agg['n']} case(s): the figures are not a measurement "
            "(see the notes above)",
            markup=False,
        )
        raise typer.Exit(EXIT_INCOMPLETE)


# --- helpers -------------------------------------------------------------------------------


def _tables(agg: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report's tables as ``(title, header, rows)`` of display strings (console and Markdown)."""
    j = agg["judge"]
    readings = [(r, m) for r, m in agg["readings"].items()]
    if (
        1 < len(agg["by_origin"]) <= 3
    ):  # per-file rows for HaluEval's two files; FaithBench's 12 batches stay in the JSON
        readings += [(f"{o.split('.')[0]} · {r}", m) for o, ms in agg["by_origin"].items() for r, m in ms.items()]
    tables = [
        (
            f"{agg['dataset']}: judge {agg['backend']} ({agg['model']}), {agg['n']} cases, "
            f"{j['n_scored']} scored, {j['n_unscored']} unscored",
            ["reading", "scored", "accuracy [95% CI]", "balanced accuracy [95% CI]", "TPR / TNR"],
            [
                [
                    label,
                    f"{m['n_scored']}/{m['n']}",
                    f"{fmt_number(m['accuracy']['value'])} {fmt_interval(m['accuracy']['ci'])}",
                    f"{fmt_number(m['balanced_accuracy']['value'])} {fmt_interval(m['balanced_accuracy']['ci'])}",
                    f"{fmt_number(m['tpr'])} / {fmt_number(m['tnr'])}",
                ]
                for label, m in readings
            ],
        )
    ]
    if "span_recall" in agg and agg["anchors"]:
        anchors = agg["anchors"]
        tables.append(
            (
                "anchor detectors on the samples the judge scored: balanced accuracy [95% CI]",
                ["detector", *anchors],
                [
                    [
                        d,
                        *(
                            f"{fmt_number(anchors[r][d]['balanced_accuracy']['value'])} "
                            f"{fmt_interval(anchors[r][d]['balanced_accuracy']['ci'])}"
                            for r in anchors
                        ),
                    ]
                    for d in next(iter(anchors.values()))
                ],
            )
        )
    return tables


def _notes(agg: dict[str, Any]) -> list[str]:
    """The lines printed under the tables: span recall and why cases went unscored."""
    lines = []
    if "span_recall" in agg:
        s = agg["span_recall"]
        lines.append(
            f"span recall (Unwanted spans overlapped by an unsupported claim): {fmt_number(s['value'])} "
            f"{fmt_interval(s['ci'])} "
            f"over {s['n_spans']} span(s) in {s['n_samples']} sample(s)"
        )
    if agg["judge"]["reasons"]:
        lines.append("unscored: " + ", ".join(f"{n} {k}" for k, n in agg["judge"]["reasons"].items()))
    return lines


def _print_tables(agg: dict[str, Any]) -> None:
    """Each table on one line per row when the console is wide enough, else folded to its width:
    a figure and its CI on two lines of one cell, labels wrapped; a number is never cut."""
    from rich.measure import Measurement

    for title, header, rows in _tables(agg):
        t = _table(title, header, rows, fold=False)
        if Measurement.get(out, out.options.update_width(10_000), t).maximum > out.width:
            t = _table(title, header, rows, fold=True)
        out.print(t)
    for line in _notes(agg):
        out.print(line, markup=False)


def _table(title: str, header: list[str], rows: list[list[str]], *, fold: bool) -> Table:
    t = Table(title=title)
    for i, col in enumerate(header):
        # the first column (reading, detector) folds; figures stay whole, their CI on its own line
        t.add_column(
            _fold_cell(col) if fold else col, no_wrap=not fold or i > 0, overflow="fold" if i == 0 else "ellipsis"
        )
    for row in rows:
        t.add_row(*(_fold_cell(c) if fold else c for c in row))
    return t


def _fold_cell(cell: str) -> str:
    """``0.512 [0.490, 0.534]`` → ``0.512`` / ``[0.490, 0.534]``; ``a / b`` → ``a`` / ``b``."""
    if " [" in cell:
        value, ci = cell.split(" [", 1)
        return f"{value}\n[{ci}"
    return cell.replace(" / ", "\n", 1) if " / " in cell else cell


def _markdown(agg: dict[str, Any]) -> str:
    """The aggregate as Markdown: the console's tables and notes (figures only, no case id)."""
    lines = [f"# Judge validity: {agg['dataset']}", ""]
    if agg["backend"] == "stub":
        lines += [
            "Backend `stub`: a deterministic hash of the request, the floor a real judge must clear — "
            "not a quality signal.",
            "",
        ]
    for title, header, rows in _tables(agg):
        lines += [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        lines.append("")
    lines += [f"- {line}" for line in [*_notes(agg), *(f"note: {n}" for n in agg["notes"])]]
    return "\n".join(lines).rstrip() + "\n"
