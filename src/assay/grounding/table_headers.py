"""The column headers of a page's "|" tables: which year each column names and which holds changes
(issue 15, gate-18/19; read by :func:`assay.grounding.passages.parse_passages`).

A "|" row with no number after its first cell but footnote marks (:func:`no_number_after_bar`) and
two or more cells that each name one year (:func:`cell_year`: a date or a year, or words of dates
around one, "Year Ended December 31, 2018", "Q4 2019") is a header (:func:`bar_header`); a row under
it with as many cells (:func:`aligned`) gives each number its cell's year, and a cell under a change
column (:data:`CHANGE`) its sign as its direction. A year spanning a group of columns names each of
them (:func:`spanned`).
"""

from __future__ import annotations

import re

from assay.claims import Quantity
from assay.grounding.candidates import period_rank

__all__ = [
    "CHANGE",
    "DATE",
    "HEADER_YEAR",
    "aligned",
    "bar_header",
    "cell_year",
    "column_parts",
    "no_number_after_bar",
    "spanned",
]

#: A date or a year as a column header writes it ("February 2, 2019", "Fiscal 2023", "FY2022"; group 1: its year).
DATE = r"(?:(?:[A-Z][a-z]{2,8}\.?\s+\d{1,2},?\s+)?(?:(?:FY|Fiscal(?:\s+Year)?)\s?)?((?:19|20)\d{2}))"
#: One cell that is a date or a year and nothing else but a footnote mark or a word in parentheses
#: (:func:`bar_header`: "2018 (4)", "December 31,2018", "FY19", "2019 (restated)").
_HEADER_DATE = re.compile(
    r"^\s*(?:" + DATE.replace(r",?\s+", r",?\s*") + r"|(?:FY|Fiscal)\s?'?(\d{2}))"
    r"\s*(?:\(\d{1,2}\)|\*{1,3}|\([A-Za-z][A-Za-z ]{0,20}\))?\s*$",
    re.I,
)
#: A year in a header (four digits, 19xx or 20xx, no digit beside).
HEADER_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
#: A footnote mark as the reader reads it: "(1)", or "2" of "Restated See note 2" (one or two digits).
_FOOTNOTE_MARK = re.compile(r"\(\d{1,2}\)|\d{1,2}")


def bar_header(
    line: str, first: bool = True, above: str | None = None, changes: bool = True
) -> tuple[int, dict[int, int]] | None:
    """A "|" row (with no number after its first "|": the caller's test) read as a column header of
    years: its cell count and the year of each of its cells after the first that names one
    (:func:`cell_year`), or :data:`CHANGE` for a cell over a column of changes — its own words, or
    those of the cell over it in the line ``above`` when that has as many cells (" | Year Ended … |  |
    Change | " over " | 2018 | 2017 | $ | %"; ``changes`` False: the page names none, none is looked
    for) — by cell index, when two or more name a year; else None. Its first cell may be anything (a
    caption), and its other cells too ("Percentage Change 2019 Versus 2018",
    "Lives (Years)": they name no year). Gate-18: a table written with "|" named no column's year, so
    "Revenue was 1,100 million in 2019" passed on the 2018 cell (TAT-QA's level sentences with another
    year: 2,417 of 2,478 passed)."""
    years: dict[int, int] = {}
    cells = line.split("|")
    undated = []
    for i in range(1, len(cells)):
        if (y := cell_year(cells[i], first)) is not None:
            years[i] = y
        else:
            undated.append(i)
    if len(years) < 2:
        return None
    if changes and undated:  # (read only for a header, on a page that names a change)
        over = above.split("|") if above is not None and "|" in above else []
        over = over if len(over) == len(cells) else [""] * len(cells)
        for i in undated:
            if any(_CHANGE_CELL.search(t) and not _reversed(t) for t in (cells[i], over[i])):
                years[i] = CHANGE
    return _cell_count(line), years


