"""The ``assay`` Typer app: its global options, its command groups, ``init-db`` and :func:`main`.

The commands live one module per group (:mod:`assay.cli.gate`, :mod:`assay.cli.eval`, …); each
adds its commands to :data:`app` or to one of the groups below when :mod:`assay.cli` imports it.
This module imports none of them, so a group split over two modules (``judge``, ``memory``)
shares one Typer here.
"""

from __future__ import annotations

import typer

from assay.cli.common import out, redact, user_errors

__all__ = ["app", "cache_app", "hook_app", "judge_app", "main", "memory_app", "verdicts_app"]

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="assay: prove, measure and remember the quality of LLM outputs."
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

# `assay --help` lists the top-level commands (in the order assay.cli imports their modules), then these groups.
app.add_typer(verdicts_app, name="verdicts")
app.add_typer(judge_app, name="judge")
app.add_typer(cache_app, name="cache")
app.add_typer(memory_app, name="memory")
hook_app = typer.Typer(no_args_is_help=True, help="Agent hooks: install assay's memory hooks into an agent's settings.")
app.add_typer(hook_app, name="hook")


def main() -> None:
    """Console-script entry point."""
    app()


@app.callback()
def _global_options(
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


@app.command("init-db")
def init_db_cmd(ctx: typer.Context) -> None:
    """Create the schema, or upgrade an older assay database in place (idempotent), in the configured database."""
    from assay.storage import init_db, make_engine, resolve_db_url

    with user_errors(ctx):
        url = resolve_db_url(ctx.obj["db"])
        version = init_db(make_engine(url))
        out.print(f"schema version {version} ready at {redact(url)}", markup=False)
