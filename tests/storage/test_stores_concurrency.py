"""4 processes writing to one store at once, on SQLite and on PostgreSQL (issue 10).

Every workload of :data:`store_workloads.WORKLOADS` (memo cache upserts on the same keys, LLM
response cache inserts shared and own; the memory store's deliveries join there): after the
run every row is present, keys that are unique appear once, counters lost no increment, and
no writer died of a lock or serialisation error (an exception in a writer fails the test).
The 4 × 2,000 run of the issue is ``slow``; a 4 × 250 run keeps ``make test-fast`` honest.
"""

from __future__ import annotations

import multiprocessing as mp

import pytest

from assay.storage import init_db, make_engine
from store_workloads import WORKLOADS, run_writer

WRITERS = 4


@pytest.mark.parametrize("n", [pytest.param(250, id="4x250"), pytest.param(2000, id="4x2000", marks=pytest.mark.slow)])
@pytest.mark.parametrize("workload", sorted(WORKLOADS))
def test_four_writers_leave_every_row_once(db_url, workload, n):
    engine = make_engine(db_url)
    init_db(engine)
    engine.dispose()
    with mp.get_context("spawn").Pool(WRITERS) as pool:
        seconds = pool.starmap_async(run_writer, [(db_url, workload, p, n) for p in range(WRITERS)]).get(timeout=900)
    assert len(seconds) == WRITERS
    assert WORKLOADS[workload].check(db_url, WRITERS, n) == []
