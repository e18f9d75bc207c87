"""Shared memo-cache fixtures: Apple FY2023 facts, a memo that passes the gate and one that fails
it, an injectable clock, a counting synthesiser, and a reader of the cache table's rows."""

from __future__ import annotations

from sqlalchemy import select

from assay.cache import MemoCache, memo_cache
from assay.facts import Fact, Snapshot

KEY = "memo:AAPL-FY2023:brief"


class Clock:
    """An injectable clock (seconds since the epoch) that tests move by hand."""

    def __init__(self, now: float = 1_700_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def apple() -> Snapshot:
    return Snapshot(
        facts=(
            Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
            Fact(id="F2", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
            Fact(id="F3", label="Gross margin percentage", value=44.1, unit="%", period="FY2023"),
        ),
        sources=("Apple Inc. 10-K fiscal 2023, income statement (in millions)",),
    )


GOOD = "Net sales were $383.3 billion in fiscal 2023 [F1], down from $394.3 billion [F2]. Gross margin was 44.1% [F3]."
UNSOURCED = "Net sales were $390.0 billion in fiscal 2023 [F1]."


class Synth:
    """A synthesiser that counts its calls and returns a fixed answer."""

    def __init__(self, answer: str = GOOD):
        self.answer = answer
        self.calls: list[str] = []

    def __call__(self, snapshot: Snapshot) -> str:
        self.calls.append(snapshot.fingerprint())
        return self.answer


def rows(cache: MemoCache) -> list:
    with cache.engine.connect() as conn:
        return list(conn.execute(select(memo_cache)))
