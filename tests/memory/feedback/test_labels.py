"""Labels on the delivery log: grades, behavioural engagement (incl. Korean), backfill, stats, export."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select, update

from assay.memory import MemorySettings, MemoryStore
from assay.memory.feedback.backfill import backfill
from assay.memory.feedback.deliveries import UnknownSearchError
from assay.memory.feedback.engagement import engage, engagement_rate, label_engagement, lexical_engagement
from assay.memory.feedback.export import export_labels
from assay.memory.feedback.grades import apply_grades, parse_grades
from assay.memory.feedback.stats import memory_stats
from assay.memory.tables import memory_deliveries

HASHING = MemorySettings(embedder="hashing")


@pytest.fixture()
def store(db_url: str) -> MemoryStore:
    s = MemoryStore(db_url, settings=HASHING)  # once on SQLite, once on PostgreSQL (tests/conftest.py)
    s.add(
        [
            {"id": "m1", "text": "The Lisbon offsite is booked for April 14", "source_ref": "gen-v1"},
            {"id": "m2", "text": "Invoice 42 from Acme was paid in March", "source_ref": "gen-v1"},
            {"id": "m3", "text": "The team prefers vegetarian catering", "source_ref": "gen-v2"},
            {"id": "m4", "text": "회사의 매출은 작년에 크게 증가했다", "source_ref": "gen-v2"},
        ]
    )
    return s


def _rows(store, search_id):
    with store.engine.connect() as conn:
        return {
            r.memory_id: r
            for r in conn.execute(select(memory_deliveries).where(memory_deliveries.c.search_id == search_id))
        }


# -- grades ----------------------------------------------------------------------------------


def test_parse_grades_valid_and_malformed_entries():
    p = parse_grades("m12:3, m7:0!")
    assert [(g.memory_id, g.grade, g.hard_negative) for g in p.grades] == [
        ("m12", 3, False),
        ("m7", 0, True),
    ] and not p.malformed
    p = parse_grades("conv_26:s1:o1 : 2; m1:1!\nm2:2")
    assert [(g.memory_id, g.grade) for g in p.grades] == [("conv_26:s1:o1", 2), ("m1", 1), ("m2", 2)]
    p = parse_grades("m1:4, m2, :3, m3:2!, m4:1, m4:2, m5:1, m5:1, m6:x, m7:1.5")
    assert [g.memory_id for g in p.grades] == ["m5"]
    bad = " | ".join(p.malformed)
    for frag in (
        "m1:4",
        "m2: expected id:grade",
        ":3: empty memory id",
        "m3:2!: '!'",
        "m4 graded twice",
        "m6:x",
        "m7:1.5",
    ):
        assert frag in bad


def test_apply_grades_writes_to_the_search_and_reports_skips(store):
    res = store.search("When is the Lisbon offsite?", 3)
    ids = [h.memory.id for h in res]
    rep = apply_grades(store, res.search_id, f"{ids[0]}:3, {ids[1]}:0!, ghost:2, {ids[2]}:7")
    assert (rep.applied, rep.regraded, rep.unknown, len(rep.malformed)) == (2, 0, ["ghost"], 1)
    rows = _rows(store, res.search_id)
    assert (rows[ids[0]].grade, rows[ids[0]].hard_negative) == (3, False)
    assert (rows[ids[1]].grade, rows[ids[1]].hard_negative) == (0, True) and rows[ids[2]].grade is None
    assert apply_grades(store, res.search_id, f"{ids[0]}:2").regraded == 1
    with pytest.raises(UnknownSearchError, match="unknown search id"):
        apply_grades(store, "nope", "m1:1")
    with pytest.raises(ValueError, match="empty grade field"):
        apply_grades(store, res.search_id, "  ")


# -- engagement ------------------------------------------------------------------------------


def test_lexical_engagement_uses_new_terms_of_the_response():
    mem = "Invoice 42 from Acme was paid in March"
    assert lexical_engagement(mem, [], "It was settled in March by Acme.", "Was invoice 42 paid?").engaged
    echo = lexical_engagement(mem, [], "Invoice 42 paid?", "Was invoice 42 paid?")
    assert not echo.engaged and echo.score == 0.0  # echoing the prompt shows nothing
    assert not lexical_engagement(mem, [], "I don't know.", "Was invoice 42 paid?").engaged
    longer = mem + " by wire transfer from Lisbon"
    filler = " ".join(f"filler{i}" for i in range(30))
    long = lexical_engagement(longer, [], filler + " acme march", "Was invoice 42 paid?")
    assert (
        long.engaged and long.overlap == {"acme", "march"} and long.score == pytest.approx(2 / 5)
    )  # ≥2 shared terms, low coefficient
    assert not lexical_engagement(longer, [], filler + " acme", "Was invoice 42 paid?").engaged


def test_korean_engagement_overlaps_inflected_forms():
    mem = "회사의 매출은 작년에 크게 증가했다"
    r = lexical_engagement(mem, ["매출"], "매출이 늘어난 것은 작년 실적 덕분입니다", "올해 계획은?")
    assert r.engaged and "매출" in r.overlap
    assert not lexical_engagement(mem, [], "날씨가 좋네요", "올해 계획은?").engaged


def test_semantic_second_chance_only_when_lexical_says_no():
    s = HASHING
    lab = label_engagement("alpha beta", [], "gamma delta", "", settings=s, memory_vector=None, response_vector=None)
    assert (lab.engaged, lab.method) == (False, "lexical")
    import numpy as np

    v = np.ones(4, dtype=np.float32) / 2
    lab = label_engagement("alpha beta", [], "gamma delta", "", settings=s, memory_vector=v, response_vector=v)
    assert (lab.engaged, lab.method, lab.score, lab.lexical_score) == (True, "semantic", pytest.approx(1.0), 0.0)
    lab = label_engagement("alpha beta", [], "alpha beta", "", settings=s, memory_vector=v, response_vector=-v)
    assert (lab.engaged, lab.method) == (True, "lexical")


def test_engage_labels_deliveries_and_records_the_response(store):
    res = store.search("Where is the offsite and what food?", 3)
    rep = engage(store, res.search_id, "The offsite is in Lisbon on April 14; catering will be vegetarian.")
    assert rep.procedure == "lexical+semantic" and rep.n == 3 and rep.engaged.get("lexical", 0) >= 2
    rows = _rows(store, res.search_id)
    assert rows["m1"].engaged and rows["m1"].engaged_method == "lexical" and rows["m1"].engaged_model is None
    assert rows["m3"].engaged and all(r.engagement_procedure == "lexical+semantic" for r in rows.values())
    neg = [r for r in rows.values() if not r.engaged]
    assert all(r.engaged_method == "semantic" and r.engaged_model == "hashing-384-v1" for r in neg)
    again = engage(store, res.search_id, "Lisbon.", semantic=False)
    assert again.relabelled == 3 and again.procedure == "lexical"


def test_engage_errors(store):
    res = store.search("offsite", 1)
    with pytest.raises(ValueError, match="empty response"):
        engage(store, res.search_id, "   ")
    with pytest.raises(UnknownSearchError):
        engage(store, "missing", "text")


def test_engagement_rate_refuses_mixed_procedures():
    same = [
        {"engaged": True, "engagement_procedure": "lexical"},
        {"engaged": False, "engagement_procedure": "lexical"},
        {"engaged": None, "engagement_procedure": None},
    ]
    assert engagement_rate(same) == 0.5
    with pytest.raises(ValueError, match="several procedures"):
        engagement_rate(same + [{"engaged": True, "engagement_procedure": "lexical+semantic"}])
    assert engagement_rate([]) is None


# -- backfill --------------------------------------------------------------------------------


def test_backfill_is_idempotent_and_respects_dry_run_and_limit(store):
    sids = []
    for q, resp in [
        ("offsite date", "It is on the fourteenth of the month"),
        ("acme invoice", "Acme's invoice was paid"),
        ("catering", "Everyone eats vegetarian food"),
    ]:
        res = store.search(q, 2)
        engage(store, res.search_id, resp, semantic=False)
        sids.append(res.search_id)
    dry = backfill(store, dry_run=True)
    assert dry.dry_run and dry.searches == 3 and dry.rescored >= 1
    assert all(r.engagement_procedure == "lexical" for s in sids for r in _rows(store, s).values())
    lim = backfill(store, limit=1)
    assert lim.searches <= 1 and lim.rescored <= 1 and lim.remaining >= 1
    full = backfill(store)
    assert full.searches + lim.searches == 3
    again = backfill(store)
    assert (again.searches, again.rescored, again.remaining) == (0, 0, 0)
    for s in sids:
        rows = _rows(store, s).values()
        assert {r.engagement_procedure for r in rows} == {"lexical+semantic-backfill"}
        assert all(
            r.engaged_method == ("lexical" if r.engaged and r.engaged_method == "lexical" else "semantic-backfill")
            for r in rows
        )
    with pytest.raises(ValueError):
        backfill(store, limit=-1)


def test_backfill_counts_searches_without_a_response(store):
    res = store.search("offsite", 2)
    engage(store, res.search_id, "Lisbon in April", semantic=False)
    from assay.memory.tables import memory_responses

    with store.engine.begin() as conn:
        conn.execute(memory_responses.delete())
    assert backfill(store).no_response == 1


# -- stats and export ------------------------------------------------------------------------


def test_stats_group_by_generation_and_reranker_without_ids(store):
    for q, resp in [
        ("offsite", "Lisbon"),
        ("invoice", "paid by Acme in March"),
        ("catering", "vegetarian"),
        ("매출", "매출이 증가"),
    ]:
        res = store.search(q, 2)
        engage(store, res.search_id, resp, semantic=False)
        apply_grades(
            store,
            res.search_id,
            ", ".join(f"{h.memory.id}:{3 if h.rank == 1 else 0}{'!' if h.rank == 2 else ''}" for h in res),
        )
    s = memory_stats(store, n_resamples=200)
    assert s["n_deliveries"] == 8 and s["n_searches"] == 4
    o = s["overall"]
    assert o["grade"]["mean"] == pytest.approx(1.5) and o["hard_negative_share"]["mean"] == pytest.approx(0.5)
    assert set(o["engagement"]) == {"lexical"} and o["engagement"]["lexical"]["effective_n"] == 8
    assert o["engagement"]["lexical"]["ci"] is not None
    assert {(g["generation_version"], g["reranker_model"]) for g in s["groups"]} <= {
        ("gen-v1", "(none)"),
        ("gen-v2", "(none)"),
    }
    text = json.dumps(s)
    assert all(mid not in text for mid in ("m1", "m2", "m3", "m4")) and "search_id" not in text


def test_stats_split_rates_by_procedure(store):
    a = store.search("offsite", 2)
    engage(store, a.search_id, "Lisbon", semantic=False)
    b = store.search("invoice", 2)
    engage(store, b.search_id, "Acme paid")
    eng = memory_stats(store, n_resamples=100)["overall"]["engagement"]
    assert set(eng) == {"lexical", "lexical+semantic"}


def test_stats_say_which_vector_path_the_store_uses(store):
    vp = memory_stats(store, n_resamples=10)["vector_path"]
    assert vp["path"] == "numpy" and vp["pgvector"] is None
    assert vp["detail"].startswith(
        "sqlite:" if store.engine.dialect.name == "sqlite" else "PostgreSQL without the pgvector"
    )


def test_stats_vector_path_where_pgvector_is_installed(pgvector_url):
    s = MemoryStore(pgvector_url, settings=HASHING)  # start-up creates the extension (available) and the mirror
    vp = memory_stats(s, n_resamples=10)["vector_path"]
    assert (
        vp["path"] == "pgvector" and vp["pgvector"] and vp["index"] == "hnsw"
    )  # more in tests/memory/retrieval/test_vectors.py


def test_export_labels_writes_one_line_per_labelled_delivery(store, tmp_path):
    a = store.search("offsite", 3)
    apply_grades(store, a.search_id, f"{a.hits[0].memory.id}:3")
    b = store.search("invoice", 2)
    engage(store, b.search_id, "Acme paid it in March")
    store.search("unlabelled search", 2)
    out = tmp_path / "labels.jsonl"
    n = export_labels(store, out)
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert n == len(lines) == 1 + 2
    first = lines[0]
    for key in (
        "query_id",
        "query",
        "memory_id",
        "memory_text",
        "grade",
        "hard_negative",
        "engaged",
        "engaged_method",
        "scope",
    ):
        assert key in first
    assert first["query_id"] == a.search_id and first["grade"] == 3 and first["engaged"] is None
    assert {x["query_id"] for x in lines[1:]} == {b.search_id} and all(x["engaged"] is not None for x in lines[1:])
    assert lines[1]["memory_text"] and lines[1]["rank"] == 1 and lines[1]["reranker_model"] is None


def test_export_keeps_deliveries_of_deleted_memories(store, tmp_path):
    from assay.memory.tables import memories

    a = store.search("offsite", 1)
    apply_grades(store, a.search_id, f"{a.hits[0].memory.id}:1")
    with store.engine.begin() as conn:
        conn.execute(update(memory_deliveries).values(memory_id="gone"))
        conn.execute(memories.delete().where(memories.c.id == "gone"))
    export_labels(store, tmp_path / "l.jsonl")
    rec = json.loads((tmp_path / "l.jsonl").read_text(encoding="utf-8"))
    assert rec["memory_id"] == "gone" and rec["memory_text"] is None


def test_write_with_retry_retries_a_locked_database(store):
    from sqlalchemy.exc import OperationalError

    from assay.memory.feedback.deliveries import write_with_retry

    calls = []

    def flaky(conn):
        calls.append(1)
        if len(calls) < 3:
            raise OperationalError("INSERT", {}, Exception("database is locked"))
        return "ok"

    assert write_with_retry(store.engine, flaky, base_delay_s=0.001) == "ok" and len(calls) == 3

    def broken(conn):
        raise OperationalError("INSERT", {}, Exception("no such table: x"))

    with pytest.raises(OperationalError, match="no such table"):
        write_with_retry(store.engine, broken, base_delay_s=0.001)
