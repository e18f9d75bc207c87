"""``assay eval CASES --out DIR`` (score every case, write the four reports) and ``assay compare A B``
(paired lift of one run over another).

Bad input exits 2 with one line and leaves no new directory behind; an interrupted or failed
``eval`` removes the directories it created.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

import typer
from rich.table import Table

from assay.cases import load_cases
from assay.cli.app import app
from assay.cli.common import (
    GateMode,
    UsageError,
    check_label_field,
    check_out_dir_usable,
    fmt_interval,
    fmt_number,
    out,
    print_uncut,
    progress_bar,
    read_local_json,
    remove_empty_dirs,
    user_errors,
)

__all__ = ["JudgeBackend", "compare_cmd", "eval_cmd"]


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
    mode: GateMode = typer.Option(GateMode.auto, "--mode"),
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
) -> None:
    """Score every case (gate, completeness, impersonal, judge, rubric) and write the four reports."""
    from assay.atomic import check_writable_dir
    from assay.evaluate import EvalConfig, run_eval
    from assay.reports import report_paths, write_reports

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
        check_writable_dir(out_dir)
        try:
            with progress_bar("scoring") as bar:
                task = bar.add_task("cases", total=len(cases))
                local, aggregate = run_eval(cases, config, on_case=lambda _i: bar.advance(task))
            paths = write_reports(out_dir, name, local, aggregate)
        except BaseException:
            remove_empty_dirs(missing)  # an interrupted or failed run leaves no trace
            raise
    _print_summary(aggregate)
    for p in paths:
        out.print(str(p), markup=False)


@app.command("compare")
def compare_cmd(
    ctx: typer.Context,
    a: Path = typer.Argument(..., help="Run A (*.local.json), e.g. before."),
    b: Path = typer.Argument(..., help="Run B (*.local.json), e.g. after."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Paired lift of run B over run A per dimension, over the cases both runs scored."""
    from assay.evaluate import compare_runs

    with user_errors(ctx):
        runs = [_load_local(p) for p in (a, b)]
        result = compare_runs(*runs)
        if not any(r["n_pairs"] for r in result["lift"].values()):
            raise UsageError(
                f"{a} and {b} share no scored (id, variant) pair: compare needs two runs of the same cases "
                "under the same variant names"
            )
    if as_json:
        out.print(json.dumps(result, indent=2), markup=False)
        return
    t = Table(title=f"B − A ({b.name} vs {a.name})")
    for col in ("dimension", "diff", "95% CI", "n_pairs"):
        t.add_column(col)
    for d, r in result["lift"].items():
        t.add_row(d, fmt_number(r["diff"], signed=True), fmt_interval(r["ci"]), str(r["n_pairs"]))
    out.print(t)
    for note in result["notes"]:
        out.print(f"note: {note}", markup=False)


# --- helpers -------------------------------------------------------------------------------


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


def _print_summary(agg: dict) -> None:
    t = Table(title=f"{agg['name']}: {agg['n']} cases, judge {agg['backend']}, {agg['gate_version']}")
    t.add_column("variant", overflow="fold", max_width=40)
    for col in ("n", "composite", "95% CI", "sourcing", "no_claims", "gate fail"):
        t.add_column(col, no_wrap=True, justify="right")
    rows = sorted(
        agg["variants"].items(),
        key=lambda kv: -(kv[1]["dims"]["composite"]["mean"] if kv[1]["dims"]["composite"]["mean"] is not None else -1),
    )
    for v, s in rows:
        c = s["dims"]["composite"]
        t.add_row(
            v,
            str(s["n"]),
            fmt_number(c["mean"]),
            fmt_interval(c["ci"]),
            fmt_number(s["dims"]["sourcing"]["mean"]),
            f"{s['no_claims_rate']:.0%}",
            f"{s['gate_fail_rate']:.0%}",
        )
    print_uncut(t)
    for note in agg.get("notes", []):
        out.print(f"note: {note}", markup=False)
