"""``assay judge rationality`` and ``assay judge agreement``: the trajectory-rationality judge and
whether two of its runs agree.

Thin: parses options, calls :mod:`assay.judges.rationality` / :mod:`assay.judges.rationality_validity`,
prints tables, writes files atomically. Bad input exits 2 with one line
(``file: field: problem``); ``--expect-full-trace`` exits 3 when ``answer_reasoning`` was measured
on no case (the traces were not fully captured), and ``--backend openai_compatible`` exits 3 when
the LLM scored no case, both after writing the reports.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from assay.cli.app import judge_app
from assay.cli.common import UsageError, err, fmt_plain, out, progress_bar, read_local_json, user_errors

__all__ = ["EXIT_INCOMPLETE", "Backend", "agreement_cmd", "rationality_cmd"]

#: Exit status of ``--expect-full-trace`` when no case had a synthesis call.
EXIT_INCOMPLETE = 3
#: Columns the agreement tables need; narrower terminals would cut the numbers.
_WIDE = 110


class Backend(str, Enum):
    stub = "stub"
    heuristic = "heuristic"
    openai_compatible = "openai_compatible"


@judge_app.command("rationality")
def rationality_cmd(
    ctx: typer.Context,
    eval_summary: Path = typer.Option(
        ..., "--eval-summary", help="Eval summary JSON: case_results [{id, slice, trace_path}]."
    ),
    out_dir: Path | None = typer.Option(
        None, "--out", help="Report folder: NAME.local.json, NAME.aggregate.json, NAME.md, NAME.html."
    ),
    name: str = typer.Option("rationality", "--name", help="Report file stem."),
    output: Path | None = typer.Option(None, "--output", help="Per-case local JSON path (overrides --out/--name)."),
    out_aggregate: Path | None = typer.Option(
        None, "--out-aggregate", help="Aggregate JSON path (overrides --out/--name)."
    ),
    out_md: Path | None = typer.Option(None, "--out-md", help="Markdown report path (overrides --out/--name)."),
    backend: Backend = typer.Option(
        Backend.stub,
        "--backend",
        help="stub = hash floor (not a quality signal); heuristic = deterministic rules whose validity beyond "
        "trajectory length is not established (not a quality signal); openai_compatible = LLM.",
    ),
    traces_dir: Path | None = typer.Option(
        None, "--traces-dir", help="Look trace files up here (by relative path, then by file name)."
    ),
    cache_dir: Path | None = typer.Option(
        None, "--cache-dir", help="LLM response cache in DIR/llm_cache.db (default: the store)."
    ),
    token_budget: int = typer.Option(
        200_000, "--token-budget", min=0, help="LLM token budget; cases past it are skipped: budget."
    ),
    expect_full_trace: bool = typer.Option(
        False, "--expect-full-trace", help=f"Exit {EXIT_INCOMPLETE} when answer_reasoning was measured on no case."
    ),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar (or progress lines off a terminal)."),
) -> None:
    """Judge the rationality of agent traces (planner_decomposition, retrieval_recalls, answer_reasoning)."""
    from assay.atomic import atomic_write_text, check_writable_dir, dumps_json
    from assay.judges.rationality import judge_rationality
    from assay.reports import render_html, render_markdown, report_paths
    from assay.traces import load_summary

    with user_errors(ctx):
        explicit = {"local": output, "aggregate": out_aggregate, "md": out_md}
        if out_dir is None and None in explicit.values():
            raise UsageError("give --out DIR, or all three of --output, --out-aggregate and --out-md")
        defaults = (
            # report_paths gives the four paths in this order
            dict(zip(("local", "aggregate", "md", "html"), report_paths(out_dir, name), strict=True))
            if out_dir is not None
            else {}
        )
        chosen = {k: (explicit.get(k) or defaults.get(k)) for k in ("local", "aggregate", "md", "html")}
        targets = {k: Path(p).expanduser().absolute() for k, p in chosen.items() if p is not None}
        flags = {"local": "--output", "aggregate": "--out-aggregate", "md": "--out-md", "html": "--out"}
        for k, p in targets.items():
            if p.is_dir():
                raise UsageError(f"{flags[k]} {p}: is a directory, expected a file path")
        if len(set(targets.values())) < len(targets):
            raise UsageError("--output, --out-aggregate and --out-md must be three different files")
        if traces_dir is not None and not traces_dir.is_dir():
            raise UsageError(f"--traces-dir {traces_dir}: no such directory")
        summary = load_summary(eval_summary)
        with progress_bar("judging", quiet=quiet) as bar:
            task = bar.add_task("traces", total=len(summary.case_results))
            local, aggregate = judge_rationality(
                summary,
                backend=backend.value,
                traces_dir=traces_dir,
                cache_dir=cache_dir,
                token_budget=token_budget,
                name=name,
                db_url=ctx.obj["db"] if ctx.obj else None,
                seed=seed,
                on_case=lambda _i: bar.advance(task),
            )
        render = {
            "local": lambda: dumps_json(local),
            "aggregate": lambda: dumps_json(aggregate),
            "md": lambda: render_markdown(aggregate),
            "html": lambda: render_html(aggregate),
        }
        texts = {k: render[k]() for k in targets}  # everything rendered before any file is touched
        for p in {p.parent for p in targets.values()}:
            check_writable_dir(p)
        for k, p in targets.items():
            atomic_write_text(p, texts[k])
    _print_axes(aggregate)
    for note in aggregate["notes"]:
        err.print(f"note: {note}", markup=False)
    for p in targets.values():
        out.print(str(p), markup=False)
    n_judged = sum(c["status"] == "scored" for c in local["cases"])
    if backend is Backend.openai_compatible and n_judged == 0:
        err.print(
            f"error: judge openai_compatible scored 0 of {aggregate['n']} trace(s): the figures are not a "
            "measurement (see the notes above)",
            markup=False,
        )
        raise typer.Exit(EXIT_INCOMPLETE)
    if expect_full_trace and aggregate["variants"]["all"]["dims"]["answer_reasoning"]["effective_n"] == 0:
        why = (
            "no trace has a synthesis_llm_call"
            if aggregate["cases_with_synthesis_llm_call"] == 0
            else f"{aggregate['cases_with_synthesis_llm_call']} trace(s) have one, none was scored"
        )
        err.print(
            f"error: --expect-full-trace: answer_reasoning measured on 0 of {aggregate['n']} case(s) ({why})",
            markup=False,
        )
        raise typer.Exit(EXIT_INCOMPLETE)


@judge_app.command("agreement")
def agreement_cmd(
    ctx: typer.Context,
    a: Path = typer.Argument(..., help="Run A: a rationality *.local.json (e.g. --backend stub)."),
    b: Path = typer.Argument(..., help="Run B: a rationality *.local.json (e.g. --backend openai_compatible)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Whether two rationality runs agree: per axis Spearman ρ with p, mean and std of both, per slice."""
    from assay.judges.rationality_validity import backend_agreement

    with user_errors(ctx):
        result = backend_agreement(_read_local(a), _read_local(b))
        if result["n_pairs"] == 0:
            raise ValueError(f"{a.name} and {b.name} share no case id: are they runs over the same eval summary?")
    if as_json:
        out.print(json.dumps(result, indent=2), markup=False)
        return
    t = Table(
        title=f"agreement: A = {result['backend_a']} ({a.name}), B = {result['backend_b']} ({b.name}), "
        f"{result['n_pairs']} shared case(s)"
    )
    for col in ("axis", "ρ", "p", "pairs", "mean A", "std A", "mean B", "std B"):
        t.add_column(col, no_wrap=True)
    for axis, r in result["axes"].items():
        t.add_row(axis, *_row(r))
    _wide(out).print(t)
    s = Table(title="per slice")
    for col in ("slice", "axis", "ρ", "p", "pairs", "mean A", "std A", "mean B", "std B"):
        s.add_column(col, no_wrap=True)
    for sl, axes in result["slices"].items():
        for i, (axis, r) in enumerate(axes.items()):
            s.add_row(sl if i == 0 else "", axis, *_row(r))
    _wide(out).print(s)


