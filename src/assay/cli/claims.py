"""``assay claims check BASE HEAD --claims FILE|-``: a pull request's stated effects, checked.

Exit codes (the shared contract): 0 every claim and guard holds, 1 any does not, 2 usage or input
error (an unknown dimension or variant names what exists), 3 a statement had fewer than 2 pairs.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path

import typer
from rich.table import Table

from assay.cli.app import claims_app
from assay.cli.common import UsageError, err, fmt_interval, fmt_number, out, read_local_json, user_errors

__all__ = ["check_cmd"]


class Family(str, Enum):
    none = "none"
    holm = "holm"


class Interval(str, Enum):
    percentile = "percentile"
    bca = "bca"
    expanded = "expanded"


@claims_app.command("check")
def check_cmd(
    ctx: typer.Context,
    base: Path = typer.Argument(..., help="The base run (*.local.json), e.g. main."),
    head: Path = typer.Argument(..., help="The head run (*.local.json), e.g. the pull request; may be BASE itself."),
    claims: str = typer.Option(
        ..., "--claims", help="A file holding Claim:/Guard: lines (a PR body is fine), or - for stdin."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON instead of a table."),
    md: Path | None = typer.Option(None, "--md", help="Also write a Markdown block (for a PR comment) to this file."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap and the sign-flip draws."),
    base_variant: str | None = typer.Option(None, "--base-variant", help="Compare this variant of BASE …"),
    head_variant: str | None = typer.Option(None, "--head-variant", help="… with this variant of HEAD."),
    family: Family = typer.Option(
        Family.none, "--family", help="holm: Holm-correct sign-flip permutation p-values over all statements."
    ),
    interval: Interval = typer.Option(
        Interval.percentile,
        "--interval",
        help="Bootstrap CI: percentile; expanded (Hesterberg 2015: better coverage under ~50 pairs); bca.",
    ),
    resamples: int = typer.Option(10_000, "--resamples", min=100, help="Bootstrap resamples (and sign flips)."),
) -> None:
    """Check each Claim:/Guard: line against the paired differences HEAD − BASE with a bootstrap CI.

    `Claim: composite=+0.05` (score scale) or `Claim: composite=+5pp` (percentage points; `+0.05pp`
    is +0.0005); `Claim: debate.sourcing=-2pp` names a variant; `Guard: sourcing >= -1pp` holds when
    the CI's lower bound is at least -0.01. Verdicts: supported, understated (both hold), overstated,
    not_significant, contradicted; guards held / not_held. Exit 0 all hold, 1 any does not, 3 fewer
    than 2 pairs for a statement.
    """
    from assay.atomic import atomic_write_text
    from assay.effects import StatementError, check_effects, markdown_report, parse_statements, run_scores

    with user_errors(ctx):
        text = _read_claims(claims)
        try:
            statements = parse_statements(text)
        except StatementError as e:
            raise UsageError(f"{'<stdin>' if claims == '-' else claims}:{e.lineno}: {e.problem}") from None
        if not statements:
            raise UsageError(f"{claims}: no Claim: or Guard: lines found")
        if base.resolve() == head.resolve() and not (base_variant or head_variant):
            raise UsageError(
                "BASE and HEAD are the same file: name two of its variants with --base-variant/--head-variant"
            )
        base_run, head_run = (run_scores(read_local_json(p), p.name) for p in (base, head))
        report = check_effects(
            base_run,
            head_run,
            statements,
            base_variant=base_variant,
            head_variant=head_variant,
            seed=seed,
            n_resamples=resamples,
            family=family.value,
            interval=interval.value,
        )
        if md is not None:
            atomic_write_text(md, markdown_report(report, base=base.name, head=head.name))
    if as_json:
        out.print(json.dumps(report.to_dict(), indent=2), markup=False)
    else:
        t = Table(title=f"head − base ({head.name} vs {base.name})")
        for col in ("statement", "n_pairs", "diff", "95% CI", "verdict"):
            t.add_column(col, overflow="fold")
        for c in report.checks:
            t.add_row(
                c.statement.text,
                str(c.n_pairs),
                fmt_number(c.diff, signed=True),
                fmt_interval(list(c.ci) if c.ci else None),
                c.verdict,
            )
        out.print(t)
        for note in report.notes:
            err.print(f"note: {note}", markup=False)
    raise typer.Exit(report.exit_code)


def _read_claims(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
