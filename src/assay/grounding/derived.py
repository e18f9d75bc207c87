"""The uncited one-row derivations as a :class:`~assay.grounding.match.CandidateSet` whose
candidates are made only when a stated quantity comes near them.

``derive(row)`` over every row of a snapshot makes ~260 :class:`Candidate` objects per TAT-QA
passage (n·(n−1) ordered pairs × up to six operations) of which a gate call looks at a handful.
:class:`DerivedSet` computes, with numpy, the value of every operation :func:`derive` can form
for every ordered pair (a superset: whether derive forms it is left to derive) — all the
prefilter of :meth:`CandidateSet.near` needs — and makes a pair's candidates by running
:func:`~assay.grounding.candidates.derive` itself on the pair when one of its values comes near
a quantity, keeping those it formed. Same candidates, same order, same ``near``/``nearest``:
``DerivedSet(rows)`` behaves as ``CandidateSet([d for row in rows for d in derive(row)])``
(``tests/grounding/test_derived.py``). An operation derive forms that this module does not
know (a new ``op``) makes the set fall back to the eager list, never to a wrong answer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.claims import Quantity
from assay.grounding.candidates import Candidate, derive
from assay.grounding.match import CandidateSet

__all__ = ["DerivedSet"]

#: The operations derive forms for an ordered pair (a, b), in its order, and their values: a+b,
#: a−b (its dimension's), a−b (as ``pp``), a/b, |a|/|b|, (a−b)/b. Slot of a formed candidate:
#: by its ``op``, the second "a-b" of a pair being the ``pp`` one.
_OPS = ("a+b", "a-b", "a-b", "a/b", "|a|/|b|", "(a-b)/b")
_SLOTS = len(_OPS)


class DerivedSet(CandidateSet):
    """The derivations of every ordered pair within each row of ``rows``, made on demand.

    ``items`` (all of them, made on first access), ``len``, ``near`` and ``nearest`` give what a
    :class:`CandidateSet` of ``[d for row in rows for d in derive(row)]`` gives."""

    #: A derivation set's first two queries compare every entry: a TAT-QA context's ~380 derivation
    #: values are queried ~1.4 times (only for numbers no passage number backs), and sorting them (an
    #: argsort and two lists per array, ~50 µs) cost more than comparing them (23 vs 35 ms a pass).
    scans_before_sort = 2

    def __init__(self, rows: Sequence[Sequence[Candidate]]):  # no super().__init__: items are lazy
        self._rows = [tuple(r) for r in rows]
        flat: list[Candidate] = [c for row in self._rows for c in row]
        self._flat = flat
        self._made: dict[int, list[Candidate | None]] = {}  # pair → its slots (None: not formed)
        self._all: list[Candidate] | None = None
        self._eager: CandidateSet | None = None  # after an operation _OPS does not know
        self._ia, self._ib, rev = _row_pairs([len(row) for row in self._rows])
        self._rev = rev.tolist()  # pair (a, b) → pair (b, a)
        if len(self._ia):
            vals, disp = _values(flat, self._ia, self._ib)
        else:
            vals = disp = np.zeros(0)
        # slot i of pair p is entry p * _SLOTS + i: the order of derive's output
        self._keys(np.abs(vals.ravel()), np.abs(disp.ravel()))

    @property
    def items(self) -> list[Candidate]:
        """Every derivation, in :func:`derive` order (made on first access)."""
        if self._all is None:
            self._all = [d for row in self._rows for d in derive(row)]
        return self._all

    @items.setter
    def items(self, value: list[Candidate]) -> None:
        raise AttributeError("DerivedSet.items is derived from its rows")

    def __len__(self) -> int:
        return len(self.items)

    def near(self, q: Quantity) -> list[Candidate]:
        """:meth:`CandidateSet.near`, making only the pairs it comes near."""
        if self._eager is None:
            try:
                return [c for i in self._hits(q) if (c := self._entry(i)) is not None]
            except _UnknownDerivation:
                self._eager = CandidateSet(self.items)
        return self._eager.near(q)

    def nearest(self, q: Quantity, k: int = 8) -> list[Candidate]:
        """:meth:`CandidateSet.nearest`, making only the pairs it returns (and those it skips)."""
        if self._eager is None:
            try:
                out: list[Candidate] = []
                for i in self._nearest_indices(q, len(self._vals)):
                    if len(out) == k:
                        break
                    c = self._entry(i)
                    if c is not None:
                        out.append(c)
                return out
            except _UnknownDerivation:
                self._eager = CandidateSet(self.items)
        return self._eager.nearest(q, k)

    def _entry(self, i: int) -> Candidate | None:
        """The candidate at entry ``i`` (pair ``i // _SLOTS``, slot ``i % _SLOTS``), None when
        derive does not form it."""
        p = i // _SLOTS
        made = self._made.get(p)
        if made is None:  # both orders at once: |a−b| = |b−a| and a+b = b+a come near a quantity together
            made, self._made[self._rev[p]] = _slotted(self._flat[self._ia[p]], self._flat[self._ib[p]])
            self._made[p] = made
        return made[i % _SLOTS]


def _slotted(a: Candidate, b: Candidate) -> tuple[list[Candidate | None], list[Candidate | None]]:
    """What :func:`derive` forms for the ordered pairs ``(a, b)`` and ``(b, a)`` (one call of it
    forms both), each by slot (see :data:`_OPS`). Raises ``_UnknownDerivation`` for an operation
    it does not know."""
    ab: list[Candidate | None] = [None] * _SLOTS
    ba: list[Candidate | None] = [None] * _SLOTS
    for c in derive([a, b]):
        slots = ab if c.operands and c.operands[0] is a and c.operands[1] is b else ba
        i = next((j for j, op in enumerate(_OPS) if op == c.op and slots[j] is None), None)
        if i is None:
            raise _UnknownDerivation(c.op)
        slots[i] = c
    return ab, ba


class _UnknownDerivation(Exception):
    """derive formed an operation :data:`_OPS` does not lay out (the set must go eager)."""


def _row_pairs(lengths: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ia, ib, rev)`` for rows of ``lengths`` numbers laid end to end: the flat indices of both
    numbers of every ordered pair within a row (rows in order, each row's pairs in ``permutations``
    order: pair ``(i, j)`` of a row of ``n`` at ``i·(n−1) + j − (j > i)`` after the pairs of the
    rows before), and ``rev[p]`` the position of pair ``p`` reversed. Computed for all rows at once
    (a numpy step per row was a fifth of building the set for a TAT-QA table)."""
    n = np.asarray(lengths, dtype=np.intp)
    counts = n * (n - 1)
    total = int(counts.sum()) if len(n) else 0
    if not total:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty
    starts = n.cumsum() - n  # each row's first number (array methods: numpy's function wrappers cost more)
    firsts = counts.cumsum() - counts  # each row's first pair
    row = np.arange(len(n)).repeat(counts)
    m = (n - 1)[row]
    local = np.arange(total) - firsts[row]
    i = local // m
    k = local - i * m
    j = k + (k >= i)
    first = starts[row]
    return first + i, first + j, firsts[row] + j * m + i - (i > j)


def _values(flat: list[Candidate], ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs, _SLOTS)`` arrays: each operation's value and displayed value (NaN: none) for
    every pair, whether or not derive forms it (a superset for the prefilter)."""
    value = np.array([c.value for c in flat], dtype=float)
    shown = np.array([np.nan if c.displayed is None else c.displayed for c in flat], dtype=float)
    va, vb = value[ia], value[ib]
    vals = np.empty((len(va), _SLOTS))  # filled by column (np.stack of six arrays cost twice as much)
    disp = np.full((len(va), _SLOTS), np.nan)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        vals[:, 0] = va + vb
        vals[:, 1] = vals[:, 2] = va - vb
        vals[:, 3] = va / vb
        vals[:, 4] = np.abs(vals[:, 3])
        vals[:, 5] = (va - vb) / vb
        da, db = shown[ia], shown[ib]
        disp[:, 0] = da + db
        disp[:, 1] = da - db
    return vals, disp
