"""What the operands of a match say about it: a paragraph number's own years, the later figure of
a change, an operand too small to count. Helpers of :func:`assay.grounding.acceptable.acceptable`
and :func:`~assay.grounding.twins.twin_veto` (pure functions of a candidate and its context).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from assay.claims import Quantity
from assay.grounding.candidates import CHANGE_OPS, Candidate, time_rank
from assay.grounding.item_years import MOVED, coordinated, item_year
from assay.grounding.label_signs import fact_sign

__all__ = [
    "YEAR_LOWER",
    "own_years",
    "later_operand",
    "negligible",
    "unordered_direction",
    "unordered_sign",
    "unordered_veto",
    "match_year",
    "YEAR",
    "nearest_in_clause",
    "period_owner",
    "item_owner",
    "listed_figures",
    "respective_items",
    "fiscal_period",
    "trailed_figure",
    "judged_year",
    "split_years",
    "names_item_itself",
]


def own_years(context: str, c: Candidate) -> frozenset[int]:
    """The years a paragraph number's ``context`` gives IT: those with no other number between
    them and it ("…rate for 2019 was 13.0% compared to 18.3% for 2018…": 2019 for 13.0%, not
    2018); every year of the context when the number is not found in it."""
    found = [(m.start(), m.end(), m.group(0)) for m in _CTX_NUMBER.finditer(context)]
    years = [(a, b, int(t)) for a, b, t in found if _YEAR_TEXT.fullmatch(t)]
    others = [(a, b, t) for a, b, t in found if not _YEAR_TEXT.fullmatch(t)]
    shown = c.displayed if c.displayed is not None else c.value
    mine = [(a, b) for a, b, t in others if abs(_num(t) - abs(shown)) < 1e-9]
    if not mine:
        return frozenset(y for _, _, y in years)
    out = set()
    for ya, yb, y in years:
        for a, b in mine:
            lo, hi = (yb, a) if yb <= a else (b, ya)
            if not any(lo <= oa and ob <= hi for oa, ob, _ in others):
                out.add(y)
    return frozenset(out)


_CTX_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_YEAR_TEXT = re.compile(r"(?:19|20)\d{2}")


def _num(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:  # "1,2,3": no one number
        return float("nan")


def later_operand(c: Candidate) -> Candidate | None:
    """The later-period operand of a change ``a-b`` / ``(a-b)/b`` whose order in time is known
    (``chrono``), else None: "the change in net loss" names what the item is NOW."""
    if c.op not in CHANGE_OPS or c.chrono is None or len(c.operands) != 2:
        return None
    return c.operands[0] if c.chrono else c.operands[1]


def negligible(q: Quantity, o: Candidate) -> bool:
    """Whether operand ``o`` is below half a displayed unit of ``q`` (adding it changes nothing)."""
    half = 0.5 * 10.0 ** (-q.decimals) * (q.scale if q.unit not in ("%", "pp", "x") else 1.0)
    return abs(o.value) <= half and abs(o.value) < abs(q.value * q.scale)


def unordered_direction(q: Quantity, c: Candidate) -> bool:
    """Whether ``q`` states a direction ("increased by") on a change of two FACTS that nothing
    orders in time (:func:`~assay.grounding.candidates.time_rank`: no period, no date or ordinal
    column in the label): the direction cannot be checked. A comparison naming its base is
    judged by :mod:`assay.grounding.comparison`. Passage rows too (gate-8): a row with no period
    header ("Net sales 1,577 1,400") does not say which figure is the later one, so "grew 12.6%"
    on it is not proven (the gate fails closed). Nor do two cells of columns of one year whose place in it
    is unknown (gate-20: "| December 31, 2019 |  |" over "Carrying Amount | Fair Value"). Two numbers of a
    paragraph are ordered by their own sentence's years: :func:`~assay.grounding.prose_numbers.prose_order`."""
    operands = c.operands
    return (
        c.op in CHANGE_OPS
        and c.chrono is None
        and q.direction is not None
        and not q.explicit_sign
        and q.change_base != "against_other"
        and len(operands) == 2
        and (
            (ra := time_rank(operands[0])) is None
            or (rb := time_rank(operands[1])) is None
            or (ra == rb and operands[0].column_year is not None)
        )
        and all(o.origin in ("fact", "passage") for o in operands)
    )


