"""``assay import SOURCE SRC --out PATH``: a public dataset into assay's files.

Cases JSONL for ``tatqa`` and ``financebench``; native traces plus an eval summary for
``taubench`` and ``whoandwhen``; memories and labelled queries for ``locomo``. Bad input exits 2
with one line. ``tatqa --in-scope-only`` keeps only the questions a sourcing gate can check
(``meta.in_scope``: :func:`assay.importers.tatqa.import_tatqa`). Long imports show progress on
stderr (``--quiet`` turns it off).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli.app import app
from assay.cli.common import UsageError, check_out_dir_usable, out, progress_bar, user_errors

if TYPE_CHECKING:
    from assay.importers.base import OnProgress

__all__ = ["ImportSource", "import_cmd", "import_traces"]


class ImportSource(str, Enum):
    tatqa = "tatqa"
    financebench = "financebench"
    taubench = "taubench"
    whoandwhen = "whoandwhen"
    locomo = "locomo"


@app.command("import")
def import_cmd(
    ctx: typer.Context,
    source: ImportSource = typer.Argument(..., help="Dataset format."),
    src: Path = typer.Argument(..., help="Dataset folder or file."),
    out_file: Path = typer.Option(
        ...,
        "--out",
        help="Cases JSONL to write (taubench, whoandwhen: a folder for traces/ + summary.json; "
        "locomo: a folder for memories.jsonl + queries.jsonl).",
    ),
    in_scope_only: bool = typer.Option(
        False,
        "--in-scope-only",
        help="tatqa: keep only questions a sourcing gate can check (a sourced number, or one-operation "
        "arithmetic); multi-step formulas, averages, counts and text answers are left out and counted.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar (or progress lines off a terminal)."),
) -> None:
    """Convert a public dataset into assay cases JSONL (agent traces: native traces + an eval summary)."""
    from assay.importers import write_cases_jsonl

    with user_errors(ctx):
        if not src.exists():
            raise UsageError(f"{src}: no such file or directory")
        if in_scope_only and source is not ImportSource.tatqa:
            raise UsageError(f"--in-scope-only applies to tatqa only, not {source.value}")
        if source in (ImportSource.taubench, ImportSource.whoandwhen):
            with progress_bar("importing", quiet=quiet) as bar:
                task = bar.add_task("records", total=None)
                n, summary_path = import_traces(
                    source.value, src, out_file, on_progress=lambda d, t: bar.update(task, completed=d, total=t)
                )
            out.print(f"{n} traces", markup=False)
            out.print(str(summary_path), markup=False)
            return
        if source is ImportSource.locomo:
            return _import_locomo(src, out_file)
        if out_file.is_dir():
            raise UsageError(
                f"--out {out_file}: is a directory; give the path of the cases file to write, "
                f"e.g. {out_file / 'cases.jsonl'}"
            )
        check_out_dir_usable(out_file.parent)
        with progress_bar("importing", quiet=quiet) as bar:
            task = bar.add_task("records", total=None)

            def on_progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            if source is ImportSource.tatqa:
                from assay.importers.tatqa import import_tatqa

                cases = import_tatqa(src, in_scope_only=in_scope_only, on_progress=on_progress)
            else:
                from assay.importers.financebench import import_financebench

                cases = import_financebench(src, on_progress=on_progress)
        out_file.parent.mkdir(parents=True, exist_ok=True)
        write_cases_jsonl(cases, out_file)
    out.print(f"{len(cases)} cases, {len({c.variant for c in cases})} variant(s)", markup=False)
    for reason, count in (getattr(cases, "skipped", None) or {}).items():
        if count:
            out.print(f"left out: {count} source record(s): {reason}", markup=False)
    out.print(str(out_file.resolve()), markup=False)


def import_traces(source: str, src: Path, out_dir: Path, *, on_progress: OnProgress | None = None) -> tuple[int, Path]:
    """Import ``taubench`` or ``whoandwhen`` data from ``src`` into ``out_dir`` (``traces/`` +
    ``summary.json``); returns ``(number of traces, summary path)``. Raises ``ValueError``.
    ``on_progress(done, total)`` as the importers call it (progress bars)."""
    if source == "taubench":
        from assay.importers.taubench import import_taubench

        pairs = import_taubench(src, on_progress=on_progress)
    elif source == "whoandwhen":
        from assay.importers.whoandwhen import import_whoandwhen

        pairs = import_whoandwhen(src, on_progress=on_progress)
    else:
        raise ValueError(f"unknown trace source {source!r}: use taubench or whoandwhen")
    from assay.traces import write_trace_set

    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out {out_dir}: not a directory (trace imports write a folder: traces/ + summary.json)")
    out_dir.mkdir(parents=True, exist_ok=True)
    return len(pairs), write_trace_set(out_dir, pairs, extra={"source": source})


# --- helpers -------------------------------------------------------------------------------


def _import_locomo(src: Path, out_dir: Path) -> None:
    """``assay import locomo SRC --out DIR``: write DIR/memories.jsonl and DIR/queries.jsonl and print counts."""
    from assay.importers.locomo import import_locomo, write_locomo

    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir}: is a file; locomo writes a folder (memories.jsonl, queries.jsonl)")
    res = import_locomo(src)
    mem, qry = write_locomo(res, out_dir)
    out.print(
        f"{res.conversations} conversation(s): {len(res.memories)} memories, {len(res.queries)} queries", markup=False
    )
    for reason, n in res.skipped.items():
        out.print(f"{reason}: {n}", markup=False)
    out.print(str(mem.resolve()), markup=False)
    out.print(str(qry.resolve()), markup=False)
