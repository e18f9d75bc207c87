"""The /v1 routes: add, search (deliveries logged, search id), responses, grades, stats, A/B arms, idempotency."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from assay.memory.tables import memories, memory_deliveries, memory_responses

NOTES = [
    {"text": "The user's dog is called Rex."},
    {"text": "The user lives in Lisbon and works as a nurse."},
    {"text": "Project Falcon ships on 12 March."},
]


def _count(store, table) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def test_add_search_grade_respond_and_stats(client, store):
    r = client.post("/v1/memories", json={"memories": NOTES})
    assert r.status_code == 200 and len(r.json()["added"]) == 3
    r = client.post("/v1/search", json={"context": "what is the name of the dog?", "k": 2, "session_id": "s1"})
    body = r.json()
    assert r.status_code == 200 and len(body["hits"]) == 2 and body["hits"][0]["text"] == NOTES[0]["text"]
    sid, top = body["search_id"], body["hits"][0]["memory_id"]
    assert _count(store, memory_deliveries) == 2
    g = client.post("/v1/grades", json={"search_id": sid, "grades": f"{top}:3, nope:1"}).json()
    assert g["applied"] == 1 and g["unknown"] == ["nope"]
    e = client.post("/v1/responses", json={"search_id": sid, "response": "Your dog Rex is fine."}).json()
    assert e["n"] == 2 and e["engaged"] == {"lexical": 1}
    assert _count(store, memory_responses) == 1
    s = client.get("/v1/stats").json()
    assert s["n_deliveries"] == 2 and s["memories"] == 3 and s["overall"]["n_graded"] == 1


def test_errors_are_clear_statuses(client):
    assert client.post("/v1/search", json={"context": "   "}).status_code == 400  # blank after cleaning
    assert client.post("/v1/search", json={"k": 3}).status_code == 422
    r = client.post("/v1/grades", json={"search_id": "0" * 32, "grades": "m1:3"})
    assert r.status_code == 404 and "unknown search id" in r.json()["detail"]
    r = client.post("/v1/memories", json={"memories": [{"text": "x", "bogus": 1}]})
    assert r.status_code == 400


def test_ab_routes_assign_and_stamp_through_the_experiments_room(client, store):
    from assay.memory.experiments import ExperimentStore
    from assay.memory.experiments.assign import assign

    ab = ExperimentStore(store.engine)
    ab.start("writer", control_version="gen-7", control_rules="Write facts.", candidate_version="gen-7+b1",
             instruction="Record units.", seed=3)  # fmt: skip
    units = [f"p{i}" for i in range(40)]
    got = client.post("/v1/ab/assign", json={"experiment": "writer", "units": units}).json()["assignments"]
    expected = [assign(ab.config("writer"), u) for u in units]
    assert [(g["unit"], g["arm"], g["version"]) for g in got] == [(a.unit, a.name, a.version) for a in expected]
    assert {g["arm"] for g in got} == {"A", "B"}  # both arms at allocation 0.5 over 40 units
    b_unit = next(g["unit"] for g in got if g["arm"] == "B")
    req = {"experiment": "writer", "unit": b_unit, "memories": [{"id": "ab1", "text": "The user runs in km."}]}
    r = client.post("/v1/ab/stamp", json=req, headers={"Idempotency-Key": "s1"})
    assert r.status_code == 200 and r.json()["arm"]["arm"] == "B"
    assert client.post("/v1/ab/stamp", json=req, headers={"Idempotency-Key": "s1"}).json() == r.json()
    with store.engine.connect() as conn:
        row = conn.execute(select(memories.c.source_ref, memories.c.ab_arm).where(memories.c.id == "ab1")).one()
    assert tuple(row) == ("gen-7+b1", "B")
    unknown = client.post("/v1/ab/assign", json={"experiment": "nope", "units": ["u"]})
    assert unknown.status_code == 404 and "known: writer" in unknown.json()["detail"]  # a typo is no control arm
    ab.stop("writer")
    stopped = client.post("/v1/ab/assign", json={"experiment": "writer", "units": ["u"]}).json()["assignments"]
    assert stopped[0]["arm"] == "A"  # a known experiment that no longer runs: control


def test_a_retried_search_with_its_key_logs_its_deliveries_once(client, store):
    client.post("/v1/memories", json={"memories": NOTES})
    req = {"context": "where does the user live?", "k": 3}
    first = client.post("/v1/search", json=req, headers={"Idempotency-Key": "abc"}).json()
    again = client.post("/v1/search", json=req, headers={"Idempotency-Key": "abc"}).json()
    assert again == first and _count(store, memory_deliveries) == 3
    other = client.post("/v1/search", json=req, headers={"Idempotency-Key": "abd"}).json()
    assert other["search_id"] != first["search_id"] and _count(store, memory_deliveries) == 6
    r = client.post("/v1/search", json={**req, "k": 1}, headers={"Idempotency-Key": "abc"})
    assert r.status_code == 422 and "Idempotency-Key" in r.json()["detail"]


def test_a_search_logged_before_a_crash_is_returned_not_repeated(service, client, store):
    """The server died after logging the deliveries, before recording the response: the retry
    finds the deliveries under the key's search id and logs nothing new."""
    client.post("/v1/memories", json={"memories": NOTES})
    service.search("the dog", k=2, key="crash-1")  # the work, without its idempotency record
    assert _count(store, memory_deliveries) == 2
    r = client.post("/v1/search", json={"context": "the dog", "k": 2}, headers={"Idempotency-Key": "crash-1"})
    assert r.status_code == 200 and len(r.json()["hits"]) == 2 and _count(store, memory_deliveries) == 2


