"""Period mentions in text and their normalised keys (issue 15, for the gate's ``period_mismatch``).

:func:`find_periods` returns only unambiguous mentions, each as a :class:`Period` with a key:

- annual (key ``"FY<yyyy>"``; a fiscal and a calendar year share the key, since a company's
  annual figures are its fiscal year, named by the year it ends in): ``FY2023``, ``FY 2023``,
  ``FY23``, ``FY'23``, ``fiscal 2022``, ``fiscal year 2022``, ``fiscal year ended September 30,
  2023``, ``the year ended December 31, 2023``, ``2023년`` / ``2023 회계연도`` (not ``2023년 3월``,
  a date), and a bare year ``2023`` only right after "in", "for", "during", "of", "from",
  "than", "versus"/"vs.", "compared with/to", "calendar", "year" or right before a figure word
  ("2023 revenue", "2023 net income", "2023 results" …);
- quarters (key ``"<yyyy>Q<n>"``): ``Q3 2024``, ``Q3 FY2024``, ``Q3'24``, ``3Q24``, ``3Q 2024``,
  ``third quarter of 2024``, ``third quarter of fiscal 2024``, ``2024 third quarter``,
  ``2024년 3분기``;
- halves (key ``"<yyyy>H<n>"``): ``H1 2023``, ``1H23``, ``first half of 2023``, ``2023년 상반기``.

Years 1990–2099; two-digit years are 20yy. NOT periods: a year inside a date other than "year
ended" ("March 3, 2020", "2023-12-31"), a bare ``Q3`` or "the third quarter" without a year,
"2023" with no period context (it may be a count or a code). :func:`period_key` maps a fact's
free-text period (``"FY2023"``, ``"2019"``, ``"fiscal 2019"``, ``"2019-12-31"``, ``"Q3 2024"``) to
the same keys (a date to the fiscal year it ends in).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Period", "find_periods", "period_key"]


@dataclass(frozen=True)
class Period:
    """A period mention: its ``text``, ``span`` (code-point ``[start, end)``) and normalised ``key``
    (``"FY2023"``, ``"2024Q3"``, ``"2023H1"``)."""

    text: str
    span: tuple[int, int]
    key: str


def find_periods(text: str) -> list[Period]:
    """Every unambiguous period mention of ``text``, in order (forms in the module docstring).

    Overlapping forms keep the longest, most specific one ("Q3 fiscal 2024" is one quarter, not
    a quarter and a year). Pure; a text without a 4-digit or ``FY``/``Q``/``H`` form costs one
    regex check."""
    if not _HINT.search(text):
        return []
    found: list[Period] = []
    for m in _PERIOD.finditer(text):
        key = _key(m)
        if key is not None:
            s, e = m.span("y5") if m.group("y5") else (m.span("y6") if m.group("y6") else m.span())
            while s < e and text[s].isspace():
                s += 1
            found.append(Period(text[s:e], (s, e), key))
    return found


def period_key(period: str | None) -> str | None:
    """The key of a fact's free-text period, or None when it names no period this module reads.

    ``"FY2023"``/``"fiscal 2023"``/``"2023"``/``"2023-09-30"``/``"September 30, 2023"`` →
    ``"FY2023"``; ``"Q3 2024"``/``"2024Q3"`` → ``"2024Q3"``; ``"H1 2023"`` → ``"2023H1"``."""
    if not period:
        return None
    p = period.strip()
    if m := _KEY_FORM.fullmatch(p):
        return p.upper() if m.group(1) else f"{m.group(2)}{m.group(3).upper()}"
    if m := _ISO_DATE.fullmatch(p):
        return f"FY{m.group(1)}"
    if m := re.fullmatch(r"((?:19|20)\d\d)", p):
        return f"FY{m.group(1)}"
    found = find_periods(p)
    if len(found) == 1:
        return found[0].key
    if m := _YEAR_AT_END.search(p):
        return f"FY{m.group(1)}"  # "September 30, 2023", "As of December 31, 2019"
    return None


def _year(s: str) -> str | None:
    y = int(s)
    if len(s) == 2:
        y += 2000
    return str(y) if 1990 <= y <= 2099 else None


def _key(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    if g["q_n"] or g["q_n2"] or g["q_word"] or g["q_word2"] or g["kq_n"]:
        n = g["q_n"] or g["q_n2"] or g["kq_n"] or str(_ORDINALS[(g["q_word"] or g["q_word2"]).lower()])
        y = _year(g["q_y"] or g["q_y2"] or g["q_y3"] or g["q_y4"] or g["kq_y"])
        return f"{y}Q{n}" if y and 1 <= int(n) <= 4 else None
    if g["h_n"] or g["h_n2"] or g["h_word"] or g["kh"]:
        if g["kh"]:
            n = "1" if g["kh"] == "상반기" else "2"
        else:
            n = g["h_n"] or g["h_n2"] or str(_ORDINALS[g["h_word"].lower()])
        y = _year(g["h_y"] or g["h_y2"] or g["h_y3"] or g["kh_y"])
        return f"{y}H{n}" if y and n in ("1", "2") else None
    y = _year(next(v for k, v in g.items() if k.startswith("y") and v))
    return f"FY{y}" if y else None


_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_Y4 = r"(?:19|20)\d\d"
_YY = r"(?:(?:19|20)?\d\d)"
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|"
    r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_FIGURE_WORDS = (
    r"(?:revenues?|sales|net\s+income|net\s+loss|income|earnings|profits?|results|operating|gross|EBITDA|EPS|"
    r"expenses?|costs?|capex|cash\s+flows?|margins?|dividends?|guidance|financials?)"
)
_PERIOD = re.compile(
    # quarters
    r"\bQ(?P<q_n>[1-4])\s?(?:(?:FY|fiscal(?:\s+year)?)\s?)?'?(?P<q_y>" + _YY + r")\b"
    r"|\b(?P<q_n2>[1-4])Q\s?'?(?P<q_y2>" + _YY + r")\b"
    r"|\b(?P<q_word>first|second|third|fourth)\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?(?:(?:fiscal|FY)\s?(?:year\s+)?)?"
    r"(?P<q_y3>" + _Y4 + r")\b"
    r"|\b(?P<q_y4>" + _Y4 + r")\s+(?P<q_word2>first|second|third|fourth)\s+quarter\b"
    r"|(?P<kq_y>" + _Y4 + r")\s?년\s?(?P<kq_n>[1-4])\s?분기"
    # halves
    r"|\bH(?P<h_n>[12])\s?(?:FY\s?)?'?(?P<h_y>" + _YY + r")\b"
    r"|\b(?P<h_n2>[12])H\s?'?(?P<h_y2>" + _YY + r")\b"
    r"|\b(?P<h_word>first|second)\s+half\s+(?:of\s+)?(?:(?:fiscal|FY)\s?(?:year\s+)?)?(?P<h_y3>" + _Y4 + r")\b"
    r"|(?P<kh_y>" + _Y4 + r")\s?년\s?(?P<kh>상반기|하반기)"
    # years
    r"|\bFY\s?'?(?P<y1>" + _YY + r")\b"
    r"|\bfiscal\s+(?:years?\s+)?(?:end(?:ed|ing)\s+(?:on\s+)?(?:"
    + _MONTH
    + r"\s+\d{1,2},?\s+)?)?(?P<y2>"
    + _Y4
    + r")\b"
    r"|\b(?:the\s+)?(?:fiscal\s+|calendar\s+)?years?\s+end(?:ed|ing)\s+(?:on\s+)?" + _MONTH + r"\s+\d{1,2},?\s+"
    r"(?P<y3>" + _Y4 + r")\b"
    r"|(?P<y4>" + _Y4 + r")\s?(?:년(?!\s?\d{1,2}\s?월)|\s?(?:회계|사업)\s?연도)"
    r"|\b(?:in|for|during|of|from|than|versus|vs\.?|compared\s+(?:with|to)|calendar|year)\s+(?P<y5>" + _Y4 + r")\b"
    r"(?![-/.,]?\d)"
    r"|\b(?P<y6>" + _Y4 + r")\s+(?=" + _FIGURE_WORDS + r"\b)",
    re.I,
)
_HINT = re.compile(r"\d\d|FY|[QH][1-4]", re.I)
_KEY_FORM = re.compile(r"(FY(?:19|20)\d\d)|((?:19|20)\d\d)([QH][1-4])", re.I)
_ISO_DATE = re.compile(r"((?:19|20)\d\d)-\d{1,2}-\d{1,2}")
_YEAR_AT_END = re.compile(r"\b((?:19|20)\d\d)\s*$")
