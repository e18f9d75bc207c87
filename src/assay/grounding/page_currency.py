"""The currency a source passage is written in, and the veto of a figure stated in another one.

A page's bare amounts ("(In millions)" cells, a "$  96,995" whose sign the reader leaves apart: two
spaces) match a figure in any currency unless something says which one they are in. When the
page names exactly one currency — on its numbers ("$ 383,285", "€1.2 billion") or anywhere in its
text (a sign, an ISO code, a currency word: "(£ in millions)", "U.S. dollars") — its bare amounts are
in that one: "Net income was €97.0 billion" is not backed by a dollar table (gate-18, group I of a
helper's hunt for non-year false accepts). A page naming two currencies, or none, leaves them of any
currency, as before. Read on demand (:meth:`~assay.grounding.index.SnapshotIndex.page_currency`),
only when a figure stated in a currency matches a bare amount: a scan of every page cost ~3% of
gating TAT-QA answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from assay.claims import Quantity
from assay.grounding.candidates import Candidate

__all__ = ["currency_veto", "page_currency"]


def page_currency(text: str, written: Iterable[str]) -> str | None:
    """The one currency (ISO code) passage ``text`` is written in, or None (none, or several).

    ``written``: the currencies of its numbers as read (``"USD"`` of "$ 383,285"; a per-share
    unit's currency); with every currency :data:`_NAMED` finds in the text they must be one. A
    "$" inside "HK$" is a sign of its own, so a Hong Kong dollar page is two currencies (None)."""
    found = set(written)
    for m in _NAMED.finditer(text):
        found.add(_CODE.get(m.group(0).lower().rstrip("s"), m.group(0).upper()))
        if len(found) > 1:
            return None
    return next(iter(found)) if found else None


def currency_veto(q: Quantity, c: Candidate, currency_of: Callable[[int], str | None]) -> tuple[str, str] | None:
    """``("unit_mismatch", reason)`` when ``q`` is stated in a currency and ``c`` is (or is derived
    from) a bare amount of a page written in another one; ``currency_of(page)``: the page's currency
    (1-based, as in a passage ref ``S{page}:L{line}``). None otherwise, and for any other unit."""
    u = q.unit
    if u is None or len(u) != 3 or not u.isupper():  # an ISO currency code ("%", "pp", "x", "USD/share": no)
        return None
    for o in c.operands or (c,):
        if o.origin == "passage" and o.currency is None and o.dim in ("amount", "none"):
            page = currency_of(int(o.ref[1 : o.ref.index(":")]))
            if page is not None and page != u:
                return "unit_mismatch", f"{o.ref} is on a page written in {page}, not {u}"
    return None


#: The currencies a page's text may name: signs, ISO codes (upper case), words (any case; a plural too).
#: Not "won" nor "real": English words (a page that "won" a contract is no page in Korean won).
_NAMED = re.compile(
    r"[$€£¥₩]|원|\b(?:USD|EUR|GBP|JPY|KRW|CNY|CAD|AUD|CHF|INR|HKD|SGD|RMB)\b|"
    r"\b(?i:dollars?|euros?|sterling|pence|yen|yuan|renminbi|francs?|rupees?|pesos?|reais)\b"
)
_CODE = {
    "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₩": "KRW", "원": "KRW", "rmb": "CNY", "dollar": "USD",
    "euro": "EUR", "sterling": "GBP", "pence": "GBP", "yen": "JPY", "yuan": "CNY", "renminbi": "CNY",
    "franc": "CHF", "rupee": "INR", "peso": "MXN", "reai": "BRL",
}  # fmt: skip
