"""ExperimentStore on SQLite and PostgreSQL: lifecycle, stamping through the store, status, the gate, promotion."""

from __future__ import annotations

import pytest
from sqlalchemy import func, insert, select

from ab_fixtures import fill_round, hashing_store
from assay.memory.experiments import (
    WRITER_SOURCE_REF,
    ExperimentError,
    ExperimentSettings,
    ExperimentStore,
    GateParams,
    write_memories,
)
from assay.memory.tables import memories

FAST_GATE = GateParams(min_delivered=50)


def _start(ab: ExperimentStore, name: str = "writer", **kw):
    args = dict(
        control_version="gen-7",
        control_rules="Be brief.",
        candidate_version="gen-7+b3",
        instruction="Record units.",
        gate=FAST_GATE,
    )
    args.update(kw)
    return ab.start(name, **args)


@pytest.fixture
def ab(db_url):
    return ExperimentStore(db_url, settings=ExperimentSettings(cache_ttl_s=0))


def test_start_validates_and_refuses_a_duplicate(ab):
    cfg = _start(ab)
    assert (cfg.status, cfg.round, cfg.allocation, cfg.unit) == ("running", 1, 0.5, "prompt")
    assert cfg.gate == FAST_GATE
    with pytest.raises(ExperimentError, match="exists already"):
        _start(ab)
    for bad in (dict(allocation=1.0), dict(unit="turn"), dict(candidate_version="gen-7"), dict(instruction=" ")):
        with pytest.raises(ExperimentError):
            _start(ab, "other", **bad)
    assert ab.names() == ["writer"]
    assert [e.kind for e in ab.events("writer")] == ["created", "round_started"]


def test_stamping_through_the_store_and_precedence(ab, db_url):
    _start(ab)
    store = hashing_store(db_url)
    b = next(a for a in (ab.assign("writer", f"p{i}") for i in range(20)) if a.name == "B")
    res = write_memories(
        store,
        [{"id": "m1", "text": "the user measures in cm", "source_ref": "entry-ref"}, {"id": "m2", "text": "x y"}],
        b,
        source_ref="call-ref",
    )
    assert res.added == ["m1", "m2"]
    m1, m2 = store.get("m1"), store.get("m2")
    assert m1.source_ref == m2.source_ref == "gen-7+b3"  # inside an experiment the arm wins
    assert m1.meta[WRITER_SOURCE_REF] == "entry-ref" and m2.meta[WRITER_SOURCE_REF] == "call-ref"
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(
                memories.c.id, memories.c.ab_experiment, memories.c.ab_round, memories.c.ab_arm, memories.c.ab_unit
            ).order_by(memories.c.id)
        ).all()
    assert [tuple(r) for r in rows] == [("m1", "writer", 1, "B", b.unit), ("m2", "writer", 1, "B", b.unit)]
    # outside an experiment: entry > call parameter > none, and a forged stamp is dropped
    ab.stop("writer")
    off = ab.assign("writer", "p1")
    assert not off.stamped
    write_memories(
        store,
        [
            {
                "id": "m3",
                "text": "a b c",
                "meta": {"assay_ab": {"experiment": "writer", "round": 1, "arm": "B", "unit": "z"}},
            },
            {"id": "m4", "text": "d e f", "source_ref": "own"},
        ],
        off,
        source_ref="call-ref",
    )
    m3, m4 = store.get("m3"), store.get("m4")
    assert (m3.source_ref, m4.source_ref) == ("call-ref", "own") and "assay_ab" not in m3.meta
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).where(memories.c.ab_experiment.is_not(None))).scalar_one() == 2


def test_switch_off_by_environment(db_url, monkeypatch):
    ab = ExperimentStore(db_url, settings=ExperimentSettings(cache_ttl_s=0))
    _start(ab)
    monkeypatch.setenv("ASSAY_AB_ENABLED", "0")
    off = ExperimentStore(db_url)
    assert all(not off.assign("writer", f"p{i}").stamped for i in range(30))


def test_a_clear_win_is_promoted_and_the_next_candidate_starts_round_two(ab, db_url):
    _start(ab)
    ab.queue("writer", version="gen-7+b4", instruction="Cite the source.")
    store = hashing_store(db_url)
    fill_round(ab, store, "writer", n_units=300, p_a=0.2, p_b=0.6, seed=1)
    dry = ab.promote("writer", dry_run=True)
    assert dry.promote and not dry.promoted and dry.reasons == ()
    assert dry.lower > 0 and dry.n_a >= 50 and dry.n_b >= 50
    assert ab.config("writer").round == 1  # a dry run changes nothing
    d = ab.promote("writer", actor="test")
    assert d.promoted
    cfg = ab.config("writer")
    assert (cfg.status, cfg.round, cfg.control_version) == ("running", 2, "gen-7+b3")
    assert cfg.control_rules == "Be brief.\nRecord units."
    assert (cfg.candidate_version, cfg.candidate_instruction) == ("gen-7+b4", "Cite the source.")
    kinds = [(e.kind, e.round) for e in ab.events("writer")]
    assert kinds[-2:] == [("promoted", 1), ("round_started", 2)]
    promoted = [e for e in ab.events("writer") if e.kind == "promoted"][0]
    assert promoted.actor == "test" and promoted.figures["lower"] > 0
    # round 2 starts empty: its own sequential test
    st = ab.status("writer")
    assert st.arms["A"].memories_written == st.arms["B"].memories_written == 0
    assert not ab.promote("writer").promote


def test_no_effect_is_not_promoted_and_the_figures_say_why(ab, db_url):
    _start(ab)
    fill_round(ab, hashing_store(db_url), "writer", n_units=200, p_a=0.3, p_b=0.3, seed=2)
    d = ab.promote("writer")
    assert not d.promote and not d.promoted
    assert any("not above the margin" in r for r in d.reasons)
    assert ab.config("writer").round == 1