def unordered_veto(c: Candidate) -> tuple[str, str]:
    """The ``("sign", reason)`` of :func:`unordered_direction` (one wording for every rule that finds no order)."""
    return "sign", f"the wording states a direction, but the order in time of {c.ref}'s figures is unknown"


def unordered_sign(c: Candidate, stated: int | None) -> bool:
    """Whether a stated profit or loss (``stated``: +1 / −1 from the wording) falls on a change
    ``a-b`` / ``(a-b)/b`` of one figure of each sign that nothing orders in time (``chrono`` None):
    which figure is the item NOW, and so whether it is a profit or a loss, is unknown (gate-8;
    with a known order :func:`later_operand` decides). Failing input (FinanceBench, perturbation
    ``sign_word``): "CCB …, with a net loss of $3.1 billion" on the passage row "Pre-provision
    profit/(loss) 1,387 … (1,684)" (1,387 − (−1,684) = 3,071)."""
    return (
        stated is not None
        and c.op in CHANGE_OPS
        and c.chrono is None
        and len(c.operands) == 2
        and len({fact_sign(o) for o in c.operands}) == 2
    )


#: A year as the sentence rules read one: ``(?<![\d.,$])((?:19|20)\d{2})(?!\d|[.,]\d)|\b(?:FY|CY)\s?'?(\d{2})\b``,
#: written with each branch's first character first and the look-behind after it (the same matches:
#: sre then skips to the next ``1``/``2``/``F``/``C`` in C instead of trying both branches at every
#: position; half the time). Group 1 a four-digit year, group 2 the two digits of ``FY23`` / ``CY23``.
YEAR = re.compile(r"((?:19|20)(?<![\d.,$]..)\d{2})(?!\d|[.,]\d)|[FC](?<!\w.)Y\s?'?(\d{2})\b", re.I)
#: :data:`YEAR` for an ASCII text lower-cased: the same matches and groups without ``re.I`` (which
#: makes sre compare every character case-blind: a third of the time).
YEAR_LOWER = re.compile(r"((?:19|20)(?<![\d.,$]..)\d{2})(?!\d|[.,]\d)|[fc](?<!\w.)y\s?'?(\d{2})\b")


#: Before a year, what makes it a fiscal period whatever the snapshot's years ("fiscal 2021", "fiscal
#: year 2021", "FY2021", "FY 2021"; ``FY21`` is the match itself); after it, "2021 회계연도" / "사업연도".
_FISCAL_BEFORE = re.compile(r"(?:\b(?:fiscal|financial)\s+(?:year\s+)?|\bfy\s?'?)$", re.I)
_FISCAL_AFTER = re.compile(r"\s?(?:년\s?)?(?:회계|사업)\s?연도")


def fiscal_period(text: str, m: re.Match[str]) -> bool:
    """Whether year match ``m`` of :data:`YEAR` / :data:`YEAR_LOWER` in ``text`` names a fiscal
    period by its form ("fiscal 2021", "FY2021", "FY21", "2021 회계연도"), so the period rule
    judges it even when no fact of the snapshot is of that year (a new user's false accept:
    "FY2021 revenue was $383.3 billion [F1]" on a FY2023 fact passed; gate-13). A plain year
    is judged so only where it trails a figure (:func:`trailed_figure`)."""
    if m.group(2) is not None:
        return True  # FY21 / CY21
    s = m.start()
    return _FISCAL_BEFORE.search(text, max(0, s - 20), s) is not None or _FISCAL_AFTER.match(text, m.end()) is not None


