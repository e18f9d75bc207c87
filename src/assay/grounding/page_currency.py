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
    unit's currency); with every sign and ISO code :data:`_NAMED` finds in the text ("(€ in millions)",
    "(HK$ in millions)": a prefixed dollar is its own currency) they must be one. A currency word
    ("euro", "dollars", "sterling", 원) may make a page two currencies but never names its one: prose
    names currencies it is not written in ("held back by the weaker euro", "Sterling Bancorp",
    "in millions of Canadian dollars", 매출원가; a fresh-eyes hunt's false rejects)."""
    found = set(written)
    named = False
    for m in _NAMED.finditer(text):
        word = m.group(0)
        found.add(_CODE.get(word.lower().rstrip("s"), word.upper()))
        named = named or m.lastindex is None  # (a sign or a code, not a word: group 1)
        if len(found) > 1:
            return None
    return next(iter(found)) if found and (written or named) else None


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
            if page is not None and page != u and {page, u} != _YEN_OR_YUAN:  # ("¥" is both)
                return "unit_mismatch", f"{o.ref} is on a page written in {page}, not {u}"
    return None


#: The currencies a page's text may name: signs (a prefixed dollar first: "HK$" is no "$"), ISO codes (upper
#: case), words (group 1; any case, a plural too). Not "won" nor "real": English words (a page that "won" a
#: contract is no page in Korean won).
_NAMED = re.compile(
    r"(?:US|HK|NZ|S|R|C|A)\$|[$€£¥₩]|\b(?:USD|EUR|GBP|JPY|KRW|CNY|CAD|AUD|CHF|INR|HKD|SGD|RMB)\b|"
    r"(\b(?i:dollars?|euros?|sterling|pence|yen|yuan|renminbi|francs?|rupees?|pesos?|reais)\b|원)"
)
_CODE = {
    "$": "USD", "us$": "USD", "hk$": "HKD", "nz$": "NZD", "s$": "SGD", "r$": "BRL", "c$": "CAD", "a$": "AUD",
    "€": "EUR", "£": "GBP", "¥": "JPY", "₩": "KRW", "원": "KRW", "rmb": "CNY", "dollar": "USD",
    "euro": "EUR", "sterling": "GBP", "pence": "GBP", "yen": "JPY", "yuan": "CNY", "renminbi": "CNY",
    "franc": "CHF", "rupee": "INR", "peso": "MXN", "reai": "BRL",
}  # fmt: skip
_YEN_OR_YUAN = {"JPY", "CNY"}
