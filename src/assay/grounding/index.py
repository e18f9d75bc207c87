"""Snapshot indexes: a snapshot's candidates, built lazily, and the one cache of them by fingerprint.

:class:`SnapshotIndex` holds what the gate matches an answer against (fact candidates, the
uncited direct and derived sets, parsed passages), built on first use. :class:`IndexCache`
keeps indexes by :meth:`~assay.facts.Snapshot.fingerprint` — the eval runner, the CLI gate,
the validity checks and the memo cache all reuse indexes through it — optionally bounded
(least recently used first out) for long-lived callers.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from assay.claims import Claim, extract_claims
from assay.facts import Snapshot
from assay.grounding.candidates import Candidate, fact_candidate
from assay.grounding.concepts import CONCEPTS, concept_of
from assay.grounding.context import SnapshotVocabulary
from assay.grounding.derived import DerivedSet
from assay.grounding.labels import row_item
from assay.grounding.match import CandidateSet
from assay.grounding.page_currency import page_currency
from assay.grounding.passages import PassageNumbers, parse_passages
from assay.grounding.table_headers import HEADER_YEAR

__all__ = ["SnapshotIndex", "IndexCache", "UNCITED_PERIOD_GROUPS"]

#: Words of three or more letters (:meth:`SnapshotIndex.uncited_vocabulary`'s pre-check), and those a
#: bare figure may hold: a text with no other names no line item.
_WORD = re.compile(r"[^\W\d_]{3,}")
_UNIT_WORDS = frozenset("thousand thousands million millions billion billions percent per cent".split())

#: Whether the facts of one period form a derivation group in uncited mode (besides rows). Off:
#: on TAT-QA it raised the false-accept rate of answers moved by one displayed unit from 3.9%
#: to 7.1% (target ≤5%) for 87.2% → 90.6% acceptance of gold answers (closing note of issue 2).
UNCITED_PERIOD_GROUPS = False


class SnapshotIndex:
    """Candidates of one snapshot, built on first use and reused across answers (key: fingerprint).

    Building is O(1): cited mode only turns the facts an answer cites into candidates, and the
    uncited sets (every number, one-row derivations, parsed passages) are made when first asked.
    """

    def __init__(self, snapshot: Snapshot, *, period_groups: bool = UNCITED_PERIOD_GROUPS):
        self.snapshot = snapshot
        self.period_groups = period_groups
        self._by_id = {f.id: f for f in snapshot.facts}
        self._cands: dict[str, Candidate] = {}
        self._uncited_cands: dict[str, Candidate] = {}
        self._rows: tuple[tuple[Candidate, ...], ...] | None = None
        self._passages: PassageNumbers | None = None
        self._direct: CandidateSet | None = None
        self._facts_only: CandidateSet | None = None
        self._derived: CandidateSet | None = None
        self._vocabulary: SnapshotVocabulary | None = None
        self._page_currencies: dict[int, str | None] = {}
        self._source_lines: dict[int, list[str]] = {}
        self._period_years: frozenset[int] | None = None
        self._row_names: frozenset[str] | None = None
        self._row_items: frozenset[str] = frozenset()
        self._uncited_vocabularies: dict[bool, SnapshotVocabulary] = {}  # with the row items, without
        self._column_years: tuple[tuple[str, str], ...] = ()

    @classmethod
    def build(cls, snapshot: Snapshot, *, period_groups: bool = UNCITED_PERIOD_GROUPS) -> SnapshotIndex:
        """Index ``snapshot``; with ``period_groups`` the facts of each period also form a
        derivation group in uncited mode (see :data:`UNCITED_PERIOD_GROUPS`)."""
        return cls(snapshot, period_groups=period_groups)

    def has_fact(self, fact_id: str) -> bool:
        """Whether the snapshot has a fact with this id."""
        return fact_id in self._by_id

    def fact(self, fact_id: str) -> Candidate:
        """The cited-mode candidate of one fact (``KeyError`` when absent): matched as displayed
        only through its ``displayed_value`` (:func:`~assay.grounding.candidates.fact_candidate`)."""
        c = self._cands.get(fact_id)
        if c is None:
            c = self._cands[fact_id] = fact_candidate(self._by_id[fact_id], value_as_displayed=False)
        return c

    def uncited_fact(self, fact_id: str) -> Candidate:
        """The uncited-mode candidate of one fact: its value also counts as displayed when it has
        no ``displayed_value`` (``KeyError`` when absent)."""
        c = self._uncited_cands.get(fact_id)
        if c is None:
            c = self._uncited_cands[fact_id] = fact_candidate(self._by_id[fact_id])
        return c

    @property
    def facts(self) -> dict[str, Candidate]:
        """Every fact's uncited-mode candidate, by id."""
        return {fid: self.uncited_fact(fid) for fid in self._by_id}

    @property
    def fact_rows(self) -> tuple[tuple[Candidate, ...], ...]:
        """Derivation groups of facts: rows (consecutive facts whose labels share the row part of
        ``"row | column"``) and, with ``period_groups``, the facts of each period."""
        if self._rows is None:
            groups: list[list[Candidate]] = []
            last_row = None
            for f in self.snapshot.facts:
                row = f.label.split(" | ")[0].strip().lower()
                if row != last_row:
                    groups.append([])
                    last_row = row
                groups[-1].append(self.uncited_fact(f.id))
            if self.period_groups:
                by_period: dict[str, list[Candidate]] = {}
                for f in self.snapshot.facts:
                    if f.period:
                        by_period.setdefault(f.period, []).append(self.uncited_fact(f.id))
                groups.extend(by_period.values())
            self._rows = tuple(tuple(g) for g in groups if 1 < len(g) <= 40)
        return self._rows

    @property
    def vocabulary(self) -> SnapshotVocabulary:
        """The snapshot's fact years and line items (the gate's period and label rules)."""
        if self._vocabulary is None:
            self._vocabulary = SnapshotVocabulary(tuple((f.label, f.period) for f in self.snapshot.facts))
        return self._vocabulary

    def uncited_vocabulary(self, text: str) -> SnapshotVocabulary:
        """The vocabulary an uncited sentence ``text`` is read with: the facts' (:attr:`vocabulary`),
        the years of the passages' table columns (so the sentence's years go to its numbers as a cited
        one's do: "Revenue was $1,100 million in 2019 and $1,234 million in 2018" on the 2018 and 2019
        cells fails) and, when ``text`` holds one of them or a synonym of one (a substring test), the
        line items of their table rows (:func:`~assay.grounding.labels.row_item`: a sentence naming
        another row's item for a cell fails). Gate-18. A bare figure ("1,577.3 million") gets the
        facts' alone; no item matcher is built for a sentence that names no row item."""
        if not self.snapshot.sources or not any(w not in _UNIT_WORDS for w in _WORD.findall(text.lower())):
            return self.vocabulary  # a bare figure ("1,577.3 million") names no item
        if self._row_names is None:
            direct = self.passages.direct
            self._row_items = frozenset(i for label in {c.label for c in direct} if (i := row_item(label)) is not None)
            concepts = {concept_of(i) for i in self._row_items} - {None}
            self._row_names = self._row_items | {syn for syn, k in CONCEPTS.items() if k in concepts}
            columns = {c.column_year for c in direct if c.column_year is not None}
            self._column_years = tuple(("", str(y)) for y in sorted(columns - self.vocabulary.years))
        low = text.lower()
        rows = bool(self._row_names) and any(map(low.__contains__, self._row_names))
        if not rows and (not self._column_years or len(HEADER_YEAR.findall(text)) < 2):
            return self.vocabulary  # (a sentence naming one year gives it to every number: no need to read whose)
        if rows not in self._uncited_vocabularies:
            pairs = tuple((f.label, f.period) for f in self.snapshot.facts) + self._column_years
            items = tuple((i, None) for i in sorted(self._row_items)) if rows else ()
            self._uncited_vocabularies[rows] = SnapshotVocabulary(pairs + items)
        return self._uncited_vocabularies[rows]

    @property
    def passages(self) -> PassageNumbers:
        """The snapshot's source passages, parsed."""
        if self._passages is None:
            self._passages = parse_passages(self.snapshot.sources)
        return self._passages

    def page_currency(self, page: int) -> str | None:
        """The one currency source passage ``page`` (1-based) is written in, or None: its numbers'
        currencies and those its text names (:func:`~assay.grounding.page_currency.page_currency`),
        read on first use. ``IndexError`` for a page the snapshot lacks."""
        if page not in self._page_currencies:
            prefix = f"S{page}:"
            written = {c.currency for c in self.passages.direct if c.currency and c.ref.startswith(prefix)}
            self._page_currencies[page] = page_currency(self.snapshot.sources[page - 1], written)
        return self._page_currencies[page]

    @property
    def period_years(self) -> frozenset[int]:
        """The years that are the snapshot's periods: its facts' and its passages' column years."""
        if self._period_years is None:
            columns = {c.column_year for c in self.passages.direct if c.column_year is not None}
            self._period_years = self.vocabulary.years | columns
        return self._period_years

    def source_line(self, ref: str) -> str:
        """The line a passage number's ``ref`` (``S{page}:L{line}``, both 1-based) names, its page split
        into lines on first use. ``IndexError``/``ValueError`` for a ref the snapshot lacks."""
        page, line = ref[1:].split(":L")
        lines = self._source_lines.get(int(page))
        if lines is None:
            lines = self._source_lines[int(page)] = self.snapshot.sources[int(page) - 1].splitlines()
        return lines[int(line) - 1]

    def uncited_facts(self) -> CandidateSet:
        """Every fact's uncited-mode candidate (no passage numbers), built once per index."""
        if self._facts_only is None:
            self._facts_only = CandidateSet(self.facts.values())
        return self._facts_only

    def uncited_direct(self) -> CandidateSet:
        """Every fact and passage number."""
        if self._direct is None:
            self._direct = CandidateSet([*self.facts.values(), *self.passages.direct])
        return self._direct

    def uncited_derived(self) -> CandidateSet:
        """One-operation derivations within each fact row and passage row."""
        if self._derived is None:
            # = CandidateSet([d for row in rows for d in derive(row)]), candidates made on demand
            self._derived = DerivedSet((*self.fact_rows, *self.passages.rows))
        return self._derived


