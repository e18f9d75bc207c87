"""Comparing two memory rankings up to float32 rounding of the cosine (the pooled path vs the full scan)."""

from __future__ import annotations

import pytest

#: Cosines of the same vectors from a full matrix–vector product and from a gather of a few rows
#: may differ in the last float32 bit (BLAS blocks them differently): scores agree to this, and
#: rows whose scores lie this close are a tie in either order.
ROUNDING = 1e-6


def assert_same_ranking(pooled, full, depth: int) -> None:
    """``pooled`` (the top ``depth``) is the head of ``full`` (ranked deeper) up to float32
    rounding of the cosine."""
    assert len(pooled) == min(depth, len(full))
    fs = [r.score for r in full]
    for j, r in enumerate(pooled):
        assert r.score == pytest.approx(fs[j], abs=ROUNDING)
        tied = {f.row for f in full if abs(f.score - fs[j]) <= 2 * ROUNDING}
        if tied == {full[j].row}:  # an isolated score: the same row, the same components
            assert r.row == full[j].row
            assert r.components == pytest.approx(full[j].components, abs=ROUNDING)
        else:
            assert r.row in tied
