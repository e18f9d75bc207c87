"""Progress of the memory's long loops (add, evaluate, train, calibrate, backfill, reembed) as the
``assay memory`` commands show it.

On a terminal: the rich bar the caller passes (``assay.cli.common.progress_bar``: stderr,
transient). Off a terminal (a pipe, a CI log): one plain line at most every
:data:`PLAIN_INTERVAL_S` seconds, ``label: done/total (rate/s)``, so a long run shows it is alive
without flooding a log. ``quiet`` (the commands' ``--quiet``) turns both off. The CLI passes its
console and bar factory in: retrieval never imports the CLI.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["memory_progress", "Ticker", "PLAIN_INTERVAL_S"]

#: Seconds between two plain progress lines off a terminal (issue 16: "a plain stderr line every 10 s").
PLAIN_INTERVAL_S = 10.0

#: ``update(done, total)``: ``total`` None while unknown.
Update = Callable[[int, "int | None"], None]


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
def memory_progress(
    label: str, *, quiet: bool, console: Any, bar: Callable[[str], Any], total: int | None = None
) -> Iterator[Update]:
    """Yield ``update(done, total)`` for a loop of ``total`` steps (``None``: unknown yet).

    ``console``: the rich console progress goes to (stderr); ``bar(label)``: a rich ``Progress``
    for the terminal. See the module docstring for where it shows."""
    err = console
    if quiet:

        def silent(done: int, total: int | None = None) -> None:
            return None

        yield silent
        return
    if not err.is_terminal:
        ticker = Ticker(label, write=lambda line: err.print(line, markup=False, highlight=False))
        yield ticker.update
        return
    with bar(label) as live:
        task = live.add_task(label, total=total)

        def update(done: int, total: int | None = None) -> None:
            live.update(task, completed=done, total=total)

        yield update