#: A year that is a range's endpoint ("from fiscal year 2017 to 2019", "2017-2019", "between 2017
#: and 2019"): the span of a change, not the period of a figure.
_RANGE_BEFORE = re.compile(
    r"(?:\b(?:from|between|since)\s+(?:fiscal\s+(?:year\s+)?|fy\s?)?|(?:19|20)\d\d\s*(?:to|through|-|–|and)\s*(?:fy\s?)?)$",
    re.I,
)
_RANGE_AFTER = re.compile(r"\s*(?:to|through|thru|-|–|and)\s+(?:fiscal\s+(?:year\s+)?|fy\s?)?(?:19|20)?\d\d\b", re.I)
#: A split fiscal year in a label ("Income taxes | 2018/2019", "2018/19", "2018-19").
_SPLIT_YEAR = re.compile(r"\b((?:19|20)\d\d)\s*[/–-]\s*((?:19|20)?\d\d)\b")


def judged_year(
    text: str, m: re.Match[str], spans: list[tuple[int, int]], named: Sequence[tuple[int, int, str]] = ()
) -> bool:
    """Whether the period rule judges year match ``m`` of sentence ``text`` (a year no fact of the
    snapshot is of; the caller judges those): it names a figure's period by its form —
    fiscal-marked (:func:`fiscal_period`) or trailing a figure (:func:`trailed_figure`; ``spans``:
    the sentence's number spans) — or a line item's by its place
    (:func:`~assay.grounding.item_years.item_year`; ``named``: the sentence's named items, as
    ``SentenceContext.named``), and is no range's endpoint (``_RANGE_BEFORE``/``_RANGE_AFTER``:
    "from fiscal year 2017 to 2019" on the sum of the 2018 and 2019 changes names no 2017 figure;
    TAT-QA's templated sentences) unless the two years are coordinated in an item's place ("net
    income in 2020 and 2021 was …", :func:`~assay.grounding.item_years.coordinated`). gate-13; the
    item's place, gate-14; coordinated years, gate-15."""
    s = m.start()
    by_form = fiscal_period(text, m) or trailed_figure(text, spans, s) is not None
    if not by_form and not (placed := item_year(text, m, named, spans)):
        return False
    if _RANGE_BEFORE.search(text, max(0, s - 24), s) is None and _RANGE_AFTER.match(text, m.end()) is None:
        return True
    # two years joined by "and" in an item's place ("in 2020 and 2021 was …") are both periods, no range
    return coordinated(text, s, m.end()) and (placed if not by_form else item_year(text, m, named, spans))


def split_years(label: str) -> frozenset[int]:
    """The two years of a split fiscal year a label names ("2018/2019", "2018/19": {2018, 2019}),
    else empty: such a column is the fiscal year of either name ("FY2019" for 2018/19)."""
    m = _SPLIT_YEAR.search(label) if "/" in label or "-" in label or "–" in label else None
    if m is None:
        return frozenset()
    a, b = int(m.group(1)), m.group(2)
    b2 = int(b) if len(b) == 4 else a // 100 * 100 + int(b)
    return frozenset({a, b2}) if b2 == a + 1 else frozenset()


def match_year(m: re.Match[str]) -> int:
    """The four-digit year of a match of :data:`YEAR` (``2023``, or ``FY23`` read as 2023)."""
    return int(m.group(1)) if m.group(1) else 2000 + int(m.group(2))


def nearest_in_clause(spans: list[tuple[int, int]], s: int, e: int, cuts: list[int]) -> int | None:
    """Index into ``spans`` (the sentence's number spans, character offsets) of the number nearest
    to the mention ``[s, e)`` within its clause (``cuts``: sorted clause boundaries, first 0 and
    last the text's length), or None when the clause holds no number."""
    k = bisect_right(cuts, s) - 1
    lo, hi = cuts[k], cuts[k + 1]
    best, best_d = None, 1 << 30
    for i, (a, b) in enumerate(spans):
        if a < lo or a >= hi:
            continue
        d = a - e if a >= e else s - b if s >= b else 0
        if d < best_d:
            best, best_d = i, d
    return best


