"""Claims and quantities in answer text: sentence claims, citation markers, numbers with units.

``extract_claims(text)`` splits an answer into sentence-level :class:`Claim` objects, each with
its citation ids and the :class:`Quantity` objects it states. ``extract_quantities(text)`` is
the number parser on its own (also used on source passages).

What counts as a quantity: a number with its sign (leading ``-``/``−``, after a currency symbol
``$-5``, or ``(3.1)``, ``(5)%``, ``($0.25 per share)`` parentheses), thousands separators (``1,577``, ``1 577``), decimals, currency (``$``, ``€``,
``£``, ``¥``, ``₩``, ``원``, ISO codes before or after), percent (``%``, ``percent``), percentage
points (``pp``, ``percentage points``; basis points as pp/100), multiples (``1.5x``, ``times``),
per-share amounts, scale words and suffixes (thousand/million/billion/trillion,
``K``/``M``/``B``/``bn``/``mn``; Korean ``만``/``억``/``조``, combinable as ``5조 3,000억``) and
ranges (``5–7%``, ``$1.2-1.5 billion``: both ends become quantities sharing the unit). NOT
quantities: years (1900–2100 written bare or as a label in parentheses, ``(2021)``), dates,
Korean dates, periods and ordinals (``3월``, ``3분기``, ``12개월``, ``2위``), ordinals (``3rd``), list numbers (``1.`` / ``(2)`` at a line
start), citation markers (``[F3]``, ``[3]``), codes attached to letters (``FY2019``, ``Q3``,
``10-K``, ``COVID-19``; a one-letter K/M/B suffix is a scale only after a currency, so
``$5M`` is five million but ``3M`` and ``10K`` are names), durations (``12 months``), and formula constants next to an operator
(``× 100``, ``/ 2``). In a formula a minus between numbers is an operator, not a sign, and
parentheses group (``(0.1652) x 100`` is not negative). Spans are code-point offsets ``[start, end)``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field, replace

from assay.facts import SCALE_WORDS

__all__ = [
    "Quantity",
    "Claim",
    "DEFAULT_CITATION_PATTERN",
    "extract_quantities",
    "extract_claims",
    "find_citations",
    "split_sentences",
]

#: Default citation marker: ``[F3]``, ``[F3, F7]`` (adjacent markers ``[F3][F7]`` are two matches).
DEFAULT_CITATION_PATTERN = r"\[\s*([A-Za-z0-9_.:\-]+(?:\s*[,;]\s*[A-Za-z0-9_.:\-]+)*)\s*\]"


@dataclass(frozen=True)
class Quantity:
    """A number stated in text.

    ``value`` is signed and before scale (``1.2`` for ``$1.2 billion``); ``scale`` the multiplier
    (``1e9``); ``unit`` one of an ISO currency code, ``"<ISO>/share"``, ``"%"``, ``"pp"``, ``"x"``
    or ``None`` (bare number); ``decimals`` the displayed decimals (``383.3`` → 1).
    ``explicit_sign`` is True when the text wrote a minus or parentheses. ``direction`` is +1/−1
    when a verb of change precedes it ("grew", "fell"), else None; ``sign_wording`` is True when
    the wording carries an outflow sign ("spent", "paid", "capex"). ``range_id`` links the two
    ends of a range.
    """

    text: str
    span: tuple[int, int]
    value: float
    scale: float = 1.0
    unit: str | None = None
    decimals: int = 0
    explicit_sign: bool = False
    direction: int | None = None
    sign_wording: bool = False
    range_id: int | None = None

    @property
    def base_value(self) -> float:
        """``value * scale`` (``$1.2 billion`` → ``1.2e9``)."""
        return self.value * self.scale

    @property
    def has_scale_word(self) -> bool:
        """True when a scale word/suffix was written (``million``, ``bn``, ``억``)."""
        return self.scale != 1.0


@dataclass(frozen=True)
class Claim:
    """One sentence of an answer: its text, span, the quantities it states and the ids it cites."""

    text: str
    span: tuple[int, int]
    numbers: tuple[Quantity, ...] = ()
    citations: tuple[str, ...] = field(default_factory=tuple)


def extract_claims(text: str, *, citation_pattern: str = DEFAULT_CITATION_PATTERN) -> list[Claim]:
    """Split ``text`` into sentence claims with their quantities and citation ids.

    A citation marker right after a sentence's final period (``… $5 billion. [F1]``) belongs to
    that sentence. Spans index into ``text``.
    """
    cite_re = re.compile(citation_pattern)
    masked = _mask(text, cite_re)
    quantities = _extract_masked(masked)
    starts = [q.span[0] for q in quantities]
    claims: list[Claim] = []
    for start, end in split_sentences(text, masked):
        sentence = text[start:end]
        cites = tuple(dict.fromkeys(find_citations(sentence, cite_re)))
        nums = tuple(quantities[bisect_left(starts, start) : bisect_left(starts, end)])
        claims.append(Claim(sentence, (start, end), nums, cites))
    return claims


def find_citations(text: str, pattern: str | re.Pattern[str] = DEFAULT_CITATION_PATTERN) -> list[str]:
    """All cited ids in ``text``, in order (``"[F3, F7] … [F1]"`` → ``["F3", "F7", "F1"]``)."""
    ids: list[str] = []
    for m in re.finditer(pattern, text):
        ids.extend(p.strip() for p in _ID_SEP.split(m.group(1)) if p.strip())
    return ids


def split_sentences(text: str, masked: str | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``[start, end)`` of ``text`` (whitespace trimmed, empty ones dropped).

    Splits after ``.``/``!``/``?``/``。`` followed by whitespace, and at line breaks; never inside a
    decimal or after a common abbreviation (``Inc.``, ``U.S.``). ``masked`` is ``text`` with
    citation markers blanked; a marker that opens a sentence is moved to the previous one.
    """
    masked = masked if masked is not None else _mask(text, re.compile(DEFAULT_CITATION_PATTERN))
    cuts = [0]
    for m in _SENT_END.finditer(masked):
        word = _ABBREV_BEFORE.search(masked, max(0, m.start() - 24), m.start() + 1)
        if word and word.group(1).lower().rstrip(".") in _ABBREVIATIONS:
            continue
        cuts.append(m.end())
    cuts.extend(m.end() for m in _NEWLINES.finditer(masked))
    cuts = sorted(set(cuts)) + [len(text)]
    spans: list[tuple[int, int]] = []
    for a, b in zip(cuts, cuts[1:]):
        seg = text[a:b]
        lead = _LEAD_MARKERS.match(seg) if "[" in seg[:8] or seg[:1].isspace() else None
        if lead and spans and lead.end() < len(seg.rstrip()) + 1:
            pa, _ = spans[-1]
            spans[-1] = (pa, a + len(seg[: lead.end()].rstrip()))  # the marker, not the space after it
            a += lead.end()
        s, e = a, b
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            spans.append((s, e))
    return spans


