"""The lazy derivation set is the eager one (issue 15, speed): :class:`DerivedSet` of rows gives
the candidates, the order and the prefilter of ``CandidateSet([d for row in rows for d in
derive(row)])``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import Quantity
from assay.grounding.candidates import Candidate, derive
from assay.grounding.derived import DerivedSet
from assay.grounding.match import CandidateSet, match

_VALUES = st.one_of(
    st.sampled_from([0.0, 1.0, -1.0, 2.0, 100.0, 1577.3, -59.659, 0.25, 12.5, 3.0]),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
)
_CANDIDATE = st.builds(
    Candidate,
    value=_VALUES,
    dim=st.sampled_from(["currency", "per_share", "amount", "none", "count", "percent", "pp", "ratio", "multiple"]),
    ref=st.sampled_from(["F1", "F2", "S1:L3", "S1:L4"]),
    label=st.sampled_from(["", "Revenue", "Net income | 2019"]),
    currency=st.sampled_from([None, None, "USD", "EUR"]),
    displayed=st.one_of(st.none(), _VALUES),
    origin=st.sampled_from(["fact", "passage"]),
    period=st.sampled_from([None, "FY2023", "FY2022", "2019", "Q3 2019", "Q1 2019", "FY23"]),
)
_ROWS = st.lists(st.lists(_CANDIDATE, max_size=5), max_size=4)
_QUANTITY = st.builds(
    Quantity,
    text=st.just("x"),
    span=st.just((0, 1)),
    value=_VALUES,
    scale=st.sampled_from([1.0, 1e3, 1e6, 0.01]),
    unit=st.sampled_from([None, "%", "pp", "x", "USD", "USD/share"]),
    decimals=st.integers(0, 3),
    direction=st.sampled_from([None, 1, -1]),
    sign_wording=st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(_ROWS, st.lists(_QUANTITY, max_size=4))
def test_property_lazy_derivations_are_derive(rows, quantities):
    eager = CandidateSet([d for row in rows for d in derive(row)])
    lazy = DerivedSet(rows)
    assert len(lazy) == len(eager)
    for q in quantities:
        assert lazy.near(q) == eager.near(q)
        assert lazy.nearest(q, 5) == eager.nearest(q, 5)
        assert match(q, lazy) == match(q, eager)
    assert lazy.items == eager.items


def test_lazy_derivations_of_a_table_row():
    row = [
        Candidate(1577.3e6, "amount", "S1:L3", "Capex", None, 1577.3, origin="passage", period="2019"),
        Candidate(-1234.5e6, "amount", "S1:L3", "Capex", None, -1234.5, origin="passage", period="2018"),
        Candidate(12.5, "percent", "S1:L3", "Capex", None, 12.5, origin="passage"),
    ]
    lazy = DerivedSet([row, row[:1], []])
    assert lazy.items == derive(row)
    q = Quantity("$342.8 million", (0, 14), 342.8, 1e6, "USD", 1)
    assert [c.ref for c in lazy.near(q)] == ["S1:L3+S1:L3"] * 2 == [c.ref for c in CandidateSet(derive(row)).near(q)]
    assert DerivedSet([]).items == [] and DerivedSet([]).near(q) == []


def test_an_operation_the_layout_does_not_know_falls_back_to_the_eager_set(monkeypatch):
    from assay.grounding import derived

    row = [
        Candidate(10.0, "amount", "S1:L1", displayed=10.0, origin="passage"),
        Candidate(4.0, "amount", "S1:L1", displayed=4.0, origin="passage"),
    ]
    monkeypatch.setattr(derived, "_OPS", ("a+b", "a-b", "a-b", "a/b", "|a|/|b|", "(b-a)/a"))  # one unknown op
    lazy = DerivedSet([row])
    q = Quantity("1.5", (0, 3), 1.5, 1.0, None, 1)  # (10-4)/4
    assert lazy.near(q) == CandidateSet(derive(row)).near(q)
    assert [c.op for c in lazy.near(q)] == ["(a-b)/b"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=7), max_size=9))
def test_property_row_pairs_are_each_rows_permutations(lengths):
    """All rows' ordered pairs at once (numpy) are each row's ``permutations`` in order, with each
    pair's reverse where it lies."""
    from itertools import permutations

    from assay.grounding.derived import _row_pairs

    want, start = [], 0
    for n in lengths:
        want += [(start + i, start + j) for i, j in permutations(range(n), 2)]
        start += n
    ia, ib, rev = _row_pairs(lengths)
    got = list(zip(ia.tolist(), ib.tolist(), strict=True))
    assert got == want
    assert [got[r] for r in rev.tolist()] == [(b, a) for a, b in want]
