"""The Stop hook's transcript read never blocks: a FIFO under the project roots is refused."""

from __future__ import annotations

import os
import threading

import pytest

from assay.server.hooks import last_assistant_message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_transcript_raises_at_once_instead_of_blocking(tmp_path):
    # found by rtry: open() on a FIFO blocked the worker forever (503 after 10 s) and SIGTERM hung
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException | str] = []

    def read() -> None:
        try:
            outcome.append(last_assistant_message(fifo, 1000))
        except BaseException as e:  # noqa: BLE001 - the outcome is what the test checks
            outcome.append(e)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(5)
    if t.is_alive():  # unblock the reader so the test run does not hang, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("last_assistant_message blocked on a FIFO")
    assert len(outcome) == 1 and isinstance(outcome[0], OSError), outcome


def test_a_regular_transcript_is_still_read(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"type": "assistant", "message": {"role": "assistant", "content": "hi"}}\n', encoding="utf-8")
    assert last_assistant_message(p, 1000) == "hi"
