"""The ``assay`` command line: thin — parses, calls the library, prints.

Errors the user can fix (bad input files, an unusable output directory, unknown options) exit 2
with one readable line on stderr; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from assay.cases import CaseFileError, load_cases
from assay.jsonl import read_utf8

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="assay: prove, measure and remember the quality of LLM outputs."
)
out = Console(highlight=False, soft_wrap=True, emoji=False)  # emoji=False: ":smile:" in an id stays as written
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


class GateMode(str, Enum):
    auto = "auto"
    cited = "cited"
    uncited = "uncited"


class JudgeBackend(str, Enum):
    none = "none"
    stub = "stub"
    openai_compatible = "openai_compatible"


class ImportSource(str, Enum):
    tatqa = "tatqa"
    financebench = "financebench"
    taubench = "taubench"
    whoandwhen = "whoandwhen"
    locomo = "locomo"


class UsageError(Exception):
    """A problem the user can fix; printed as one line, exit 2."""


@app.callback()
def _global(
    ctx: typer.Context,
    db: str | None = typer.Option(
        None, "--db", help="Database URL (sqlite:///… or postgresql+psycopg://…); overrides ASSAY_DB_URL."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
) -> None:
    ctx.obj = {"db": db, "debug": debug}
    if not debug:  # psycopg logs "error ignored terminating <Pipeline …>" when an error it also raises
        # leaves a pipeline; the raised error is handled (retried, or printed as one line)
        import logging

        logging.getLogger("psycopg").setLevel(logging.ERROR)


@contextmanager
def _errors(ctx: typer.Context) -> Iterator[None]:
    """Turn user-fixable errors into one stderr line and exit 2 (traceback with --debug)."""
    try:
        yield
    except (typer.Exit, typer.Abort):
        raise
    except KeyboardInterrupt:
        err.print("interrupted: nothing was written")
        raise typer.Exit(130) from None
    except (CaseFileError, UsageError, ValueError, OSError, ModuleNotFoundError) as e:
        if ctx.obj and ctx.obj.get("debug"):
            raise
        msg = str(e).strip() or type(e).__name__
        if isinstance(e, FileNotFoundError) and e.filename:
            msg = f"{e.filename}: no such file"
        elif isinstance(e, IsADirectoryError) and e.filename:
            msg = f"{e.filename}: is a directory, expected a file"
        err.print(f"error: {msg}", markup=False)
        raise typer.Exit(2) from None


@contextmanager
def db_errors() -> Iterator[None]:
    """Database failures (unreachable server, bad URL, locked file) → :class:`UsageError`: one
    readable line and exit 2 under :func:`_errors`."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        yield
    except SQLAlchemyError as e:
        detail = str(getattr(e, "orig", None) or e).splitlines()[0]
        raise UsageError(f"database: {type(e).__name__}: {detail}") from e


@app.command("init-db")
def init_db_cmd(ctx: typer.Context) -> None:
    """Create every assay table (idempotent) in the configured database."""
    from assay.storage import init_db, make_engine, resolve_db_url

    with _errors(ctx):
        url = resolve_db_url(ctx.obj["db"])
        version = init_db(make_engine(url))
        out.print(f"schema version {version} ready at {_redact(url)}", markup=False)


