"""Matching a stated quantity against the numbers of a snapshot: precision, units, signs.

The numbers are :class:`~assay.grounding.candidates.Candidate` objects (facts, passage numbers
and their one-operation derivations, :mod:`assay.grounding.candidates`). :func:`match` decides
whether a :class:`~assay.claims.Quantity` equals a candidate "at the precision the answer
displays": after unit and scale normalisation, ``|candidate − stated| ≤ ½·10^−decimals`` in the
stated scale (``$30 billion`` ↔ 29,943,000,000; ``25.3%`` ↔ ratio 0.2531).

Unit compatibility (stated → candidate dimensions):

=====================  =============================================================
stated                 may match
=====================  =============================================================
currency C             currency C, C/share, amount (unstated currency), bare scaled
C/share                C/share, currency C, dimensionless
``%``                  ``%``, ratio (×100), derived ratios (×100), a dimensionless
                       fact as is (percent columns often drop the sign in cells), and a
                       derived difference of two percents (written "%" for "pp" in practice)
``pp``                 ``pp``, ``%`` differences
``x``                  ``x``, ratio, dimensionless
bare, with scale word  amount, any currency, count, dimensionless (scaled values)
bare, no scale word    count, dimensionless, ratio, and any number *as displayed*
=====================  =============================================================

Answers often copy a table figure without its scale: a number with no scale word (bare or with
a currency) also matches a fact or passage number *as displayed*; a number with a scale word
matches a passage number as displayed when that passage states no scale; a percent matches a
passage number as displayed (percent columns under a "(Millions)" header carry no sign). A
fact is "displayed" only through its ``displayed_value`` in cited mode (issue 15: the rule was
measured on figures copied from tables, not on structured facts with an explicit unit, so
"$6.13 [F1]" does not match 6.13 ``USD millions``); in uncited mode its value also counts as
displayed (:func:`~assay.grounding.candidates.fact_candidate`). A match made through a
displayed reading is recorded as ``scale_from_display``.
Signs: a stated sign must agree; a magnitude-only match of a negative number (an outflow shown
as ``(1,577)``) is accepted only when the wording carries the sign (``spent``, ``capex``) or
states a fall, and is recorded as ``sign_from_wording``. For derivations a stated direction
("grew", "fell") fixes the sign.

Changes against either base (issue 15): a verb of change ("grew", "fell 2.8% from fiscal 2022")
describes the change from the earlier to the later period, so it matches only a forward
derivation (``chrono`` not False). A comparison that names its base ("FY2022 revenue was 2.9%
higher than FY2023 revenue", "exceeded … by 2.9%", "below"; ``Quantity.change_base ==
"against_other"`` with its direction) matches ``(a−b)/b`` or ``(b−a)/a`` — and ``a−b`` or
``b−a`` — with the stated direction fixing the sign, whichever period is later and in whichever
order the markers cite the facts; which figure is the base is then fixed by the stated value
("2.8% higher than FY2023" is the FY2022 base: no match) and, when the sentence names both
periods, by their order (:mod:`assay.grounding.comparison`). A backward relative change never
backs a number stated without such a comparison.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from assay.claims import Quantity
from assay.grounding.candidates import Candidate
from assay.grounding.label_signs import negative_row_reading

__all__ = ["CandidateSet", "MatchResult", "match", "best_match", "near_value", "relative_precision", "readings"]


@dataclass(frozen=True)
class MatchResult:
    """Outcome of matching one quantity: matched candidate, or the reason it failed."""

    matched: bool
    candidate: Candidate | None = None
    sign_from_wording: bool = False
    scale_from_display: bool = False
    unit_mismatch: bool = False
    rejected: tuple[str, str] | None = None  # (kind, reason) of a value match the sentence contradicts


class CandidateSet:
    """Candidates with a numpy prefilter: :func:`match` looks only at candidates whose magnitude
    is within half a displayed unit of the stated number under some reading (value ÷ scale,
    ×100, as displayed, or the raw value). The prefilter is a superset of every reading
    :func:`_targets` and the unit-mismatch check use, so results equal a full scan in order.
    """

    #: Queries answered by comparing every entry before the magnitudes are sorted for binary search.
    #: Zero for a set of facts or passage numbers (sorted on its first query): sorting a TAT-QA
    #: context's ~35 numbers once cost less than comparing them on each of its ~2.6 queries (13 vs
    #: 22 ms a pass over TAT-QA's answers).
    scans_before_sort = 0

    def __init__(self, cands: Iterable[Candidate]):
        self.items: list[Candidate] = list(cands)
        vals = np.abs(np.array([c.value for c in self.items], dtype=float))
        shown = [np.nan if c.displayed is None else c.displayed for c in self.items]
        self._keys(vals, np.abs(np.array(shown, dtype=float)))

    def _keys(self, vals: np.ndarray, disp: np.ndarray) -> None:
        """Keep the magnitudes the prefilter reads: ``vals`` (values) and ``disp`` (displayed; NaN:
        none), entry by entry; sorted on the first query after :attr:`scans_before_sort`."""
        self._vals, self._disp = vals, disp
        self._sorted: tuple[tuple[list[float], list[int]], tuple[list[float], list[int]]] | None = None
        self._queries = 0

    def __len__(self) -> int:
        return len(self.items)

    def near(self, q: Quantity) -> list[Candidate]:
        """Candidates that may match ``q`` (in their original order); O(log n) per reading."""
        return [self.items[i] for i in self._hits(q)]

    def _hits(self, q: Quantity) -> list[int]:
        """Indices (ascending) of the candidates :meth:`near` returns."""
        if not self._vals.size:
            return []
        half = max(0.5 * 10.0 ** (-q.decimals), q.tolerance or 0.0)  # words: their stated tolerance
        tol = half * (1 + 1e-9) + 1e-12 * max(1.0, abs(q.base_value))
        stated, base, s = abs(q.value), abs(q.base_value), q.scale
        # each reading's interval once (a set: with no scale word, value and base agree)
        by_val = {
            ((stated - tol) * s, (stated + tol) * s),
            ((stated - tol) * s / 100, (stated + tol) * s / 100),
            (stated - tol, stated + tol),
            (base - tol, base + tol),
        }
        by_disp = {(stated - tol, stated + tol), (base - tol, base + tol)}
        self._queries += 1
        if self._sorted is None and self._queries <= self.scans_before_sort:  # the same bounds, on every entry
            near = np.zeros(self._vals.size, dtype=bool)
            for arr, intervals in ((self._vals, by_val), (self._disp, by_disp)):
                for lo, hi in intervals:
                    near |= (arr >= lo * (1 - 1e-12)) & (arr <= hi * (1 + 1e-12))  # (NaN: never)
            return np.flatnonzero(near).tolist()
        if self._sorted is None:
            self._sorted = (_sorted_keys(self._vals), _sorted_keys(self._disp))
        hits: set[int] = set()
        for (keys, idx), intervals in zip(self._sorted, (by_val, by_disp), strict=True):
            for lo, hi in intervals:
                a, b = bisect_left(keys, lo * (1 - 1e-12)), bisect_right(keys, hi * (1 + 1e-12))
                hits.update(idx[a:b])
        return sorted(hits)

    def nearest(self, q: Quantity, k: int = 8) -> list[Candidate]:
        """Up to ``k`` candidates closest to ``q`` in magnitude under any reading (for messages)."""
        return [self.items[i] for i in self._nearest_indices(q, k)]

    def _nearest_indices(self, q: Quantity, k: int) -> list[int]:
        """Indices of the candidates :meth:`nearest` returns, nearest first."""
        if not self._vals.size:
            return []
        stated, s = max(abs(q.value), 1e-12), q.scale
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # an inf error is never nearest
            errs = np.fmin(
                np.fmin(np.abs(self._vals / s - stated), np.abs(self._vals * 100 / s - stated)),
                np.abs(self._disp - stated),
            )
        if 0 < k < errs.size:  # = the stable argsort's first k: those up to the k-th error, in (error, index) order
            kth = np.partition(errs, k - 1)[k - 1]
            if kth == kth:  # not NaN (NaNs sort last): every one of the k nearest is <= it
                pick = np.flatnonzero(errs <= kth)
                return [int(i) for i in pick[np.argsort(errs[pick], kind="stable")][:k]]
        return [int(i) for i in np.argsort(errs, kind="stable")[:k]]


#: A check of a value match against what the sentence states (:func:`assay.grounding.acceptable.acceptable`):
#: ``(kind, reason)`` when the candidate is not what the sentence says it is, else None.
Accept = Callable[[Quantity, Candidate], "tuple[str, str] | None"]


def match(q: Quantity, cands: Iterable[Candidate] | CandidateSet, accept: Accept | None = None) -> MatchResult:
    """First candidate ``q`` matches, preferring plain values over sign-from-wording matches.

    ``accept`` vetoes a value match (the first veto is kept in ``rejected`` when nothing else
    matches). Returns ``MatchResult(matched=False, unit_mismatch=True, candidate=c)`` when only
    a unit-incompatible candidate has the stated value.
    """
    pool = cands.near(q) if isinstance(cands, CandidateSet) else cands
    wording_hit: MatchResult | None = None
    unit_hit: Candidate | None = None
    rejected: MatchResult | None = None
    for c in pool:
        ok, via_wording, via_display = _value_matches(q, c)
        if ok:
            veto = accept(q, c) if accept is not None else None
            if veto is not None:
                rejected = rejected or MatchResult(False, c, rejected=veto)
                continue
            if not via_wording:
                return MatchResult(True, c, scale_from_display=via_display)
            wording_hit = wording_hit or MatchResult(True, c, sign_from_wording=True, scale_from_display=via_display)
        elif unit_hit is None and _same_number_any_unit(q, c):
            unit_hit = c
    if wording_hit:
        return wording_hit
    if rejected is not None:
        return rejected
    if unit_hit is not None:
        return MatchResult(False, unit_hit, unit_mismatch=True)
    return MatchResult(False)


def best_match(
    q: Quantity,
    direct: Iterable[Candidate] | CandidateSet,
    derived: Iterable[Candidate] | CandidateSet,
    accept: Accept | None = None,
) -> MatchResult:
    """Match against direct candidates first, then derivations (a derived unit hit never wins;
    a veto of a direct match is reported before one of a derivation)."""
    r = match(q, direct, accept)
    if r.matched:
        return r
    d = match(q, derived, accept)
    if d.matched:
        return d
    if r.rejected is not None or r.unit_mismatch:
        return r
    return d if d.rejected is not None else MatchResult(False)


def near_value(q: Quantity, cands: Iterable[Candidate] | CandidateSet) -> Candidate | None:
    """The candidate closest to ``q`` in relative terms among compatible ones (for messages)."""
    if isinstance(cands, CandidateSet):
        cands = cands.nearest(q, k=8)
    items = cands
    best, best_err = None, float("inf")
    stated = abs(_stated(q))
    for c in items:
        for target, _ in _targets(q, c):
            err = abs(abs(target) - stated) / max(stated, 1e-12)
            if err < best_err:
                best, best_err = c, err
    return best


def readings(q: Quantity, c: Candidate) -> list[float]:
    """``c``'s value in ``q``'s displayed scale under every compatible reading (as :func:`match` reads it)."""
    return [t for t, _ in _targets(q, c)]


def relative_precision(q: Quantity) -> float:
    """Half a displayed unit relative to the stated value (``7`` → 0.071, ``383.3`` → 0.00013)."""
    return 0.5 * 10.0 ** (-q.decimals) / max(abs(q.value), 1e-12)


# --- helpers -------------------------------------------------------------------------------


def _sorted_keys(arr: np.ndarray) -> tuple[list[float], list[int]]:
    """Non-NaN values of ``arr`` sorted ascending, with their original indices. NaN sorts last (numpy's
    sort order for every kind), so the first ``size − NaNs`` of the stable order are the others; the
    array's own ``argsort`` (no Python wrapper) and one slice: ~40% of the masked form's time."""
    order = arr.argsort(kind="stable")[: arr.size - np.count_nonzero(arr != arr)]
    return arr[order].tolist(), order.tolist()


def _stated(q: Quantity) -> float:
    """The stated number in its own scale, as written (sign included)."""
    return q.value


def _targets(q: Quantity, c: Candidate) -> list[tuple[float, bool]]:
    """Candidate values expressed in ``q``'s displayed scale, for every compatible reading, each
    with whether it is the candidate *as displayed* (``c.displayed``: the scale taken from the
    display, not from the answer); value readings come first."""
    u, s = q.unit, q.scale
    out: list[tuple[float, bool]] = []
    from_passage = c.origin == "passage"
    if u is None:
        if q.has_scale_word:
            if c.dim in ("amount", "currency", "count", "none") or (s < 1 and c.dim == "per_share"):
                out.append((c.value / s, False))  # (a hundredth: "613 cents" of a $6.13 EPS)
            if from_passage and c.dim == "none" and c.displayed is not None:
                out.append((c.displayed, True))  # the passage states no scale: compare as displayed
            elif s < 1 and _in_cents(c):
                out.append((c.value, False))  # a unitless fact labelled "(cents)": its value is in cents
        else:
            if c.dim in ("count", "none", "ratio"):
                out.append((c.value, False))
            if c.displayed is not None:
                out.append((c.displayed, True))
    elif u == "%":
        if c.dim == "percent" or (c.dim == "none" and c.op is None) or (c.dim == "pp" and c.op is not None):
            out.append((c.value / s, False))
        elif c.dim == "ratio":
            out.append((c.value * 100 / s, False))
        elif from_passage and c.dim == "amount" and c.displayed is not None:
            out.append((c.displayed, True))  # a percent column under a "(Millions)" header
    elif u == "pp":
        if c.dim in ("pp",):
            out.append((c.value / s, False))
    elif u == "ratio":  # a fraction in words or digits ("a quarter of revenue", "1/4 of it")
        if c.dim in ("ratio", "none"):
            out.append((c.value / s, False))
    elif u == "x":
        if c.dim in ("multiple", "ratio", "none"):
            out.append((c.value / s, False))
    elif u.endswith("/share"):
        cur = u.split("/")[0]
        total = c.dim == "currency" and c.currency in (cur, None) or c.dim in ("none", "amount")
        # a total (an EPS cell read as "$6.13") backs a per-share figure stated with no scale, or in cents:
        # "$97.0 billion per share" is no net income of $97.0 billion (gate-17)
        if c.dim == "per_share" and c.currency in (cur, None) or total and s <= 1:
            out.append(((c.value * 0.01 if _in_cents(c) else c.value) / s, False))
    else:  # an ISO currency
        if (c.dim in ("currency", "per_share") and c.currency == u) or c.dim == "amount":
            out.append((c.value / s, False))
        if _in_cents(c):  # "$0.24" of a unitless "Dividend (cents)" 24; its digits are no dollars
            out.append((c.value * 0.01 / s, False))
        elif c.displayed is not None and c.currency in (u, None) and c.dim in ("amount", "currency", "none"):
            if not q.has_scale_word or (from_passage and c.dim == "none" and _page_names(c, q.scale)):
                out.append((c.displayed, True))  # "$5,802" copied from a table "(in millions)"
    return out


#: A label that states its figures in a currency's hundredths ("Final dividend per share (cents)").
_IN_HUNDREDTHS = re.compile(r"\b(?:cents?|pence)\b", re.I)


def _in_cents(c: Candidate) -> bool:
    """A unitless figure whose label states it in a currency's hundredths (gate-17)."""
    return c.dim == "none" and _IN_HUNDREDTHS.search(c.label) is not None


