"""Line items: a label's row part, a table row's item, a snapshot's vocabulary of items and years, and
how a named item relates to a label (the gate's label rule on them: :mod:`assay.grounding.label_rule`).
The material concepts and their synonyms are in :mod:`assay.grounding.concepts` (re-exported here)."""

from __future__ import annotations

import re
from functools import lru_cache

from assay.grounding.candidates import Candidate, period_rank
from assay.grounding.concepts import (
    CONCEPTS,
    DEFAULT_MATERIAL_LABELS,
    NAMED_ONLY_LABELS,
    NOT_MATERIAL_AFTER,
    NOT_MATERIAL_BEFORE,
    concept_of,
    in_other_name,
    inside,
)

__all__ = [
    "candidate_year",
    "DEFAULT_MATERIAL_LABELS",
    "NAMED_ONLY_LABELS",
    "CONCEPTS",
    "NOT_MATERIAL_AFTER",
    "NOT_MATERIAL_BEFORE",
    "GENERIC_ITEMS",
    "SnapshotVocabulary",
    "concept_of",
    "is_line_item",
    "line_item",
    "names_something",
    "related_items",
    "row_item",
    "generic_row",
    "related_to",
    "period_year",
]


def related_items(named: str, item: str) -> bool:
    """Whether two lower-case line items name one thing: equal, one inside the other, or one
    material concept ("revenue" and "total net sales")."""
    if named == item or named in item or item in named:
        return True
    cn = concept_of(named)
    return cn is not None and cn == concept_of(item)


#: Line items that name nothing specific: naming them says nothing about which fact is meant.
GENERIC_ITEMS = {
    "total",
    "other",
    "net",
    "balance",
    "amount",
    "value",
    "change",
    "none",
    "others",
    "ending",
    "beginning",
}


@lru_cache(maxsize=16384)
def line_item(label: str) -> str:
    """The row part of a ``"row | column"`` label, lower-case and stripped, a trailing " ." (a
    table's leader dot: "Applications . | July 28, 2018") cut."""
    item = label.split(" | ")[0].strip().lower()
    return item[:-2].rstrip() if item.endswith(" .") else item


@lru_cache(maxsize=16384)
def is_line_item(label: str) -> bool:
    """A table or statement line item; not the text around a number of a paragraph ("…was $5…",
    "AMER. Operating income increased $19.2 million in fiscal 2019 as compared to fiscal…"): at
    most 16 words in its row part (a row "Additions based on tax positions taken during a prior
    period - acquisitions" has 12), not cut with an ellipsis at either end."""
    return (
        bool(label)
        and not label.startswith(("…", "..."))
        and not label.endswith(("…", "..."))
        and len(label) <= 160
        and len(line_item(label).split()) <= 16
    )


@lru_cache(maxsize=16384)
def row_item(label: str) -> str | None:
    """The line item a source passage's table row names (lower-case), from a passage number's label
    (its row's line, :mod:`assay.grounding.passages`): the first cell of a row whose cells are joined
    by " | " and another of which is a number, or of a row whose cells a tab or two or more spaces
    cut ("Cost of sales   214,137   223,546") when every other cell is a number, a currency sign or a
    dash. None for a line of prose ("Net income was $97.0 billion."), or an item that names nothing
    (shorter than four characters unless initials, "APJ"; generic, no letter, over 12 words). Gate-18:
    an uncited sentence naming another row's item for a cell fails as a cited one does."""
    item = _first_cell(label)
    if item is None:
        return None
    words = item.split()
    if not names_something(item) and _ACRONYM.fullmatch(label.strip().strip("|").split("|")[0].strip()):
        return item  # "APJ", "UK": a region or segment named by its initials (gate-19)
    if (
        not names_something(item)
        or item in GENERIC_ITEMS
        or not 0 < len(words) <= 12
        or not any(ch.isalpha() for ch in item)
    ):
        return None
    return item


def names_something(item: str) -> bool:
    """Whether a line item is long enough to name something: four characters or more, a Hangul syllable
    counting two ("매출", "순이익": a word each). Gate-21: Korean labels of two or three syllables were
    left out of the vocabulary, so "순이익은 3조 5천억원이었다 [F1]" on 매출액 was never judged."""
    return len(item) >= 4 or (not item.isascii() and len(item) + sum("가" <= ch <= "힣" for ch in item) >= 4)


def generic_row(label: str) -> str | None:
    """The generic word (:data:`GENERIC_ITEMS`: "total", "other", …) a passage number's table row is
    named by (its first cell, as :func:`row_item` reads it), else None."""
    item = _first_cell(label)
    return item if item in GENERIC_ITEMS else None