#: Between a named item and the figure it states: a copula, a verb of amount, "of" or a colon, and a
#: hedge ("net income was $97.0 billion", "revenue of about $383.3 billion", "net income: $97.0 billion").
_ITEM_LINK = re.compile(
    r"(?:\s*:|\s+(?:was|were|is|are|totall?ed|amounted\s+to|came\s+(?:in\s+)?(?:to|at)|stood\s+at|reached|of"
    r"|equall?ed|" + MOVED + r"(?:\s+(?:by|to))?))"
    r"\s+(?:(?:about|approximately|roughly|nearly|almost|around|some)\s+)?",
    re.I,
)
#: What stands between a figure and the period that trails it: "$394.3 billion in fiscal 2023",
#: "… for FY2023" (the year match starts at its digits), "… (2023", "…, in the fiscal year 2023",
#: "… as of the end of 2023"; a citation marker may stand between them ("$97.0 billion [F7] in 2021":
#: gate-14, a helper's false accept), or (gate-15) a parenthetical that opens with a letter ("$97.0 billion (F7)
#: in 2021", "… (as restated) in 2021").
_TRAILING_PERIOD = re.compile(
    r"(?:\s*(?:\[[^\[\]\n]{1,60}\]|(?P<paren>\([A-Za-z][^()\n]{0,40}\)))){0,2}"
    # the figure's item, between it and its period: "$97.0 billion [F7] of net income in 2021", "… in revenue in
    # 2021"; only an item word (a third hunt: "… of sales in markets entered in 2019" is another phrase's year)
    r"(?:\s+(?:of|in)\s+(?:its\s+)?(?:(?:net|total|operating|gross)\s+)?(?:income|revenues?|sales|profits?|earnings)"
    r"(?=\s+(?:in|for|during)\s))?"
    r"(?:\s+(?:was|were)\s+(?:recorded|reported|earned|generated|posted|booked|recogni[sz]ed))?"
    # a unit of the figure ("$1.397 per dozen for fiscal 2018", "$2.10 per share in 2019"; gate-20), not a rate of time
    r"(?:\s+per\s+(?!(?:year|annum|quarter|month|week|day)\b)[a-z]+)?"
    r"\s*(?:\(\s*(?:(?:in|for|during)\s+)?(?:(?:fiscal|financial)\s+(?:year\s+)?|fy\s?)?"
    r"|,?\s*(?:back\s+in|in|for|during|throughout|of|at|as\s+of|by)\s+(?:the\s+)?(?:end\s+of\s+(?:the\s+)?)?"
    r"(?:(?:fiscal|financial|calendar)\s+(?:year\s+)?|year\s+)?"
    # a year ended in July–December only (:data:`~assay.grounding.item_years.LEAD_PERIOD`: January–June is ambiguous)
    r"(?:(?:(?:twelve|12)\s+months\s+|(?:fiscal\s+)?year\s+)?end(?:ed|ing)\s+(?:jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+)?"
    r"(?:fy|cy)?)",
    re.I,
)


def period_owner(text: str, spans: list[tuple[int, int]], s: int, e: int, cuts: list[int]) -> int | None:
    """Index into ``spans`` of the number a period mention at ``text[s:e]`` names: the number right
    before it when only a period phrase stands between them (``_TRAILING_PERIOD``: "$394.3 billion
    in fiscal 2023 versus $383.3 billion in fiscal 2022" gives 2023 to the 394.3, which
    :func:`nearest_in_clause` gave the 383.3 — eight characters away against eleven: a swap of
    the two years' figures passed, issue 15), else :func:`nearest_in_clause`."""
    k = trailed_figure(text, spans, s)
    return k if k is not None else nearest_in_clause(spans, s, e, cuts)


def item_owner(text: str, spans: list[tuple[int, int]], s: int, e: int, cuts: list[int]) -> int | None:
    """Index into ``spans`` of the number a named item at ``text[s:e]`` names: in Korean, an item
    marked as the topic or subject (은/는/이/가 right after it: "…원, 영업이익은 6조 5,670억
    원이었다") names the next number of its clause, not the nearer one before it (gate-13: the
    figure before the comma took the item after it); an item its copula, "of" or a colon links to
    the figure right after (``_ITEM_LINK``: "… and operating income was $97.0 billion") names that
    figure, not one before it as near (gate-16: a tie went to the earlier figure, so the two items of
    "Net income was $114.3 billion and operating income was $97.0 billion" were both the first's);
    otherwise :func:`nearest_in_clause`."""
    if e < len(text) and text[e] in "은는이가" and "가" <= text[e - 1] <= "힣":  # (ASCII text: one test)
        hi = cuts[bisect_right(cuts, s)]  # the clause's end (cuts ends past the text)
        after = [i for i, (a, _) in enumerate(spans) if e <= a < hi]
        if after:
            return min(after, key=lambda i: spans[i][0])
    if (link := _ITEM_LINK.match(text, e)) is not None:  # "net income was $97.0 billion": that figure's item
        for i, (a, _) in enumerate(spans):
            if a == link.end():
                return i
    return nearest_in_clause(spans, s, e, cuts)


