"""The one scoring path (assay.grounding.score_answer) and the one snapshot-index cache (IndexCache)."""

from __future__ import annotations

import threading

import pytest

from assay.facts import Fact, Snapshot
from assay.grounding import AnswerScores, IndexCache, SnapshotIndex, check_answer, score_answer
from assay.grounding.completeness import completeness
from assay.grounding.impersonal import check_impersonal

SNAP = Snapshot(
    facts=(
        Fact(id="F1", label="Revenue", value=383.3, unit="USD billions", period="FY2023"),
        Fact(id="F2", label="Net income", value=97.0, unit="USD billions", period="FY2023"),
    ),
    sources=("Revenue 383.3 and net income 97.0 (in billions).",),
)
ANSWERS = (
    "Revenue was $383.3 billion [F1] and net income $97.0 billion [F2]. You should buy the stock.",
    "Revenue was $383.3 billion.",
    "Revenue was $999 billion [F1].",
    "I cannot tell from the data.",
)


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize("mode", ["auto", "cited", "uncited"])
def test_score_answer_is_gate_completeness_and_impersonal(answer, mode):
    s = score_answer(answer, SNAP, mode=mode, reference="$383.3 billion", question="What was revenue?")
    gate = check_answer(answer, SNAP, mode=mode)
    assert s.gate.model_dump() == gate.model_dump()
    assert s.completeness == completeness(answer, SNAP, gate, reference="$383.3 billion")
    assert s.impersonal == check_impersonal(answer)
    assert s.rubric_inputs == {
        "sourcing": None if gate.sourcing is None else round(gate.sourcing, 4),
        "completeness": s.completeness.score,
        "impersonal": s.impersonal.score,
    }
    assert list(s.rubric_inputs) == ["sourcing", "completeness", "impersonal"]  # record order


def test_gate_only_computes_the_gate_alone():
    s = score_answer(ANSWERS[0], SNAP, gate_only=True)
    assert isinstance(s, AnswerScores) and s.completeness is None and s.impersonal is None
    assert s.gate.status == "pass" and s.sourcing == 1.0
    assert s.rubric_inputs == {"sourcing": 1.0, "completeness": None, "impersonal": None}
    with pytest.raises(AttributeError):
        s.gate = s.gate  # type: ignore[misc]  # frozen


@pytest.mark.parametrize("answer", ANSWERS)
def test_reused_index_or_cache_gives_the_same_result(answer):
    plain = score_answer(answer, SNAP, reference=97)
    cache = IndexCache(4, claims_size=4)
    via_index = score_answer(answer, SNAP, reference=97, index=SnapshotIndex.build(SNAP))
    via_cache = [score_answer(answer, SNAP, reference=97, indexes=cache) for _ in range(2)]
    fp = score_answer(answer, SNAP, reference=97, indexes=cache, fingerprint=SNAP.fingerprint())
    for other in (via_index, *via_cache, fp):
        assert other.gate.model_dump() == plain.gate.model_dump()
        assert other.completeness == plain.completeness and other.impersonal == plain.impersonal
    assert len(cache) == 1


def test_index_cache_keys_by_fingerprint_and_evicts_least_recently_used():
    snaps = [Snapshot(facts=(Fact(id="F1", label="x", value=float(i)),)) for i in range(3)]
    cache = IndexCache(2)
    first = cache.get(snaps[0])
    reordered = Snapshot(facts=snaps[0].facts, as_of="2099-01-01")  # same data, same fingerprint
    assert cache.get(reordered) is first
    second = cache.get(snaps[1])
    cache.get(snaps[0])  # touch: snaps[1] is now the least recently used
    third = cache.get(snaps[2])  # evicts snaps[1]
    assert len(cache) == 2 and cache.get(snaps[0]) is first and cache.get(snaps[2]) is third
    assert cache.get(snaps[1]) is not second  # rebuilt


def test_index_cache_sizes():
    unbounded = IndexCache()
    for i in range(100):
        unbounded.get(Snapshot(facts=(Fact(id="F1", label="x", value=float(i)),)))
    assert len(unbounded) == 100
    none = IndexCache(0)
    assert none.get(SNAP) is not none.get(SNAP) and len(none) == 0
    claims = IndexCache(claims_size=1)
    assert claims.claims_of(ANSWERS[0]) is claims.claims_of(ANSWERS[0])
    assert IndexCache().claims_of(ANSWERS[1]) == IndexCache().claims_of(ANSWERS[1])
    with pytest.raises(ValueError, match="size"):
        IndexCache(-1)
    with pytest.raises(ValueError, match="size"):
        IndexCache(claims_size=-1)


def test_index_cache_is_thread_safe():
    cache = IndexCache(8, claims_size=8)
    snaps = [Snapshot(facts=(Fact(id="F1", label="x", value=float(i)),)) for i in range(16)]
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(200):
                snap = snaps[(i * 7 + k) % len(snaps)]
                s = score_answer(f"It was {float((i * 7 + k) % len(snaps))} [F1].", snap, indexes=cache)
                assert s.gate.status == "pass"
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(cache) <= 8