def _first_cell(label: str) -> str | None:
    """A table row's first cell as a line item (lower-case, its sign word cut), for :func:`row_item`."""
    if "|" in label:  # cells marked as such (markdown's outer "|" too): any other cell may hold text ("5 - 40")
        parts = [p.strip() for p in label.strip().strip("|").split("|")]
        if not any(any(ch.isdigit() for ch in p) and _NUMBER_CELL.fullmatch(p) for p in parts[1:]):
            return None  # (no number cell: a header of dates, "Quarters Ended | July 27, 2019 (1) | …")
    elif "  " in label or "\t" in label:  # spaced columns: every other cell a number (prose has double spaces)
        parts = _CELL_CUT.split(label.strip())
        if len(parts) < 2 or not all(_NUMBER_CELL.fullmatch(p) for p in map(str.strip, parts[1:]) if p):
            return None
    else:
        return None  # (a line of prose: no cells)
    return _SIGN_PREFIX.sub("", line_item(parts[0]).rstrip(":").rstrip())  # "Less: income taxes": income taxes


#: A row's first cell that is initials ("APJ", "UK", "USA"): an item though shorter than four characters.
_ACRONYM = re.compile(r"[A-Z]{2,3}")
#: A row's sign word before its item ("Less: income taxes", "Add: depreciation").
_SIGN_PREFIX = re.compile(r"^(?:less|add|plus|deduct)\s*:\s*")
#: Where a passage's table row is cut into cells (:func:`row_item`), and what a number cell holds (a
#: truncated one too: a row's label is its line's first 80 characters).
_CELL_CUT = re.compile(r" \| |\t|\s{2,}")
_NUMBER_CELL = re.compile(r"[$€£¥₩]?\s?[(\-−–]?\s?[$€£¥₩]?\s?[\d.,]*\d?[\d.,]*\s?[)%]*|[-−–—]+|n/?a|nm", re.I)


class SnapshotVocabulary:
    """The snapshot's periods (years) and line items, and a matcher of the items in text.

    Built once per :class:`~assay.grounding.index.SnapshotIndex`. Line items too short to name
    anything (:func:`names_something`) or generic ("Total", "Other") are left out of the matcher: naming them says
    nothing about which fact is meant.
    """

    def __init__(self, facts: list[Candidate] | tuple[tuple[str, str | None], ...]):
        pairs = tuple((c.label, c.period) for c in facts) if isinstance(facts, list) else facts
        self.years, self.items, self._re = _vocabulary(pairs)
        # once per vocabulary, not per sentence: a pattern's hash walks its program (~2 µs); it keys both memos
        self._fast = _ascii_matcher(self._re) if self._re is not None else None
        self._hash = hash(self._key())

    def __eq__(self, other: object) -> bool:  # by content: a key of the sentence-context memo
        return isinstance(other, SnapshotVocabulary) and self._key() == other._key()

    def __hash__(self) -> int:
        return self._hash

    def _key(self) -> tuple[frozenset[int], frozenset[str], re.Pattern[str] | None]:
        return self.years, self.items, self._re

    @property
    def has_items(self) -> bool:
        """Whether any line item can be named."""
        return self._re is not None

    def named_spans(self, text: str, low: str | None = None) -> list[tuple[int, int, str]]:
        """``(start, end, item)`` of each known line item (or synonym of one) named in ``text``
        (``low``: ``text.lower()`` when the caller has it, for an ASCII text), less a concept's synonym
        that :data:`~assay.grounding.concepts.NOT_MATERIAL_BEFORE` comes right before or
        :data:`~assay.grounding.concepts.NOT_MATERIAL_AFTER` right after ("Sales and marketing was
        …" names no sales; gate-18). A snapshot's own item stays ("costs of VAS revenue": "vas")."""
        if self._re is None:
            return []
        fast = self._fast if text.isascii() else None
        if fast is not None:  # the same matches, on the lower-cased text without re.I (40% less)
            found = [(m.start(), m.end(), m.group(0)) for m in fast.finditer(text.lower() if low is None else low)]
        else:
            found = [(m.start(), m.end(), m.group(0).lower()) for m in self._re.finditer(text)]
        return [f for f in found if f[2] not in CONCEPTS or not in_other_name(text, f[0], f[1])] if found else found


_ASCII_PRINTABLE = [chr(i) for i in range(32, 127)]


