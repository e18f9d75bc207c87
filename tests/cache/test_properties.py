"""Property tests of the memo cache (hypothesis): random snapshots, one random change → never a
hit; unchanged → hit; TTL → expired; gate version → stale_gate; the fast re-gate equals the
gate; and a short perturbation soak with zero stale serves."""

from __future__ import annotations

import itertools
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.cache import MemoCache, gate_answer
from assay.cache.soak import DATA_CHANGES, EXPECTED, UNITS, cited_synthesizer, format_value, perturb_snapshot, run_soak
from assay.facts import Fact, Snapshot
from assay.grounding.gate import check_answer
from memo_fixtures import Clock

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ids = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,7}", fullmatch=True)
values = st.integers(-(10**9), 10**9).map(lambda k: k / 100)
facts = st.builds(
    lambda i, label, v, u, p: Fact(id=i, label=label, value=v, unit=u, period=p),
    ids,
    st.text(min_size=1, max_size=30),
    values,
    st.sampled_from(UNITS),
    st.none() | st.text(max_size=12),
)
snapshots = st.builds(
    lambda fs, srcs: Snapshot(facts=tuple(fs), sources=tuple(srcs)),
    st.lists(facts, min_size=1, max_size=10, unique_by=lambda f: f.id),
    st.lists(st.text(max_size=60), max_size=3),
)

_keys = itertools.count()
_tmp = tempfile.TemporaryDirectory(prefix="assay-cache-props-")
_clock = Clock()
_cache = MemoCache(f"sqlite:///{Path(_tmp.name) / 'props.db'}", clock=_clock)


def _key() -> str:
    return f"prop:{next(_keys)}:memo"


@SETTINGS
@given(snap=snapshots, kind=st.sampled_from(DATA_CHANGES), rnd=st.randoms(use_true_random=False))
def test_any_single_data_change_is_never_a_hit(snap, kind, rnd):
    key = _key()
    assert _cache.get_or_create(key, snap, cited_synthesizer, ttl_s=3600).status == "miss"
    changed = perturb_snapshot(snap, kind, rnd)
    assert changed.fingerprint() != snap.fingerprint()
    r = _cache.get_or_create(key, changed, cited_synthesizer, ttl_s=3600)
    assert r.status == "stale_fingerprint"
    assert r.memo.fingerprint == changed.fingerprint() and r.answer == cited_synthesizer(changed)


@SETTINGS
@given(snap=snapshots, rnd=st.randoms(use_true_random=False))
def test_unchanged_data_within_ttl_is_a_hit(snap, rnd):
    key = _key()
    first = _cache.get_or_create(key, snap, cited_synthesizer, ttl_s=3600)
    assert first.status == "miss"
    _clock.now += rnd.uniform(0, 3599)
    same = perturb_snapshot(snap, "reordered", rnd)  # order, as_of and fact sources are not data
    r = _cache.get_or_create(key, same, cited_synthesizer, ttl_s=3600)
    assert r.status == "hit" and r.answer == first.answer and r.gate.status == "pass"


@settings(max_examples=25, deadline=None)
@given(snap=snapshots, extra=st.floats(0, 1e6))
def test_ttl_elapsed_is_expired_and_gate_bump_is_stale_gate(snap, extra):
    key = _key()
    _cache.get_or_create(key, snap, cited_synthesizer, ttl_s=60)
    _clock.now += 60 + extra
    assert _cache.get_or_create(key, snap, cited_synthesizer, ttl_s=60).status == "expired"
    bumped = MemoCache(engine=_cache.engine, gate_version=_cache.gate_version + ".1", clock=_clock)
    assert bumped.get_or_create(key, snap, cited_synthesizer, ttl_s=60).status == "stale_gate"