def _page_names(c: Candidate, scale: float) -> bool:
    """Whether a unitless passage number may be read at the answer's stated ``scale``: its page
    names that scale in words ("$2,018 million" on a page in millions; "$2,018 billion" on a page
    that names no billions is not backed), or the scale is none of thousand/million/billion."""
    return c.page_scales is None or scale not in (1e3, 1e6, 1e9) or scale in c.page_scales


def _close(target: float, stated: float, decimals: int, tolerance: float | None = None) -> bool:
    tol = 0.5 * 10.0 ** (-decimals) if tolerance is None else max(tolerance, 0.5 * 10.0 ** (-decimals))
    return abs(target - stated) <= tol * (1 + 1e-9) + 1e-12 * max(1.0, abs(target))


def _value_matches(q: Quantity, c: Candidate) -> tuple[bool, bool, bool]:
    """``(matched, sign from wording, scale from display)`` of ``q`` against ``c``."""
    stated = _stated(q)
    derived = c.op is not None
    compared = q.change_base == "against_other" and q.direction is not None
    for t, shown in _targets(q, c):
        if derived and q.direction is not None and not q.explicit_sign:
            if c.chrono is False and not compared:
                continue  # "grew"/"fell" describe the change from the earlier to the later period
            want = -abs(stated) if q.direction < 0 else abs(stated)
            reading = negative_row_reading(c) if c.op == "a-b" else None
            if reading == "sign" and q.sign_wording:  # "the net loss decreased" on a profit's negatives: sizes
                reading = "size"  # (gate-21: "Net income | (15) | (24)" read by its sign backed "the loss increased")
            if reading == "neither":
                continue  # a row shown negative whose label says no sign: its direction is unproven
            if reading == "size":
                t = -t  # a deduction's two negatives: "the loss decreased" reads their sizes
            if _close(t, want, q.decimals, q.tolerance):
                return True, False, shown
            continue
        if c.chrono is False and c.op == "(a-b)/b":
            continue  # a relative change back in time needs a stated comparison and direction
        if _close(t, stated, q.decimals, q.tolerance):
            return True, False, shown
        if (
            t < 0 < stated
            and not q.explicit_sign
            and (q.sign_wording or q.direction == -1 or q.negative_wording is not None)
            and _close(-t, stated, q.decimals, q.tolerance)
        ):
            return True, True, shown
    return False, False, False


def _same_number_any_unit(q: Quantity, c: Candidate) -> bool:
    if c.op is not None:
        return False
    vals = [c.value, c.displayed] if c.displayed is not None else [c.value]
    # also in the stated scale: "€383.3 billion" vs 383,285,000,000 USD is the same number
    in_base = q.scale >= 1  # "94 cents" is 0.94 only to its hundredth: 0.95 is not "the same number"
    same = any(_close(v, q.value, q.decimals) or in_base and _close(v, q.base_value, q.decimals) for v in vals)
    return same or _close(c.value / q.scale, q.value, q.decimals)
