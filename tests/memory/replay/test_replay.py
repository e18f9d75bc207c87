"""The replay harness: generators, dedup, findability backtest, cold read, B − A, plan, LoCoMo input."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

from assay.judges.cold_read import make_cold_read_judge
from assay.judges.pairwise import make_pairwise_judge
from assay.llm import LLMClient, LLMResponse, StubBackend
from assay.memory.replay import (
    REPLAY_CRITERIA,
    ExtractGenerator,
    LLMGenerator,
    Memory,
    Question,
    ReplaySettings,
    Session,
    Turn,
    heuristic_cold_read,
    load_locomo_replay,
    load_sessions,
    plan,
    run_replay,
)
from assay.memory.replay.generate import validate_memories
from assay.memory.replay.metrics import dedup_flags, findability
from assay.memory.retrieval.embeddings import HashingEmbedder


def _sessions():
    s1 = Session(
        id="s1",
        cohort="u1",
        date="1 May 2023",
        turns=(
            Turn(id="t1", speaker="Ann", text="I adopted a golden retriever puppy named Biscuit last week."),
            Turn(id="t2", speaker="Bob", text="Nice! I started pottery classes downtown on Tuesdays."),
            Turn(id="t3", speaker="Ann", text="Nice!"),
        ),
    )
    s2 = Session(
        id="s2",
        cohort="u2",
        turns=(
            Turn(id="t1", speaker="Cy", text="My sister moved to Lisbon for a design job at a studio."),
            Turn(id="t2", speaker="Di", text="Lisbon design studios hire many young architects."),
        ),
    )
    qs = [
        Question(id="q1", cohort="u1", text="What is the name of Ann's puppy?", evidence=("t1",)),
        Question(id="q2", cohort="u1", text="When are Bob's pottery classes?", evidence=("t2",)),
        Question(id="q3", cohort="u2", text="Where did Cy's sister move?", evidence=("t1",)),
    ]
    return [s1, s2], qs


def _run(gen, session, arm="A"):
    return asyncio.run(gen.generate(session, arm))


def test_extract_per_turn_writes_one_named_memory_per_turn():
    (s1, _), _ = _sessions()
    mems, status, reason, tokens = _run(ExtractGenerator("per_turn"), s1)
    assert status == "ok" and reason is None and tokens == 0
    assert [m.source_turns for m in mems] == [("t1",), ("t2",), ("t3",)]
    assert mems[0].text.startswith("Ann: I adopted") and mems[0].cohort == "u1" and mems[0].id == "A:s1:0"


def test_extract_per_session_keeps_the_most_informative_turns_in_order_with_the_date():
    (s1, _), _ = _sessions()
    (mem,), status, _, _ = _run(ExtractGenerator("per_session"), s1)
    assert status == "ok" and mem.text.startswith("1 May 2023: Ann: I adopted")
    assert mem.source_turns == ("t1", "t2", "t3")  # fewer turns than SUMMARY_TURNS: all kept, in order
    with pytest.raises(ValueError):
        ExtractGenerator("per_word")


def test_dedup_by_key_and_by_cosine_within_the_cohort_only():
    mems = [
        Memory(id="1", session="s", cohort="u1", text="Ann has a puppy."),
        Memory(id="2", session="s", cohort="u1", text="ann  HAS a puppy."),  # same dedupe key
        Memory(id="3", session="s", cohort="u2", text="Ann has a puppy."),  # other cohort
        Memory(id="4", session="s", cohort="u1", text="Bob likes pottery."),
    ]
    vec = np.eye(4, dtype=np.float32)
    vec[3] = vec[0]  # cosine 1 with memory 1
    assert dedup_flags(mems, vec, 0.95) == [False, True, False, True]


def test_findability_counts_the_evidence_turns_the_top_k_memories_came_from():
    mems = [
        Memory(id="a", session="s", cohort="u", text="x", source_turns=("t1",)),
        Memory(id="b", session="s", cohort="u", text="y", source_turns=("t2", "t3")),
    ]
    m_vec = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    qs = [
        Question(id="q", cohort="u", text="?", evidence=("t2", "t3")),
        Question(id="r", cohort="u", text="?", evidence=("t1", "t9")),
        Question(id="s", cohort="other", text="?", evidence=("t1",)),
    ]
    q_vec = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    assert findability(qs, q_vec, mems, m_vec, k=1) == [1.0, 0.0, 0.0]
    assert findability(qs, q_vec, mems, m_vec, k=2)[1] == 0.5


@pytest.mark.parametrize(
    "text, value",
    [
        ("Ann: I adopted a golden retriever puppy named Biscuit.", 1),
        ("I adopted a golden retriever puppy named Biscuit.", 0),  # who is "I"?
        ("Ann: Nice!", 0),  # no fact
        ("Bob: That sounds great, tell me more about it!", 0),
        ("1 May 2023: Ann: I adopted a puppy named Biscuit in Leeds.", 1),
        ("He moved to Lisbon for a design job.", 0),
    ],
)
def test_heuristic_cold_read(text, value):
    assert heuristic_cold_read(text) == value


def test_generation_replies_fail_closed():
    (s1, _), _ = _sessions()
    st = ReplaySettings(max_memories=2)
    ok = {"memories": [{"text": "Ann has a puppy.", "source_turns": ["t1"]}]}
    assert validate_memories("", ok, "stop", s1, st)[0] == [("Ann has a puppy.", ("t1",))]
    assert validate_memories("", {"memories": []}, "stop", s1, st) == ([], None)
    cases = [
        ({"memories": [{"text": "x", "source_turns": ["t9"]}]}, "stop", "source turn out of range"),
        ({"memories": [{"text": " ", "source_turns": []}]}, "stop", "empty memory"),
        ({"memories": [{"text": "x"}]}, "stop", "schema mismatch"),
        ({"facts": []}, "stop", "schema mismatch"),
        ({"memories": [{"text": "x", "source_turns": []}] * 3}, "stop", "too many memories"),
        (ok, "length", "truncated"),
    ]
    for parsed, finish, kind in cases:
        got, reason = validate_memories("", parsed, finish, s1, st)
        assert got is None and reason.startswith(kind), reason
    assert validate_memories("Sure! here", None, "stop", s1, st)[1].startswith("not JSON")


def test_the_llm_generator_sends_a_pinned_schema_and_rejects_a_bad_reply():
    (s1, _), _ = _sessions()

    class Bad:
        name = "bad"

        async def complete(self, request):
            return LLMResponse(text='{"memories": [{"text": "x", "source_turns": ["zz"]}]}')

    gen = LLMGenerator(LLMClient(StubBackend()), "Write durable memories.", "prompt-a")
    req = gen.request(s1)
    items = req.json_schema["properties"]["memories"]
    assert items["items"]["properties"]["source_turns"]["items"]["enum"] == ["t1", "t2", "t3"]
    mems, status, _, _ = _run(gen, s1)
    assert status == "ok" and mems and all(set(m.source_turns) <= {"t1", "t2", "t3"} for m in mems)
    mems, status, reason, _ = _run(LLMGenerator(LLMClient(Bad()), "p", "p"), s1)
    assert (mems, status) == ([], "rejected") and reason.startswith("source turn out of range")


def test_run_replay_end_to_end_per_arm_and_b_minus_a():
    sessions, qs = _sessions()
    gens = {"A": ExtractGenerator("per_turn"), "B": ExtractGenerator("per_session")}
    local, agg = run_replay(
        sessions,
        qs,
        gens,
        HashingEmbedder(),
        cold_read=make_cold_read_judge("heuristic", rule=heuristic_cold_read),
        pairwise=make_pairwise_judge("length", REPLAY_CRITERIA, names=["per_turn", "per_session"]),
        settings=ReplaySettings(k=2, n_resamples=200),
    )
    a, b = agg["arms"]["A"], agg["arms"]["B"]
    assert a["n_memories"] == 5 and b["n_memories"] == 2
    assert a["recall_at_k"]["value"] == 1.0  # each question's own turn is in its top 2 (hashing: shared terms)
    assert b["recall_at_k"]["value"] == 1.0  # one summary per session holds every turn
    assert agg["diff_b_minus_a"]["recall_at_k"]["value"] == 0.0
    assert a["cold_read"]["n"] == 5 and agg["pairwise"]["n_scored"] == 2
    fit = agg["pairwise"]["criteria"]["fitness"]  # length: s1's summary carries the date (longer), s2's does not
    assert (fit["wins_a"], fit["wins_b"]) == (1, 1)
    text = json.dumps(agg)
    assert "q1" not in text and '"s1"' not in text  # the aggregate names no session or question
    assert [s["id"] for s in local["sessions"]] == ["s1", "s2"]


def test_plan_counts_calls_and_calls_nothing():
    sessions, _ = _sessions()

    class Boom:
        name = "boom"

        async def complete(self, request):  # pragma: no cover - must not be called
            raise AssertionError("called")

    gens = {"A": LLMGenerator(LLMClient(Boom()), "p", "a"), "B": LLMGenerator(LLMClient(Boom()), "q", "b")}
    p = plan(
        sessions, gens, cold_read=make_cold_read_judge("stub"), pairwise=make_pairwise_judge("stub"), cold_read_limit=3
    )
    assert p["calls"] == {"generation": 4, "cold_read": 6, "pairwise": 4, "total": 14}
    assert p["token_estimate"] > 0


def test_sessions_jsonl_errors_name_the_line(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_text('{"id": "s1", "turns": []}\n{"id": "s2"}\n')
    with pytest.raises(ValueError, match=r"s.jsonl:2: turns: Field required"):
        load_sessions(f)


def test_locomo_sessions_and_questions(shared_data):
    sessions, qs = load_locomo_replay(shared_data / "locomo", limit=1)
    assert len({s.cohort for s in sessions}) == 1 and len(sessions) >= 19
    ids = {t.id for s in sessions for t in s.turns}
    assert qs and all(set(q.evidence) <= ids for q in qs)
