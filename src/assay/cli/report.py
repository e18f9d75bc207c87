"""``assay report check OUT/NAME`` (are the four files of a report set one run's?) and ``assay
report open OUT/NAME`` (the html in the browser).

``check`` reads the run id each file carries (:func:`assay.reports.check_report_set`) and exits
0 when the four agree, 1 when they are mixed (each file's id printed), 2 when a file is missing,
unreadable or has no run id (sets written before schema 2 have none).
"""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli.app import report_app
from assay.cli.common import UsageError, err, out, user_errors

__all__ = ["EXIT_MIXED", "check_cmd", "open_cmd"]

#: ``report check``: the files of the set come from different runs.
EXIT_MIXED = 1


@report_app.command("check")
def check_cmd(
    ctx: typer.Context,
    report: Path = typer.Argument(..., help="The report set: OUT/NAME (the files OUT/NAME.local.json, … share it)."),
) -> None:
    """Check that the four files of a report set carry one run_id.

    Exit 0 consistent, 1 mixed, 2 a file missing, unreadable or without a run_id.
    """
    from assay.reports import check_report_set

    with user_errors(ctx):
        out_dir, name = _split(report)
        result = check_report_set(out_dir, name)
        if result.status == "broken":
            raise UsageError("; ".join(result.problems))
    if result.status == "mixed":
        err.print(f"error: {report}: mixed report set: its files come from different runs", markup=False)
        for line in result.problems:
            err.print(f"  {line}", markup=False)
        raise typer.Exit(EXIT_MIXED)
    run_id = next(iter(result.run_ids.values()))
    out.print(f"{report}: consistent (4 files, run_id {run_id})", markup=False)


@report_app.command("open")
def open_cmd(
    ctx: typer.Context,
    report: Path = typer.Argument(..., help="The report set: OUT/NAME (opens OUT/NAME.html)."),
) -> None:
    """Open the report's html in the web browser (Python's webbrowser; $BROWSER picks it)."""
    import webbrowser

    with user_errors(ctx):
        out_dir, name = _split(report)
        from assay.reports import report_paths

        html = report_paths(out_dir, name)[3]
        if not html.is_file():
            raise UsageError(f"{html}: no such file")
        if not webbrowser.open(html.as_uri()):
            raise UsageError(f"{html}: no web browser found to open it (set $BROWSER)")
    out.print(str(html), markup=False)


def _split(report: Path) -> tuple[Path, str]:
    """``OUT/NAME`` → ``(OUT, NAME)``; a path ending in one of the set's suffixes is accepted too."""
    name = report.name
    for suffix in (".local.json", ".aggregate.json", ".md", ".html"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    if not name:
        raise UsageError(f"{report}: expected OUT/NAME, the report set's folder and name")
    return report.parent, name
