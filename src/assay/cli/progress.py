"""Progress of long loops, on stderr (issue 16 item 5): a rich bar on a terminal, a plain line every
10 s off one (a CI log, a pipe: done/total and the rate), nothing with ``--quiet``.

:func:`make_progress` is what :func:`assay.cli.common.progress_bar` returns. The three kinds share
the part of :class:`rich.progress.Progress`'s interface the commands use: a context manager with
``add_task(description, total=…, **fields)``, ``advance(task, n)`` and ``update(task, advance=…,
completed=…, total=…, **fields)``; extra task fields (a judge's live call and rejection counts)
show as rich columns on a terminal and as ``name value`` pairs in the plain line.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import IO, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

__all__ = ["PLAIN_INTERVAL_S", "NullProgress", "PlainProgress", "make_progress"]

#: Seconds between two plain progress lines off a terminal (issue 16: every 10 s).
PLAIN_INTERVAL_S = 10.0


def make_progress(
    label: str,
    *extra: ProgressColumn,
    console: Console,
    quiet: bool = False,
    interval: float = PLAIN_INTERVAL_S,
) -> Progress | PlainProgress | NullProgress:
    """A transient rich bar on ``console`` when it is a terminal (``label``, the bar, done/total,
    ``extra`` columns, elapsed time); a :class:`PlainProgress` on its file otherwise; a
    :class:`NullProgress` when ``quiet``."""
    if quiet:
        return NullProgress()
    if console.is_terminal:
        return Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            *extra,
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
    return PlainProgress(label, console.file, interval=interval)


class NullProgress:
    """The progress of ``--quiet``: the interface, doing nothing."""

    def __enter__(self) -> NullProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: float | None = None, **fields: Any) -> TaskID:
        return TaskID(0)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        return None

    def update(self, task_id: TaskID, **changes: Any) -> None:
        return None


@dataclass
class _Task:
    description: str
    total: float | None
    completed: float = 0
    fields: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)


class PlainProgress:
    """Off a terminal: one line per task every ``interval`` seconds while the loop runs, e.g.
    ``scoring cases: 120/400 (3.1/s) judge_calls 118 rejected 2``, and one last line at the end
    when the loop ran past one interval. Lines are written by a daemon thread, so a slow step
    (an LLM call) does not hold them back."""

    def __init__(self, label: str, file: IO[str], *, interval: float = PLAIN_INTERVAL_S) -> None:
        self.label = label
        self.file = file
        self.interval = interval
        self.tasks: list[_Task] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()

    def __enter__(self) -> PlainProgress:
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._tick, name="assay-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if exc_type is None and time.monotonic() - self._started >= self.interval:
            self._emit()

    def add_task(self, description: str, total: float | None = None, **fields: Any) -> TaskID:
        with self._lock:
            self.tasks.append(_Task(description, total, fields=dict(fields)))
            return TaskID(len(self.tasks) - 1)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        with self._lock:
            self.tasks[task_id].completed += advance

    def update(
        self,
        task_id: TaskID,
        *,
        advance: float | None = None,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
        **fields: Any,
    ) -> None:
        with self._lock:
            task = self.tasks[task_id]
            if completed is not None:
                task.completed = completed
            if advance is not None:
                task.completed += advance
            if total is not None:
                task.total = total
            if description is not None:
                task.description = description
            task.fields.update(fields)

    def lines(self) -> list[str]:
        """The current line of each task (what the next tick prints)."""
        now = time.monotonic()
        with self._lock:
            out = []
            for t in self.tasks:
                done = f"{t.completed:g}" + (f"/{t.total:g}" if t.total is not None else "")
                elapsed = now - t.started
                rate = f" ({t.completed / elapsed:.1f}/s)" if elapsed > 0 else ""
                extra = "".join(f" {k} {v}" for k, v in t.fields.items())
                out.append(f"{self.label} {t.description}: {done}{rate}{extra}")
            return out

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._emit()

    def _emit(self) -> None:
        for line in self.lines():
            print(line, file=self.file, flush=True)
