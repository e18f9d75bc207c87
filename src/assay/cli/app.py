"""The ``assay`` Typer app: its global options, its command groups, ``init-db`` and :func:`main`.

The commands live one module per group (:mod:`assay.cli.gate`, :mod:`assay.cli.eval`, …); each
adds its commands to :data:`app` or to one of the groups below when :mod:`assay.cli` imports it.
This module imports none of them, so a group split over two modules (``judge``, ``memory``)
shares one Typer here.
"""

from __future__ import annotations

import errno
import sys

import typer

from assay.cli.common import db_url, out, plain_flags_in_help, redact, user_errors

__all__ = [
    "EXIT_CODES",
    "app",
    "cache_app",
    "claims_app",
    "hook_app",
    "judge_app",
    "main",
    "memory_app",
    "report_app",
    "verdicts_app",
]

#: The one exit-code contract (issue 16, item 6), printed under ``assay --help`` and in the
#: README; ``tests/cli/test_exit_codes.py`` runs a case per row. Rows are (command, 0, 1, 3).
EXIT_CODES: tuple[tuple[str, str, str, str], ...] = (
    (
        "gate",
        "no case fails or is unchecked (some may be no_claims)",
        "any case fails or is unchecked",
        "every case no_claims",
    ),
    ("gate validity", "measured (the table printed)", "—", "no set measured a gold acceptance and a false-accept rate"),
    (
        "eval, judge validate/rationality/pairwise, import, report",
        "written (a gate failure inside an eval is a result, not an error)",
        "—",
        "written, but an LLM judge that was asked for scored nothing, or --expect-full-trace found an axis unmeasured",
    ),
    ("compare, claims check", "every claim/guard holds", "any does not", "zero pairs to compare"),
    ("memory train", "deployed", "trained, not deployed", "too few labels to train"),
    ("memory calibrate", "floor found", "floor refused", "too few labels"),
    (
        "memory retrain",
        "deployed, or nothing to do, or another run holds the lock (said)",
        "trained, rejected by the gate",
        "—",
    ),
    ("memory ab promote", "promoted (or would, --dry-run)", "the gate says no", "—"),
    ("memory ab tick", "always, unless an error (cron-friendly)", "—", "—"),
    ("memory grade", "grades applied", "none matched a delivery", "—"),
    ("other memory, cache, verdicts commands, judge agreement, init-db", "done", "—", "—"),
    ("assay-hook", "always: it never blocks an agent", "—", "—"),
)


def _exit_code_epilog() -> str:
    """``assay --help``'s epilog: the table as one line per command (``\\b`` keeps the lines)."""
    rows = [
        f"  {cmd}: 0 {ok}" + (f"; 1 {bad}" if bad != "—" else "") + (f"; 3 {part}" if part != "—" else "")
        for cmd, ok, bad, part in EXIT_CODES
    ]
    intro = (
        "Exit codes: 2 is always a usage or input error (nothing written); 130 is Ctrl-C "
        "(nothing half-written). Per command:"
    )
    return intro + "\n\n\b\n" + "\n".join(rows)


plain_flags_in_help()
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="assay: prove, measure and remember the quality of LLM outputs.",
    epilog=_exit_code_epilog(),
)
verdicts_app = typer.Typer(no_args_is_help=True, help="Past verdicts: add, search by structural similarity, stats.")
judge_app = typer.Typer(
    no_args_is_help=True,
    help="Judges: faithfulness validity on labelled data, trajectory rationality, backend agreement.",
)
cache_app = typer.Typer(help="Fingerprinted memo cache: statistics and cleanup.", no_args_is_help=True)
memory_app = typer.Typer(
    no_args_is_help=True, help="Agent memory: add, search (logged), grade, engage, stats, export labels, evaluate."
)
claims_app = typer.Typer(
    no_args_is_help=True, help="Stated effects (Claim:/Guard: lines) checked against two runs' paired CIs."
)