@app.command("gate")
def gate_cmd(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="Cases JSONL."),
    mode: GateMode = typer.Option(GateMode.auto, "--mode", help="auto: cited when the answer has citation markers."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per case."),
) -> None:
    """Run the sourcing gate on every case; exit 1 when any case fails, 2 on bad input."""
    from assay.grounding import SnapshotIndex, check_answer
    from assay.grounding.completeness import completeness
    from assay.grounding.impersonal import check_impersonal

    with _errors(ctx):
        cases = load_cases(file)
    counts = {"pass": 0, "fail": 0, "no_claims": 0}
    indexes: dict[str, SnapshotIndex] = {}
    for case in cases:
        snap = case.snapshot()
        fp = snap.fingerprint()
        if fp not in indexes:
            indexes[fp] = SnapshotIndex.build(snap)
        idx = indexes[fp]
        g = check_answer(case.answer, snap, mode=mode.value, index=idx)
        counts[g.status] += 1
        if as_json:
            comp = completeness(case.answer, snap, g, reference=case.reference)
            imp = check_impersonal(case.answer)
            rec = {
                "id": case.id,
                "variant": case.variant,
                "status": g.status,
                "mode": g.mode,
                "violations": [v.model_dump() for v in g.violations],
                "completeness": comp.model_dump(),
                "impersonal": imp.model_dump(),
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

    with _errors(ctx):
        if (label_field is None) != (positive is None):
            raise UsageError("--label-field and --positive go together")
        if positive is not None and positive in exclude_label:
            raise UsageError(f"--positive {positive!r} is also an --exclude-label: no case could count as positive")
        report_paths(out_dir, name)  # validates the name before any work
        missing = _check_out_dir_usable(out_dir)  # fails fast, creates nothing
        cases = load_cases(cases_file)
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
            with Progress(
                TextColumn("scoring"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err,
                transient=True,
            ) as bar:
                task = bar.add_task("cases", total=len(cases))
                local, aggregate = run_eval(cases, config, on_case=lambda _i: bar.advance(task))
            paths = write_reports(out_dir, name, local, aggregate)
        except BaseException:
            _remove_empty_dirs(missing)  # an interrupted or failed run leaves no trace
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

    with _errors(ctx):
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
        t.add_row(d, _fmt(r["diff"], signed=True), _fmt_ci(r["ci"]), str(r["n_pairs"]))
    out.print(t)
    for note in result["notes"]:
        out.print(f"note: {note}", markup=False)


@app.command("import")
def import_cmd(
    ctx: typer.Context,
    source: ImportSource = typer.Argument(..., help="Dataset format."),
    src: Path = typer.Argument(..., help="Dataset folder or file."),
    out_file: Path = typer.Option(
        ...,
        "--out",
        help="Cases JSONL to write (taubench, whoandwhen: a folder for traces/ + summary.json; locomo: a folder for memories.jsonl + queries.jsonl).",
    ),
) -> None:
    """Convert a public dataset into assay cases JSONL (agent traces: native traces + an eval summary)."""
    from assay.importers import write_cases_jsonl

    with _errors(ctx):
        if not src.exists():
            raise UsageError(f"{src}: no such file or directory")
        if source in (ImportSource.taubench, ImportSource.whoandwhen):
            from assay.commands.rationality import import_traces

            n, summary_path = import_traces(source.value, src, out_file)
            out.print(f"{n} traces", markup=False)
            out.print(str(summary_path), markup=False)
            return
        if source is ImportSource.locomo:
            from assay.commands.memory import import_locomo_cmd

            return import_locomo_cmd(src, out_file)
        if out_file.is_dir():
            raise UsageError(
                f"--out {out_file}: is a directory; give the path of the cases file to write, e.g. {out_file / 'cases.jsonl'}"
            )
        _check_out_dir_usable(out_file.parent)
        if source is ImportSource.tatqa:
            from assay.importers.tatqa import import_tatqa

            cases = import_tatqa(src)
        else:
            from assay.importers.financebench import import_financebench

            cases = import_financebench(src)
        out_file.parent.mkdir(parents=True, exist_ok=True)
        write_cases_jsonl(cases, out_file)
    out.print(f"{len(cases)} cases, {len({c.variant for c in cases})} variant(s)", markup=False)
    for reason, count in (getattr(cases, "skipped", None) or {}).items():
        if count:
            out.print(f"left out: {count} source record(s): {reason}", markup=False)
    out.print(str(out_file.resolve()), markup=False)


#: Modules that add commands of other capabilities: each has ``register(app: typer.Typer)``.
_COMMAND_MODULES: tuple[str, ...] = (
    "assay.commands.verdicts",
    "assay.commands.judge",
    "assay.commands.cache",
    "assay.commands.rationality",
    "assay.commands.memory",
    "assay.commands.memory_learn",
)


def main() -> None:
    """Console-script entry point."""
    import importlib

    for mod in _COMMAND_MODULES:
        importlib.import_module(mod).register(app)
    app()


# --- helpers -------------------------------------------------------------------------------


def read_local_json(path: Path) -> dict:
    """A run's ``NAME.local.json``: a JSON object with a ``cases`` list, else :class:`UsageError`
    naming the file (and the line of bad JSON). The caller checks the records and the ``kind``."""
    try:
        data = json.loads(read_utf8(path))
    except json.JSONDecodeError as e:
        raise UsageError(f"{path}:{e.lineno}: <json>: {e.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise UsageError(f"{path}: cases: not an assay *.local.json (no 'cases' list)")
    return data


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


def _check_out_dir_usable(path: Path) -> list[Path]:
    """Raise :class:`UsageError` when ``path`` cannot become a writable directory; create nothing.

    Returns the missing directories (deepest first) that creating ``path`` will add. The real
    proof (a file written in it) is :func:`assay.atomic.check_writable_dir`, run once the input
    has loaded, so bad input leaves no new directory behind.
    """
    import os

    target = path.expanduser().absolute()
    missing: list[Path] = []
    probe = target
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    if not probe.is_dir():
        raise UsageError(f"--out {target}: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise UsageError(f"--out {target}: {probe} is not writable")
    return missing


def _remove_empty_dirs(dirs: list[Path]) -> None:
    """Remove ``dirs`` (deepest first) while they are empty; stop at the first that is not."""
    for d in dirs:
        try:
            d.rmdir()
        except OSError:
            return


def _fmt(v: float | None, signed: bool = False) -> str:
    from assay.reports.tables import fmt_num

    return fmt_num(v, signed=signed)


def _fmt_ci(ci: list | None) -> str:
    from assay.reports.tables import MISSING, fmt_ci

    return fmt_ci(ci) or MISSING


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
            _fmt(c["mean"]),
            _fmt_ci(c["ci"]),
            _fmt(s["dims"]["sourcing"]["mean"]),
            f"{s['no_claims_rate']:.0%}",
            f"{s['gate_fail_rate']:.0%}",
        )
    _print_uncut(t)
    for note in agg.get("notes", []):
        out.print(f"note: {note}", markup=False)


def _print_uncut(table: Table) -> None:
    """Print ``table`` at its natural width when the console is narrower (a pipe reports 80
    columns), so rich never squeezes a number column to ``…`` or to nothing; long variant names
    fold within their 40-column cap instead."""
    from rich.measure import Measurement

    natural = Measurement.get(out, out.options.update_width(200), table).maximum
    if natural <= out.width:
        out.print(table)
    else:
        Console(highlight=False, soft_wrap=True, width=natural).print(table)


def _redact(url: str) -> str:
    """Hide the passwords in a database URL (:func:`assay.storage.safe_url`)."""
    from assay.storage import safe_url

    return safe_url(url)


if __name__ == "__main__":  # pragma: no cover
    main()