@lru_cache(maxsize=256)
def _ascii_matcher(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """``pattern`` (``re.I``) compiled without ``re.I``, for ASCII texts lower-cased: the same
    spans, and each match already lower-case. None when that could differ: the pattern has an
    upper-case character, or a non-ASCII one that matches an ASCII one ignoring case ("ſ" ~ "s",
    "K" ~ "k"); on ASCII text every other non-ASCII character matches nothing either way."""
    src = pattern.pattern.replace(_NAME_END, r"(?![\w])")  # (its Korean-particle branch never matches ASCII)
    if src != src.lower():
        return None
    if any(_folds_to_ascii(ch) for ch in {c for c in src if not c.isascii()}):
        return None
    return re.compile(src, pattern.flags & ~re.I)


@lru_cache(maxsize=4096)
def _folds_to_ascii(ch: str) -> bool:
    """Whether ``ch`` matches a printable ASCII character under ``re.I`` (memoised per character:
    a new snapshot's matcher mostly repeats the characters of the last ones)."""
    return any(re.fullmatch(re.escape(ch), a, re.I) for a in _ASCII_PRINTABLE)


@lru_cache(maxsize=256)
def _vocabulary(
    pairs: tuple[tuple[str, str | None], ...],
) -> tuple[frozenset[int], frozenset[str], re.Pattern[str] | None]:
    """Years, line items and the item matcher of ``(label, period)`` pairs; memoised (the memo
    cache re-gates the same snapshot: its index is rebuilt, its vocabulary is not)."""
    years = frozenset(y for label, period in pairs if (y := period_year(_fact_period(label, period))) is not None)
    items = {line_item(label) for label, _ in pairs if is_line_item(label)}
    items = {i for i in items if names_something(i) and i not in GENERIC_ITEMS}
    concepts = {concept_of(i) for i in items} - {None}
    names = items | {syn for syn, concept in CONCEPTS.items() if concept in concepts}
    matcher = re.compile(r"(?<![\w])(?:" + _alternation(names) + r")" + _NAME_END, re.I) if names else None
    return years, frozenset(items), matcher


#: Where a named item ends: no word character follows, or a Korean particle right after a Hangul
#: name ("순이익은", "매출의", "영업이익이": the particle is written onto its noun, so "(?!\w)" never
#: matched a Korean subject; gate-13, a new user's false accept "2023년 순이익은 3,833억 달러였다 [F1]"
#: on total net sales), the particle itself not followed by Hangul ("영업이익률" is a margin).
_NAME_END = r"(?:(?![\w])|(?<=[가-힣])(?=(?:은|는|이|가|을|를|의|도|에|에서|으로|로|과|와|만|까지|보다)(?![가-힣\w])))"


def _alternation(names: set[str]) -> str:
    """A regex alternation of ``names`` that, at each position, matches the longest name (as the
    longest-first alternation ``a|b|…`` does): a trie (shared prefixes read once: one name per
    character tried, not every name) when every name is lower-case ASCII or caseless (then two
    branches never match one character under ``re.I``), else the longest-first alternation."""
    if not all(ch.isascii() or ch.lower() == ch.upper() for n in names for ch in n) or any(
        n != n.lower() for n in names
    ):
        return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for n in names:
        node = trie
        for ch in n:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _trie_regex(trie)


def _trie_regex(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
    """The regex of one trie node: its branches, longer first (greedy), the name ending here last."""
    ends = "" in node
    branches = [re.escape(ch) + _trie_regex(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:
        return "(?:" + body + ")?" if len(branches) > 1 or len(body) > 1 else body + "?"
    return body


def _fact_period(label: str, period: str | None) -> str | None:
    """A fact's period, or the one its label's column part names (as :func:`fact_candidate`)."""
    if period or " | " not in label:
        return period
    column = label.split(" | ", 1)[1]
    return column if period_rank(column) is not None else None


def period_year(period: str | None) -> int | None:
    """The year of a period (``"FY2019"`` → 2019, :func:`~assay.grounding.candidates.period_rank`), or None."""
    r = period_rank(period)
    return r[0] if r else None


def candidate_year(c: Candidate) -> int | None:
    """The year of a candidate's period, else of its table column (``column_year``: a passage cell under a
    header of years; gate-20, so "The total assets for year 2019 was 10,815.4 million" on "Total | 5,765.2 |
    5,050.2" adds two periods), or None."""
    y = period_year(c.period)
    return y if y is not None else c.column_year


def related_to(named: str, label: str, exact: bool) -> bool:
    """Whether a named item names the candidate of (lower-case) ``label``: the named item is its
    line item or a part of its label ("net sales" of "apac | fiscal 2019 net sales"); one longer
    than its line item and containing it, or of one material concept, names that candidate only
    when no fact has exactly that name (``exact``: "additions … - acquisitions" is another row than
    "additions …", "Data centre services revenue" another than "Total revenue"); a concept relates
    them only when one of the two IS a synonym of it ("revenue" and "total net sales"), never
    through a synonym buried in two long items ("share of net earnings in X" / "… in Y")."""
    item = line_item(label)
    if named == item or inside(named, label):
        return True
    if inside(item, named) or exact:
        return inside(item, named) and not exact
    cn = concept_of(named)
    return cn is not None and (named in CONCEPTS or item in CONCEPTS) and cn == concept_of(item)
