"""The uncited one-row derivations as a :class:`~assay.grounding.match.CandidateSet` whose
candidates are made only when a stated quantity comes near them.

``derive(row)`` over every row of a snapshot makes ~260 :class:`Candidate` objects per TAT-QA
passage (n·(n−1) ordered pairs × up to six operations) of which a gate call looks at a handful.
:class:`DerivedSet` computes the same values with numpy, one array per operation slot over all
pairs (the prefilter of :meth:`CandidateSet.near` needs only the magnitudes), and makes a
pair's candidates with :func:`~assay.grounding.candidates.pair_derivations` — the very code
:func:`~assay.grounding.candidates.derive` runs — when one of them is asked for. Same
candidates, same order: ``DerivedSet(rows).items == [d for row in rows for d in derive(row)]``
(``tests/grounding/test_derived.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from assay.claims import Quantity
from assay.grounding.candidates import Candidate, pair_derivations, period_rank
from assay.grounding.match import CandidateSet, _sorted_keys

__all__ = ["DerivedSet"]

#: Operation slots of one ordered pair, in :func:`~assay.grounding.candidates.pair_derivations`'
#: order: a+b, a−b, a−b as pp, a/b, |a|/|b|, (a−b)/b.
_SLOTS = 6
_AMOUNTS = ("currency", "per_share", "amount", "none", "count")


class DerivedSet(CandidateSet):
    """The derivations of every ordered pair within each row of ``rows``, made on demand.

    ``items`` (all of them, built on first access), ``near`` and ``nearest`` give what a
    :class:`CandidateSet` of ``[d for row in rows for d in derive(row)]`` gives."""

    def __init__(self, rows: Sequence[Sequence[Candidate]]):  # no super().__init__: items are lazy
        flat: list[Candidate] = [c for row in rows for c in row]
        ia_parts, ib_parts, start = [], [], 0
        for row in rows:
            a, b = _pairs(len(row))
            ia_parts.append(a + start)
            ib_parts.append(b + start)
            start += len(row)
        self._flat = flat
        self._pair_cache: dict[int, list[Candidate]] = {}
        self._all: list[Candidate] | None = None
        if not flat or not ia_parts:
            self._ia = self._ib = self._pair = self._slot = np.zeros(0, dtype=np.intp)
            self._vals = self._disp = np.zeros(0)
        else:
            self._ia, self._ib = np.concatenate(ia_parts), np.concatenate(ib_parts)
            self._vals, self._disp, self._pair, self._slot = _layout(flat, self._ia, self._ib)
        self._by_val = _sorted_keys(self._vals)
        self._by_disp = _sorted_keys(self._disp)

    @property
    def items(self) -> list[Candidate]:
        """Every derivation, in :func:`derive` order (made on first access)."""
        if self._all is None:
            self._all = [self._item(i) for i in range(len(self))]
        return self._all

    @items.setter
    def items(self, value: list[Candidate]) -> None:
        raise AttributeError("DerivedSet.items is derived from its rows")

    def __len__(self) -> int:
        return len(self._slot)

    def near(self, q: Quantity) -> list[Candidate]:
        """:meth:`CandidateSet.near`, making only the candidates it returns."""
        return [self._item(i) for i in self._hits(q)]

    def nearest(self, q: Quantity, k: int = 8) -> list[Candidate]:
        """:meth:`CandidateSet.nearest`, making only the candidates it returns."""
        return [self._item(i) for i in self._nearest_indices(q, k)]

    def _item(self, i: int) -> Candidate:
        """The ``i``-th derivation: its pair's derivations, made once, at its slot's rank."""
        p = int(self._pair[i])
        made = self._pair_cache.get(p)
        if made is None:
            made = self._pair_cache[p] = pair_derivations(self._flat[self._ia[p]], self._flat[self._ib[p]])
        # the pair's present slots before this one: its position in what pair_derivations made
        first = i
        while first > 0 and self._pair[first - 1] == p:
            first -= 1
        return made[i - first]


@lru_cache(maxsize=64)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)`` index arrays of the ordered pairs of ``range(n)`` in ``permutations`` order."""
    a, b = np.divmod(np.arange(n * n), n)
    keep = a != b
    return a[keep], b[keep]


def _layout(
    flat: list[Candidate], ia: np.ndarray, ib: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Magnitudes, displayed magnitudes (NaN: none), pair and slot of every derivation, in order.

    The conditions are :func:`~assay.grounding.candidates.pair_derivations`' own: additive
    (both amounts of no conflicting currency, or one dimension), the ``pp`` difference (both
    percent or dimensionless), a non-zero divisor, opposite signs, and (a−b)/b unless b is the
    later period."""
    value = np.array([c.value for c in flat], dtype=float)
    shown = np.array([np.nan if c.displayed is None else c.displayed for c in flat], dtype=float)
    codes: dict[str | None, int] = {None: 0}  # dimensions and currencies as small integers
    dims = [c.dim for c in flat]
    dim_code = np.array([codes.setdefault(d, len(codes)) for d in dims], dtype=np.int64)
    amount = np.array([d in _AMOUNTS for d in dims])
    pct_none = np.array([d in ("percent", "none") for d in dims])
    cur_code = np.array([codes.setdefault(c.currency, len(codes)) for c in flat], dtype=np.int64)
    no_cur = cur_code == 0
    ranks = [period_rank(c.period) for c in flat]
    known = np.array([r is not None for r in ranks])
    rank = np.array([r[0] * 10 + r[1] if r is not None else 0 for r in ranks], dtype=np.int64)

    va, vb = value[ia], value[ib]
    both_amounts = amount[ia] & amount[ib]
    additive = np.where(
        both_amounts,
        no_cur[ia] | no_cur[ib] | (cur_code[ia] == cur_code[ib]),
        dim_code[ia] == dim_code[ib],
    )
    nonzero = vb != 0
    later_b = known[ia] & known[ib] & (rank[ia] < rank[ib])  # chrono is False: b is the later period
    present = np.stack(
        [
            additive,
            additive,
            additive & pct_none[ia] & pct_none[ib],
            nonzero,
            nonzero & (va * vb < 0),
            nonzero & ~later_b,
        ],
        axis=1,
    )
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = va / vb
        vals = np.stack([va + vb, va - vb, va - vb, ratio, np.abs(ratio), (va - vb) / vb], axis=1)
        da, db = shown[ia], shown[ib]
        nan = np.full_like(va, np.nan)
        disp = np.stack([da + db, da - db, nan, nan, nan, nan], axis=1)
    pair, slot = np.nonzero(present)  # row-major: pair by pair, slots in order
    return np.abs(vals[pair, slot]), np.abs(disp[pair, slot]), pair, slot
