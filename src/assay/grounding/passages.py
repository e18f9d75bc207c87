"""Source passages as candidates: numbers with their scale context, grouped by table row.

A header such as ``(Millions)``, ``in thousands``, ``($ in millions)`` or ``(in millions, except
per share)`` sets the scale of the numbers under it in that passage (until another header);
numbers on a line that mentions "per share" are not scaled. A number keeps its value *as
displayed* as well, since answers often copy a table figure without its unit.

Rows: derivations are allowed only within one row (otherwise almost any number "derives"). A
row is one text line with numbers, or, for pages flattened one cell per line (FinanceBench),
a label line plus the number-only lines that follow it.

Columns: a run of two or more header lines that are only dates or years ("February 2, 2019",
"February 3, 2018"; "2019 2018"; "Fiscal 2023") names the columns of the rows under it, until
the next such run; a row with exactly one number per named year gets each number its column's
year (``Candidate.column_year``, in order). A row with fewer or more numbers (an empty cell, a
change column) gets none: nothing says which column a number sits in. Used by
:func:`assay.grounding.sentence_rules.sentence_reader`: a sentence naming years, none of them
the column's, is not backed by that number ("inventories at the end of fiscal 2019 were
$5,410 million" on the 2018 column's 5,410).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from itertools import combinations

from assay.claims import DEFAULT_CITATION_PATTERN, Quantity
from assay.claims.citations import mask
from assay.claims.quantities import extract_masked
from assay.grounding.candidates import Candidate, passage_candidate
from assay.grounding.label_signs import told_direction
from assay.grounding.lexicon import PROSE_SENTENCE_END
from assay.grounding.table_headers import (
    CHANGE,
    DATE,
    HEADER_YEAR,
    aligned,
    bar_header,
    cell_year,
    column_parts,
    no_number_after_bar,
    spanned,
)

__all__ = ["PassageNumbers", "parse_passages"]

_HEADER = re.compile(
    r"(?:\(|\bin\s|\bamounts\s+in\s|\$\s*in\s|dollars\s+in\s|^)\s*\$?\s*(?:in\s+)?(thousands|millions|billions)\b",
    re.I,
)
_PER_SHARE = re.compile(r"per\s+(?:diluted\s+|basic\s+)?(?:common\s+)?share|\bEPS\b", re.I)
_CITATION = re.compile(DEFAULT_CITATION_PATTERN)
#: Words one of which each pattern above needs (their pre-check: most lines hold none).
_HEADER_WORDS = ("thousands", "millions", "billions")
_PER_SHARE_WORDS = ("per", "eps")
#: The English scale words a passage names (a number of it copied with one of them: its scale).
_SCALE_NAMED = re.compile(r"\b(thousand|million|billion)s?\b", re.I)
_SCALE_NAMES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_SCALE_BY_HEAD = {w[0]: v for w, v in _SCALE_NAMES.items()}
#: Each set of scales a page may name as one shared tuple (ascending). A passage candidate's instance
#: dict then holds no object the cyclic collector tracks (a frozenset always is): ~16,000 dicts a
#: TAT-QA pass that every collection traversed (the collector was ~5% of a pass) are never tracked.
_SCALE_SETS = {frozenset(c): c for n in range(4) for c in combinations(sorted(_SCALE_NAMES.values()), n)}
#: Each scale word of :data:`_SCALE_NAMED` on lowered ASCII text: ``\bWs?\b``, the word first (a literal prefix).
_SCALE_TOKEN = {w: re.compile(w + r"(?<!\w" + w + r")s?\b") for w in _SCALE_NAMES}
_NUMBER_ONLY = re.compile(r"^[\s$€£(\-−–]*[\d.,]+[\s%)]*$")
#: The characters that match an ASCII letter under ``re.I`` though not ASCII — "İ", "ı", "ſ" and
#: the Kelvin sign (all of Unicode checked: ``tests/grounding/test_passages_fast.py``); "İ" is also
#: the one character whose ``lower()`` is longer. A text without them lowers at the same offsets,
#: and a case-insensitive ASCII word is in it only as a substring of its lower case.
_FOLDS_ONTO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")
#: A column header line: one or more dates or years and nothing else ("February 2, 2019", "2019 2018",
#: "Fiscal 2023", "FY2022", "December 31, 2022 2021").
_HEADER_LINE = re.compile(r"^\s*" + DATE + r"(?:\s+" + DATE + r")*\s*$")
#: The page scales of a per-share line's number: none ("$6.13 million" is no per-share figure); not for a
#: line that lists several items ("Adjusted EBITDA, EBIT, Net income and EPS": its amounts keep the page's).
_NO_SCALE: tuple[float, ...] = ()
_ITEM_LIST = re.compile(r",|\band\b")
#: A row's line of numbers as read, until its row ends: ``(quantities, scale, ref, row label, per-share only,
#: each number's cell's year or None, each number's cell's place in its year or None)`` — the last two for a "|"
#: row under a "|" year header (:func:`~assay.grounding.table_headers.bar_header`, ``column_parts``).
_Line = tuple[list[Quantity], float, str, str, bool, list[int | None] | None, list[int] | None]
#: A header-like line (under 80 characters, or a table row of cells joined by "|") that names a change
#: column: "% Change", "Increase/(decrease)", "22 vs. 21", "Variance", "Growth"; a page with one may hold
#: changes in any cell (:func:`parse_passages`).
_CHANGE_HEAD = re.compile(r"\b(?:change[sd]?|increase|decrease|vs\.?|versus|variance|growth)\b", re.I)
#: Words one of which that pattern, or a header's change column (:func:`~.table_headers.bar_header`), needs.
_CHANGE_WORDS = ("chang", "increase", "decrease", "vs", "versus", "variance", "growth", "difference", " over ")
#: Words one of which a line needs to tell a direction (the pre-check of :func:`_twin_directions`'s sources).
_DIRECTION_WORDS = (
    "increas",
    "decreas",
    "rose",
    "rise",
    "rising",
    "grew",
    "grow",
    "higher",
    "up",
    "declin",
    "fell",
    "fall",
    "lower",
    "down",
    "drop",
)


@dataclass(frozen=True)
class PassageNumbers:
    """Candidates of a list of passages: every number (``direct``) and its row (``rows``)."""

    direct: tuple[Candidate, ...]
    rows: tuple[tuple[Candidate, ...], ...]


def parse_passages(sources: tuple[str, ...] | list[str]) -> PassageNumbers:
    """Parse passages into candidates with scale context and row groups.

    ``ref`` is ``S{passage}:L{line}`` (1-based line). Amounts under a scale header get dimension
    ``amount`` (currency unstated) or the written currency; percents ``percent``; other numbers
    ``none`` with their displayed value.
    """
    direct: list[Candidate] = []
    rows: list[tuple[Candidate, ...]] = []
    for pi, passage in enumerate(sources):
        scale = 1.0
        low = _plain_lower(passage)  # None: a character of it folds onto an ASCII letter
        named = _scales_named(passage, low)
        row: list[_Line] = []  # a row's lines of numbers, made candidates at its end
        row_label, label_li = "", 0
        columns: list[int] = []  # the years of the last header run (two or more: the table's columns)
        run: list[int] = []  # the header run being read
        by_line, starts = _quantities_by_line(passage)
        # the lines that may hold a scale header or a per-share label (None: any may)
        header_lines = _lines_holding(low, _HEADER_WORDS, starts)
        per_lines = _lines_holding(low, _PER_SHARE_WORDS, starts)
        bars: tuple[int, dict[int, int]] | None = None  # a "|" table's year header: its cell count, cell → year
        bars_at = 0  # the line it was read on
        parts: dict[int, int] = {}  # its cells' places in a year they share (quarters), by cell
        lines = passage.splitlines()
        may_change = low is None or any(map(low.__contains__, _CHANGE_WORDS))  # (a change column's words)
        names_change = may_change and any((len(ln) < 80 or "|" in ln) and _CHANGE_HEAD.search(ln) for ln in lines)
        may_tell = low.splitlines() if low is not None and any(map(low.__contains__, _DIRECTION_WORDS)) else None
        first, first_row = len(direct), len(rows)
        cells: set[int] = set()  # the number-only lines (table cells)
        told: set[int] = set()  # the text lines with numbers that may tell a direction
        for li, line in enumerate(lines, start=1):
            if (header_lines is None or li in header_lines) and len(line) < 160 and (h := _HEADER.search(line)):
                scale = _SCALE_BY_HEAD[h.group(1)[0].lower()]  # by its first letter: "in mıllions" matches re.I
            stripped = line.strip()
            if not stripped:
                continue
            qs = by_line.get(li)
            header = "|" not in stripped and len(stripped) < 80 and _HEADER_LINE.match(stripped) is not None
            if header:
                run.extend(int(y) for y in HEADER_YEAR.findall(stripped))
            elif "|" not in stripped:
                bars = None  # out of the table
            elif (
                (not qs or no_number_after_bar(qs, starts[li - 1] + line.find("|")))
                and HEADER_YEAR.search(line) is not None  # (cheap: most such rows are titles, "Current assets | |")
                and (found := bar_header(line, bars is None, lines[li - 2] if li > 1 else None, may_change)) is not None
            ):
                bars, bars_at = found, li  # its rows' numbers take their cells' years (no count-based columns)
                parts = column_parts(line, found[1])
            elif bars is not None and bars_at == li - 1 and not qs:  # the header's second line: spanned columns?
                if (wide := spanned(lines[li - 2], line, bars)) is not None:
                    bars, parts = wide, {}
            number_only = bool(_NUMBER_ONLY.match(stripped))
            if qs and number_only:
                cells.add(li)
            elif qs and (
                low is None or (may_tell is not None and any(map(may_tell[li - 1].__contains__, _DIRECTION_WORDS)))
            ):
                told.add(li)
            if not number_only:
                if row:
                    rows.extend(_by_sentence(_in_columns(row, columns, named, direct, names_change), row, passage))
                # a row's label: its first 80 characters, or up to 40 past a later first "|" (a long first cell)
                row, row_label, label_li = (
                    [],
                    stripped[:80] if (f := stripped.find("|")) < 80 else stripped[: f + 40],
                    li,
                )
            if run and not header:  # the run ended: its years name the columns of the rows from here
                columns, run = (run if len(run) >= 2 else columns), []
            if qs:  # the line's scale, read only for a line with numbers
                label_or_line = row_label if number_only else line
                per_share = (per_lines is None or (label_li if number_only else li) in per_lines) and _PER_SHARE.search(
                    label_or_line
                )
                at = starts[li - 1]
                placed = bars is not None and "|" in line and aligned(line, bars[0])
                idx = [line.count("|", 0, q.span[0] - at) for q in qs] if placed else []  # each number: its cell
                row.append(
                    (
                        qs,
                        1.0 if per_share else scale,
                        f"S{pi + 1}:L{li}",
                        row_label,
                        bool(per_share) and _ITEM_LIST.search(label_or_line) is None,
                        [bars[1].get(i) for i in idx]  # type: ignore[index]
                        if placed
                        else _row_year(line, len(qs))
                        if bars is None and "|" in line
                        else None,
                        [parts.get(i, 0) for i in idx] if placed and parts else None,
                    )
                )
        if row:
            rows.extend(_by_sentence(_in_columns(row, columns, named, direct, names_change), row, passage))
        if told and cells:
            _twin_directions(direct, rows, first, first_row, pi + 1, told, cells)
    return PassageNumbers(tuple(direct), tuple(r for r in rows if len(r) > 1))


def _by_sentence(made: tuple[Candidate, ...], row: list[_Line], passage: str) -> list[tuple[Candidate, ...]]:
    """A row's candidates as the groups its derivations are formed in: a line of prose (one line, no "|")
    by its sentences (:data:`PROSE_SENTENCE_END`), any other row whole. Gate-20: a paragraph's line of some
    twenty numbers made ~2,000 derivations, so a stated figure "derived" by chance from two numbers of
    unrelated sentences ("$63 million" as 306 − 243 of another sentence's restructuring charges)."""
    if len(row) != 1 or len(made) < 2 or "|" in row[0][3]:
        return [made]
    qs = row[0][0]
    first, last = qs[0].span[1], qs[-1].span[0]  # (a sentence's end between its first and last numbers)
    cuts = [m.end() for m in PROSE_SENTENCE_END.finditer(passage, first, last)]
    if not cuts:
        return [made]
    groups: dict[int, list[Candidate]] = {}
    for q, c in zip(qs, made, strict=True):
        groups.setdefault(bisect_right(cuts, q.span[0]), []).append(c)
    return [tuple(g) for g in groups.values()]


def _row_year(line: str, n: int) -> list[int | None] | None:
    """Each of a "|" row's ``n`` numbers' year when its first cell names one (:func:`~.table_headers.cell_year`:
    "2021 | $138 | $6" of lease payments by year, "December 31, 2018 | 1,234"), under no year
    header; else None. Gate-19: "The operating leases for 2022 was 138 million." passed on the 2021 row."""
    bar = line.find("|")
    if bar <= 0 or HEADER_YEAR.search(line, 0, bar) is None or (y := cell_year(line[:bar])) is None:
        return None
    return [y] * n


def _lines_holding(low: str | None, words: tuple[str, ...], starts: list[int]) -> set[int] | None:
    """The (1-based) lines of a passage whose lower case holds one of ``words`` (lower-case ASCII), found
    by ``str.find`` on ``low`` (the passage lowered at its own offsets, :func:`_plain_lower`; ``starts``:
    each line's offset, then the end); None without ``low`` (then any line may hold one). The pre-check
    of a pattern that needs one of the words: a lowering and a test of every line was 5% of parsing."""
    if low is None:
        return None
    found: set[int] = set()
    for w in words:
        pos = low.find(w)
        while pos != -1:
            li = bisect_right(starts, pos)
            found.add(li)
            pos = low.find(w, starts[li]) if li < len(starts) else -1
    return found


def _plain_lower(text: str) -> str | None:
    """``text.lower()`` when no character of ``text`` folds onto an ASCII letter under ``re.I``
    (:data:`_FOLDS_ONTO_ASCII`): then it has ``text``'s offsets and holds a case-insensitive ASCII
    word exactly where ``text`` does. None otherwise (such a text is searched with its pattern)."""
    return text.lower() if text.isascii() or _FOLDS_ONTO_ASCII.search(text) is None else None


def _scales_named(passage: str, low: str | None) -> tuple[float, ...]:
    """The scales of the scale words ``passage`` names (:data:`_SCALE_NAMED`). Given ``low``
    (:func:`_plain_lower` of it), per word: a substring test of ``low``, then the word's token
    pattern on it (the word first: sre finds it as a literal prefix in C; ``\\b(…)s?\\b`` under
    ``re.I`` tried every position, 4% of parsing a TAT-QA context) — the same set, since two
    matches (whole tokens) never overlap. Without ``low``: the ``re.I`` scan."""
    if low is None:  # by the word's first letter: "mıllion" matches under re.I (was a KeyError)
        return _SCALE_SETS[frozenset(_SCALE_BY_HEAD[m.group(1)[0].lower()] for m in _SCALE_NAMED.finditer(passage))]
    return _SCALE_SETS[
        frozenset(v for w, v in _SCALE_NAMES.items() if w in low and _SCALE_TOKEN[w].search(low) is not None)
    ]


def _in_columns(
    row: list[_Line],
    columns: list[int],
    named: tuple[float, ...],
    direct: list[Candidate],
    names_change: bool = False,
) -> tuple[Candidate, ...]:
    """The candidates of ``row`` (its lines of numbers, :data:`_Line`), each with its column's year
    when the row's first line sits under a "|" year header (each number its cell's, a change column's
    cell its sign as its direction; a later line's none unless placed too), or when the row has one
    number per column (module doc), appended to ``direct``. A per-share line's numbers name no page
    scale (``page_scales`` empty): "Diluted earnings per share 6.13" under "(in millions, except per
    share amounts)" backs no "$6.13 million". Built here, once per number: ``dataclasses.replace``
    afterwards cost 7% of parsing TAT-QA passages."""
    made: list[Candidate] = []
    if row[0][5] is not None:  # a "|" row under a "|" year header: each number's cell names its column
        for qs, sc, ref, label, ps, years, places in row:
            scales = _NO_SCALE if ps else named
            way = _levels_way(qs, years) if years and CHANGE in years else None
            made.extend(
                passage_candidate(q, sc, ref, label, scales, y, names_change, None, part)
                if y != CHANGE
                else passage_candidate(q, sc, ref, label, scales, None, names_change, _change_way(q.value, way))
                for q, y, part in zip(  # (a later line not placed: none)
                    qs, years or [None] * len(qs), places or [0] * len(qs), strict=True
                )
            )
    else:
        n = sum(len(line[0]) for line in row)
        by_count = iter(columns) if columns and n == len(columns) else None
        for qs, sc, ref, label, ps, _, _ in row:
            scales = _NO_SCALE if ps else named
            made.extend(
                passage_candidate(q, sc, ref, label, scales, None if by_count is None else next(by_count), names_change)
                for q in qs
            )
    direct.extend(made)
    return tuple(made)


def _change_way(value: float, levels: int | None) -> int | None:
    """The direction a change column's cell tells: its sign (none for 0), when its row's levels move
    that way or are not known (``levels``: :func:`_levels_way`; 0: none). A page whose changes are signed as
    favourable ("Bell Wireline | 3,183 | 3,193 | 10 | 0.3%" of capital spending) tells none."""
    way = None if value == 0 else (1 if value > 0 else -1)
    return way if levels is None or levels == way else None  # (0: levels shown negative, no direction)


def _levels_way(qs: list[Quantity], years: list[int | None]) -> int | None:
    """The way a row's latest year's cell moved from the year before's (``years``: each number's
    column, :data:`~assay.grounding.table_headers.CHANGE` for a change's), or None (fewer than two
    years, or equal); 0 when a level is negative ("Net loss | (15,571) | (24,122) | 8,551": whether
    the loss "increased" is read either way, so its change column tells no direction; a hunt's false
    rejects of "Net loss decreased by $8,551 thousand")."""
    by_year = {y: q.value for q, y in zip(qs, years, strict=False) if y is not None and y != CHANGE}
    if any(v < 0 for v in by_year.values()):
        return 0  # a loss or an expense shown negative: a "rise" of it is ambiguous (magnitude or value)
    if len(by_year) < 2:
        return None
    last, before = sorted(by_year, reverse=True)[:2]
    return None if by_year[last] == by_year[before] else (1 if by_year[last] > by_year[before] else -1)


def _quantities_by_line(passage: str) -> tuple[dict[int, list[Quantity]], list[int]]:
    """Quantities of ``passage`` (parsed once) grouped by 1-based line number, and each line's offset."""
    starts = [0]
    for line in passage.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out: dict[int, list[Quantity]] = {}
    li = 0
    # = extract_quantities(passage, space_thousands=False) (a space separates table cells) without
    # the wording around each number, which a passage candidate does not use
    for q in extract_masked(mask(passage, _CITATION), space_thousands=False, wording=False):
        while li + 1 < len(starts) and starts[li + 1] <= q.span[0]:
            li += 1
        out.setdefault(li + 1, []).append(q)
    return out, starts


def _twin_directions(
    direct: list[Candidate],
    rows: list[tuple[Candidate, ...]],
    first: int,
    first_row: int,
    page: int,
    told: set[int],
    cells: set[int],
) -> None:
    """Give each table cell of passage ``page`` (``direct[first:]``, ``rows[first_row:]``) that tells no
    direction of its own the one direction its paragraph twins tell: numbers on text lines (``told``)
    of the same dimension and displayed digits whose own clause states a rise or a fall
    (:func:`~assay.grounding.label_signs.told_direction`). In place; cells with no twin, or twins of both
    directions, are left as they are."""
    said: dict[tuple[str, float | None], set[int]] = {}
    for c in direct[first:]:
        if _line(c.ref) in told and (d := told_direction(c)) is not None:
            said.setdefault((c.dim, c.displayed), set()).add(d)
    if not said:
        return
    moved: dict[int, Candidate] = {}
    for i in range(first, len(direct)):
        c = direct[i]
        ds = said.get((c.dim, c.displayed))
        if ds and len(ds) == 1 and _line(c.ref) in cells and told_direction(c) is None:
            direct[i] = moved[id(c)] = replace(c, cell_direction=next(iter(ds)))
    if moved:
        rows[first_row:] = [tuple(moved.get(id(c), c) for c in r) for r in rows[first_row:]]


def _line(ref: str) -> int:
    """The line number of a passage ref ``S{p}:L{line}``."""
    return int(ref[ref.index(":L") + 2 :])