@st.composite
def answers(draw, snap: Snapshot) -> str:
    """Sentences citing existing and unknown ids, stating fact values exactly, moved, or not at all."""
    sentences = []
    for _ in range(draw(st.integers(1, 5))):
        f = draw(st.sampled_from(snap.facts))
        how = draw(st.sampled_from(("exact", "moved", "other_unit", "none")))
        text = {
            "exact": format_value(f),
            "moved": format_value(f.model_copy(update={"value": f.value + 1})),
            "other_unit": f"{abs(f.value):g}%",
            "none": "steady",
        }[how]
        cites = draw(st.lists(st.sampled_from([x.id for x in snap.facts] + ["ZZ9", "F404"]), max_size=3))
        marker = f" [{', '.join(cites)}]" if cites else ""
        sentences.append(f"The figure is {text}{marker}.")
    return " ".join(sentences)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), snap=snapshots, mode=st.sampled_from(("auto", "cited", "uncited")))
def test_fast_regate_equals_the_gate(data, snap, mode):
    answer = data.draw(answers(snap))
    expected = check_answer(answer, snap, mode=mode).model_dump()
    assert gate_answer(answer, snap, mode).model_dump() == expected
    assert gate_answer(answer, snap, mode, indexes=_cache.indexes).model_dump() == expected  # via the index LRU


def test_short_soak_has_zero_stale_serves(tmp_path):
    clock = Clock()
    cache = MemoCache(f"sqlite:///{tmp_path / 'soak.db'}", clock=clock)
    report = run_soak(cache, 300, seed=7, clock=clock)
    assert report["stale_serves"] == 0 and report["unexpected"] == 0, report["examples"]
    assert set(report["by_kind"]) == set(EXPECTED)
    for kind, statuses in report["by_kind"].items():
        assert statuses == {EXPECTED[kind]: sum(statuses.values())}
    assert report["hits"] == sum(report["by_kind"][k]["hit"] for k in ("unchanged", "reordered"))


def test_perturb_snapshot_rejects_unknown_kind():
    snap = Snapshot(facts=(Fact(id="F1", label="x", value=1),))
    with pytest.raises(ValueError, match="unknown perturbation kind"):
        perturb_snapshot(snap, "colour", random.Random(0))


@settings(max_examples=2000, deadline=None)
@given(x=st.floats(allow_nan=False, allow_infinity=False))
def test_canonical_number_fast_path_equals_the_decimal_rule(x):
    """The fingerprint's number text (sped up for the hit path) is unchanged: shortest repr,
    normalised by Decimal, fixed-point."""
    from decimal import Decimal

    from assay.facts import canonical_number

    expected = "0" if x == 0 else format(Decimal(repr(x)).normalize(), "f")
    assert canonical_number(x) == expected


def test_a_period_change_of_an_empty_period_is_a_real_change():
    """Regression (hypothesis found it): a fact with period "" was "changed" to None, which the
    fingerprint reads as the same (no period), so the soak expected a miss it could not get."""
    import random

    snap = Snapshot(facts=(Fact(id="F1", label="Revenue", value=1.0, unit="USD", period=""),))
    for seed in range(200):
        changed = perturb_snapshot(snap, "period", random.Random(seed))
        assert changed.facts[0].period not in (None, "")
        assert changed.fingerprint() != snap.fingerprint()


def test_a_displayed_value_change_makes_a_stored_memo_stale(tmp_path):
    """Issue 15: ``displayed_value`` is part of the fingerprint, so a stored memo written before the
    source's display of a figure changed (set, changed or removed; same value) is never served."""
    snap = Snapshot(facts=(Fact(id="F1", label="Revenue", value=-1577.3, unit="USD millions", period="FY2023"),))
    cache = MemoCache(f"sqlite:///{tmp_path / 'dv.db'}", clock=Clock())
    assert cache.get_or_create("k", snap, cited_synthesizer, ttl_s=3600, synthesis_version="v1").status == "miss"
    seen = set()
    for seed in range(40):
        changed = perturb_snapshot(snap, "displayed_value", random.Random(seed))
        assert changed.facts[0].value == snap.facts[0].value and changed.fingerprint() != snap.fingerprint()
        seen.add(changed.facts[0].displayed_value)
    assert {"(1577.3)", "1.5773", "1,577.30"} <= seen
    changed = perturb_snapshot(snap, "displayed_value", random.Random(1))
    r = cache.get_or_create("k", changed, cited_synthesizer, ttl_s=3600, synthesis_version="v1")
    assert r.status == "stale_fingerprint"
