"""The perturbation soak: random data changes must never be served from the cache.

Each trial writes a memo for a random snapshot, then asks again after one change and checks
the status against the expected one:

==================  ===========================================  ====================
kind                change                                       expected status
==================  ===========================================  ====================
value, unit, label  one fact's value / unit / label              ``stale_fingerprint``
id, period          one fact's id / period                       ``stale_fingerprint``
displayed_value     one fact's displayed figure set, changed     ``stale_fingerprint``
                    or removed (same value, issue 15)
passage             one source passage edited, added or removed  ``stale_fingerprint``
unchanged           none                                         ``hit``
reordered           facts shuffled, ``as_of`` and fact sources   ``hit`` (not data)
                    changed
expired             the clock moved past the TTL                 ``expired``
gate_bump           a cache with the next gate version           ``stale_gate``
synthesis_bump      another synthesis version                    ``stale_synthesis``
tampered            the stored answer's number moved by one      ``regate_failed``
                    displayed unit (``move_number``)
==================  ===========================================  ====================

A **stale serve** is a ``hit`` whose memo was written from other data than the request's: its
fingerprint differs, the data changed in this trial, its answer differs from what the
synthesiser writes for the current data, or it fails the full :func:`check_answer` gate. The
soak passes with zero stale serves and zero unexpected statuses. The tampering is
:func:`assay.grounding.validity.move_number`.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from typing import Any

from sqlalchemy import update

from assay.cache.memo import Memo
from assay.cache.store import MemoCache
from assay.cache.tables import memo_cache
from assay.claims import extract_quantities
from assay.facts import Fact, Snapshot, canonical_number
from assay.grounding.gate import check_answer
from assay.grounding.validity import move_number

__all__ = [
    "KINDS",
    "EXPECTED",
    "DATA_CHANGES",
    "random_snapshot",
    "perturb_snapshot",
    "cited_synthesizer",
    "format_value",
    "run_soak",
]

#: Data changes (each must change the fingerprint).
DATA_CHANGES: tuple[str, ...] = ("value", "unit", "label", "id", "period", "displayed_value", "passage")
EXPECTED: dict[str, str] = {
    **{k: "stale_fingerprint" for k in DATA_CHANGES},
    "unchanged": "hit",
    "reordered": "hit",
    "expired": "expired",
    "gate_bump": "stale_gate",
    "synthesis_bump": "stale_synthesis",
    "tampered": "regate_failed",
}
KINDS: tuple[str, ...] = tuple(EXPECTED)

#: Units the generator draws from (a subset of the vocabulary that a sentence states unambiguously).
UNITS: tuple[str | None, ...] = (
    None,
    "count",
    "%",
    "pp",
    "ratio",
    "x",
    "USD",
    "USD millions",
    "EUR billions",
    "USD/share",
    "millions",
)
_SYMBOL = {"USD": "$", "EUR": "€"}


def random_snapshot(
    rng: random.Random, *, n_facts: tuple[int, int] = (1, 12), n_sources: tuple[int, int] = (0, 2)
) -> Snapshot:
    """A random snapshot: unique ids, labels, units from :data:`UNITS`, values with ≤ 2 decimals
    in ±10^7, periods, and a few short passages."""
    n = rng.randint(*n_facts)
    ids = rng.sample(range(1, 10 * n + 10), n)
    facts = [
        Fact(
            id=f"F{i}",
            label=f"{rng.choice(_WORDS)} {rng.choice(_WORDS)}",
            value=_value(rng),
            unit=rng.choice(UNITS),
            period=rng.choice((None, "FY2022", "FY2023", "2023-12-31", "Q3 2024")),
        )
        for i in ids
    ]
    sources = tuple(
        f"{rng.choice(_WORDS)} {_value(rng):,} and {rng.choice(_WORDS)}" for _ in range(rng.randint(*n_sources))
    )
    return Snapshot(facts=tuple(facts), sources=sources, as_of=f"2024-0{rng.randint(1, 9)}-01")


def perturb_snapshot(snapshot: Snapshot, kind: str, rng: random.Random) -> Snapshot:
    """``snapshot`` with one change of ``kind`` (:data:`DATA_CHANGES`, or ``reordered``, which
    changes only what the fingerprint leaves out). Data changes always change the canonical data
    (``1`` → ``1.0`` would not count as a change). Raises ``ValueError`` for another kind."""
    facts = list(snapshot.facts)
    if kind == "passage":
        sources = list(snapshot.sources)
        op = rng.choice(("edit", "add", "remove")) if sources else "add"
        if op == "add":
            sources.insert(rng.randint(0, len(sources)), f"{rng.choice(_WORDS)} {_value(rng)}")
        elif op == "remove":
            sources.pop(rng.randrange(len(sources)))
        else:
            i = rng.randrange(len(sources))
            sources[i] = sources[i] + rng.choice((" ", ".", " restated", "0"))
        return snapshot.model_copy(update={"sources": tuple(sources)})
    if kind == "reordered":
        rng.shuffle(facts)
        facts = [f.model_copy(update={"source": f"doc-{rng.randint(0, 99)}"}) for f in facts]
        return snapshot.model_copy(update={"facts": tuple(facts), "as_of": "2099-01-01"})
    i = rng.randrange(len(facts))
    f = facts[i]
    if kind == "value":
        new: dict[str, Any] = {
            "value": _different(rng, lambda: f.value + rng.choice((-1, 1)) * rng.choice((0.01, 0.1, 1, 1000)), f.value)
        }
    elif kind == "unit":
        new = {"unit": _different(rng, lambda: rng.choice(UNITS), f.unit)}
    elif kind == "label":
        new = {"label": f.label + rng.choice((" (restated)", "s", " total", " "))}
    elif kind == "id":
        taken = {x.id for x in facts}
        new = {"id": _different(rng, lambda: f"F{rng.randint(1, 10_000)}", *taken)}
    elif kind == "period":
        # "" and None are one period to the fingerprint (no period): a change must differ from both
        same = (f.period, None, "") if not f.period else (f.period,)
        new = {
            "period": _different(
                rng, lambda: rng.choice((None, "FY2021", "FY2022", "FY2023", "FY2024", "Q1 2025")), *same
            )
        }
    elif kind == "displayed_value":
        new = {"displayed_value": _different(rng, lambda: _display(rng, f.value), f.displayed_value)}
    else:
        raise ValueError(f"unknown perturbation kind {kind!r}: use one of {', '.join((*DATA_CHANGES, 'reordered'))}")
    facts[i] = Fact.model_validate({**f.model_dump(), **new})
    return snapshot.model_copy(update={"facts": tuple(facts)})


def format_value(fact: Fact) -> str:
    """The fact's value as an answer would state it, exactly at its precision
    (``1577 USD millions`` → ``$1,577 million``; ``-2.5 %`` → ``-2.5%``)."""
    text = canonical_number(abs(fact.value))
    whole, _, frac = text.partition(".")
    num = f"{int(whole):,}" + (f".{frac}" if frac else "")
    sign = "-" if fact.value < 0 else ""
    unit = fact.unit
    if unit in (None, "count", "ratio"):
        return sign + num
    if unit in ("%", "x"):
        return f"{sign}{num}{unit}"
    if unit == "pp":
        return f"{sign}{num} pp"
    if unit.endswith("/share"):
        return f"{sign}{_SYMBOL[unit.split('/')[0]]}{num} per share"
    cur, _, scale = unit.partition(" ")
    if cur in _SYMBOL:
        return f"{sign}{_SYMBOL[cur]}{num}" + (f" {scale.rstrip('s')}" if scale else "")
    return f"{sign}{num} {cur.rstrip('s')}"  # a bare scale word: "1,577 million"


def cited_synthesizer(snapshot: Snapshot) -> str:
    """A deterministic synthesiser: one cited sentence per fact, in id order. Its answer depends
    only on the canonical data, so it is the oracle of what a fresh synthesis says now."""
    return " ".join(f"The figure is {format_value(f)} [{f.id}]." for f in sorted(snapshot.facts, key=lambda f: f.id))


def run_soak(
    cache: MemoCache, n_trials: int, *, seed: int = 0, ttl_s: float = 3600.0, clock: Any = None
) -> dict[str, Any]:
    """Run ``n_trials`` perturbation trials on ``cache`` (kinds drawn uniformly from :data:`KINDS`).

    ``clock``: the cache's clock, an object with a writable ``now`` attribute (required for the
    ``expired`` kind; without it that kind is skipped). Returns ``{"trials", "stale_serves",
    "unexpected", "hits", "by_kind": {kind: {status: n}}, "examples": [...first 5 problems]}``.
    """
    rng = random.Random(seed)
    kinds = [k for k in KINDS if k != "expired" or clock is not None]
    bumped = MemoCache(engine=cache.engine, gate_version=cache.gate_version + "+next", clock=cache.clock)
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    stale = unexpected = hits = 0
    examples: list[str] = []
    for t in range(n_trials):
        kind = rng.choice(kinds)
        key = f"soak:{seed}-{t}:memo"
        snap = random_snapshot(rng)
        first = cache.get_or_create(key, snap, cited_synthesizer, ttl_s=ttl_s, synthesis_version="v1")
        if first.status not in ("miss", "stale_fingerprint"):
            unexpected += 1
            examples.append(f"trial {t}: first request {first.status}: {first.detail}")
            continue
        target, via, version = snap, cache, "v1"
        if kind in DATA_CHANGES or kind == "reordered":
            target = perturb_snapshot(snap, kind, rng)
        elif kind == "expired":
            clock.now += ttl_s
        elif kind == "gate_bump":
            via = bumped
        elif kind == "synthesis_bump":
            version = "v2"
        elif kind == "tampered":
            _tamper(cache, key, first.memo.answer, rng)
        r = via.get_or_create(key, target, cited_synthesizer, ttl_s=ttl_s, synthesis_version=version)
        by_kind[kind][r.status] += 1
        if r.status == "hit":
            hits += 1
            problem = _stale(r, target, changed=kind in DATA_CHANGES)
            if problem:
                stale += 1
                examples.append(f"trial {t} ({kind}): STALE SERVE: {problem}")
        if r.status != EXPECTED[kind]:
            unexpected += 1
            examples.append(f"trial {t} ({kind}): expected {EXPECTED[kind]}, got {r.status}: {r.detail}")
    return {
        "trials": n_trials,
        "stale_serves": stale,
        "unexpected": unexpected,
        "hits": hits,
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "examples": examples[:5],
    }


# --- helpers -------------------------------------------------------------------------------

_WORDS = (
    "revenue",
    "net income",
    "margin",
    "cash",
    "debt",
    "assets",
    "equity",
    "capex",
    "dividends",
    "eps",
    "segment",
    "backlog",
)


def _value(rng: random.Random) -> float:
    return round(rng.uniform(-1e7, 1e7) * 10.0 ** -rng.randint(0, 6), rng.randint(0, 2))


def _display(rng: random.Random, value: float) -> str | None:
    """One way a source may show ``value`` (a valid :attr:`Fact.displayed_value` of it): none, as
    is, with a currency sign, with two decimals, in parentheses when negative, or in thousands."""
    text = canonical_number(abs(value))
    shown: list[str | None] = [None, text, f"$ {text}", f"{abs(value):,.2f}"]
    if value < 0:
        shown.append(f"({text})")
    if abs(value) >= 1000:
        shown.append(canonical_number(abs(value) / 1000))
    return rng.choice(shown)


def _different(rng: random.Random, draw: Any, *old: Any) -> Any:
    for _ in range(1000):
        v = draw()
        if v not in old:
            return v
    raise RuntimeError("could not draw a different value")


def _tamper(cache: MemoCache, key: str, answer: str, rng: random.Random) -> None:
    """Move one stated number of the stored memo by one displayed unit, in place (same row)."""
    qs = extract_quantities(answer)
    moved = move_number(answer, rng.choice(qs), rng.choice((-1, 1)))
    with cache.engine.begin() as conn:
        row = conn.execute(memo_cache.select().where(memo_cache.c.key == key)).one()
        memo = Memo.model_validate_json(row.memo).model_copy(update={"answer": moved})
        conn.execute(update(memo_cache).where(memo_cache.c.key == key).values(memo=memo.model_dump_json()))


def _stale(r: Any, snapshot: Snapshot, *, changed: bool) -> str | None:
    fp = snapshot.fingerprint()
    if changed:
        return "served after a data change"
    if r.memo.fingerprint != fp:
        return "memo written from another fingerprint"
    if r.memo.answer != cited_synthesizer(snapshot):
        return "answer differs from a fresh synthesis"
    if check_answer(r.memo.answer, snapshot).status != "pass":
        return "served memo fails the full gate"
    return None