def column_parts(line: str, years: dict[int, int]) -> dict[int, int]:
    """The place in its year of each cell of a year header (``line``, read as ``years`` by
    :func:`bar_header`) whose year another cell shares, by cell index: the month its period ends, a
    quarter's last ("Q2 2020", "2Q 2020": 6; :func:`~assay.grounding.candidates.period_rank`), else the
    last month it names ("Three Months Ended March 31, 2020": 3; "June 30, 2019": 6). Empty when a cell
    of a shared year names no such place or two name the same one: then the gate orders no change
    between them (:func:`~assay.grounding.operands.unordered_direction`). Gate-20: the columns of one year
    were unordered, so "increased" and "decreased" between two quarters both passed."""
    shared = {i for i, y in years.items() if y != CHANGE and sum(1 for v in years.values() if v == y) > 1}
    if not shared:
        return {}
    cells = line.split("|")
    parts: dict[int, int] = {}
    for i in shared:
        if (rank := period_rank(cells[i])) is not None and rank[1]:  # "Q2 2020", "2Q 2020"
            parts[i] = 3 * rank[1]
        elif months := _MONTH.findall(cells[i].lower()):
            parts[i] = _MONTHS.index(months[-1][:3]) + 1
        else:
            return {}
    by_year: dict[int, list[int]] = {}
    for i, part in parts.items():
        by_year.setdefault(years[i], []).append(part)
    return parts if all(len(set(p)) == len(p) for p in by_year.values()) else {}


_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b")


def spanned(line: str, below: str, header: tuple[int, dict[int, int]]) -> tuple[int, dict[int, int]] | None:
    """A year header (``line``, read as ``header`` by :func:`bar_header`) whose years each span a group of
    the columns its next line (``below``) names, the same names in every group: each column of a group
    takes its year. Either the header leaves the group's other cells empty ("| December 31, 2019 |  |
    December 31, 2018 | " over "| Carrying Amount | Fair Value | Carrying Amount | Fair Value"), or it
    has one cell a year (" | 2019 | 2018" over " | Amount | % | Amount | %"). Gate-19: the spanned columns
    named no year, so "The percentage difference between fair value and carrying amount of total debt
    as of December 31, 2019" passed on 2018's columns. Else None (groups of unequal size or names)."""
    cells, names = line.split("|"), [c.strip().lower() for c in below.split("|")]
    years = sorted((i, y) for i, y in header[1].items() if y != CHANGE)
    if len(years) < 2 or any(y == CHANGE for y in header[1].values()):
        return None
    if len(names) == len(cells):  # the header's other cells of a group are empty
        starts = [i for i, _ in years]
        if any(cells[i].strip() for i in range(starts[0] + 1, len(cells)) if i not in starts):
            return None
        width = starts[1] - starts[0]
    elif [i for i, _ in years] == list(range(1, len(years) + 1)) and len(cells) == len(years) + 1:
        width = (len(names) - 1) // len(years)  # one cell a year: the groups fill the line below
        if width * len(years) != len(names) - 1:
            return None
        starts = [1 + k * width for k in range(len(years))]
    else:
        return None
    groups = [names[a : a + width] for a in starts]
    if width < 2 or starts[-1] + width > len(names) or any(g != groups[0] for g in groups) or not all(groups[0]):
        return None
    out = {a + k: y for a, (_, y) in zip(starts, years, strict=True) for k in range(width)}
    return (_cell_count(below) if len(names) != len(cells) else header[0]), out


#: A header's cell over a column of changes, in :func:`bar_header`'s map of cells (no year is 0): its
#: cells tell a direction by their sign ("Change", "$ Change", "Increase (Decrease)", "2019 vs. 2018",
#: "2019 over 2018", "Variance in Percent", "% Difference"; gate-19: "The decrease in interest income was
#: $16.9 million" passed on the "Change" column's 16,901).
CHANGE = 0
_CHANGE_CELL = re.compile(
    r"\b(?:change[sd]?|increase|vs\.?|versus|variance|growth|difference)\b|(?:19|20)\d\d\s+over\s+(?:19|20)\d\d", re.I
)


def _reversed(cell: str) -> bool:
    """Whether a change column's positive cells may not be rises: "(Increase) Decrease", "Decrease",
    "Favorable (Unfavorable)"."""
    low = cell.lower()
    reversed_ = "(increase" in low or "favorable" in low or "favourable" in low
    return reversed_ or ("decrease" in low and "increase" not in low)


