"""Candidates: the numbers an answer may be backed by, and their one-operation derivations.

A :class:`Candidate` is a fact (:func:`fact_candidate`), a number of a source passage
(:mod:`assay.grounding.passages`), or a ONE-operation derivation of two eligible numbers
(:func:`derive`: a+b, a−b, a/b, a/b·100, (a−b)/b, (a−b)/b·100). Whether a stated quantity
equals a candidate is decided in :mod:`assay.grounding.match`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import Literal

from assay.claims import Quantity
from assay.facts import Dimension, Fact

__all__ = [
    "CHANGE_OPS",
    "Candidate",
    "Dim",
    "fact_candidate",
    "make_candidate",
    "passage_candidate",
    "derive",
    "period_rank",
    "time_rank",
]

Dim = Dimension  # a candidate's dimension: the vocabulary of a fact's parsed unit


@dataclass(frozen=True)
class Candidate:
    """A number an answer may be backed by.

    ``value`` is in base units (scale applied; percent in percent, ratio as a fraction);
    ``displayed`` is the number as its source displays it (``None`` when not applicable);
    ``ref`` names the fact id or passage location; ``derived_from`` the operand refs and ``op``
    the operation for a derivation, ``operands`` the two candidates it was derived from;
    ``digits`` is the figure a reader sees for a fact — its ``displayed_value``, else its value in
    its own unit — whatever the match rule may use (``displayed``), so a paragraph number and a
    cell showing the same digits are known as one figure (:func:`~assay.grounding.twins.twin_veto`).
    ``page_scales``: the scale words a passage number's passage names.
    """

    value: float
    dim: Dim
    ref: str
    label: str = ""
    currency: str | None = None
    displayed: float | None = None
    derived_from: tuple[str, ...] = ()
    op: str | None = None
    origin: Literal["fact", "passage", "derived"] = "fact"
    period: str | None = None
    chrono: bool | None = None
    operands: tuple[Candidate, ...] = ()
    digits: float | None = None
    #: For a passage number: the scales (1e3, 1e6, 1e9) its passage names in words ("in millions",
    #: "$2.1 billion"), ascending; None for facts and derivations (see :func:`assay.grounding.match.match`).
    page_scales: tuple[float, ...] | None = None
    #: For a passage number: the year of its table column, when the page's column header names one
    #: year per number of its row (:mod:`assay.grounding.passages`); None otherwise.
    column_year: int | None = None
    #: For a passage number: whether a short (header-like) line of its passage names a change ("% Change",
    #: "Increase/(decrease)", "22 vs. 21"), so a cell of it may be a change (:mod:`assay.grounding.passages`).
    page_names_change: bool = False
    #: For a table cell: the direction it tells without words of its own — its sign under a change
    #: column's header ("Change", "Increase (Decrease)", "2019 vs. 2018"; gate-19), else the direction a
    #: paragraph number of its passage with the same displayed digits tells ("sales increased 1.3%" above a
    #: "Total 1.3 %" cell): one figure, one direction.
    cell_direction: int | None = None
    #: For a table cell under a header of columns sharing a year ("Q2 2020 | Q3 2020", "June 30, 2019 | December
    #: 31, 2019"): its column's place in that year, the month its period ends (a quarter's last month; gate-20),
    #: so a change between two of them is ordered (:func:`time_rank`); 0 otherwise.
    column_part: int = 0


_new = object.__new__


def make_candidate(
    value: float,
    dim: Dim,
    ref: str,
    label: str = "",
    currency: str | None = None,
    displayed: float | None = None,
    derived_from: tuple[str, ...] = (),
    op: str | None = None,
    origin: Literal["fact", "passage", "derived"] = "fact",
    period: str | None = None,
    chrono: bool | None = None,
    operands: tuple[Candidate, ...] = (),
    digits: float | None = None,
    page_scales: tuple[float, ...] | None = None,
    column_year: int | None = None,
    page_names_change: bool = False,
    cell_direction: int | None = None,
    column_part: int = 0,
) -> Candidate:
    """``Candidate(...)`` with the same arguments, built without the frozen dataclass's
    ``object.__setattr__`` per field (~3× faster; a memo's cited facts and a row's derivations
    make one per figure): the same instance dict, so the same fields, equality, hash and
    ``replace`` (``tests/grounding/test_passages_fast.py``)."""
    c = _new(Candidate)
    c.__dict__.update(
        value=value,
        dim=dim,
        ref=ref,
        label=label,
        currency=currency,
        displayed=displayed,
        derived_from=derived_from,
        op=op,
        origin=origin,
        period=period,
        chrono=chrono,
        operands=operands,
        digits=digits,
        page_scales=page_scales,
        column_year=column_year,
        page_names_change=page_names_change,
        cell_direction=cell_direction,
        column_part=column_part,
    )
    return c


def passage_candidate(
    q: Quantity,
    header_scale: float,
    ref: str,
    label: str,
    scales: tuple[float, ...],
    year: int | None,
    change: bool,
    direction: int | None = None,
    part: int = 0,
) -> Candidate:
    """The candidate of a number ``q`` read in a source passage (:mod:`assay.grounding.passages`):
    percent, percentage points, multiple, per-share, currency (scaled by its scale word, else by the
    passage's scale header ``header_scale``) or a bare number (``amount`` when scaled, else ``none``);
    its displayed value is the number as written; ``scales``, ``year``, ``change``, ``direction`` and ``part``
    are its ``page_scales``, ``column_year``, ``page_names_change``, ``cell_direction`` and ``column_part``.
    ``make_candidate(…, origin="passage", …)`` with positional arguments: a TAT-QA context makes ~25
    a table, and binding its keyword parameters was half the cost."""
    dim: Dim
    currency = None
    unit = q.unit
    if unit == "%":
        dim, value = "percent", q.value * q.scale
    elif unit == "pp":
        dim, value = "pp", q.value * q.scale
    elif unit == "x":
        dim, value = "multiple", q.value
    elif unit and unit.endswith("/share"):
        dim, value, currency = "per_share", q.value * q.scale, unit.split("/")[0]  # "18 cents per share": 0.18
    elif unit:
        dim, currency = "currency", unit
        value = q.value * (q.scale if q.scale != 1.0 else header_scale)  # (a scale word written: its own)
    else:
        scale = q.scale if q.scale != 1.0 else header_scale
        dim = "amount" if scale != 1.0 else "none"
        value = q.value * scale
    # positionally: binding keywords was the cost, not the call
    return make_candidate(value, dim, ref, label, currency, q.value, (), None, "passage", None, None, (), None,
                          scales, year, change, direction, part)  # fmt: skip


def fact_candidate(fact: Fact, *, value_as_displayed: bool = True) -> Candidate:
    """The candidate for a fact (its base value, its dimension and currency); a fact without a
    period takes the one its label's column part names (``"Green tariff | FY19**"``).

    ``displayed`` is the fact's :attr:`~assay.facts.Fact.displayed` figure; without one it is the
    value in the fact's unit when ``value_as_displayed`` (uncited mode, as before issue 15), else
    ``None`` (cited mode: a structured fact of 6.13 ``USD millions`` needs the answer's scale).
    """
    spec = fact.unit_spec
    shown = fact.displayed
    if shown is None and value_as_displayed:
        shown = fact.value
    period = fact.period
    if not period and " | " in fact.label and period_rank(fact.label.split(" | ", 1)[1]) is not None:
        period = fact.label.split(" | ", 1)[1]  # a column header "FY19**" names the period
    digits = fact.displayed if fact.displayed is not None else fact.value
    return make_candidate(
        fact.value * spec.scale, spec.dimension, fact.id, fact.label, spec.currency, shown, period=period, digits=digits
    )


#: The derivations that are a change of one figure into another, the second the base: a difference and a
#: relative change (:func:`derive`'s ``a-b`` and ``(a-b)/b``; a stated direction or period reads them).
CHANGE_OPS = frozenset({"a-b", "(a-b)/b"})


def derive(cands: Iterable[Candidate]) -> list[Candidate]:
    """All ONE-operation derivations over ordered pairs of ``cands``.

    a+b and a−b need compatible dimensions and keep a's; a/b and (a−b)/b give a ratio (which
    matches ``%`` ×100, so a/b·100 and (a−b)/b·100 are covered); differences of percents also
    yield ``pp``. When a and b have opposite signs, |a|/|b| is offered too (a cost shown as
    ``(59,659)`` as a share of revenue). When both periods are known and differ, a−b and (a−b)/b
    record whether they run forward in time (``chrono``): a stated direction ("grew", "fell")
    only matches a forward change, and a backward one (b the later period) backs only a
    comparison that names its base ("2.9% higher than FY2023", "exceeded … by";
    :func:`assay.grounding.match.match`). Division by
    zero is skipped. Pairs: n·(n−1) ordered; callers keep n small
    (the facts cited in one sentence, or one table row).
    """
    items = list(cands)
    out: list[Candidate] = []
    for a, b in permutations(items, 2):
        refs = (a.ref, b.ref)
        ra, rb = time_rank(a), time_rank(b)
        chrono = None if ra is None or rb is None or ra == rb or ra[0] != rb[0] else ra > rb  # a is the later
        if _additive(a, b):
            dim: Dim = (
                a.dim if a.dim not in ("amount", "none") else b.dim if b.dim in ("currency", "per_share") else a.dim
            )
            cur = a.currency or b.currency
            disp = (
                (a.displayed + b.displayed, a.displayed - b.displayed)
                if a.displayed is not None and b.displayed is not None
                else (None, None)
            )
            out.append(
                make_candidate(
                    a.value + b.value,
                    dim,
                    f"{a.ref}+{b.ref}",
                    "",
                    cur,
                    disp[0],
                    refs,
                    "a+b",
                    "derived",
                    operands=(a, b),
                )
            )
            out.append(
                make_candidate(
                    a.value - b.value,
                    dim,
                    f"{a.ref}-{b.ref}",
                    "",
                    cur,
                    disp[1],
                    refs,
                    "a-b",
                    "derived",
                    chrono=chrono,
                    operands=(a, b),
                )
            )
            if a.dim in ("percent", "none") and b.dim in ("percent", "none"):
                out.append(
                    make_candidate(
                        a.value - b.value,
                        "pp",
                        f"{a.ref}-{b.ref}",
                        "",
                        None,
                        None,
                        refs,
                        "a-b",
                        "derived",
                        chrono=chrono,
                        operands=(a, b),
                    )
                )
        if b.value != 0:
            out.append(
                make_candidate(
                    a.value / b.value,
                    "ratio",
                    f"{a.ref}/{b.ref}",
                    "",
                    None,
                    None,
                    refs,
                    "a/b",
                    "derived",
                    operands=(a, b),
                )
            )
            if a.value * b.value < 0:  # a share of a total shown in accounting sign: (59,659) of 105,767
                out.append(
                    make_candidate(
                        abs(a.value / b.value),
                        "ratio",
                        f"|{a.ref}|/|{b.ref}|",
                        "",
                        None,
                        None,
                        refs,
                        "|a|/|b|",
                        "derived",
                        operands=(a, b),
                    )
                )
            # a change back in time (chrono False) backs only a stated comparison (match.py)
            out.append(
                make_candidate(
                    (a.value - b.value) / b.value,
                    "ratio",
                    f"({a.ref}-{b.ref})/{b.ref}",
                    "",
                    None,
                    None,
                    refs,
                    "(a-b)/b",
                    "derived",
                    chrono=chrono,
                    operands=(a, b),
                )
            )
    return out


@lru_cache(maxsize=4096)
def period_rank(period: str | None) -> tuple[int, int] | None:
    """Sortable (year, quarter) of a period label: ``FY2023`` → (2023, 0), ``Q3 2019`` → (2019, 3),
    ``FY23`` → (2023, 0), ``December 31, 2019`` → (2019, 0); None when no year is found.
    Memoised (a pure function of a short string, asked per candidate on every gate call)."""
    if not period:
        return None
    m = re.search(r"(?<!\d)((?:19|20)\d{2})(?!\d)", period)
    if m:
        year = int(m.group(1))
    else:
        m = re.search(r"(?:FY|CY|'|’)\s?(\d{2})(?!\d)", period, re.I)
        if not m:
            return None
        year = 2000 + int(m.group(1))
    qm = re.search(r"\b(?:Q([1-4])|([1-4])Q)\b", period, re.I)
    return year, int(qm.group(1) or qm.group(2)) if qm else 0


def time_rank(c: Candidate) -> tuple[int, int, int] | None:
    """``(kind, year, part)`` ordering a candidate in time: kind 0 from its period
    (:func:`period_rank`); for a candidate with no period, kind 0 from a date in its label
    ("Balance at March 31, 2017 | Minimum Pension Liability") or kind 1 from an ordinal column
    ("Net sales | Third" → part 3: quarters of one table); a passage number with neither, kind 0 from
    its table column's year (``column_year``: "2019 2018 / Net sales 1,200 1,100") and its place in that year
    (``column_part``: "Q2 2020 | Q3 2020"). Two ranks of different kinds are not comparable (``derive`` leaves
    their order unknown). None when nothing orders it."""
    r = _time_rank(c.period, c.label)
    if r is None and c.column_year is not None and c.period is None:
        return (0, c.column_year, c.column_part)
    return r


@lru_cache(maxsize=8192)
def _time_rank(period: str | None, label: str) -> tuple[int, int, int] | None:
    r = period_rank(period)
    if r is not None:
        return (0, *r)
    if period is not None or not label:
        return None
    return _label_rank(label)


def _label_rank(label: str) -> tuple[int, int, int] | None:
    m = _LABEL_DATE.search(label)
    if m is not None:
        r = period_rank(m.group(0))
        return None if r is None else (0, *r)
    parts = [p.strip().lower() for p in label.split("|")]
    ords = [_ORDINALS[p.split()[0]] for p in parts if p and p.split()[0] in _ORDINALS and len(p.split()) <= 2]
    return (1, 0, ords[0]) if len(ords) == 1 else None


_LABEL_DATE = re.compile(
    r"\b(?:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2},?\s+(?:19|20)\d{2}"
    r"|(?:FY|fiscal(?: year)?)\s?(?:19|20)\d{2})\b",
    re.I,
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


# --- helpers -------------------------------------------------------------------------------

_AMOUNTS = {"currency", "per_share", "amount", "none", "count"}


def _additive(a: Candidate, b: Candidate) -> bool:
    if a.dim in _AMOUNTS and b.dim in _AMOUNTS:
        return a.currency is None or b.currency is None or a.currency == b.currency
    return a.dim == b.dim
