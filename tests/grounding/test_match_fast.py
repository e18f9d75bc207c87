"""The gate's matching fast paths give what the plain computation gives (issue 15 speed follow-up)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import Quantity
from assay.facts import Fact, Snapshot
from assay.grounding.candidates import Candidate
from assay.grounding.index import SnapshotIndex
from assay.grounding.match import CandidateSet

VALUES = st.one_of(st.sampled_from([0.0, -0.0, 1.0, 5.0, -5.0, 100.0, 1e6]), st.floats(-1e7, 1e7, allow_nan=False))


def _cand(i: int, value: float, displayed: float | None) -> Candidate:
    return Candidate(ref=f"F{i}", label=f"Item {i}", value=value, dim="none", displayed=displayed)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(VALUES, st.one_of(st.none(), VALUES)), max_size=40),
    VALUES,
    st.sampled_from([1.0, 1e3, 1e6]),
    st.integers(0, 45),
)
def test_nearest_equals_the_stable_argsort(rows: list[tuple[float, float | None]], value: float, scale: float, k: int):
    cs = CandidateSet(_cand(i, v, d) for i, (v, d) in enumerate(rows))
    q = Quantity(text=str(value), span=(0, 1), value=value, scale=scale)
    got = cs._nearest_indices(q, k)
    if not cs._vals.size:
        assert got == []
        return
    stated, s = max(abs(q.value), 1e-12), q.scale
    with np.errstate(invalid="ignore"):
        errs = np.fmin(
            np.fmin(np.abs(cs._vals / s - stated), np.abs(cs._vals * 100 / s - stated)), np.abs(cs._disp - stated)
        )
    assert got == [int(i) for i in np.argsort(errs, kind="stable")[:k]]


def test_uncited_fact_set_is_built_once_per_index_even_when_empty() -> None:
    idx = SnapshotIndex.build(Snapshot(sources=("Revenue was 5.",)))
    assert idx.uncited_facts() is idx.uncited_facts() and len(idx.uncited_facts()) == 0
    full = SnapshotIndex.build(Snapshot(facts=[Fact(id="F1", label="Revenue", value=5.0)]))
    assert [c.ref for c in full.uncited_facts().items] == ["F1"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(VALUES, st.one_of(st.none(), VALUES)), max_size=40),
    st.lists(st.tuples(VALUES, st.sampled_from([1.0, 1e3, 1e6]), st.integers(0, 3)), min_size=1, max_size=6),
)
def test_scanned_and_sorted_prefilters_find_the_same_candidates(rows, queries):
    """A set's first queries may compare every entry (``scans_before_sort``: a derivation set's); later
    ones binary-search the sorted magnitudes: the same indices, in order, either way."""
    scanning = CandidateSet(_cand(i, v, d) for i, (v, d) in enumerate(rows))
    scanning.scans_before_sort = len(queries)  # every query of it compares every entry
    sorting = CandidateSet(_cand(i, v, d) for i, (v, d) in enumerate(rows))
    for value, scale, decimals in queries:
        q = Quantity(text=str(value), span=(0, 1), value=value, scale=scale, decimals=decimals)
        assert scanning._hits(q) == sorting._hits(q)
    assert sorting._sorted is not None or not sorting._vals.size


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(VALUES, st.just(float("nan")), st.sampled_from([0.0, -0.0, 5.0])), max_size=50))
def test_sorted_keys_are_the_masked_stable_sort(values):
    """The prefilter's sorted keys: the stable order less its NaNs (which numpy sorts last), values and indices."""
    from assay.grounding.match import _sorted_keys

    arr = np.abs(np.array(values, dtype=float))
    order = np.argsort(arr, kind="stable")
    order = order[~np.isnan(arr[order])]
    assert _sorted_keys(arr) == (arr[order].tolist(), order.tolist())