def test_a_retried_add_adds_nothing_twice(client, store):
    for _ in range(3):
        r = client.post("/v1/memories", json={"memories": NOTES}, headers={"Idempotency-Key": "add-1"})
        assert r.status_code == 200
    assert _count(store, memories) == 3
    r = client.post("/v1/memories", json={"memories": NOTES[:1]}, headers={"Idempotency-Key": "add-2"})
    assert r.json()["unchanged"] == [r.json()["unchanged"][0]] and _count(store, memories) == 3


@pytest.mark.parametrize("route", ["/v1/admin/reload"])
def test_reload_swaps_in_a_fresh_warm_store(client, route):
    client.post("/v1/memories", json={"memories": NOTES})
    r = client.post(route)
    assert r.status_code == 200 and r.json()["memories_indexed"] == 3


def test_a_concurrent_request_with_the_same_key_and_another_body_writes_nothing(service):
    # failing input: two requests with one Idempotency-Key and different bodies at once; the
    # second was answered 422 but its work had already run (the check came before the lock)
    import threading
    import time

    import pytest

    from assay.server.service import IdempotencyConflict

    ran: list[str] = []

    def slow() -> dict:
        time.sleep(0.3)
        ran.append("first")
        return {"ok": 1}

    def second() -> dict:
        ran.append("second")
        return {"ok": 2}

    t = threading.Thread(target=service.idempotent, args=("memories", "same-key", {"b": 1}, slow))
    t.start()
    time.sleep(0.05)
    with pytest.raises(IdempotencyConflict):
        service.idempotent("memories", "same-key", {"b": 2}, second)
    t.join()
    assert ran == ["first"]
    assert service.idempotent("memories", "same-key", {"b": 1}, second) == {"ok": 1}


def test_deeply_nested_json_is_a_400_with_one_line_on_every_route(client):
    # failing input: the hook route answered 500 with a RecursionError traceback
    body = "[" * 9000 + "]" * 9000  # past the recursion limit, under the test server's 20 KB cap
    for path in ("/v1/hooks/claude-code", "/v1/search", "/v1/memories"):
        r = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert r.status_code in (400, 422), (path, r.status_code)
        assert "Traceback" not in r.text


def test_k_must_be_a_json_integer(client):
    # failing input: {"k": true} was accepted as k=1
    r = client.post("/v1/search", json={"context": "dog", "k": True})
    assert r.status_code == 422


def test_requests_waiting_on_a_key_share_one_lock_even_when_the_first_fails(service):
    """Review of the per-key lock: the first request dropped the key's lock from the table while a
    twin still waited on it, so a third request took a new lock and ran beside the twin — both
    working when the first had raised and recorded nothing. A count per key keeps one lock."""
    import threading
    import time

    active, overlap = [0], [False]
    guard = threading.Lock()

    def failing() -> dict:
        time.sleep(0.2)
        raise RuntimeError("the first request's work failed")

    def work() -> dict:
        with guard:
            active[0] += 1
            overlap[0] = overlap[0] or active[0] > 1
        time.sleep(0.2)
        with guard:
            active[0] -= 1
        return {"ok": 1}

    def call(fn) -> None:
        try:
            service.idempotent("memories", "shared-key", {"b": 1}, fn)
        except Exception:  # noqa: BLE001 - the first fails on purpose; the others replay or refuse
            pass

    threads = [threading.Thread(target=call, args=(failing,))]
    threads[0].start()
    time.sleep(0.05)
    for _ in range(2):  # a twin that waits on the lock, then one that arrives after the first has finished
        threads.append(threading.Thread(target=call, args=(work,)))
        threads[-1].start()
        time.sleep(0.25)
    for t in threads:
        t.join()
    assert not overlap[0], "two requests with one key ran their work at once"
    assert service._key_locks == {}  # nothing left behind once every request is done