# `assay --help` lists the top-level commands (in the order assay.cli imports their modules), then these groups.
app.add_typer(verdicts_app, name="verdicts")
app.add_typer(judge_app, name="judge")
app.add_typer(cache_app, name="cache")
app.add_typer(memory_app, name="memory")
report_app = typer.Typer(no_args_is_help=True, help="Report sets: check their files are one run's; open the html.")
app.add_typer(report_app, name="report")
app.add_typer(claims_app, name="claims")
hook_app = typer.Typer(no_args_is_help=True, help="Agent hooks: install assay's memory hooks into an agent's settings.")
app.add_typer(hook_app, name="hook")


def main() -> None:
    """Console-script entry point: ``--debug`` is taken anywhere on the line (:func:`hoist_debug`).
    A usage error (an unknown option, a bad value, a missing argument) is one stderr line and exit 2,
    not click's usage block and boxed panel; output that cannot be written (a full disk) is one line
    and exit 2, not a traceback (a new user's walkthrough, issue 15 round)."""
    args = hoist_debug(sys.argv[1:])
    try:
        rc = app(args=args, standalone_mode=False)
    except typer.TyperException as e:  # typer's click errors (its own copy of click: typer._click)
        if type(e).__name__ == "NoArgsIsHelpError":  # a bare group: its help, as before
            e.show()  # type: ignore[attr-defined]  # (a click exception: TyperException declares no show)
        else:
            ctx = getattr(e, "ctx", None)
            where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            print(f"error: {e.format_message()}{where}", file=sys.stderr)
        sys.exit(e.exit_code)
    except typer.Abort:
        print("interrupted: nothing was written", file=sys.stderr)
        sys.exit(130)
    except OSError as e:  # stdout or stderr could not be written: the command's output is lost
        if "--debug" in args:
            raise
        if e.errno != errno.EPIPE:  # a closed pipe ("| head") is the reader's choice: quiet
            print(f"error: output could not be written: {e.strerror or e}", file=sys.stderr)
        sys.exit(2 if e.errno != errno.EPIPE else 1)
    sys.exit(rc if isinstance(rc, int) else 0)


def hoist_debug(args: list[str]) -> list[str]:
    """``args`` with a ``--debug`` given after the subcommand moved to the front, where the global
    option is parsed: ``assay gate cases.jsonl --debug`` shows the traceback as ``assay --debug gate
    cases.jsonl`` does, instead of failing with "No such option". Only before a ``--`` (what follows
    it is arguments); no command has an option that takes ``--debug`` as its value."""
    end = args.index("--") if "--" in args else len(args)
    if "--debug" not in args[:end]:
        return list(args)
    return ["--debug", *(a for i, a in enumerate(args) if not (i < end and a == "--debug"))]


def _print_version(value: bool) -> None:
    if value:
        from assay import __version__

        out.print(f"assay {__version__}", markup=False)
        raise typer.Exit(0)


@app.callback()
def _global_options(
    ctx: typer.Context,
    db: str | None = typer.Option(
        None, "--db", help="Database URL (sqlite:///… or postgresql+psycopg://…); overrides ASSAY_DB_URL."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
    _version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print assay's version and exit."
    ),
) -> None:
    ctx.obj = {"db": db, "debug": debug}
    if db:  # a typo in --db must not create a folder tree (commands that use no database check too)
        from assay.storage.engine import check_db_folder

        with user_errors(ctx):
            check_db_folder(db)
    if not debug:  # psycopg logs "error ignored terminating <Pipeline …>" when an error it also raises
        # leaves a pipeline; the raised error is handled (retried, or printed as one line)
        import logging

        logging.getLogger("psycopg").setLevel(logging.ERROR)


@app.command("init-db")
def init_db_cmd(ctx: typer.Context) -> None:
    """Create the schema, or upgrade an older assay database in place (idempotent), in the configured database."""
    from assay.storage import init_db, make_engine

    with user_errors(ctx):
        url = db_url(ctx)
        version = init_db(make_engine(url))
        out.print(f"schema version {version} ready at {redact(url)}", markup=False)
