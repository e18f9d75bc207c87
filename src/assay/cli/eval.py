"""``assay eval CASES --out DIR`` (score every case, write the four reports) and ``assay compare A B``
(paired lift of one run over another).

Exit codes (README "Exit codes"): ``eval`` 0 written, 3 written but an LLM judge that was asked
for scored no case; ``compare`` 0 no dimension worse, 1 a dimension significantly worse (its 95%
CI below 0), 3 no pair to compare; both 2 on bad input (one line, nothing written, no new
directory left behind) and 130 on Ctrl-C (an interrupted ``eval`` removes the directories it
created).
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.progress import TextColumn
from rich.table import Table

from assay.cases import load_cases
from assay.cli.app import app
from assay.cli.common import (
    GateMode,
    UsageError,
    check_label_field,
    check_out_dir_usable,
    err,
    fmt_interval,
    fmt_number,
    out,
    print_uncut,
    progress_bar,
    read_local_json,
    remove_empty_dirs,
    user_errors,
)

if TYPE_CHECKING:
    from assay.cases import Case
    from assay.evaluate import EvalConfig
    from assay.judges.faithfulness import JudgeVerdict

__all__ = ["EXIT_INCOMPLETE", "EXIT_WORSE", "JudgeBackend", "compare_cmd", "eval_cmd"]

#: Done, but the measurement is incomplete (an asked-for LLM judge scored nothing; no pair to compare).
EXIT_INCOMPLETE = 3
#: ``compare``: done, and B is significantly worse than A on some dimension.
EXIT_WORSE = 1


class JudgeBackend(str, Enum):
    none = "none"
    stub = "stub"
    openai_compatible = "openai_compatible"


@app.command("eval")
def eval_cmd(
    ctx: typer.Context,
    cases_file: Path = typer.Argument(..., help="Cases JSONL."),
    out_dir: Path = typer.Option(..., "--out", help="Report directory (created with parents)."),
    name: str = typer.Option("eval", "--name", help="Report file stem."),
    mode: GateMode = typer.Option(
        GateMode.auto,
        "--mode",
        help="Sourcing gate mode: cited (each number matches a fact its sentence cites), uncited (any fact or "
        "source passage), auto (cited when the answer has citation markers and the case has facts).",
    ),
    judge: JudgeBackend = typer.Option(JudgeBackend.none, "--judge", help="Faithfulness judge backend."),
    high_stakes: bool = typer.Option(False, "--high-stakes", help="Use the stronger judge model."),
    escalate: bool = typer.Option(
        False, "--escalate", help="Re-judge unsupported claims and rejected replies with the stronger model."
    ),
    cache_dir: Path | None = typer.Option(
        None, "--cache-dir", help="LLM response cache in DIR/llm_cache.db (default: the store)."
    ),
    token_budget: int | None = typer.Option(
        None, "--token-budget", min=0, help="Judge token budget (default 2,000,000); the rest are skipped: budget."
    ),
    baseline: str | None = typer.Option(
        None, "--baseline", help="Variant the others are compared against (paired lift)."
    ),
    label_field: str | None = typer.Option(
        None, "--label-field", help="Dotted case field holding a binary label, e.g. meta.human_label."
    ),
    positive: str | None = typer.Option(None, "--positive", help="Label value that means the answer is bad."),
    exclude_label: list[str] = typer.Option(
        [], "--exclude-label", help="Label values left out of the agreement (repeatable)."
    ),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    no_wait: bool = typer.Option(
        False, "--no-wait", help="Exit 2 instead of waiting when another run is writing the same --out/--name."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
) -> None:
    """Score every case (gate, completeness, impersonal, judge, rubric) and write the four reports.

    The headline composite counts an answer without a checkable claim (no_claims) as 0, or 1 on
    a case with expect_refusal: true; composite_answered and coverage stand beside it. Exit 0
    written, 3 written but an LLM judge asked for scored no case, 2 bad input.
    """
    from assay.atomic import check_writable_dir
    from assay.evaluate import EvalConfig
    from assay.reports import ReportSetBusy, report_paths, report_set_busy, write_reports

    with user_errors(ctx):
        if (label_field is None) != (positive is None):
            raise UsageError("--label-field and --positive go together")
        if positive is not None and positive in exclude_label:
            raise UsageError(f"--positive {positive!r} is also an --exclude-label: no case could count as positive")
        report_paths(out_dir, name)  # validates the name before any work
        missing = check_out_dir_usable(out_dir)  # fails fast, creates nothing
        cases = load_cases(cases_file)
        if label_field is not None and positive is not None:
            check_label_field(cases, label_field, positive, cases_file)
        variants = {c.variant for c in cases}
        if baseline is not None and baseline not in variants:
            raise UsageError(
                f"--baseline {baseline!r} is not a variant of {cases_file} (variants: {', '.join(sorted(variants))})"
            )
        config = EvalConfig(
            name=name,
            mode=mode.value,
            judge=judge.value,
            high_stakes=high_stakes,
            baseline=baseline,
            escalate=escalate,
            cache_dir=str(cache_dir) if cache_dir else None,
            token_budget=token_budget,
            db_url=ctx.obj["db"],
            label_field=label_field,
            positive=positive,
            exclude_labels=tuple(exclude_label),
            seed=seed,
        )
        if no_wait and report_set_busy(out_dir, name):  # fail fast, before the work
            raise UsageError(f"{out_dir / name}: another run is writing this report set (--no-wait given)")
        check_writable_dir(out_dir)
        try:
            local, aggregate = _run(cases, config, judged=judge != JudgeBackend.none, quiet=quiet)
            paths = write_reports(
                out_dir,
                name,
                local,
                aggregate,
                wait=not no_wait,
                on_wait=lambda lock: err.print(
                    f"waiting: another run is writing {out_dir / name} (lock {lock})", markup=False
                ),
            )
        except ReportSetBusy as e:
            remove_empty_dirs(missing)
            raise UsageError(str(e)) from None
        except BaseException:
            remove_empty_dirs(missing)  # an interrupted or failed run leaves no trace
            raise
    _print_summary(aggregate)
    for p in paths:
        out.print(str(p), markup=False)
    summary = aggregate.get("judge")
    if judge == JudgeBackend.openai_compatible and summary and summary["n"] and not summary["n_scored"]:
        err.print(
            f"error: the {judge.value} judge scored 0 of {summary['n']} case(s) "
            f"({summary['n_rejected']} rejected, {summary['n_skipped']} skipped): faithfulness is unmeasured",
            markup=False,
        )
        raise typer.Exit(EXIT_INCOMPLETE)


@app.command("compare")
def compare_cmd(
    ctx: typer.Context,
    a: Path = typer.Argument(..., help="Run A (*.local.json), e.g. before."),
    b: Path = typer.Argument(..., help="Run B (*.local.json), e.g. after."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON instead of a table."),
) -> None:
    """Paired lift of run B over run A per dimension, over the cases both runs scored.

    Every dimension (or rationality axis) both runs scored is shown. Exit 0 no dimension worse,
    1 a dimension significantly worse (95% CI below 0), 3 no pair to compare, 2 bad input.
    """
    from assay.evaluate import compare_runs

    with user_errors(ctx):
        runs = [_load_local(p) for p in (a, b)]
        result = compare_runs(*runs)
    if not any(r["n_pairs"] for r in result["lift"].values()):
        err.print(
            f"error: {a} and {b} share no scored (id, variant) pair: compare needs two runs of the same cases "
            "under the same variant names",
            markup=False,
        )
        raise typer.Exit(EXIT_INCOMPLETE)
    if as_json:
        out.print(json.dumps(result, indent=2), markup=False)
    else:
        t = Table(title=f"B − A ({b.name} vs {a.name})")
        t.add_column("dimension", overflow="fold", max_width=40)
        for col in ("diff", "95% CI", "n_pairs"):
            t.add_column(col, no_wrap=True, justify="right")
        for d, r in result["lift"].items():
            t.add_row(d, fmt_number(r["diff"], signed=True), fmt_interval(r["ci"]), str(r["n_pairs"]))
        print_uncut(t)
        for note in result["notes"]:
            out.print(f"note: {note}", markup=False)
    if result["worse"]:
        err.print(f"B is worse than A on {', '.join(result['worse'])} (95% CI below 0)", markup=False)
        raise typer.Exit(EXIT_WORSE)


# --- helpers -------------------------------------------------------------------------------


def _lift_cell(lift: dict | None) -> str:
    if not lift or lift.get("diff") is None:
        return "—"
    ci = fmt_interval(lift.get("ci"))
    return f"{fmt_number(lift['diff'], signed=True)} {ci}" if ci != "—" else fmt_number(lift["diff"], signed=True)


def _load_local(path: Path) -> dict:
    data = read_local_json(path)
    if not data["cases"]:
        raise UsageError(f"{path}: cases: no cases to compare")
    seen: set[tuple[str, str]] = set()
    for i, r in enumerate(data["cases"]):
        if not isinstance(r, dict) or not {"id", "variant", "scores"} <= set(r):
            raise UsageError(f"{path}: cases[{i}]: needs id, variant and scores")
        if not isinstance(r["scores"], dict):
            raise UsageError(f"{path}: cases[{i}].scores: expected an object of dimension → score")
        for d, v in r["scores"].items():
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0):
                raise UsageError(f"{path}: cases[{i}].scores.{d}: expected a number in [0, 1] or null, got {v!r}")
        key = (str(r["id"]), str(r["variant"]))
        if key in seen:
            raise UsageError(f"{path}: cases[{i}]: duplicate (id, variant) {key!r}")
        seen.add(key)
    return data


def _run(cases: list[Case], config: EvalConfig, *, judged: bool, quiet: bool) -> tuple[dict, dict]:
    """:func:`assay.evaluate.run_eval` with progress: the judge's verdicts (calls and rejections
    counted live) when a judge runs, then the cases scored."""
    from assay.evaluate import run_eval

    counts = {"rejected": 0}
    with progress_bar("eval", TextColumn("{task.fields[info]}"), quiet=quiet) as bar:
        judging = bar.add_task("judge", total=len(cases), info="calls 0 · rejected 0") if judged else None
        scoring = bar.add_task("cases", total=len(cases), info="")

        def on_verdict(verdict: JudgeVerdict, usage: dict[str, Any]) -> None:
            counts["rejected"] += verdict.status == "rejected"
            info = f"calls {usage.get('calls', 0)} · rejected {counts['rejected']}"
            bar.update(judging, advance=1, info=info)  # type: ignore[arg-type]  # set whenever judged

        return run_eval(
            cases,
            config,
            on_case=lambda _i: bar.advance(scoring),
            on_verdict=on_verdict if judged else None,
        )


def _print_summary(agg: dict) -> None:
    """The variant table, ranked by the headline composite; the lift column with a baseline."""
    t = Table(title=f"{agg['name']}: {agg['n']} cases, judge {agg['backend']}, {agg['gate_version']}")
    t.add_column("variant", overflow="fold", max_width=40)
    baseline = agg.get("baseline")
    flagged = {f["variant"] for f in agg.get("coverage_flags", [])}
    cols = ["n", "composite", "95% CI", "answered", "coverage", "sourcing", "no_claims", "gate fail"]
    cols += [f"Δ vs {baseline}"] if baseline else []
    for col in cols:
        t.add_column(col, no_wrap=True, justify="right")
    rows = sorted(
        agg["variants"].items(),
        key=lambda kv: -(kv[1]["dims"]["composite"]["mean"] if kv[1]["dims"]["composite"]["mean"] is not None else -1),
    )
    for v, s in rows:
        c = s["dims"]["composite"]
        cells = [
            v,
            str(s["n"]),
            fmt_number(c["mean"]),
            fmt_interval(c["ci"]),
            fmt_number(s["dims"]["composite_answered"]["mean"]),
            fmt_number(s["dims"]["coverage"]["mean"]) + (" ⚑" if v in flagged else ""),
            fmt_number(s["dims"]["sourcing"]["mean"]),
            f"{s['no_claims_rate']:.0%}",
            f"{s['gate_fail_rate']:.0%}",
        ]
        if baseline:
            lift = agg["lift"].get(v, {}).get("composite")
            cells.append("(baseline)" if v == baseline else _lift_cell(lift))
        t.add_row(*cells)
    print_uncut(t)
    if flagged:
        out.print("⚑ coverage differs from the baseline's by more than 10 pp (see the notes)", markup=False)
    for note in agg.get("notes", []):
        out.print(f"note: {note}", markup=False)
