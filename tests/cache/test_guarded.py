"""guarded_synthesis: cache → synthesise → gate → completeness → judge; zero inference on a hit;
high stakes fails closed; a failing memo is returned, never stored."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from assay.cache import MemoCache, guarded_synthesis
from assay.cache.guarded import effective_version
from memo_fixtures import GOOD, KEY, UNSOURCED, Clock, Synth, apple, rows


@dataclass
class Verdict:
    status: str
    score: float | None


class FakeJudge:
    """Duck-typed judge: ``.judge(case)`` → a verdict with ``.status``/``.score``; counts calls."""

    backend = "fake"
    model = "fake-1"

    def __init__(self, status: str = "scored", score: float | None = 1.0, raises: bool = False):
        self.status, self.score, self.raises = status, score, raises
        self.cases: list = []

    def judge(self, case):
        self.cases.append(case)
        if self.raises:
            raise ConnectionError("endpoint https://secret.example/v1 refused")
        return Verdict(self.status, self.score)


@pytest.fixture()
def cache(tmp_path) -> MemoCache:
    return MemoCache(f"sqlite:///{tmp_path / 'guarded.db'}", clock=Clock())


def test_hit_does_no_inference_and_returns_the_stored_checks(cache):
    synth, judge = Synth(), FakeJudge()
    first = guarded_synthesis(
        apple(), KEY, synth, judge=judge, cache=cache, question="How did sales change?", reference="$383.3 billion"
    )
    assert (first.status, first.accepted, first.stored, first.synthesize_calls, first.judge_calls) == (
        "miss",
        True,
        True,
        1,
        1,
    )
    assert first.completeness.basis == "reference" and first.completeness.score == 1.0
    assert first.verdict == {"status": "scored", "score": 1.0, "reason": None}
    case = judge.cases[0]
    assert (case.id, case.answer, case.question, len(case.facts), case.sources) == (
        KEY,
        GOOD,
        "How did sales change?",
        3,
        apple().sources,
    )
    second = guarded_synthesis(apple(), KEY, synth, judge=judge, cache=cache)
    assert (second.status, second.synthesize_calls, second.judge_calls, len(synth.calls), len(judge.cases)) == (
        "hit",
        0,
        0,
        1,
        1,
    )
    assert (
        second.verdict == first.verdict and second.completeness == first.completeness and second.gate.status == "pass"
    )


def test_gate_failure_is_returned_not_stored_and_not_judged(cache):
    judge = FakeJudge()
    r = guarded_synthesis(apple(), KEY, Synth(UNSOURCED), judge=judge, cache=cache)
    assert (r.status, r.accepted, r.stored, r.judge_calls) == ("gate_failed", False, False, 0)
    assert r.answer == UNSOURCED and judge.cases == [] and rows(cache) == []
    assert "value_mismatch" in r.detail and r.detail.endswith(
        "not stored"
    )  # worded as MemoCache.get_or_create words it


def test_high_stakes_needs_a_judge_and_a_full_score(cache):
    with pytest.raises(ValueError, match="high_stakes needs a judge"):
        guarded_synthesis(apple(), KEY, Synth(), high_stakes=True, cache=cache)
    r = guarded_synthesis(apple(), KEY, Synth(), judge=FakeJudge(score=0.5), high_stakes=True, cache=cache)
    assert (r.status, r.accepted, r.stored) == ("judge_failed", False, False) and "0.5 < 1" in r.detail
    assert rows(cache) == [] and cache.stats()["by_status"]["judge_failed"] == 1
    ok = guarded_synthesis(
        apple(), KEY, Synth(), judge=FakeJudge(score=0.5), high_stakes=True, min_faithfulness=0.5, cache=cache
    )
    assert (ok.status, ok.accepted, ok.stored) == ("miss", True, True)
    again = guarded_synthesis(
        apple(), KEY, Synth(), judge=FakeJudge(score=0.5), high_stakes=True, min_faithfulness=0.5, cache=cache
    )
    assert again.status == "hit"


@pytest.mark.parametrize(
    "judge",
    [
        FakeJudge(raises=True),
        FakeJudge(status="skipped", score=None),
        FakeJudge(status="rejected", score=None),
        FakeJudge(status="weird", score=0.9),
    ],
)
def test_a_judge_that_cannot_score_fails_closed(cache, judge):
    hs = guarded_synthesis(apple(), KEY, Synth(), judge=judge, high_stakes=True, cache=cache)
    assert (hs.status, hs.accepted, hs.stored) == ("judge_failed", False, False)
    assert "secret.example" not in str(hs.verdict)  # the exception's message is not kept
    low = guarded_synthesis(apple(), KEY, Synth(), judge=judge, cache=cache)
    assert (low.accepted, low.stored) == (True, False) and "not stored: judge verdict" in low.detail
    assert rows(cache) == []


def test_memos_are_never_served_across_judges_or_stakes(cache):
    guarded_synthesis(apple(), KEY, Synth(), cache=cache, synthesis_version="p1")
    assert (
        guarded_synthesis(apple(), KEY, Synth(), judge=FakeJudge(), cache=cache, synthesis_version="p1").status
        == "stale_synthesis"
    )
    assert (
        guarded_synthesis(
            apple(), KEY, Synth(), judge=FakeJudge(), high_stakes=True, cache=cache, synthesis_version="p1"
        ).status
        == "stale_synthesis"
    )
    assert effective_version("p1", FakeJudge(), True, 1.0) == "p1|judge=fake:fake-1|high_stakes>=1"
    assert effective_version("p1", None, False, 1.0) == "p1"


def test_bypass_touches_no_database(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ASSAY_DB_URL", raising=False)
    r = guarded_synthesis(apple(), KEY, Synth(), use_cache=False)
    assert (r.status, r.accepted, r.stored, r.synthesize_calls) == ("bypassed", True, False, 1)
    assert not (tmp_path / "home").exists()


def test_with_the_stub_faithfulness_judge(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ASSAY_DB_URL", raising=False)
    from assay.judges.faithfulness import make_faithfulness_judge

    judge = make_faithfulness_judge("stub")
    first = guarded_synthesis(apple(), KEY, Synth(), judge=judge, cache=cache)
    assert first.verdict["status"] == "scored" and 0.0 <= first.verdict["score"] <= 1.0
    assert first.verdict["backend"] == "stub" and first.stored
    assert guarded_synthesis(apple(), KEY, Synth(), judge=judge, cache=cache).status == "hit"


def test_min_faithfulness_range(cache):
    with pytest.raises(ValueError, match=r"min_faithfulness must be in \[0, 1\]"):
        guarded_synthesis(apple(), KEY, Synth(), judge=FakeJudge(), min_faithfulness=1.5, cache=cache)
