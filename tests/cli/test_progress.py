"""Progress on stderr (issue 16 item 5): rich on a terminal, a plain line every interval off one
(done/total, the rate, the task's fields such as the judge's live counts), nothing with quiet."""

from __future__ import annotations

import io
import time

from rich.console import Console
from rich.progress import Progress

from assay.cli.common import progress_bar
from assay.cli.progress import NullProgress, PlainProgress, make_progress


def test_the_kind_follows_the_console_and_quiet():
    assert isinstance(make_progress("x", console=Console(file=io.StringIO(), force_terminal=True)), Progress)
    assert isinstance(make_progress("x", console=Console(file=io.StringIO(), force_terminal=False)), PlainProgress)
    assert isinstance(
        make_progress("x", console=Console(file=io.StringIO(), force_terminal=True), quiet=True), NullProgress
    )
    assert isinstance(progress_bar("x", quiet=True), NullProgress)  # the old signature still works, plus quiet


def test_plain_progress_prints_done_total_rate_and_fields_every_interval():
    buf = io.StringIO()
    with PlainProgress("eval", buf, interval=0.05) as bar:
        task = bar.add_task("judge", total=4, info="calls 0")
        for i in range(4):
            bar.update(task, advance=1, info=f"calls {i + 1}")
            time.sleep(0.06)
    lines = buf.getvalue().splitlines()
    assert len(lines) >= 2
    assert lines[-1].startswith("eval judge: 4/4 (") and "/s)" in lines[-1] and lines[-1].endswith("info calls 4")


def test_plain_progress_of_a_short_loop_prints_nothing():
    buf = io.StringIO()
    with PlainProgress("eval", buf, interval=10) as bar:
        bar.advance(bar.add_task("cases", total=3), 3)
    assert buf.getvalue() == ""


def test_null_progress_has_the_interface_and_prints_nothing():
    with NullProgress() as bar:
        t = bar.add_task("cases", total=2, info="")
        bar.advance(t)
        bar.update(t, advance=1, info="x")