def extract_quantities(
    text: str, *, citation_pattern: str = DEFAULT_CITATION_PATTERN, space_thousands: bool = True
) -> list[Quantity]:
    """Every quantity stated in ``text``, in order of appearance (rules in the module docstring).

    ``space_thousands=False`` reads a plain space as a separator between numbers, not a
    thousands separator (source passages: ``"Cost of sales 900 800"`` is 900 and 800; the
    no-break and narrow no-break spaces still group thousands).
    """
    return _extract_masked(_mask(text, re.compile(citation_pattern)), space_thousands)


def _extract_masked(masked: str, space_thousands: bool = True) -> list[Quantity]:
    out: list[Quantity] = []
    words = _WordIndex(masked)
    for m in (_NUMBER if space_thousands else _NUMBER_NO_SPACE).finditer(masked):
        q = _to_quantity(masked, m, words)
        if q is not None:
            out.append(q)
    return _link_ranges(masked, out)


# --- helpers -------------------------------------------------------------------------------

_ABBREVIATIONS = {
    "inc",
    "corp",
    "co",
    "ltd",
    "u.s",
    "vs",
    "e.g",
    "i.e",
    "approx",
    "no",
    "mr",
    "ms",
    "dr",
    "st",
    "fig",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "est",
    "etc",
}
#: "to"/"from" right before a number: the number is a level ("fell to 44.1%"), not a change.
_LEVEL_BEFORE = re.compile(
    r"\b(?:to|from)\s+(?:(?:about|approximately|around|roughly|nearly|almost|just|some|over|under)\s+)?$", re.I
)
_ID_SEP = re.compile(r"[,;]")
_ABBREV_BEFORE = re.compile(r"([A-Za-z.]+)\.$")
_NEWLINES = re.compile(r"\n+")
_LEAD_MARKERS = re.compile(r"\s*(?:" + DEFAULT_CITATION_PATTERN + r"\s*)+")
_CLAUSE_END = re.compile(r"[.;!?](?=\s)|\n")
_SENT_END = re.compile(r"[.!?。](?=\s+|$)(?!\d)")

