"""Material labels: the line items of financial statements and their synonyms (used by
completeness, and by the gate's label rule in :mod:`assay.grounding.context`)."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["DEFAULT_MATERIAL_LABELS", "CONCEPTS", "concept_of", "related_items"]

#: Material labels for financial statements: each entry is one concept with its synonyms.
#: Source: the core line items of the income statement, balance sheet and cash-flow statement
#: plus the headline ratios analysts quote (margins, EPS, ROE); extend per domain. A bare "cash"
#: is not a synonym: it matched "cash flow hedges" and "cash dividends declared". A synonym
#: right after one of :data:`NOT_MATERIAL_BEFORE` does not count ("cost of sales" is not sales).
DEFAULT_MATERIAL_LABELS: tuple[tuple[str, ...], ...] = (
    ("revenue", "revenues", "net sales", "total revenue", "total net sales", "sales", "turnover", "매출", "매출액"),
    ("gross profit", "gross margin"),
    (
        "operating income",
        "operating profit",
        "income from operations",
        "operating margin",
        "ebit",
        "ebitda",
        "영업이익",
    ),
    (
        "net income",
        "net earnings",
        "net profit",
        "net loss",
        "profit attributable",
        "net margin",
        "순이익",
        "당기순이익",
    ),
    ("earnings per share", "eps", "diluted eps", "basic eps"),
    ("total assets",),
    ("total liabilities",),
    ("total equity", "shareholders' equity", "stockholders' equity", "total shareholders' equity"),
    ("cash and cash equivalents", "cash and equivalents", "cash, cash equivalents", "total cash"),
    ("operating cash flow", "cash from operations", "net cash provided by operating activities"),
    (
        "capital expenditure",
        "capital expenditures",
        "capex",
        "purchases of property",
        "purchases of property, plant and equipment",
    ),
    ("free cash flow",),
    ("total debt", "long-term debt", "net debt"),
    ("dividends", "dividend per share"),
    ("return on equity", "roe", "return on assets", "roa"),
)

#: Each synonym (lower-case) → the index of its concept in :data:`DEFAULT_MATERIAL_LABELS`.
CONCEPTS = {syn.lower(): i for i, concept in enumerate(DEFAULT_MATERIAL_LABELS) for syn in concept}

_CONCEPT_RE = re.compile(
    r"(?<![\w])(?:" + "|".join(re.escape(k) for k in sorted(CONCEPTS, key=len, reverse=True)) + r")(?![\w])", re.I
)


@lru_cache(maxsize=8192)
def concept_of(item: str) -> int | None:
    """The material concept of a line item: that of the longest synonym it contains."""
    hit = CONCEPTS.get(item)
    if hit is not None:
        return hit
    m = _CONCEPT_RE.search(item)
    return CONCEPTS[m.group(0).lower()] if m else None


def related_items(named: str, item: str) -> bool:
    """Whether two lower-case line items name one thing: equal, one inside the other, or one
    material concept ("revenue" and "total net sales")."""
    if named == item or named in item or item in named:
        return True
    cn = concept_of(named)
    return cn is not None and cn == concept_of(item)
