"""Source-passage reading's pre-checks never skip a line their pattern would match (issue 15, speed)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.grounding import passages as p

_PARTS = [
    "(in millions)", "In Thousands", "$ in billions", "amounts in MILLIONS", "per share", "Per Diluted Share",
    "EPS", "eps", "Revenue", "1,577.3", "|", " ", "ſ", "\u212a", "ı", "thouſands", "per\tcommon share", "(",
]  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=8))
def test_property_header_and_per_share_prechecks_are_necessary(parts):
    line = " ".join(parts)
    if p._HEADER.search(line):
        assert p._may_hold(line, p._HEADER_WORDS)
    if p._PER_SHARE.search(line):
        assert p._may_hold(line, p._PER_SHARE_WORDS)
