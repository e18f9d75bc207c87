"""Progress of the long ``assay memory`` commands (add, evaluate, train, calibrate, backfill, reembed).

On a terminal: :func:`assay.cli.common.progress_bar` (rich, stderr, transient). Off a terminal
(a pipe, a CI log): one plain stderr line at most every :data:`PLAIN_INTERVAL_S` seconds,
``label: done/total (rate/s)``, so a long run shows it is alive without flooding a log.
``--quiet`` (the command's, or a global one in ``ctx.obj["quiet"]``) turns both off.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer

from assay.cli.common import err, progress_bar

__all__ = ["memory_progress", "Ticker", "PLAIN_INTERVAL_S", "QUIET_OPT", "is_quiet"]

#: Seconds between two plain progress lines off a terminal (issue 16: "a plain stderr line every 10 s").
PLAIN_INTERVAL_S = 10.0

QUIET_OPT = typer.Option(False, "--quiet", "-q", help="No progress bar or progress lines on stderr.")

#: ``update(done, total)``: ``total`` None while unknown.
Update = Callable[[int, "int | None"], None]


def is_quiet(ctx: typer.Context, quiet: bool) -> bool:
    """The command's ``--quiet``, or a global ``--quiet`` the app put in ``ctx.obj``."""
    root = ctx.find_root() if ctx is not None else None
    obj = (getattr(root, "obj", None) or {}) if root is not None else {}
    return bool(quiet or (isinstance(obj, dict) and obj.get("quiet")))


class Ticker:
    """The off-terminal progress: ``update(done, total)`` prints ``label: done/total (rate/s)``
    on ``write`` when ``interval`` seconds have passed since the last line (``clock``: seconds)."""

    def __init__(
        self,
        label: str,
        *,
        write: Callable[[str], None],
        interval: float = PLAIN_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.label, self._write, self._interval, self._clock = label, write, interval, clock
        self._start = self._last = clock()

    def update(self, done: int, total: int | None) -> None:
        now = self._clock()
        if now - self._last < self._interval:
            return
        self._last = now
        rate = done / (now - self._start) if now > self._start else 0.0
        of = f"/{total:,}" if total is not None else ""
        self._write(f"{self.label}: {done:,}{of} ({rate:,.1f}/s)")


@contextmanager
def memory_progress(label: str, *, quiet: bool, total: int | None = None) -> Iterator[Update]:
    """Yield ``update(done, total)`` for a loop of ``total`` steps (``None``: unknown yet);
    see the module docstring for where it shows."""
    if quiet:

        def silent(done: int, total: int | None = None) -> None:
            return None

        yield silent
        return
    if not err.is_terminal:
        ticker = Ticker(label, write=lambda line: err.print(line, markup=False, highlight=False))
        yield ticker.update
        return
    with progress_bar(label) as bar:
        task = bar.add_task(label, total=total)

        def update(done: int, total: int | None = None) -> None:
            bar.update(task, completed=done, total=total)

        yield update
