"""Quantities in text: numbers with their sign, unit, scale, displayed precision and wording.

``extract_quantities(text)`` is the number parser (used on answers and on source passages).

What counts as a quantity: a number with its sign (leading ``-``/``−``, after a currency symbol
``$-5``, or ``(3.1)``, ``(5)%``, ``($0.25 per share)`` parentheses), thousands separators
(``1,577``, ``1 577``), decimals, currency (``$``, ``€``, ``£``, ``¥``, ``₩``, ``원``, ISO codes
before or after), percent (``%``, ``percent``), percentage points (``pp``, ``percentage
points``; basis points as pp/100), multiples (``1.5x``, ``times``), per-share amounts, scale
words and suffixes (thousand/million/billion/trillion, ``K``/``M``/``B``/``bn``/``mn``; Korean
``만``/``억``/``조``, combinable as ``5조 3,000억``) and ranges (``5–7%``, ``$1.2-1.5 billion``:
both ends become quantities sharing the unit). NOT quantities: years (1900–2100 written bare or
as a label in parentheses, ``(2021)``), dates, Korean dates, periods and ordinals (``3월``,
``3분기``, ``12개월``, ``2위``), ordinals (``3rd``), list numbers (``1.`` / ``(2)`` at a line
start), citation markers (``[F3]``, ``[3]``), codes attached to letters (``FY2019``, ``Q3``,
``10-K``, ``COVID-19``; a one-letter K/M/B suffix is a scale only after a currency, so ``$5M``
is five million but ``3M`` and ``10K`` are names), durations (``12 months``), and formula
constants next to an operator (``× 100``, ``/ 2``). In a formula a minus between numbers is an
operator, not a sign, and parentheses group (``(0.1652) x 100`` is not negative). Spans are
code-point offsets ``[start, end)``.

Issue 15 added: Korean digit multipliers inside amounts (``3조 5천억원`` = 35,000 × 1e8 KRW with
``tolerance`` 500, ``5천만원``, ``3천5백만``), ``%p``/``퍼센트포인트`` (pp) and ``퍼센트`` (%), a
lowercase ``k`` after a currency amount (``$5.2k`` = 5,200; bare ``401k`` stays a name), and with
``words=True`` numbers in words and digit fractions (:mod:`assay.claims.numwords`). Every
quantity also gets ``negative_wording`` and ``change_base`` (:mod:`assay.claims.quantity`).
Speed: the scan jumps from digit to digit (a match starts at most 12 characters before its first
digit), a number that must be bare is found without the quantity pattern (:mod:`assay.claims.scan`)
and the word index intersects word sets instead of stepping word by word; what is read is
unchanged (``tests/claims/test_reader_equivalence.py``, ``benchmarks/bench_claims_extract.py``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from assay.claims.citations import DEFAULT_CITATION_PATTERN, mask
from assay.claims.numwords import DIGIT_FRACTION, word_quantities
from assay.claims.patterns import (
    CODE_AFTER,
    CURRENCY_SYMBOLS,
    DATE_AFTER,
    DATE_BEFORE,
    DURATION_AFTER,
    FORMULA_CONSTANTS,
    KOREAN_LABEL_AFTER,
    KOREAN_SCALE,
    KOREAN_SUB,
    LABEL_BEFORE,
    NUM,
    NUMBER,
    NUMBER_NO_SPACE,
    ORDINAL_AFTER,
)
from assay.claims.prechecks import (
    ORDINAL_SUFFIXES,
    may_end_in_label,
    may_end_in_month,
    may_start_date,
    may_start_duration,
)
from assay.claims.quantity import Quantity, digits_quantity
from assay.claims.ranges import link_ranges
from assay.claims.scan import LETTERS as _LETTERS
from assay.claims.scan import number_spans
from assay.claims.wording import WordIndex, change_base_at, direction_after
from assay.facts import SCALE_WORDS

__all__ = ["Quantity", "extract_quantities", "extract_masked"]


def extract_quantities(
    text: str,
    *,
    citation_pattern: str = DEFAULT_CITATION_PATTERN,
    space_thousands: bool = True,
    words: bool = False,
) -> list[Quantity]:
    """Every quantity stated in ``text``, in order of appearance (rules in the module docstring).

    ``space_thousands=False`` reads a plain space as a separator between numbers, not a
    thousands separator (source passages: ``"Cost of sales 900 800"`` is 900 and 800; the
    no-break and narrow no-break spaces still group thousands). ``words=True`` also reads
    numbers written in words and digit fractions (:mod:`assay.claims.numwords`; answers —
    :func:`~assay.claims.extract_claims` always does); off by default so source passages and
    importers read what they read before issue 15.
    """
    return extract_masked(mask(text, re.compile(citation_pattern), keep_fractions=words), space_thousands, words)


def extract_masked(
    masked: str,
    space_thousands: bool = True,
    words: bool = False,
    index: WordIndex | None = None,
    *,
    wording: bool = True,
) -> list[Quantity]:
    """Every quantity of ``masked`` (a text already through :func:`~assay.claims.citations.mask`):
    :func:`extract_quantities` without the masking, for callers that mask once for several uses.
    With ``words=True`` mask with ``keep_fractions=True`` (digit fractions are read, not dates).
    ``index``: the text's :class:`~assay.claims.wording.WordIndex` when the caller has built it.
    ``wording=False`` (with ``words=False``) skips the wording around each number: the same
    quantities with ``direction``, ``sign_wording``, ``negative_wording`` and ``change_base``
    left unset — for source passages, whose candidates use value, unit and scale only (about
    a third of a passage's reading time; ``tests/claims/test_fast_paths.py``)."""
    out: list[Quantity] = []
    if not wording and words:
        raise ValueError("words=True reads number words through the word index: it needs wording=True")
    index = index if index is not None else WordIndex(masked) if wording else None
    ascii_text = masked.isascii()
    fractions = [m.span() for m in DIGIT_FRACTION.finditer(masked)] if words and "/" in masked else []
    pattern = NUMBER if space_thousands else NUMBER_NO_SPACE
    for m in number_spans(masked, pattern):  # a bare number as its span (assay.claims.scan), else the match
        start, end = m if isinstance(m, tuple) else m.span()
        if fractions and any(a < end and start < b for a, b in fractions):
            continue  # "1/3" is a fraction (read below), not 1 and 3
        if isinstance(m, tuple):
            q = _bare_quantity(masked, start, end, index, ascii_text)
        elif m.lastindex == 6 and (start == m.start(6) or masked[start : m.start(6)].isspace()):
            q = _bare_quantity(masked, m.start(6), m.end(6), index, ascii_text)
        else:
            q = _to_quantity(masked, m, index, ascii_text)
        if q is not None:
            out.append(q)
    out = link_ranges(masked, out)
    if index is None:
        return out
    if words and (index.number_words or fractions):
        out = sorted(out + word_quantities(masked, index, [q.span for q in out]), key=lambda q: q.span)
    return _with_base_and_loss(masked, out, index)


def _with_base_and_loss(text: str, qs: list[Quantity], index: WordIndex) -> list[Quantity]:
    """Fill ``negative_wording`` and ``change_base`` (one look-up each per quantity)."""
    prev_end = 0
    for i, q in enumerate(qs):
        neg = index.negative_word(q.span[0], q.span[1], prev_end)
        base, stated = change_base_at(text, q.span[0], q.span[1]) if q.form in ("digits", "words") else _NO_BASE
        if neg is not None or base is not None:
            direction = q.direction if q.direction is not None or q.explicit_sign else stated
            qs[i] = replace(q, negative_wording=neg, change_base=base, direction=direction)
        prev_end = q.span[1]
    return qs


# --- helpers -------------------------------------------------------------------------------


def _parse_num(s: str) -> tuple[float, int]:
    # = GROUPING.sub("", s): the number pattern allows only these separators
    clean = s if s.isdigit() else s.replace(",", "").replace(" ", "").replace("\u202f", "").replace("\u00a0", "")
    decimals = len(clean.split(".")[1]) if "." in clean else 0
    return float(clean), decimals


def _to_quantity(text: str, m: re.Match[str], words: WordIndex | None, ascii_text: bool) -> Quantity | None:
    # the groups as locals (one tuple, not a dict read by name per test)
    open_p, sign, cur_w, sign2, open_p2, num, kr, scale_w, suffix_w, close, pct2, scale_w2, cur_w2, share = m.groups()
    start, end = m.start(), m.end()
    num_start, num_end = m.start(6), m.end(6)
    value, decimals = _parse_num(num)
    paren = bool((open_p or open_p2) and close)
    if not paren and (open_p or open_p2) and (share or cur_w2 or scale_w2):
        close_after = _CLOSE_PAREN.match(text[end : end + 2])
        if close_after:  # "($0.25 per share)", "(300억 원)": the unit words sit inside the parentheses
            paren, end = True, end + close_after.end()
    if not paren:
        pct2 = None  # "(5)%" is a negative percent; "5)%" is not read
    if (open_p or open_p2) and not paren:
        start = m.start(2) if sign else (m.start(3) if cur_w else num_start)  # an unclosed "(" is not part of it
    if close is not None and not paren:
        end = m.start(10)
        scale_w2 = None
    while start < num_start and text[start].isspace():
        start += 1
    if not sign and sign2:
        sign = sign2.strip()  # "$-5": a minus after the currency symbol
    if sign and not sign2 and _VALUE_BEFORE.search(text[max(0, start - 8) : start]):  # same line only
        sign = None  # a binary minus: "177,866 - 135,987"
        start = m.start(3) if cur_w else num_start
    if paren and (
        _OPERATOR_AFTER_PAREN.match(text[end : end + 5])
        or _OPERATOR_BEFORE_PAREN.search(text[max(0, start - 4) : start])
    ):
        paren = False  # grouping in a formula: "(0.1652) x 100"
    before, after = text[max(0, start - 24) : start], text[end : end + 24]
    unit_written = bool(cur_w or cur_w2 or scale_w or scale_w2 or suffix_w or pct2 or kr or share)
    # --- things that are not quantities
    if not unit_written and (after[:1] in _LETTERS or after[:1] == "-") and CODE_AFTER.match(after):
        return None
    if before.endswith(("-", "-\n")) and _CODE_HYPHEN_BEFORE.search(before):
        return None  # a code: "COVID-19", "Form 10-K"
    if (
        not unit_written
        and "." not in num
        and value in FORMULA_CONSTANTS
        and (_OPERATOR_BEFORE.search(before) or _OPERATOR_AFTER.match(after))
    ):
        return None  # a formula constant: "× 100", "/ 2"
    if text[num_end : num_end + 2] in ORDINAL_SUFFIXES and ORDINAL_AFTER.match(text[num_end : num_end + 3]):
        return None
    is_year = "." not in num and "," not in num and len(num) == 4 and 1900 <= value <= 2100
    if not unit_written and not sign and paren and is_year:
        return None  # a year label in parentheses: "Total current assets (2021): $19,815 million"
    if not unit_written and not paren and not sign:
        if is_year:
            return None  # a year
        if _date_label_or_duration(before, after, text[num_end : num_end + 2], ascii_text):
            return None
        if (
            value < 100
            and not open_p
            and _LIST_MARK_AFTER.match(text[num_end : num_end + 2])
            and not text[text.rfind("\n", 0, start) + 1 : start].strip()  # last: a paragraph is one long line
        ):
            return None  # list number "1. " / "2) "
    if paren and not unit_written and "." not in num and value < 10:
        line_start = text.rfind("\n", 0, start) + 1
        if not text[line_start:start].strip() or _COLON_BEFORE.search(text[line_start:start]):
            return None  # list marker "(2)"
    # --- unit and scale
    unit: str | None = None
    cur = (cur_w or "").strip() or (cur_w2 or "").strip()
    if cur:
        unit = CURRENCY_SYMBOLS.get(cur) or {
            "원": "KRW",
            "won": "KRW",
            "dollar": "USD",
            "dollars": "USD",
            "euro": "EUR",
            "euros": "EUR",
            "yen": "JPY",
            "엔": "JPY",
            "yuan": "CNY",
            "renminbi": "CNY",
            "위안": "CNY",
            "유로": "EUR",
            "달러": "USD",
        }.get(cur.lower(), cur.upper())
    scale = 1.0
    tolerance: float | None = None
    if unit in _HUNDREDTHS:  # "613 cents": 6.13 of a currency ("pence": of sterling; "cents": of any dollar or euro)
        unit, scale = _HUNDREDTHS[unit], 0.01
    if kr:
        value, scale, decimals, tolerance = _korean(value, decimals, kr)
    if scale_w or scale_w2:
        w = (scale_w or scale_w2).strip()
        scale = _SUFFIX_SCALES.get(w) or SCALE_WORDS[w.lower()]
        if w in _CURRENCY_ONLY_SUFFIXES and not cur:
            return None  # a code, name or unit, not a magnitude: "3M" (the company), "10K", "401k", "5m", "12 mm"
    suffix = (suffix_w or pct2 or "").strip().lower()
    if suffix:
        if suffix in _PP_SUFFIXES or suffix.startswith("percentage point"):
            unit = "pp"
        elif suffix in ("%", "percent", "pct", "퍼센트") or suffix.startswith("per"):
            unit = "%"
        elif suffix.startswith("basis point") or suffix == "bps":
            unit, scale = "pp", 0.01
        else:
            unit = "x"
    if share and unit not in ("%", "pp", "x"):
        unit = f"{unit or 'USD'}/share"
    sign_char = sign or ""
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
    direction: int | None = None
    sign_wording = False
    if words is not None:
        direction, sign_wording = words.wording(q_start)
        if direction is None:  # "a 2.8% decline", "$11.0 billion lower"
            direction = direction_after(text, q_end)
    return digits_quantity(
        text[q_start:q_end],
        (q_start, q_end),
        value,
        scale,
        unit,
        decimals,
        negative,
        direction,
        sign_wording,
        tolerance,
    )


def _date_label_or_duration(before: str, after: str, korean_after: str, ascii_text: bool) -> bool:
    """The tests of an unmarked number that both readers make (each rejects it, in any order): a
    date around it ("March 3, 2019"), a label before it ("Note 5"), a duration after it ("5
    years"), or a Korean date, period or ordinal after it (``korean_after``, its next two
    characters: "3월", "3분기")."""
    return bool(
        (before[-1:].isspace() and may_end_in_month(before) and DATE_BEFORE.search(before))
        or (may_start_date(after) and DATE_AFTER.match(after))
        or (may_end_in_label(before) and LABEL_BEFORE.search(before))
        or (may_start_duration(after) and DURATION_AFTER.match(after))
        or (not ascii_text and KOREAN_LABEL_AFTER.match(korean_after))
    )


def _bare_quantity(text: str, start: int, end: int, words: WordIndex | None, ascii_text: bool) -> Quantity | None:
    """:func:`_to_quantity` of a bare match, given its number's span ``[start, end)`` — its number
    alone after at most the pattern's whitespace (no sign, parenthesis, currency, scale, unit or
    Korean multiplier; most table cells and every bare year): the tests of an unmarked number (each
    rejects, so their order is free: a year first), then the number as written
    (``tests/claims/test_fast_paths.py``)."""
    num = text[start:end]
    value, decimals = _parse_num(num)
    if len(num) == 4 and 1900 <= value <= 2100 and "." not in num and "," not in num:
        return None  # a year
    before, after = text[max(0, start - 24) : start], text[end : end + 24]
    if (after[:1] in _LETTERS or after[:1] == "-") and CODE_AFTER.match(after):
        return None
    if before.endswith(("-", "-\n")) and _CODE_HYPHEN_BEFORE.search(before):
        return None  # a code: "COVID-19", "Form 10-K"
    if (
        "." not in num
        and value in FORMULA_CONSTANTS
        and (_OPERATOR_BEFORE.search(before) or _OPERATOR_AFTER.match(after))
    ):
        return None  # a formula constant: "× 100", "/ 2"
    if after[:2] in ORDINAL_SUFFIXES and ORDINAL_AFTER.match(after[:3]):
        return None
    if not (after[:2] == " |" and before[-2:] == "| ") and _date_label_or_duration(
        before, after, after[:2], ascii_text
    ):
        # (a table cell "| 1,234 |": no date, label or duration pattern reads across a "|"; tested)
        return None
    if value < 100 and _LIST_MARK_AFTER.match(after[:2]) and not text[text.rfind("\n", 0, start) + 1 : start].strip():
        return None  # list number "1. " / "2) "
    direction: int | None = None
    sign_wording = False
    if words is not None:
        direction, sign_wording = words.wording(start)
        if direction is None:  # "a 2.8% decline"
            direction = direction_after(text, end)
    return digits_quantity(num, (start, end), value, 1.0, None, decimals, False, direction, sign_wording, None)


def _korean(value: float, decimals: int, tail: str) -> tuple[float, float, int, float | None]:
    """``1,234억`` → (1234, 1e8, 0, None); ``5조 3,000억`` → (53000, 1e8, 0, None); ``3조 5천억`` →
    (35000, 1e8, 0, 500): value in units of the smallest 만/억/조 written, and the tolerance on it
    when a digit multiplier (천/백/십) sets the displayed precision (half of 1천억 = 500억)."""
    terms: list[tuple[float, float]] = []
    pending, small, step = value, 0.0, 1.0  # the number being read, the 만-group so far, last 천/백/십
    for num, sub, big in _KR_TOKEN.findall(tail):
        if num:
            pending, decimals = _parse_num(num)
            step = 1.0
        if sub:
            small, pending, step = small + pending * KOREAN_SUB[sub], 0.0, KOREAN_SUB[sub]
        if big:
            terms.append((small + pending, KOREAN_SCALE[big]))
            small = pending = 0.0
    if small or pending:
        terms.append((small + pending, 1.0))  # trailing units ("1억 5000", "3천") are ones
    smallest = min((sc for _, sc in terms), default=1.0)
    # summed in units of the smallest scale: one term (the usual case) keeps its value exactly
    # (1.2억 stays 1.2, not 1.2e8 / 1e8 = 1.2000000000000002)
    total = sum(v * (sc / smallest) for v, sc in terms)
    tolerance = 0.5 * 10.0 ** (-decimals) * step if step != 1.0 else None
    return total, smallest, decimals, tolerance


#: The reader's small patterns, compiled once (not looked up in re's cache per number).
_CLOSE_PAREN = re.compile(r"\s?\)")
_VALUE_BEFORE = re.compile(r"[\d)%][ \t]*\Z")
_OPERATOR_AFTER_PAREN = re.compile(r"\s*(?:[*/×÷]|x\s*\d)")
_OPERATOR_BEFORE_PAREN = re.compile(r"[*/×÷=]\s*$")
_CODE_HYPHEN_BEFORE = re.compile(r"[A-Za-z]-$")
_OPERATOR_BEFORE = re.compile(r"(?:[*/×÷]|\bx)\s*$")
_OPERATOR_AFTER = re.compile(r"\s*[*/×÷]")
_LIST_MARK_AFTER = re.compile(r"^[.)]\s")
_COLON_BEFORE = re.compile(r"[:;]\s*$")
_NO_BASE: tuple[None, None] = (None, None)
#: Scale suffixes (gate-16 added the lower-case "m"/"b", "mm", "bln" and "mln": "$5m", "$96,995 mm", "$97.0 bln").
_SUFFIX_SCALES = {"K": 1e3, "k": 1e3, "M": 1e6, "m": 1e6, "mm": 1e6, "B": 1e9, "b": 1e9}
_SUFFIX_SCALES |= {"bn": 1e9, "bln": 1e9, "mn": 1e6, "mln": 1e6}
#: The suffixes that are a scale only after a currency ("5m" is five metres, "12 mm" twelve millimetres).
_CURRENCY_ONLY_SUFFIXES = frozenset(("K", "k", "M", "m", "mm", "B", "b"))
#: A currency's hundredth written after the number (the unit its reader maps the word to → the currency's unit).
_HUNDREDTHS = {"CENT": None, "CENTS": None, "¢": None, "PENCE": "GBP"}
_PP_SUFFIXES = frozenset(("pp", "ppt", "ppts", "pt", "pts", "point", "points", "p.p.", "%p", "퍼센트포인트"))
_KR_TOKEN = re.compile(r"(" + NUM + r")?\s?([천백십])?\s?([조억만])?")