def cell_year(cell: str, first: bool = True) -> int | None:
    """The year a header cell names: a :data:`_HEADER_DATE` match's four digits (20xx of "FY19"), or
    the one year of a cell whose other words are all words of dates and periods (:data:`_DATE_WORDS`:
    "Year Ended December 31, 2018", "Year-ended 31 March 2019", "Q4 2019", "Pro Forma Year Ended
    September 30, 2018 (unaudited)"; gate-19), whose other numbers are days or marks (two digits at
    most) and whose other characters are spaces and punctuation of dates ("30/9/2018"; not the range
    mark of "30/7/2021~ 11/4/2024"; a "/" date under a table's header (``first`` False) is a value: "Maturity
    date | … | 11/4/2024"); or the one year of a cell that marks it a fiscal year ("Fiscal 2019 Net Sales",
    "FY2019 Revenue"). Else None ("Notes due 2025", "2019 vs. 2018": not read)."""
    if m := _HEADER_DATE.match(cell):
        return int(m.group(1)) if m.group(1) else 2000 + int(m.group(2))
    if not HEADER_YEAR.search(cell) or not _DATE_CHARS.fullmatch(cell) or (not first and "/" in cell):
        return None  # ("30/7/2021~": a range of dates, no one year)
    years = set(HEADER_YEAR.findall(cell))
    if len(years) != 1 or any(len(d) > 2 for d in _DIGITS.findall(HEADER_YEAR.sub(" ", cell))):
        return None
    if all(w.lower() in _DATE_WORDS for w in _WORDS.findall(cell)) or _FISCAL_YEAR.search(cell):
        return int(years.pop())
    return None


#: A year marked as a fiscal year ("Fiscal 2019", "fiscal year 2019", "FY2019", "FY 2019").
_FISCAL_YEAR = re.compile(r"\b(?:fiscal(?:\s+year)?|fy)\s?(?:19|20)\d{2}\b", re.I)


#: The words a header cell naming a period may hold besides its date (:func:`cell_year`). Not "balance":
#: "Balance at January 1, 2019" is the year before's end (a hunt's false reject of "… at the end of 2018").
_DATE_WORDS = frozenset(
    "year years ended ending end fiscal fy calendar as of at for the period periods month months week weeks "
    "quarter quarters three six nine twelve fifty two q h restated unaudited audited see note pro forma actual "
    "jan january feb february mar march apr april may jun june jul july aug august sep sept september "
    "oct october nov november dec december".split()
)
_WORDS = re.compile(r"[A-Za-z]+")
_DATE_CHARS = re.compile(r"[A-Za-z0-9\s,./()'’*-]+")
_DIGITS = re.compile(r"\d+")


def _cell_count(line: str) -> int:
    """A "|" row's cells as split (signed: negative when it closes with a "|", as a markdown row may)."""
    n = line.count("|") + 1
    return -n if line.rstrip().endswith("|") else n


def aligned(line: str, header: int) -> bool:
    """Whether a "|" row's cells sit under its header's (``header``: :func:`_cell_count` of it): as many
    (an empty last cell also ends a row with "|"), or one fewer or more when only one of the two closes
    with a "|" (markdown rows may or may not: "| Revenue | 1,234 | 1,100" under "| | 2019 | 2018 |").
    Its cells count from the left either way."""
    n = _cell_count(line)
    return abs(n) == abs(header) or ((n < 0) != (header < 0) and abs(abs(n) - abs(header)) == 1)


def no_number_after_bar(qs: list[Quantity] | None, bar: int) -> bool:
    """Whether no quantity of a line starts after its first "|" (offset ``bar``) but footnote marks (one
    or two digits, "(1)" or "2"): a header's years and dates are none (the cheap test before
    :func:`bar_header`; its caption may hold one: "(1)"). Gate-19: a header cell's mark ("| 2019 (1) |
    2018 | 2017 (2)", "… 2018 Restated See note 2") is read as a number, so its table named no column's
    year (TAT-QA's templated period swaps: 20 of 55 false accepts)."""
    if not qs or qs[-1].span[0] < bar:
        return True
    last = qs[-1].text  # (a data row's last number is rarely that short: one test, then False)
    if len(last) > 4 or not _FOOTNOTE_MARK.fullmatch(last):
        return False
    return all(q.span[0] < bar or _FOOTNOTE_MARK.fullmatch(q.text) for q in qs)