class IndexCache:
    """Snapshot indexes by snapshot fingerprint, built on a miss; optionally answers' claims by text.

    ``size``: indexes kept, the least recently used dropped first; ``None`` keeps every one (a
    batch: eval, the CLI gate, the validity checks), ``0`` none (built on every call).
    ``claims_size``: answers' parsed claims kept by answer text, as bounded (default 0: parsed
    on every call; the memo cache keeps them, since a served memo's text repeats and parsing a
    10-quantity memo is ~0.3 ms of its re-gate). Sound: an index is built from the snapshot's
    facts and sources, which its fingerprint covers (the fingerprint ignores fact order; the
    first snapshot seen of a fingerprint gives the index), and claims from the text alone.
    Thread-safe (two threads missing on one key may both build; either result is the same).
    Raises ``ValueError`` for a negative size.
    """

    def __init__(self, size: int | None = None, *, claims_size: int = 0):
        self.size = size
        self.claims_size = claims_size
        self._indexes: _LRU[SnapshotIndex] = _LRU(size)
        self._claims: _LRU[tuple[Claim, ...]] = _LRU(claims_size)

    def get(self, snapshot: Snapshot, fingerprint: str | None = None) -> SnapshotIndex:
        """The index of ``snapshot``; ``fingerprint`` is its :meth:`~assay.facts.Snapshot.fingerprint`
        when the caller has it already (computed here otherwise)."""
        return self._indexes.get(fingerprint or snapshot.fingerprint(), lambda: SnapshotIndex.build(snapshot))

    def claims_of(self, answer: str) -> tuple[Claim, ...]:
        """``extract_claims(answer)`` (default citation pattern), kept by answer text."""
        return self._claims.get(answer, lambda: tuple(extract_claims(answer)))

    def __len__(self) -> int:
        """Indexes held."""
        return len(self._indexes)


# --- helpers -------------------------------------------------------------------------------

T = TypeVar("T")


class _LRU(Generic[T]):
    """A thread-safe least-recently-used map of ``size`` entries (``None``: unbounded) whose
    values are built on a miss."""

    def __init__(self, size: int | None):
        if size is not None and size < 0:
            raise ValueError(f"cache size must be >= 0 or None, got {size}")
        self.size = size
        self._items: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str, build: Callable[[], T]) -> T:
        """The value for ``key``, made by ``build()`` (outside the lock) on a miss."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
                return value
        value = build()
        with self._lock:
            self._items[key] = value
            if self.size is not None:
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
        return value