_CURRENCY_SYMBOLS = {
    "$": "USD",
    "US$": "USD",
    "S$": "SGD",
    "HK$": "HKD",
    "NZ$": "NZD",
    "R$": "BRL",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₩": "KRW",
    "C$": "CAD",
    "A$": "AUD",
}
_ISO = r"(?:USD|EUR|GBP|JPY|KRW|CNY|CAD|AUD|CHF|INR|HKD|SGD)"
_KOREAN_SCALE = {"만": 1e4, "억": 1e8, "조": 1e12}
_NUM = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[ \u202f\u00a0]\d{3})+(?!\d|,\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
#: The same without the plain-space thousands separator (source passages: there a space
#: separates table cells, "Cost of sales 900 800" is two numbers, not 900,800).
_NUM_NO_SPACE = _NUM.replace(r"[ \u202f\u00a0]", r"[\u202f\u00a0]")


def _number_regex(num: str) -> re.Pattern[str]:
    """The quantity pattern around the number pattern ``num``."""
    return re.compile(
        r"(?<![\w.,$€£¥₩])"
        r"(?P<open>\()?"
        r"(?P<sign>[-−–](?=[\s$€£¥₩]?\d|\s?\.\d))?\s?"
        r"(?:(?P<cur>US\$|HK\$|NZ\$|S\$|R\$|C\$|A\$|[$€£¥₩]|" + _ISO + r"\s)(?P<sign2>\s?[-−](?=\d|\.\d))?)?\s?"
        r"(?P<open2>\()?"
        r"(?P<num>" + num + r")"
        r"(?P<kr>(?:\s?[조억만](?:\s?" + num + r"\s?[억만])?(?:\s?" + num + r"(?![\d.]))?))?"
        r"(?P<scale>\s?(?:thousand|million|billion|trillion)s?\b|(?:bn|mn|[KMB])(?![A-Za-z]))?"
        r"(?P<suffix>\s?(?:%|percent\b|per\s?cent\b|pct\b|pp\b|ppts?\b|pts?\b|points?\b|p\.p\.|percentage points?\b|basis points?\b|bps\b|[x×](?![A-Za-z])|times\b))?"
        r"(?P<close>\s?\)(?P<pct2>%)?)?"
        r"(?P<scale2>\s?(?:thousand|million|billion|trillion)s?\b)?"
        r"(?P<cur2>\s?(?:원|won\b|dollars?\b|euros?\b|" + _ISO + r"\b))?"
        r"(?P<share>\s?(?:per (?:diluted |basic )?share|/share|a share)\b)?"
    )


_NUMBER = _number_regex(_NUM)
_NUMBER_NO_SPACE = _number_regex(_NUM_NO_SPACE)

_MONTHS = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
_DATE_BEFORE = re.compile(_MONTHS + r"\.?\s+$")
_DATE_AFTER = re.compile(r"^(?:st|nd|rd|th)?\s*,?\s*" + _MONTHS + r"\b|^,\s*(?:19|20)\d\d")
#: Numeric dates, masked before numbers are read: 2019-12-31, 12/31/2019, 31.12.2019, 12/31.
_NUMERIC_DATE = re.compile(
    r"(?<![\d.,])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/\-.]\d{1,2}[/\-.]\d{2,4}|\d{1,2}/\d{1,2}(?![\d/]))(?![\d.]\d)"
)
_FORMULA_CONSTANTS = {1.0, 2.0, 3.0, 4.0, 12.0, 100.0, 365.0, 1000.0}
_ORDINAL_AFTER = re.compile(r"^(?:st|nd|rd|th)\b")
_DURATION_AFTER = re.compile(r"^[\s-]*(?:months?|years?|days?|weeks?|quarters?|hours?|minutes?)\b", re.I)
#: Korean dates, periods and ordinals written right after the number: 2023년 3월 31일, 3분기,
#: 상반기, 12개월, 2위, 3번째, 2차, 제5호.
_KOREAN_LABEL_AFTER = re.compile(r"^(?:년|월|일|분기|반기|개월|위|번째|차|호)")
_CODE_AFTER = re.compile(r"^(?:-[A-Za-z]|[A-Za-z])")
_LABEL_BEFORE = re.compile(
    r"(?:\b(?:Item|Note|Notes|Section|Part|Page|page|Table|Figure|Exhibit|Schedule|Rule|Article|Chapter|ASC|ASU|Topic|No\.|Level|Tier|Q|H|FY|CY)\s?)$"
)
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_UP_WORDS = frozenset(
    "grew grow grows growing rose rise rises increase increased increasing up gain gained higher climbed jumped expanded improved".split()
)
_DOWN_WORDS = frozenset(
    "fell fall falls decline declined declining decrease decreased decreasing down dropped drop lower shrank contracted slipped lost reduced reduction".split()
)
#: Words (and word pairs) whose sentence carries an outflow sign: "capex of $1,577 million".
_SIGN_WORDS = frozenset(
    (
        "spent spend spending paid pay payment payments outflow outflows capex repurchase repurchased repurchases "
        "buyback buybacks loss losses deficit expense expenses cost costs impairment write-down write-downs writedown writedowns"
    ).split()
)
_SIGN_BIGRAMS = frozenset(
    {
        ("used", "in"),
        ("capital", "expenditure"),
        ("capital", "expenditures"),
        ("purchase", "of"),
        ("purchases", "of"),
        ("dividend", "paid"),
        ("dividends", "paid"),
    }
)
#: A change noun or comparative right after the number: "a 2.8% decline", "$11.0 billion lower".
_DIRECTION_AFTER = re.compile(
    r"\s*(?:(?P<up>increases?|growth|rise|gains?|higher|jump)|(?P<down>decreases?|declines?|drop|fall|reductions?|lower|contraction))\b",
    re.I,
)


def _mask(text: str, cite_re: re.Pattern[str]) -> str:
    """Blank citation markers and numeric dates (same length, so spans stay valid)."""
    blank = lambda m: " " * (m.end() - m.start())  # noqa: E731
    return _NUMERIC_DATE.sub(blank, cite_re.sub(blank, text))


_GROUPING = re.compile(r"[,\s\u202f\u00a0]")


def _parse_num(s: str) -> tuple[float, int]:
    clean = _GROUPING.sub("", s)
    decimals = len(clean.split(".")[1]) if "." in clean else 0
    return float(clean), decimals


def _to_quantity(text: str, m: re.Match[str], words: _WordIndex) -> Quantity | None:
    g = m.groupdict()
    start, end = m.start(), m.end()
    num_start, num_end = m.start("num"), m.end("num")
    value, decimals = _parse_num(g["num"])
    paren = bool((g["open"] or g["open2"]) and g["close"])
    if not paren and (g["open"] or g["open2"]) and (g["share"] or g["cur2"] or g["scale2"]):
        close_after = re.match(r"\s?\)", text[end : end + 2])
        if close_after:  # "($0.25 per share)", "(300억 원)": the unit words sit inside the parentheses
            paren, end = True, end + close_after.end()
    if not paren:
        g["pct2"] = None  # "(5)%" is a negative percent; "5)%" is not read
    if (g["open"] or g["open2"]) and not paren:
        start = (
            m.start("sign") if g["sign"] else (m.start("cur") if g["cur"] else num_start)
        )  # an unclosed "(" is not part of it
    if g["close"] is not None and not paren:
        end = m.start("close")
        g["scale2"] = None
    while start < num_start and text[start].isspace():
        start += 1
    if not g["sign"] and g["sign2"]:
        g["sign"] = g["sign2"].strip()  # "$-5": a minus after the currency symbol
    if g["sign"] and not g["sign2"] and re.search(r"[\d)%][ \t]*\Z", text[max(0, start - 8) : start]):  # same line only
        g["sign"] = None  # a binary minus: "177,866 - 135,987"
        start = m.start("cur") if g["cur"] else num_start
    if paren and (
        re.match(r"\s*(?:[*/×÷]|x\s*\d)", text[end : end + 5])
        or re.search(r"[*/×÷=]\s*$", text[max(0, start - 4) : start])
    ):
        paren = False  # grouping in a formula: "(0.1652) x 100"
    before, after = text[max(0, start - 24) : start], text[end : end + 24]
    unit_written = any(g[k] for k in ("cur", "cur2", "scale", "scale2", "suffix", "pct2", "kr", "share"))
    # --- things that are not quantities
    if _CODE_AFTER.match(after) and not unit_written:
        return None
    if re.search(r"[A-Za-z]-$", before):
        return None  # a code: "COVID-19", "Form 10-K"
    if (
        not unit_written
        and "." not in g["num"]
        and value in _FORMULA_CONSTANTS
        and (re.search(r"(?:[*/×÷]|\bx)\s*$", before) or re.match(r"\s*[*/×÷]", after))
    ):
        return None  # a formula constant: "× 100", "/ 2"
    if _ORDINAL_AFTER.match(text[num_end : num_end + 3]):
        return None
    is_year = "." not in g["num"] and "," not in g["num"] and len(g["num"]) == 4 and 1900 <= value <= 2100
    if not unit_written and not g["sign"] and paren and is_year:
        return None  # a year label in parentheses: "Total current assets (2021): $19,815 million"
    if not unit_written and not paren and not g["sign"]:
        if is_year:
            return None  # a year
        if _DATE_BEFORE.search(before) or _DATE_AFTER.match(after):
            return None
        if _LABEL_BEFORE.search(before):
            return None
        if _DURATION_AFTER.match(after):
            return None
        if _KOREAN_LABEL_AFTER.match(text[num_end : num_end + 2]):
            return None  # a Korean date, period or ordinal: "3월", "3분기"
        line_start = text.rfind("\n", 0, start) + 1
        if (
            not text[line_start:start].strip()
            and not g["open"]
            and re.match(r"^[.)]\s", text[num_end : num_end + 2])
            and value < 100
        ):
            return None  # list number "1. " / "2) "
    if paren and not unit_written and "." not in g["num"] and value < 10:
        line_start = text.rfind("\n", 0, start) + 1
        if not text[line_start:start].strip() or re.search(r"[:;]\s*$", text[line_start:start]):
            return None  # list marker "(2)"
    # --- unit and scale
    unit: str | None = None
    cur = (g["cur"] or "").strip() or (g["cur2"] or "").strip()
    if cur:
        unit = _CURRENCY_SYMBOLS.get(cur) or {
            "원": "KRW",
            "won": "KRW",
            "dollar": "USD",
            "dollars": "USD",
            "euro": "EUR",
            "euros": "EUR",
        }.get(cur.lower(), cur.upper())
    scale = 1.0
    if g["kr"]:
        value, scale, decimals = _korean(value, decimals, g["kr"])
    if g["scale"] or g["scale2"]:
        w = (g["scale"] or g["scale2"]).strip()
        scale = {"K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9, "mn": 1e6}.get(w) or SCALE_WORDS[w.lower()]
        if w in ("K", "M", "B") and not cur:
            return None  # a code or name, not a magnitude: "3M" (the company), "10K", "Item 1B"
    suffix = (g["suffix"] or g["pct2"] or "").strip().lower()
    if suffix:
        if suffix in ("pp", "ppt", "ppts", "pt", "pts", "point", "points", "p.p.") or suffix.startswith(
            "percentage point"
        ):
            unit = "pp"
        elif suffix in ("%", "percent", "pct") or suffix.startswith("per"):
            unit = "%"
        elif suffix.startswith("basis point") or suffix == "bps":
            unit, scale = "pp", 0.01
        else:
            unit = "x"
    if g["share"] and unit not in ("%", "pp", "x"):
        unit = f"{unit or 'USD'}/share"
    sign_char = g["sign"] or ""
    if sign_char == "–" and not (before.strip() == "" or before.rstrip().endswith(("(", ":", "of", "was", "is", "at"))):
        return None
    negative = bool(sign_char) or paren
    value = -value if negative else value
    q_start = start
    while q_start < len(text) and text[q_start].isspace():
        q_start += 1
    q_end = end
    while q_end > q_start and text[q_end - 1].isspace():
        q_end -= 1
    direction, sign_wording = words.wording(q_start)
    if direction is None:  # "a 2.8% decline", "$11.0 billion lower"
        after_q = _DIRECTION_AFTER.match(text, q_end, min(len(text), q_end + 24))
        direction = None if after_q is None else (1 if after_q.group("up") else -1)
    return Quantity(
        text[q_start:q_end], (q_start, q_end), value, scale, unit, decimals, negative, direction, sign_wording
    )


def _korean(value: float, decimals: int, tail: str) -> tuple[float, float, int]:
    """``1,234억`` → (1234, 1e8, 0); ``5조 3,000억`` → (53000, 1e8, 0)."""
    parts = re.findall(r"(" + _NUM + r")?\s?([조억만])?", tail)
    terms: list[tuple[float, float]] = []
    pending = value
    for num, unit in parts:
        if num:
            pending, decimals = _parse_num(num)
        if unit:
            terms.append((pending, _KOREAN_SCALE[unit]))
            pending = 0.0
    if pending:
        terms.append((pending, 1.0))  # trailing units ("1억 5000") are ones
    smallest = min((sc for _, sc in terms), default=1.0)
    # summed in units of the smallest scale: one term (the usual case) keeps its value exactly
    # (1.2억 stays 1.2, not 1.2e8 / 1e8 = 1.2000000000000002)
    return sum(v * (sc / smallest) for v, sc in terms), smallest, decimals


class _WordIndex:
    """Clause ends, verbs of change and sign words of one text, found once (not per number)."""

    def __init__(self, text: str):
        self.text = text
        ends = [(m.end(), m.group(0) != ";") for m in _CLAUSE_END.finditer(text)]
        self.clause_ends = [e for e, _ in ends]
        self.sentence_ends = [e for e, sentence in ends if sentence]
        # one pass over the words (word-set look-ups are far cheaper than alternation regexes)
        dirs: list[tuple[int, int, int]] = []
        self.sign_starts: list[int] = []
        self.sign_ends: list[int] = []
        prev: tuple[int, str] | None = None
        for m in _WORD.finditer(text):
            w = m.group(0).lower()
            if w in _UP_WORDS or w in _DOWN_WORDS:
                dirs.append((m.start(), m.end(), 1 if w in _UP_WORDS else -1))
            if w in _SIGN_WORDS:
                self.sign_starts.append(m.start())
                self.sign_ends.append(m.end())
            elif prev is not None and (prev[1], w) in _SIGN_BIGRAMS:
                self.sign_starts.append(prev[0])
                self.sign_ends.append(m.end())
            prev = (m.start(), w)
        self.dir_starts = [d[0] for d in dirs]
        self.dirs = dirs

    def wording(self, start: int) -> tuple[int | None, bool]:
        """Direction (+1/−1) from the last verb of change in the number's clause (within 60
        characters before it), and whether its sentence (within 300 characters) carries an
        outflow sign word before it."""
        lo = max(0, start - 300)
        clause_cut = _last_before(self.clause_ends, start, lo)
        sentence_cut = _last_before(self.sentence_ends, start, lo)
        window_start = max(clause_cut, start - 60)
        direction = None
        i = bisect_left(self.dir_starts, window_start)
        while i < len(self.dirs) and self.dirs[i][1] <= start:
            direction = self.dirs[i][2]
            i += 1
        if direction is not None and _LEVEL_BEFORE.search(self.text, window_start, start):
            direction = None  # "fell to 44.1%", "from $394.3 billion": a level, not the change
        j = bisect_left(self.sign_starts, sentence_cut)
        sign = j < len(self.sign_starts) and self.sign_ends[j] <= start
        return direction, sign


def _last_before(ends: list[int], start: int, lo: int) -> int:
    """The last position in sorted ``ends`` that is < ``start`` and ≥ ``lo`` (else ``lo``)."""
    k = bisect_left(ends, start) - 1
    return ends[k] if k >= 0 and ends[k] >= lo else lo


def _link_ranges(text: str, qs: list[Quantity]) -> list[Quantity]:
    """Give both ends of ``5–7%`` / ``$1.2-1.5 billion`` / ``5% to 7%`` the shared unit and scale."""
    out = list(qs)
    rid = 0
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        between = text[a.span[1] : b.span[0]]
        joined = re.fullmatch(r"\s*(?:[-–—]|to)\s*", between)
        if not joined and b.explicit_sign and b.text.startswith(("–", "-")) and a.span[1] == b.span[0]:
            # "5-7%": the regex read "-7%" as a negative number
            b = replace(b, text=b.text[1:], span=(b.span[0] + 1, b.span[1]), value=-b.value, explicit_sign=False)
            joined = True
        if not joined or (a.unit and b.unit and a.unit != b.unit):
            continue
        if a.unit is None and a.scale == 1.0 and (b.unit or b.scale != 1.0):
            a = replace(a, scale=b.scale, unit=b.unit)
        elif a.unit and b.unit is None and b.scale == 1.0:
            b = replace(b, scale=a.scale, unit=a.unit)
        elif a.unit and b.unit is None and a.scale == 1.0 and b.scale != 1.0:
            # "$1.2-1.5 billion": the currency is written on the first end, the scale on the last
            a = replace(a, scale=b.scale)
            b = replace(b, unit=a.unit)
        elif a.unit and a.unit == b.unit and a.scale == 1.0 and b.scale != 1.0:
            a = replace(a, scale=b.scale)
        if b.direction is None and a.direction is not None:
            # "fell 5% to 7%": the verb governs both ends
            b = replace(b, direction=a.direction)
        elif a.direction is None and b.direction is not None:
            # "a 5–7% decline"
            a = replace(a, direction=b.direction)
        rid += 1
        out[i] = replace(a, range_id=rid)
        out[i + 1] = replace(b, range_id=rid)
    return out