def trailed_figure(text: str, spans: list[tuple[int, int]], s: int) -> int | None:
    """Index into ``spans`` of the number a period mention starting at ``text[s]`` trails (only a
    period phrase between them: "$383.3 billion in 2021"), else None."""
    k, end = None, -1
    for i, (_, b) in enumerate(spans):
        if end < b <= s:
            k, end = i, b
    if k is None or (phrase := _TRAILING_PERIOD.fullmatch(text, end, s)) is None:
        return None
    if phrase.group("paren") is not None and "," in text[phrase.end("paren") : s]:
        return None  # "$97.0 billion (F7), at 2021 levels": a phrase of its own after the parenthetical
    return k


def respective_items(
    text: str, named: Sequence[tuple[int, int, str]], spans: list[tuple[int, int]]
) -> list[int] | None:
    """For a "respectively" sentence, the number each named item pairs with, in order — "Net income and
    total net sales were $97.0 billion and $383.3 billion, respectively": item i ↔ number i — when the
    items are a list ("A and B", "A, B and C") before the first number, as many as the numbers; else None (the nearest
    number, as for any sentence). gate-13: the swapped items passed, each item given the nearer figure."""
    if len(named) != len(spans) or len(spans) < 2 or any(e > spans[0][0] for _, e, _ in named):
        return None
    if any(_COORDINATION.fullmatch(text, a[1], b[0]) is None for a, b in zip(named, named[1:], strict=False)):
        return None  # not a list of items: "License and subscription revenue in 2019 and 2018, respectively"
    return list(range(len(spans)))


def listed_figures(text: str, named: Sequence[tuple[int, int, str]], spans: list[tuple[int, int]]) -> bool:
    """Whether a list of items is linked to a list of as many figures ("Revenue and net income were
    $383.3 billion and $97.0 billion"): the items pair with the figures in order, as with "respectively"
    (:func:`respective_items`; gate-16, a helper's false accept and false reject: both items were the
    first figure's)."""
    return (
        len(named) == len(spans) >= 2
        and named[-1][1] <= spans[0][0]
        and _ITEM_LINK.fullmatch(text, named[-1][1], spans[0][0]) is not None
        and all(_FIGURE_LIST.fullmatch(text, a[1], b[0]) is not None for a, b in zip(spans, spans[1:], strict=False))
    )


#: Between two listed items: "A and B", "A, B and C", "A & B", "A, and the B".
_COORDINATION = re.compile(r"\s*(?:,\s*(?:and\s+)?|and\s+|&\s*)(?:the\s+)?", re.I)
#: Between two listed figures: "$383.3 billion and $97.0 billion", "… [F1], and …".
_FIGURE_LIST = re.compile(r"(?:\s*\[[^\[\]\n]{1,60}\])?\s*(?:,\s*(?:and\s+)?|and\s+|&\s*)", re.I)


#: Before an item that is the base of a share, not what a figure is: "18.7 percent of net sales".
_SHARE_OF = re.compile(r"(?:%|\b(?:percent|percentage|per\s+cent|share|proportion))\s+of\s+(?:the\s+|total\s+)*$", re.I)


def names_item_itself(context: str, item: str) -> bool:
    """Whether a paragraph number's ``context`` (lower-case) names line item ``item`` as what
    something IS, not only as the base of a share ("…increased to $444.8 million, or 18.7
    percent of net sales…" names net sales as a base: it does not make $444.8 million net sales)."""
    return any(not _SHARE_OF.search(context, 0, m.start()) for m in re.finditer(re.escape(item), context))
