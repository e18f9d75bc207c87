"""Issue 15: ``displayed_value`` is part of the snapshot fingerprint, so a memo written before a
fact's display changed is never served (``stale_fingerprint``) and the fresh answer is re-gated
under the displayed-value rule."""

from __future__ import annotations

import pytest

from assay.cache import MemoCache
from assay.facts import Fact, Snapshot
from memo_fixtures import KEY, Clock, Synth


def _snap(displayed: str | None) -> Snapshot:
    return Snapshot(facts=(Fact(id="F1", label="Revenue", value=6.13, unit="USD millions", displayed_value=displayed),))


@pytest.fixture()
def cache(db_url) -> MemoCache:
    c = MemoCache(db_url, clock=Clock())
    yield c
    c.engine.dispose()


def test_changed_display_is_stale_fingerprint_and_the_bare_figure_is_regated(cache):
    synth = Synth("Revenue was $6.13 [F1].")
    first = cache.get_or_create(KEY, _snap("6.13"), synth, ttl_s=3600)
    assert first.status == "miss" and first.gate.status == "pass"
    assert first.gate.checks[0].scale_from_display
    assert cache.get_or_create(KEY, _snap("6.13"), synth, ttl_s=3600).status == "hit"
    # the display is gone: the stored memo is not served; the same bare figure would now fail
    assert cache.get_or_create(KEY, _snap(None), synth, ttl_s=3600).status == "gate_failed"
    synth.answer = "Revenue was $6.13 million [F1]."
    cache.get_or_create(KEY, _snap("6.13"), synth, ttl_s=3600)  # (the old memo is still stored)
    again = cache.get_or_create(KEY, _snap(None), synth, ttl_s=3600)
    assert again.status == "stale_fingerprint" and again.gate.status == "pass"
    assert not again.gate.checks[0].scale_from_display
