"""``assay memory ab …``: write-side experiments — start, assign, status, promote, tick, stop, queue.

Thin: parses options, calls :class:`assay.memory.experiments.ExperimentStore`, prints.

Exit codes — ``promote``: 0 promoted (or would, with ``--dry-run``), 1 the gate says no (with its
figures); ``tick``: 0 unless an error; the others 0; bad input or an unknown experiment: 2.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table
from rich.text import Text

from assay.cli.app import memory_app
from assay.cli.common import UsageError, db_errors, db_url, fmt_plain, out, print_uncut, user_errors

if TYPE_CHECKING:
    from assay.memory.experiments import Decision, ExperimentStore

__all__ = ["ab_app"]

ab_app = typer.Typer(
    no_args_is_help=True,
    help="Write-side experiments: A/B arms for memory-writing instructions, an anytime-valid promotion gate.",
)
memory_app.add_typer(ab_app, name="ab")


class Unit(str, Enum):
    prompt = "prompt"
    session = "session"


def _store(ctx: typer.Context) -> ExperimentStore:
    from assay.memory.experiments import ExperimentStore

    return ExperimentStore(db_url(ctx))


def _experiment_errors() -> type[Exception]:
    from assay.memory.experiments import ExperimentError

    return ExperimentError


@ab_app.command("start")
def start_cmd(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Experiment name."),
    control_version: str = typer.Option(..., "--control-version", help="Version of the current rules, e.g. gen-7."),
    control_rules: Path = typer.Option(..., "--control-rules", help="File with the current memory-writing rules."),
    candidate_version: str = typer.Option(..., "--candidate-version", help="Version of B, e.g. gen-7+b3."),
    instruction: str = typer.Option(..., "--instruction", help="B's one extra instruction."),
    allocation: float = typer.Option(0.5, "--allocation", help="Share of units assigned to B, in (0, 1)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the assignment hash."),
    unit: Unit = typer.Option(Unit.prompt, "--unit", help="What a unit id names: a prompt or a session."),
    procedure: str = typer.Option("lexical", "--procedure", help="Engagement procedure of the primary metric."),
    min_delivered: int = typer.Option(200, "--min-delivered", min=1, help="Labelled deliveries per arm first."),
    guards: bool = typer.Option(
        True,
        "--guards/--no-guards",
        help="Require mean grade and hard-negative share not worse than their margins (needs graded deliveries).",
    ),
) -> None:
    """Start an experiment: round 1 tests the candidate against the control."""
    from assay.memory.experiments import GateParams

    with user_errors(ctx), db_errors():
        from assay.jsonl import read_utf8

        rules = read_utf8(control_rules)
        gate = GateParams(
            procedure=procedure, min_delivered=min_delivered, guards=GateParams().guards if guards else ()
        )
        try:
            cfg = _store(ctx).start(
                name,
                control_version=control_version,
                control_rules=rules,
                candidate_version=candidate_version,
                instruction=instruction,
                allocation=allocation,
                seed=seed,
                unit=unit.value,
                gate=gate,
                actor="cli",
            )
        except _experiment_errors() as e:
            raise UsageError(str(e)) from None
    out.print(
        f"started {cfg.name}: round {cfg.round}, A={cfg.control_version}, B={cfg.candidate_version}, "
        f"allocation {cfg.allocation}",
        markup=False,
    )


@ab_app.command("assign")
def assign_cmd(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Experiment name."),
    units: list[str] = typer.Argument(..., help="Unit ids (prompt or session ids)."),
    exclude: bool = typer.Option(False, "--exclude", help="Excluded units (sub-agents): control, never counted."),
) -> None:
    """Print one JSON object per unit: {"unit", "arm", "version", "instruction"}."""
    with user_errors(ctx), db_errors():
        store = _store(ctx)
        if store.config(name) is None:
            raise UsageError(f"unknown experiment {name!r}")
        arms = [store.assign(name, u, exclude=exclude) for u in units]
    for a in arms:
        out.print(json.dumps(a.to_json(), ensure_ascii=False), markup=False)


@ab_app.command("status")
def status_cmd(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Experiment name."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (no ids) instead of a table."),
) -> None:
    """Per-arm figures of the current round with 95% CIs clustered by writing unit, B − A, the gate."""
    with user_errors(ctx), db_errors():
        store = _store(ctx)
        try:
            st = store.status(name)
            decision = store.evaluate(name)
        except _experiment_errors() as e:
            raise UsageError(str(e)) from None
    if as_json:
        out.print(json.dumps(st.to_dict() | {"decision": decision.to_dict()}, indent=2), markup=False)
        return
    out.print(
        f"{st.name}: {st.status}, round {st.round}, A={st.control_version}, B={st.candidate_version or '—'}, "
        f"allocation {st.allocation}, unit {st.unit}",
        markup=False,
    )
    t = Table(title="per arm (95% CIs clustered by writing unit; B − A with the anytime-valid CS)")
    for col in ("metric", "A", "B", "B − A [95% CI]", "anytime-valid CS"):
        t.add_column(col)
    t.add_row("units", str(st.arms["A"].units), str(st.arms["B"].units), "", "")
    t.add_row("memories written", str(st.arms["A"].memories_written), str(st.arms["B"].memories_written), "", "")
    t.add_row("deliveries", str(st.arms["A"].deliveries), str(st.arms["B"].deliveries), "", "")
    rows: list[tuple[str, str, Any, Any]] = [
        ("findability", "findability", st.arms["A"].findability, st.arms["B"].findability)
    ]
    for p in sorted(set(st.arms["A"].engagement) | set(st.arms["B"].engagement)):
        rows.append(
            (f"engagement ({p})", f"engagement:{p}", st.arms["A"].engagement.get(p), st.arms["B"].engagement.get(p))
        )
    rows.append(("mean grade", "mean_grade", st.arms["A"].mean_grade, st.arms["B"].mean_grade))
    rows.append(
        (
            "hard-negative share",
            "hard_negative_share",
            st.arms["A"].hard_negative_share,
            st.arms["B"].hard_negative_share,
        )
    )
    for label, key, a, b in rows:
        d = st.diffs.get(key)
        t.add_row(label, _metric(a), _metric(b), _diff(d.estimate, d.ci95) if d else "—", _interval(d.cs) if d else "—")
    print_uncut(t)
    out.print(
        f"sample ratio: {st.srm.units_a} A / {st.srm.units_b} B units "
        f"({'MISMATCH' if st.srm.mismatch else 'ok'}, log BF {st.srm.log_bayes_factor:.2f} "
        f"vs {st.srm.threshold:.2f})",
        markup=False,
    )
    _print_decision(decision)


@ab_app.command("promote")
def promote_cmd(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Experiment name."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the decision, change nothing."),
) -> None:
    """Promote B into A when the gate says so (exit 0; 1 when the gate says no)."""
    with user_errors(ctx), db_errors():
        try:
            d = _store(ctx).promote(name, dry_run=dry_run, actor="cli")
        except _experiment_errors() as e:
            raise UsageError(str(e)) from None
    _print_decision(d)
    if not (d.promoted or (dry_run and d.promote)):
        raise typer.Exit(1)


@ab_app.command("tick")
def tick_cmd(ctx: typer.Context) -> None:
    """Evaluate every running experiment and promote where the gate says so (cron-able; exit 0)."""
    with user_errors(ctx), db_errors():
        results = _store(ctx).tick(actor="tick")
    for name, d in results:
        verdict = "promoted" if d.promoted else ("no" if not d.promote else "not promoted: " + d.reasons[-1])
        out.print(f"{name}: round {d.round}: {verdict}; {_primary(d)}", markup=False)
    if not results:
        out.print("no running experiment", markup=False)


@ab_app.command("stop")
def stop_cmd(ctx: typer.Context, name: str = typer.Argument(..., help="Experiment name.")) -> None:
    """Stop the experiment: every assignment control from now on."""
    with user_errors(ctx), db_errors():
        try:
            cfg = _store(ctx).stop(name, actor="cli")
        except _experiment_errors() as e:
            raise UsageError(str(e)) from None
    out.print(f"{cfg.name}: stopped (control {cfg.control_version})", markup=False)


@ab_app.command("queue")
def queue_cmd(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Experiment name."),
    instruction: str = typer.Option(..., "--instruction", help="The candidate's one instruction."),
    version: str = typer.Option(..., "--version", help="The candidate's version, e.g. gen-8+b1."),
) -> None:
    """Queue a candidate instruction: it becomes B when the current B is promoted (at once if none is under test)."""
    with user_errors(ctx), db_errors():
        try:
            cfg = _store(ctx).queue(name, version=version, instruction=instruction, actor="cli")
        except _experiment_errors() as e:
            raise UsageError(str(e)) from None
    out.print(f"queued {version} for {cfg.name} (round {cfg.round}, B={cfg.candidate_version or '—'})", markup=False)


def _primary(d: Decision) -> str:
    return (
        f"{d.metric} B−A {fmt_plain(d.estimate, signed=True)} CS {_interval((d.lower, d.upper))} "
        f"margin {d.margin:+.3f}, n {d.n_a}/{d.n_b}"
    )


def _print_decision(d: Decision) -> None:
    head = "PROMOTED" if d.promoted else ("PROMOTE" if d.promote else "NO")
    out.print(f"gate: {head} — {d.experiment} round {d.round} candidate {d.candidate_version or '—'}", markup=False)
    out.print(f"  {_primary(d)} (alpha {d.alpha}, min {d.min_delivered} per arm)", markup=False)
    for g in d.guards:
        out.print(
            f"  guard {g.metric}: B−A {fmt_plain(g.estimate, signed=True)}, bound {fmt_plain(g.bound, signed=True)}"
            f" vs {g.limit:+.3f}: {'ok' if g.ok else 'blocks'}",
            markup=False,
        )
    for r in d.reasons:
        out.print(Text(f"  - {r}"))


def _metric(m: Any) -> str:
    if m is None or m.mean is None:
        return "—"
    return f"{fmt_plain(m.mean)} {_interval(m.ci95)} n={m.n}"


def _diff(est: float | None, ci: tuple[float, float] | None) -> str:
    return "—" if est is None else f"{fmt_plain(est, signed=True)} {_interval(ci)}"


def _interval(ci: tuple[float | None, float | None] | None) -> str:
    if ci is None or ci[0] is None or ci[1] is None:
        return "—"
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"
