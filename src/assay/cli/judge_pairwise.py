"""``assay judge pairwise``: blind, position-swapped pairwise judging of two runs' answers or of pairs.

Thin: reads the input (two eval runs' ``*.local.json``, paired on case id, or one ``pairs.jsonl``),
calls :func:`assay.judges.pairwise.judge_pairs`, writes ``NAME.local.json``, ``NAME.aggregate.json``,
``NAME.md`` and ``NAME.html`` atomically and prints the summary table. Exit 0 written; 3 written
but an LLM judge scored nothing; 2 usage or input error (nothing written).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer
from rich.table import Table

from assay.cli.app import judge_app
from assay.cli.common import UsageError, db_errors, err, out, print_uncut, read_local_json, user_errors

__all__ = ["PairwiseBackend", "pairwise_cmd"]


class PairwiseBackend(str, Enum):
    stub = "stub"
    length = "length"
    openai_compatible = "openai_compatible"


@judge_app.command("pairwise")
def pairwise_cmd(
    ctx: typer.Context,
    inputs: list[Path] = typer.Argument(
        ..., help="A.local.json B.local.json (two eval runs, paired on case id) or one pairs.jsonl."
    ),
    out_dir: Path = typer.Option(..., "--out", help="Write NAME.local.json, .aggregate.json, .md and .html here."),
    name: str = typer.Option(..., "--name", help="Report file stem."),
    backend: PairwiseBackend = typer.Option(
        ...,
        "--backend",
        help="stub (hash floor), length (prefers the longer output: a bias baseline) or openai_compatible.",
    ),
    criteria_file: Path | None = typer.Option(
        None, "--criteria", help="JSON {name: one-line definition} or [{name, definition}] (default: 3 criteria)."
    ),
    variant_a: str | None = typer.Option(None, "--variant-a", help="The variant of run A, when it has several."),
    variant_b: str | None = typer.Option(None, "--variant-b", help="The variant of run B, when it has several."),
    redact: list[str] = typer.Option(
        [], "--redact", help="A name to strip from every text (repeatable); variants and models are stripped anyway."
    ),
    cache_dir: Path | None = typer.Option(
        None, "--cache-dir", help="LLM response cache in DIR/llm_cache.db (default: the store)."
    ),
    token_budget: int | None = typer.Option(
        None, "--token-budget", min=0, help="Token budget (default 2,000,000); the rest are skipped: budget."
    ),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    quiet: bool = typer.Option(False, "--quiet", help="Print nothing but errors."),
) -> None:
    """Judge each pair in both orders, blind; report B's win rate per criterion with a 95% CI
    clustered by cohort, the tie rate, position consistency and the first-position pick rate."""
    from assay.atomic import atomic_write_json, atomic_write_text, check_writable_dir
    from assay.judges.pairwise import DEFAULT_TOKEN_BUDGET, judge_pairs
    from assay.judges.pairwise_io import (
        load_criteria,
        load_pairs_jsonl,
        pairs_from_runs,
        render_html,
        render_markdown,
    )
    from assay.judges.pairwise_prompt import DEFAULT_CRITERIA

    with user_errors(ctx), db_errors():
        if "/" in name or "\\" in name or name.startswith(".") or not name:
            raise UsageError(f"--name {name!r}: a plain file stem is needed")
        criteria = load_criteria(criteria_file) if criteria_file is not None else list(DEFAULT_CRITERIA)
        names = list(redact)
        if len(inputs) == 1:
            if variant_a or variant_b:
                raise UsageError("--variant-a/--variant-b apply to two eval runs, not to a pairs file")
            pairs = load_pairs_jsonl(inputs[0])
        elif len(inputs) == 2:
            runs = [read_local_json(p) for p in inputs]
            for p, r in zip(inputs, runs, strict=True):
                if r.get("kind") != "eval":
                    raise UsageError(f"{p}: kind: {r.get('kind')!r}, expected an eval run's local file")
            pairs, seen = pairs_from_runs(
                runs[0], runs[1], variant_a=variant_a, variant_b=variant_b, where=(str(inputs[0]), str(inputs[1]))
            )
            names += seen
        else:
            raise UsageError("give two eval runs' *.local.json files or one pairs.jsonl")
        if not pairs:
            raise UsageError(f"{inputs[0]}: no pairs to judge")
        check_writable_dir(out_dir)
        local, agg = judge_pairs(
            pairs,
            backend=backend.value,
            criteria=criteria,
            names=names,
            cache_dir=cache_dir,
            db_url=(ctx.obj or {}).get("db"),
            token_budget=DEFAULT_TOKEN_BUDGET if token_budget is None else token_budget,
            seed=seed,
        )
        atomic_write_json(out_dir / f"{name}.local.json", local)
        atomic_write_json(out_dir / f"{name}.aggregate.json", agg)
        atomic_write_text(out_dir / f"{name}.md", render_markdown(agg))
        atomic_write_text(out_dir / f"{name}.html", render_html(agg))
    if not quiet:
        table = Table(title=f"pairwise ({agg['backend']}): B vs A, {agg['n_scored']} of {agg['n']} pairs scored")
        for col in ("criterion", "win rate B", "95% CI", "ties", "inconsistent", "consistency", "first pos."):
            table.add_column(col)
        for crit, s in [*agg["criteria"].items(), ("overall", agg["overall"])]:
            w = s["win_rate_b"]
            table.add_row(
                crit,
                _f(w["value"]),
                "—" if w["ci"] is None else f"[{w['ci'][0]:.3f}, {w['ci'][1]:.3f}]",
                _f(s["tie_rate"]),
                _f(s["inconsistent_rate"]),
                _f(s["position_consistency"]),
                _f(s["first_position_rate"]),
            )
        print_uncut(table)
        out.print(f"wrote {out_dir / name}.{{local.json,aggregate.json,md,html}}", markup=False)
    if agg["n"] and not agg["n_scored"]:
        err.print(f"pairwise: no pair scored ({agg['n_rejected']} rejected, {agg['n_skipped']} skipped)", markup=False)
        raise typer.Exit(3)


def _f(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"
