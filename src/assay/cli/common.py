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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from assay.cases import Case, CaseFileError
from assay.jsonl import InputFileError, read_utf8

if TYPE_CHECKING:
    from assay.memory import MemoryStore

__all__ = [
    "PLAIN_PROGRESS_INTERVAL_S",
    "GateMode",
    "ProgressBar",
    "UsageError",
    "check_label_field",
    "check_out_dir_usable",
    "db_errors",
    "db_url",
    "err",
    "fmt_interval",
    "fmt_number",
    "fmt_plain",
    "open_memory_store",
    "out",
    "plain_flags_in_help",
    "plain_progress_line",
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
        if ctx.obj and ctx.obj.get("debug"):  # the traceback, and still the input error's exit code
            err.print_exception()
            raise typer.Exit(2) from None
        msg = str(e).strip() or type(e).__name__
        if isinstance(e, InputFileError) and len(e.problems) > 1:  # one line: the first, and how many more
            n = len(e.problems) - 1
            msg = f"{e.problems[0]} (and {n} more problem{'s' if n > 1 else ''} in the file: --debug lists them)"
        if isinstance(e, FileNotFoundError) and e.filename:
            msg = f"{e.filename}: no such file"
        elif isinstance(e, IsADirectoryError) and e.filename:
            msg = f"{e.filename}: is a directory, expected a file"
        err.print(f"error: {msg}", markup=False)
        raise typer.Exit(2) from None


@contextmanager
def db_errors(url: str | None = None) -> Iterator[None]:
    """Database failures (unreachable server, bad URL, locked file) → :class:`UsageError`: one
    readable line and exit 2 under :func:`user_errors`. With the ``url`` in use, the line is
    :func:`assay.storage.describe_db_error`'s ``database URL: reason`` (password hidden)."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        yield
    except SQLAlchemyError as e:
        if url is not None:
            from assay.storage import describe_db_error

            raise UsageError(describe_db_error(e, url)) from e
        detail = str(getattr(e, "orig", None) or e).splitlines()[0]
        raise UsageError(f"database: {type(e).__name__}: {detail}") from e


def plain_flags_in_help() -> None:
    """Show boolean flags as plain flags in help (``--json``, not ``--json <bool>``); idempotent.

    Typer's rich help prints a type after every option, flags included, which reads as if
    ``--json true`` were accepted (it is refused: a flag takes no value). Its plain help already
    leaves the type out for flags; this applies the same rule to the rich help, for every command
    and for ``--help`` itself, without touching any option declaration.
    """
    from typer.core import TyperOption

    original = TyperOption.display_type_rich
    if getattr(original, "_assay_plain_flags", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        if self.is_flag and not self.count:
            return None
        return original(self, ctx)

    display_type_rich._assay_plain_flags = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


def db_url(ctx: typer.Context) -> str:
    """The database URL: the global ``--db`` option > ``ASSAY_DB_URL`` > ``$ASSAY_HOME/assay.db``.

    Raises :class:`assay.storage.StorageError` (exit 2) when a named SQLite database's folder
    does not exist (:func:`assay.storage.engine.check_db_folder`): only ``$ASSAY_HOME`` is created.
    """
    from assay.storage import resolve_db_url
    from assay.storage.engine import check_db_folder

    cli_url = (ctx.obj or {}).get("db")
    check_db_folder(cli_url)
    return resolve_db_url(cli_url)


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


def check_label_field(cases: Sequence[Case], label_field: str, positive: str, file: Path | str) -> None:
    """:class:`UsageError` (exit 2, nothing written) when ``--label-field`` is in no case of
    ``file`` (naming the fields that are, nearest first) or ``--positive`` matches no case's
    label (naming the values seen: the 10 most frequent with their counts).

    Labels compare as ``--positive`` text: strings as they are, other JSON values as JSON
    writes them (``true``, ``3``), as :mod:`assay.evaluate` reads them.
    """
    import difflib
    from collections import Counter

    labels = [c.get_field(label_field) for c in cases]
    if all(v is None for v in labels):
        fields = sorted(
            {name for c in cases for name, v in c.model_dump(exclude_defaults=True).items() if _scalar(v)}
            | {f"meta.{k}" for c in cases for k, v in c.meta.items() if _scalar(v)}
        )
        near = difflib.get_close_matches(label_field, fields, n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        raise UsageError(
            f"--label-field {label_field}: no case of {file} has it; {hint}fields with a value: {', '.join(fields)}"
        )
    seen = Counter(
        v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True) for v in labels if v is not None
    )
    if positive not in seen:
        top = ", ".join(f"{v!r} ({n})" for v, n in seen.most_common(10))
        more = f", … {len(seen) - 10} more" if len(seen) > 10 else ""
        raise UsageError(f"--positive {positive!r}: no case has {label_field} = {positive!r}; values seen: {top}{more}")


def _scalar(v: object) -> bool:
    return isinstance(v, str | int | float | bool) and v != ""


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


#: Seconds between two plain progress lines when stderr is not a terminal (a log, CI, a pipe):
#: often enough to show a long run is alive, rare enough to keep a log short (issue 16, item 5).
PLAIN_PROGRESS_INTERVAL_S = 10.0


class ProgressBar(Progress):
    """A :class:`rich.progress.Progress` that, when its console is not a terminal, prints one
    plain line (``label: done/total (pct), rate/s, elapsed``) every ``interval_s`` seconds of
    progress instead of a live bar; ``quiet`` turns both off. Tasks are still counted when quiet,
    so callers read ``task.completed`` as usual."""

    def __init__(
        self,
        label: str,
        *columns: str | ProgressColumn,
        quiet: bool = False,
        interval_s: float = PLAIN_PROGRESS_INTERVAL_S,
        console: Console | None = None,
        get_time: Callable[[], float] | None = None,
    ) -> None:
        console = console or err
        self._label = label
        self._plain = not quiet and not console.is_terminal
        self._interval_s = interval_s
        super().__init__(*columns, console=console, transient=True, disable=quiet or self._plain, get_time=get_time)
        self._last_line = self.get_time()

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._maybe_line(task_id)

    def update(self, task_id: TaskID, **kwargs: Any) -> None:  # type: ignore[override]
        super().update(task_id, **kwargs)
        self._maybe_line(task_id)

    def _maybe_line(self, task_id: TaskID) -> None:
        if not self._plain:
            return
        now = self.get_time()
        if now - self._last_line < self._interval_s:
            return
        self._last_line = now
        self.console.print(plain_progress_line(self._label, self._tasks[task_id]), markup=False, highlight=False)


def plain_progress_line(label: str, task: Task) -> str:
    """``label: 120/400 (30%), 4.0/s, 30 s`` for ``task`` (total unknown: ``label: 120, 4.0/s, 30 s``);
    its extra fields (e.g. ``loss``) follow as ``name value``."""
    done = int(task.completed)
    elapsed = task.elapsed or 0.0
    rate = done / elapsed if elapsed > 0 else 0.0
    count = f"{done}/{int(task.total)} ({done / task.total:.0%})" if task.total else f"{done}"
    fields = "".join(f", {k} {v}" for k, v in task.fields.items())
    return f"{label}: {count}, {rate:.1f}/s, {elapsed:.0f} s{fields}"


def progress_bar(label: str, *extra: ProgressColumn, quiet: bool = False) -> Progress:
    """A transient progress bar on stderr: ``label``, the bar, done/total, ``extra`` columns, elapsed time.

    On a terminal a live rich bar; off a terminal a plain stderr line every
    :data:`PLAIN_PROGRESS_INTERVAL_S` seconds (:class:`ProgressBar`); ``quiet`` (the commands'
    ``--quiet``) prints neither.
    """
    return ProgressBar(
        label, TextColumn(label), BarColumn(), MofNCompleteColumn(), *extra, TimeElapsedColumn(), quiet=quiet
    )
