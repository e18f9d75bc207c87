"""``cli/common.progress_bar``: a live bar on a terminal, a plain stderr line every 10 s off one,
nothing with ``quiet``; the old call (label, extra columns) keeps working."""

from __future__ import annotations

import io

from rich.console import Console
from rich.progress import TextColumn

from assay.cli.common import PLAIN_PROGRESS_INTERVAL_S, ProgressBar, progress_bar


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _run(console: Console, clock: _Clock, *, quiet: bool = False, steps: int = 40, dt: float = 1.0) -> None:
    with ProgressBar("judging", TextColumn("x"), quiet=quiet, console=console, get_time=clock) as bar:
        task = bar.add_task("cases", total=steps)
        for _ in range(steps):
            clock.t += dt
            bar.advance(task)
        assert bar.tasks[0].completed == steps  # counted even when nothing is shown


def test_off_a_terminal_one_plain_line_every_interval() -> None:
    buf = io.StringIO()
    _run(Console(file=buf, force_terminal=False), _Clock())
    lines = buf.getvalue().splitlines()
    assert PLAIN_PROGRESS_INTERVAL_S == 10.0
    assert lines == [
        "judging: 10/40 (25%), 1.0/s, 10 s",
        "judging: 20/40 (50%), 1.0/s, 20 s",
        "judging: 30/40 (75%), 1.0/s, 30 s",
        "judging: 40/40 (100%), 1.0/s, 40 s",
    ]


def test_a_short_run_off_a_terminal_prints_nothing() -> None:
    buf = io.StringIO()
    _run(Console(file=buf, force_terminal=False), _Clock(), steps=5)
    assert buf.getvalue() == ""


def test_quiet_prints_nothing_anywhere() -> None:
    for terminal in (True, False):
        buf = io.StringIO()
        _run(Console(file=buf, force_terminal=terminal), _Clock(), quiet=True)
        assert buf.getvalue() == ""


def test_unknown_total_and_extra_fields_in_the_plain_line() -> None:
    buf = io.StringIO()
    clock = _Clock()
    with ProgressBar("training", console=Console(file=buf, force_terminal=False), get_time=clock) as bar:
        task = bar.add_task("steps", total=None, loss="—")
        clock.t = 12.0
        bar.update(task, completed=24, loss="0.512")
    assert buf.getvalue().splitlines() == ["training: 24, 2.0/s, 12 s, loss 0.512"]


def test_on_a_terminal_a_live_bar() -> None:
    buf = io.StringIO()
    _run(Console(file=buf, force_terminal=True, width=100), _Clock(), steps=3)
    drawn = buf.getvalue()
    assert "\x1b[?25l" in drawn and "\rx" in drawn.replace("\x1b[2K", "")  # rich drew (and cleared) a live bar
    assert "judging: " not in drawn  # and printed no plain line


def test_the_old_signature_still_works() -> None:
    bar = progress_bar("training", TextColumn("loss {task.fields[loss]}"))
    with bar:
        task = bar.add_task("steps", total=None, loss="—")
        bar.update(task, completed=1, total=2, loss="0.1")
    assert bar.tasks[0].completed == 1
