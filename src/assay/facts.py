"""Facts, snapshots and their fingerprint: the data an answer must be grounded in.

A :class:`Fact` is one number of a data snapshot (``id``, ``label``, ``value``, ``unit``,
``period``); a :class:`Snapshot` is the set of facts plus optional raw source passages.
``Snapshot.fingerprint()`` identifies the data exactly, so a cached answer can be served again
only while the data it was written from is unchanged (see ``assay.cache``).

Unit vocabulary (DESIGN.md; extend only with a reason written here):

- ISO currency code, optionally with a scale word: ``USD``, ``KRW``, ``USD millions``;
- ``<ISO>/share`` (per-share amounts, e.g. EPS);
- ``%`` (value in percent: 20 means 20 %), ``pp`` (percentage points), ``ratio`` (0.2531),
  ``x`` (a multiple, 1.5x), ``count``;
- a bare scale word (``thousands``, ``millions`` …): an amount whose currency the source does not
  state (table cells under "(in millions)" with no currency sign). Reason: TAT-QA and 10-K
  tables routinely give the scale in a header and no currency per cell;
- ``None``: dimensionless.

``Fact.displayed_value`` (optional) is the figure as the source shows it (a table cell
``"$ 1,452.4"`` under "(in millions)", ``"(370)"``). Only a fact that carries one may be matched
by an answer's number *as displayed* in cited mode (``$1,452.4`` for 1,452.4 USD millions, the
scale taken from the display); a structured fact without one needs the answer's scale
(issue 15). It is part of the fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import struct
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from operator import attrgetter
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

__all__ = [
    "Fact",
    "Snapshot",
    "UnitSpec",
    "parse_unit",
    "canonical_number",
    "unique_fact_ids",
    "SCALE_WORDS",
    "displayed_number",
]

#: Scale words accepted in units and in text, lower-case, mapped to their multiplier.
SCALE_WORDS: dict[str, float] = {
    "thousand": 1e3,
    "thousands": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "trillion": 1e12,
    "trillions": 1e12,
}

Dimension = Literal["currency", "per_share", "amount", "percent", "pp", "ratio", "multiple", "count", "none"]

_CURRENCY_UNIT = re.compile(r"^([A-Z]{3})(?:\s+([a-z]+))?$")
_PER_SHARE_UNIT = re.compile(r"^([A-Z]{3})/share$")


@dataclass(frozen=True)
class UnitSpec:
    """A parsed ``Fact.unit``: its dimension, currency (ISO code or None) and scale multiplier."""

    dimension: Dimension
    currency: str | None = None
    scale: float = 1.0


@lru_cache(maxsize=4096)
def parse_unit(unit: str | None) -> UnitSpec:
    """Parse a unit of the vocabulary above.

    Returns a :class:`UnitSpec`. Raises ``ValueError`` naming the unit when it is not in the
    vocabulary (e.g. ``"dollars"``: write ``USD``). Memoised (a pure function of a short string;
    the gate parses every fact's unit on every call).
    """
    if unit is None or unit == "":
        return UnitSpec("none")
    u = unit.strip()
    simple = {"%": "percent", "pp": "pp", "ratio": "ratio", "x": "multiple", "count": "count"}
    if u in simple:
        return UnitSpec(simple[u])  # type: ignore[arg-type]
    if u.lower() in SCALE_WORDS:
        return UnitSpec("amount", None, SCALE_WORDS[u.lower()])
    m = _PER_SHARE_UNIT.match(u)
    if m:
        return UnitSpec("per_share", m.group(1))
    m = _CURRENCY_UNIT.match(u)
    if m:
        scale_word = m.group(2)
        if scale_word is None:
            return UnitSpec("currency", m.group(1))
        if scale_word in SCALE_WORDS:
            return UnitSpec("currency", m.group(1), SCALE_WORDS[scale_word])
    raise ValueError(
        f"unknown unit {unit!r}: use an ISO currency code (optionally with a scale word, "
        "'USD millions'), 'USD/share', '%', 'pp', 'ratio', 'x', 'count', a scale word, or null"
    )


def canonical_number(value: float) -> str:
    """Canonical text of a finite number: ``1``, ``1.0`` and ``1.00`` all give ``"1"``.

    Uses the shortest round-trip repr of the IEEE double (identical on every platform), then
    strips trailing zeros. Raises ``ValueError`` for NaN or infinity.
    """
    f = float(value)
    if not math.isfinite(f):
        raise ValueError(f"not a finite number: {value!r}")
    if f == 0:
        return "0"
    r = repr(f)
    if "e" not in r:  # fast path, same text as below: repr without exponent always has one '.'
        return r[:-2] if r.endswith(".0") else r
    d = Decimal(r).normalize()
    text = format(d, "f")
    return text


#: One figure as a source displays it: an optional sign or opening parenthesis, an optional
#: currency (symbol or ISO code), the digits (thousands separators allowed), an optional ``%``
#: and closing parenthesis. ``(1,577.3)``, ``$ 1,452.4``, ``-9.9``, ``US$5``, ``12.5%``, ``6.13``.
_DISPLAYED = re.compile(
    r"(?P<sign>[-\u2212\u2013])?\s*(?P<open>\()?\s*(?:[A-Z]{0,3}[$\u20ac\u00a3\u00a5\u20a9]|[A-Z]{3}\s)?\s*"
    r"(?P<open2>\()?\s*(?P<sign2>[-\u2212])?\s*(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"\s*%?\s*(?P<close>\))?\s*%?"
)


def displayed_number(text: str) -> tuple[float, bool]:
    """The number of a :attr:`Fact.displayed_value` and whether the display shows it negative.

    ``"(1,577.3)"`` → ``(1577.3, True)``; ``"$ 1,452.4"`` → ``(1452.4, False)``; ``"-9.9"`` →
    ``(9.9, True)``. The magnitude is returned unsigned. Raises ``ValueError`` when ``text`` is
    not one figure of the form of :data:`_DISPLAYED` (``"n/a"``, ``"3 to 4"``, an unclosed
    parenthesis).
    """
    m = _DISPLAYED.fullmatch(text.strip().replace("\u00a0", " "))
    if m is None or bool(m.group("open") or m.group("open2")) != bool(m.group("close")) or (m["open"] and m["open2"]):
        raise ValueError(f"displayed_value {text!r} is not one figure as a source shows it ('(1,577.3)', '$6.13')")
    negative = bool(m.group("sign") or m.group("sign2") or m.group("close"))
    return float(m.group("num").replace(",", "")), negative


#: The factors by which a displayed figure may differ from its fact's ``value``: a power of a
#: thousand (a table "(in millions)" whose fact is stored in units, or the reverse) or 100 (a
#: percent shown for a ratio). Anything else is a display of another number (a typo).
_DISPLAY_FACTORS = (1.0, 1e3, 1e6, 1e9, 1e12, 1e-3, 1e-6, 1e-9, 1e-12, 100.0, 0.01)


class Fact(BaseModel):
    """One number of a data snapshot.

    ``value`` is a finite float in the fact's own ``unit`` (``1577`` with unit ``USD millions``
    is 1.577 billion dollars); ``period`` is free text (``FY2019``, ``2019-12-31``);
    ``displayed_value`` the figure as the source shows it (module docstring), whose number must
    equal ``|value|`` up to a power of a thousand (or ×100 for a percent) and whose sign, when
    it shows one, the value's. Raises ``pydantic.ValidationError`` for a non-numeric/NaN/inf
    value, an unknown unit or a displayed value that is not this number.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    label: str
    value: float
    unit: str | None = None
    period: str | None = None
    source: str | None = None
    displayed_value: str | None = None

    @field_validator("id")
    @classmethod
    def _id_nonempty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("fact id must be non-empty")
        return v

    @field_validator("value", mode="before")
    @classmethod
    def _finite(cls, v: object) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"must be a number, got {type(v).__name__} {v!r}")
        try:
            f = float(v)
        except OverflowError:  # an int beyond float64 (more than 308 digits)
            f = math.inf
        if math.isnan(f):
            raise ValueError(f"must be finite, got {v!r}")
        if math.isinf(f):
            got = f"a {len(str(abs(v)))}-digit integer" if isinstance(v, int) else "a number that overflows it"
            raise ValueError(f"must be finite and below 1.8e308 in magnitude (a 64-bit float), got {got}")
        return f

    @field_validator("unit")
    @classmethod
    def _unit_known(cls, v: str | None) -> str | None:
        parse_unit(v)
        return v

    @field_validator("displayed_value")
    @classmethod
    def _displayed_parses(cls, v: str | None) -> str | None:
        if v is not None:
            displayed_number(v)
        return v

    @model_validator(mode="after")
    def _displayed_is_the_value(self) -> Fact:
        if self.displayed_value is None:
            return self
        number, negative = displayed_number(self.displayed_value)
        if negative and self.value > 0:
            shown = self.displayed_value
            raise ValueError(f"displayed_value {shown!r} shows a negative figure; value is {self.value:g}")
        if not any(math.isclose(number * k, abs(self.value), rel_tol=1e-9, abs_tol=1e-12) for k in _DISPLAY_FACTORS):
            raise ValueError(
                f"displayed_value {self.displayed_value!r} is not the value {self.value:g} "
                "(up to a power of a thousand, or a percent of a ratio)"
            )
        return self

    @property
    def displayed(self) -> float | None:
        """The displayed figure with the value's sign (``"(370)"`` → −370; ``"370"`` on a value of
        −370 → −370: a display without a sign never makes a negative fact positive); ``None``
        without a ``displayed_value``."""
        if self.displayed_value is None:
            return None
        return math.copysign(displayed_number(self.displayed_value)[0], self.value)

    @property
    def unit_spec(self) -> UnitSpec:
        """The parsed unit."""
        return parse_unit(self.unit)

    @property
    def base_value(self) -> float:
        """Value with the unit's scale applied (``1577 USD millions`` → ``1.577e9``)."""
        return self.value * self.unit_spec.scale

    def canonical(self) -> tuple[str, str, str, str, str]:
        """``(id, label, unit, value, period)`` as canonical strings (the fingerprint's input)."""
        return (self.id, self.label, self.unit or "", canonical_number(self.value), self.period or "")