def test_promotion_without_a_queued_candidate_leaves_control_only_until_one_is_queued(ab, db_url):
    _start(ab)
    fill_round(ab, hashing_store(db_url), "writer", n_units=300, p_a=0.2, p_b=0.6, seed=3)
    assert ab.promote("writer").promoted
    cfg = ab.config("writer")
    assert (cfg.status, cfg.candidate_version) == ("promoted", None)
    assert not ab.assign("writer", "p1").stamped
    ab.queue("writer", version="gen-7+b5", instruction="Note deadlines.")
    cfg = ab.config("writer")
    assert (cfg.status, cfg.round, cfg.candidate_version) == ("running", 2, "gen-7+b5")
    with pytest.raises(ExperimentError, match="queued before|already"):
        ab.queue("writer", version="gen-7+b5", instruction="again")


def test_status_figures_per_arm(ab, db_url):
    _start(ab)
    per_arm = fill_round(ab, hashing_store(db_url), "writer", n_units=60, p_a=0.5, p_b=0.5, seed=4)
    st = ab.status("writer")
    for arm in ("A", "B"):
        s = st.arms[arm]
        assert s.units == per_arm[arm] and s.memories_written == 2 * per_arm[arm] and s.deliveries == 4 * per_arm[arm]
        assert s.findability.mean == 1.0 and set(s.engagement) == {"lexical"}
        assert s.engagement["lexical"].n == 4 * per_arm[arm]
        assert s.hard_negative_share.mean == 0.0
    d = st.to_dict()
    assert set(d["diffs"]) == {"findability", "engagement:lexical", "mean_grade", "hard_negative_share"}
    assert "u1-0" not in str(d)  # no unit id in the output


def test_sample_ratio_mismatch_blocks_promotion(ab, db_url):
    _start(ab)
    store = hashing_store(db_url)
    fill_round(ab, store, "writer", n_units=300, p_a=0.2, p_b=0.6, seed=5)
    # a skewed stamp log: 200 more A units stamped by hand (a buggy writer hook)
    with store.engine.begin() as conn:
        conn.execute(
            insert(memories),
            [
                {
                    "id": f"skew{i}",
                    "text": f"skew {i}",
                    "dedupe_key": f"{i:064d}",
                    "keywords": [],
                    "keywords_source": "derived",
                    "scope": "",
                    "confidence": 0.5,
                    "confidence_prior": 0.5,
                    "n_corroborations": 0,
                    "n_contradictions": 0,
                    "is_correction": False,
                    "revision": 1,
                    "ab_experiment": "writer",
                    "ab_round": 1,
                    "ab_arm": "A",
                    "ab_unit": f"skew-unit-{i}",
                }
                for i in range(200)
            ],
        )
    st = ab.status("writer")
    assert st.srm.mismatch and st.srm.units_a > st.srm.units_b
    d = ab.promote("writer")
    assert not d.promoted and any("sample-ratio mismatch" in r for r in d.reasons)


def test_excluded_units_are_never_counted(ab, db_url):
    _start(ab)
    store = hashing_store(db_url)
    x = ab.assign("writer", "sub-1", exclude=True)
    write_memories(store, [{"text": "sub-agent note"}], x)
    st = ab.status("writer")
    assert st.excluded_memories == 1 and st.arms["A"].memories_written == st.arms["B"].memories_written == 0


def test_stop_and_unknown(ab):
    _start(ab)
    assert ab.stop("writer").status == "stopped"
    assert ab.stop("writer").status == "stopped"  # idempotent
    assert [e.kind for e in ab.events("writer")].count("stopped") == 1
    with pytest.raises(ExperimentError, match="stopped"):
        ab.queue("writer", version="v9", instruction="x")
    with pytest.raises(ExperimentError, match="unknown"):
        ab.status("nope")
    assert not ab.assign("nope", "p1").stamped
    assert ab.tick() == []


def test_the_real_loop_search_grade_engage_reaches_the_arms(ab, db_url):
    """Stamped memories searched, graded and engaged through the memory store's own API: every
    delivery records the writing arm's version, and status counts the labels per arm."""
    from assay.memory.feedback.engagement import engage
    from assay.memory.feedback.grades import apply_grades
    from assay.memory.tables import memory_deliveries

    _start(ab)
    store = hashing_store(db_url)
    arms = [ab.assign("writer", f"p{i}") for i in range(2)]  # p0 → A, p1 → B (the pinned vector)
    assert [a.name for a in arms] == ["A", "B"]
    write_memories(store, [{"id": "ma", "text": "The Lisbon offsite is booked for April 14"}], arms[0])
    write_memories(store, [{"id": "mb", "text": "Invoice 42 from Acme was paid in March"}], arms[1])
    res = store.search("When is the Lisbon offsite and was invoice 42 paid?", 2)
    apply_grades(store, res.search_id, "ma:3, mb:1")
    engage(store, res.search_id, "The offsite is on April 14 in Lisbon.", semantic=False)
    with store.engine.connect() as conn:
        refs = dict(conn.execute(select(memory_deliveries.c.memory_id, memory_deliveries.c.source_ref)).all())
    assert refs == {"ma": "gen-7", "mb": "gen-7+b3"}
    st = ab.status("writer")
    assert st.arms["A"].engagement["lexical"].mean == 1.0 and st.arms["B"].engagement["lexical"].mean == 0.0
    assert (st.arms["A"].mean_grade.mean, st.arms["B"].mean_grade.mean) == (3.0, 1.0)
    assert st.arms["A"].findability.mean == st.arms["B"].findability.mean == 1.0
