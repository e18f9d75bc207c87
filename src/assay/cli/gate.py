"""``assay gate FILE``: the sourcing gate on every case of a cases JSONL.

Exit 0 when no case fails, 1 when any case fails, 2 on bad input (one line). ``--json`` prints one
object per case (status, violations, completeness, impersonal); otherwise one line per case and a
count.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from assay.cases import load_cases
from assay.cli.app import app
from assay.cli.common import GateMode, out, user_errors

__all__ = ["gate_cmd"]


@app.command("gate")
def gate_cmd(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="Cases JSONL."),
    mode: GateMode = typer.Option(GateMode.auto, "--mode", help="auto: cited when the answer has citation markers."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per case."),
) -> None:
    """Run the sourcing gate on every case; exit 1 when any case fails, 2 on bad input."""
    from assay.grounding import IndexCache, score_answer

    with user_errors(ctx):
        cases = load_cases(file)
    counts = {"pass": 0, "fail": 0, "no_claims": 0}
    indexes = IndexCache()  # variants of one question share their snapshot's index
    for case in cases:
        scored = score_answer(
            case.answer,
            case.snapshot(),
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
                "completeness": scored.completeness.model_dump(),
                "impersonal": scored.impersonal.model_dump(),
            }
            out.print(json.dumps(rec, ensure_ascii=False), markup=False)
        else:
            detail = f"{g.n_matched}/{g.n_checkable} quantities matched" if g.checks else "nothing checkable"
            line = f"{g.status.upper():9} {case.id} [{case.variant}] {g.mode}: {detail}"
            if g.violations:
                v = g.violations[0]
                line += f" — {v.kind} {v.quantity!r}: {v.reason}" + (
                    f" (+{len(g.violations) - 1} more)" if len(g.violations) > 1 else ""
                )
            out.print(line, markup=False)
    if not as_json:
        out.print(
            f"{len(cases)} case(s): {counts['pass']} pass, {counts['fail']} fail, {counts['no_claims']} no_claims",
            markup=False,
        )
    raise typer.Exit(1 if counts["fail"] else 0)