def unique_fact_ids(facts: tuple[Fact, ...]) -> tuple[Fact, ...]:
    """``facts`` unchanged; ``ValueError`` naming the first repeated fact id (a citation must
    name one fact). Used by :class:`Snapshot` and by the case loader's validation."""
    seen: set[str] = set()
    for f in facts:
        if f.id in seen:
            raise ValueError(f"duplicate fact id {f.id!r}")
        seen.add(f.id)
    return facts


_FINGERPRINT_FIELDS = attrgetter("id", "label", "unit", "value", "period", "displayed_value")


#: The canonical JSON of :meth:`Snapshot.fingerprint` (what ``json.dumps(…, sort_keys=True,
#: ensure_ascii=False, separators=(",", ":"))`` builds on every call; stateless, so one serves all).
_FINGERPRINT_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Snapshot(BaseModel):
    """The facts (and raw source passages) an answer is written from.

    ``sources`` are raw passages (10-K pages, retrieved chunks) for answers without citation
    markers; ``as_of`` is informational and not part of the fingerprint. Fact ids are unique:
    a repeated id raises ``pydantic.ValidationError`` (a citation must name one fact, and the
    fingerprint, which ignores order, could not tell which of two facts an id meant).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    facts: tuple[Fact, ...] = ()
    sources: tuple[str, ...] = ()
    as_of: str | None = None

    @field_validator("facts")
    @classmethod
    def _unique_ids(cls, v: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return unique_fact_ids(v)

    def fact_index(self) -> dict[str, Fact]:
        """Facts by id."""
        return {f.id: f for f in self.facts}

    def fingerprint(self) -> str:
        """SHA-256 hex digest identifying this snapshot's data.

        Input, in bytes: the UTF-8 of the canonical JSON (sorted keys, ``ensure_ascii=False``, no
        spaces) of ``{"facts": [ids, labels, units, periods], "displayed": [...], "sources": [...]}``
        — the facts as four columns of strings (``None`` → ``""``), rows sorted by ``(id, label,
        unit, value, period)``; ``displayed`` (the facts' ``displayed_value`` in the same row
        order, ``None`` → ``""``) only when some fact has one, so snapshots without displayed
        values keep the digest they had before the field existed; ``sources`` (in order: a
        passage list is a document) only when present — followed by the values in the same row
        order as little-endian IEEE-754 binary64. Order of facts does not matter;
        ``1``/``1.0``/``1.00`` (and ``0``/``-0.0``) are the same value; any change of id, label,
        unit, value, period, displayed value or a passage changes the digest.
        The JSON is self-delimiting and fixes the number of values, so the input is unambiguous;
        binary values skip float-to-text formatting (this runs on every memo-cache request).
        """
        rows = sorted(map(_FINGERPRINT_FIELDS, self.facts))  # ids are unique: the sort never compares past them
        ids, labels, units, values, periods, shown = zip(*rows, strict=True) if rows else ((), (), (), (), (), ())
        payload: dict[str, object] = {"facts": [ids, labels, [u or "" for u in units], [p or "" for p in periods]]}
        if any(d is not None for d in shown):
            payload["displayed"] = [d or "" for d in shown]
        if self.sources:
            payload["sources"] = self.sources
        text = _FINGERPRINT_JSON.encode(payload)
        digest = hashlib.sha256(text.encode("utf-8"))
        digest.update(struct.pack(f"<{len(values)}d", *[v + 0.0 for v in values]))  # + 0.0: -0.0 → 0.0
        return digest.hexdigest()
