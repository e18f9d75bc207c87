"""What the command modules share: consoles, the one-line error mapping, local-file reading, output
directories, URL redaction, number formatting, uncut tables, progress bars, store openers.

Errors the user can fix (bad input files, an unusable output directory, unknown options) exit 2
with one readable line on stderr (:func:`user_errors`); ``--debug`` shows the traceback instead.
Imports stay light (typer, rich, the case loader): the database, the reports (jinja2) and the
memory store load inside the helpers that need them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.progress import Progress, ProgressColumn
from rich.table import Table

from assay.cases import CaseFileError
from assay.jsonl import read_utf8

if TYPE_CHECKING:
    from assay.cli.progress import NullProgress, PlainProgress
    from assay.memory import MemoryStore

__all__ = [
    "GateMode",
    "UsageError",
    "check_out_dir_usable",
    "db_errors",
    "db_url",
    "err",
    "fmt_interval",
    "fmt_number",
    "fmt_plain",
    "open_memory_store",
    "out",
    "print_uncut",
    "progress_bar",
    "read_local_json",
    "redact",
    "remove_empty_dirs",
    "user_errors",
]

out = Console(highlight=False, soft_wrap=True, emoji=False)  # emoji=False: ":smile:" in an id stays as written
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


class GateMode(str, Enum):
    """``--mode`` of ``assay gate`` and ``assay eval``."""

    auto = "auto"
    cited = "cited"
    uncited = "uncited"


class UsageError(Exception):
    """A problem the user can fix; printed as one line, exit 2."""


@contextmanager
def user_errors(ctx: typer.Context) -> Iterator[None]:
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
    readable line and exit 2 under :func:`user_errors`."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        yield
    except SQLAlchemyError as e:
        detail = str(getattr(e, "orig", None) or e).splitlines()[0]
        raise UsageError(f"database: {type(e).__name__}: {detail}") from e


def db_url(ctx: typer.Context) -> str:
    """The database URL: the global ``--db`` option > ``ASSAY_DB_URL`` > ``$ASSAY_HOME/assay.db``."""
    from assay.storage import resolve_db_url

    return resolve_db_url((ctx.obj or {}).get("db"))


def redact(url: str) -> str:
    """Hide the passwords in a database URL (:func:`assay.storage.safe_url`)."""
    from assay.storage import safe_url

    return safe_url(url)


def open_memory_store(ctx: typer.Context, embedder: str | None = None, *, reranker: str | None = None) -> MemoryStore:
    """The memory store of the configured database; ``embedder`` and ``reranker`` (registered
    names) override the settings from the environment when given."""
    from assay.memory import MemoryStore, default_settings

    changes: dict = {}
    if embedder is not None:
        changes["embedder"] = embedder
    if reranker:
        changes["reranker"] = reranker
    return MemoryStore(db_url(ctx), settings=default_settings(**changes))


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


def check_out_dir_usable(path: Path) -> list[Path]:
    """Raise :class:`UsageError` when ``path`` cannot become a writable directory; create nothing.

    Returns the missing directories (deepest first) that creating ``path`` will add. The real
    proof (a file written in it) is :func:`assay.atomic.check_writable_dir`, run once the input
    has loaded, so bad input leaves no new directory behind.
    """
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


def remove_empty_dirs(dirs: list[Path]) -> None:
    """Remove ``dirs`` (deepest first) while they are empty; stop at the first that is not."""
    for d in dirs:
        try:
            d.rmdir()
        except OSError:
            return


def fmt_number(v: float | None, signed: bool = False) -> str:
    """``v`` as the reports print it (:func:`assay.reports.tables.fmt_num`): 3 decimals, ``—`` when missing."""
    from assay.reports.tables import fmt_num  # lazily: jinja2 loads with assay.reports

    return fmt_num(v, signed=signed)


def fmt_interval(ci: list | None) -> str:
    """A CI as the reports print it (:func:`assay.reports.tables.fmt_ci`), ``—`` when there is none."""
    from assay.reports.tables import MISSING, fmt_ci

    return fmt_ci(ci) or MISSING


def fmt_plain(v: float | None, signed: bool = False) -> str:
    """``v`` with 3 decimals as computed (no rounding of tiny values to ``0.000``), ``—`` for None."""
    return "—" if v is None else (f"{v:+.3f}" if signed else f"{v:.3f}")


def print_uncut(table: Table) -> None:
    """Print ``table`` at its natural width when the console is narrower (a pipe reports 80
    columns), so rich never squeezes a number column to ``…`` or to nothing; long variant names
    fold within their 40-column cap instead."""
    from rich.measure import Measurement

    natural = Measurement.get(out, out.options.update_width(200), table).maximum
    if natural <= out.width:
        out.print(table)
    else:
        Console(highlight=False, soft_wrap=True, width=natural).print(table)


def progress_bar(
    label: str, *extra: ProgressColumn, quiet: bool = False, interval: float | None = None
) -> Progress | PlainProgress | NullProgress:
    """Progress on stderr (:func:`assay.cli.progress.make_progress`): a transient rich bar on a
    terminal (``label``, the bar, done/total, ``extra`` columns, elapsed time), a plain line every
    ``interval`` seconds (default 10) off one, nothing when ``quiet``."""
    from assay.cli.progress import PLAIN_INTERVAL_S, make_progress

    return make_progress(
        label, *extra, console=err, quiet=quiet, interval=PLAIN_INTERVAL_S if interval is None else interval
    )