# --- helpers -------------------------------------------------------------------------------


def _wide(console: Any) -> Any:
    """A console on the same stream at least :data:`_WIDE` columns wide (piped output is 80)."""
    return Console(file=console.file, width=max(console.width, _WIDE), highlight=False, soft_wrap=True)


def _read_local(path: Path) -> dict[str, Any]:
    data = read_local_json(path)
    if data.get("kind") not in (None, "rationality"):
        raise ValueError(f"{path}: kind: {data.get('kind')!r} is not a rationality run")
    return data


def _row(r: dict[str, Any]) -> tuple[str, ...]:
    return (
        fmt_plain(r["rho"], signed=True),
        _p(r["p"]),
        str(r["n_pairs"]),
        fmt_plain(r["mean_a"]),
        fmt_plain(r["std_a"]),
        fmt_plain(r["mean_b"]),
        fmt_plain(r["std_b"]),
    )


def _print_axes(agg: dict[str, Any]) -> None:
    t = Table(
        title=f"{agg['name']}: {agg['n']} traces, backend {agg['backend']}"
        + (f" ({agg['model']})" if agg.get("model") else "")
    )
    for col in ("axis", "mean", "95% CI", "std", "effective_n"):
        t.add_column(col, no_wrap=True)
    for d, s in agg["variants"]["all"]["dims"].items():
        t.add_row(
            d,
            fmt_plain(s["mean"]),
            "—" if not s["ci"] else f"[{s['ci'][0]:.3f}, {s['ci'][1]:.3f}]",
            fmt_plain(s["std"]),
            str(s["effective_n"]),
        )
    out.print(t)
    out.print(
        f"with synthesis_llm_call: {agg['cases_with_synthesis_llm_call']} · missing trace: {agg['n_missing_trace']} · "
        f"rejected: {agg['n_rejected']} · skipped: {agg['n_skipped']}",
        markup=False,
    )


def _p(v: float | None) -> str:
    return "—" if v is None else (f"{v:.2g}" if v < 0.001 else f"{v:.3f}")
