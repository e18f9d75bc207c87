"""Load and faults through real servers (slow): concurrent clients, SIGKILL + restart, two servers on one PostgreSQL.

Every client sends mixed requests (search with an idempotency key, grade, add) and retries a
request that failed to connect or was cut off with the *same* key until it is answered: the
counts in the store must then be exact — one delivery set per search, one memory per text.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
import time

import pytest
from sqlalchemy import create_engine, func, select

from assay.memory.tables import memories, memory_deliveries
from memory_server import TOKEN, ServerProcess

K = 3
SEED = [{"text": f"Seed note {i}: topic {i % 7} and person {i % 5}."} for i in range(20)]


class Client:
    """One client thread's requests, each retried with its key until answered."""

    def __init__(self, ports: list[int], name: str):
        self.ports, self.name = ports, name
        self.searches: set[str] = set()
        self.added: set[str] = set()
        self.requests = 0
        self.answered = 0
        self.retries = 0  # attempts after the first (connection refused or cut, or a 5xx)

    def post(self, path: str, body: dict, key: str, attempt_deadline_s: float = 120.0) -> dict:
        deadline = time.monotonic() + attempt_deadline_s
        i = sum(key.encode())  # spread the clients' requests over the servers, deterministically
        self.requests += 1
        first = True
        while True:
            if not first:
                self.retries += 1
            first = False
            port = self.ports[i % len(self.ports)]
            i += 1
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                c.request(
                    "POST",
                    path,
                    body=json.dumps(body),
                    headers={
                        "Authorization": f"Bearer {TOKEN}",
                        "Content-Type": "application/json",
                        "Idempotency-Key": key,
                    },
                )
                r = c.getresponse()
                data = r.read()
                c.close()
                if r.status == 200:
                    self.answered += 1
                    return json.loads(data)
                if r.status < 500:
                    raise AssertionError(f"{path} {r.status}: {data[:200]!r}")
            except (OSError, http.client.HTTPException):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{path} key {key}: no answer in {attempt_deadline_s} s")
            time.sleep(0.05)

    def run(self, n: int) -> None:
        for j in range(n):
            key = f"{self.name}-{j}"
            if j % 5 == 4:
                text = f"Note from {self.name} number {j}."
                self.post("/v1/memories", {"memories": [{"text": text}]}, key)
                self.added.add(text)
            else:
                res = self.post("/v1/search", {"context": f"topic {j % 7} person {j % 5}", "k": K}, key)
                assert len(res["hits"]) == K
                self.searches.add(res["search_id"])
                if j % 3 == 0:
                    mid = res["hits"][0]["memory_id"]
                    self.post("/v1/grades", {"search_id": res["search_id"], "grades": f"{mid}:2"}, key + "-g")


def _counts(db_url: str) -> tuple[int, int, int, int]:
    eng = create_engine(db_url)
    with eng.connect() as conn:
        n_del = conn.execute(select(func.count()).select_from(memory_deliveries)).scalar_one()
        n_search = conn.execute(select(func.count(func.distinct(memory_deliveries.c.search_id)))).scalar_one()
        n_dup = conn.execute(
            select(func.count()).select_from(
                select(memory_deliveries.c.search_id, memory_deliveries.c.rank)
                .group_by(memory_deliveries.c.search_id, memory_deliveries.c.rank)
                .having(func.count() > 1)
                .subquery()
            )
        ).scalar_one()
        n_mem = conn.execute(select(func.count()).select_from(memories)).scalar_one()
    eng.dispose()
    return n_del, n_search, n_dup, n_mem


def _run_clients(ports: list[int], n_clients: int, n_requests: int, during=None, box=None) -> list[Client]:
    clients = [Client(ports, f"c{i}") for i in range(n_clients)]
    if box is not None:
        box.append(clients)
    threads = [threading.Thread(target=c.run, args=(n_requests,)) for c in clients]
    for t in threads:
        t.start()
    if during is not None:
        during()
    for t in threads:
        t.join(timeout=1800)
    return clients


def _check(db_url: str, clients: list[Client], what: str, started: float) -> None:
    searches = set().union(*(c.searches for c in clients))
    added = set().union(*(c.added for c in clients))
    n_del, n_search, n_dup, n_mem = _counts(db_url)
    lost = K * len(searches) - n_del
    print(  # the figures of the load and fault runs (pytest -rP or -s shows them)
        f"{what}: {sum(c.requests for c in clients)} requests ({sum(c.retries for c in clients)} retries) "
        f"in {time.monotonic() - started:.1f} s; searches {len(searches)} answered, {n_search} logged; "
        f"deliveries {n_del} (expected {K * len(searches)}: lost {max(lost, 0)}, duplicated {n_dup}); "
        f"memories {n_mem} (expected {len(SEED) + len(added)})"
    )
    assert n_dup == 0
    assert n_search == len(searches) and n_del == K * len(searches)  # none lost, none duplicated
    assert n_mem == len(SEED) + len(added)


def _seed(server: ServerProcess) -> None:
    Client([server.port], "seed").post("/v1/memories", {"memories": SEED}, "seed")


#: Requests per client of every run here (the load, the SIGKILL, the two servers): the issue's
#: 500 with ``ASSAY_LOAD_REQUESTS=500`` (the three ≈ 5–10 min on a loaded 2-core host); 60 by
#: default to keep the suite within its time. Eight clients, the issue's number.
LOAD_REQUESTS = int(os.environ.get("ASSAY_LOAD_REQUESTS", "60"))
LOAD_CLIENTS = 8


@pytest.mark.slow
def test_eight_clients_mixed_requests_lose_and_duplicate_nothing(tmp_path):
    db = f"sqlite:///{tmp_path / 'm.db'}"
    server = ServerProcess(db, tmp_path).start()
    try:
        _seed(server)
        t0 = time.monotonic()
        clients = _run_clients([server.port], LOAD_CLIENTS, LOAD_REQUESTS)
    finally:
        server.stop()
    _check(db, clients, f"{LOAD_CLIENTS} clients x {LOAD_REQUESTS}", t0)


@pytest.mark.slow
def test_sigkill_mid_load_and_restart_leave_exact_counts(tmp_path):
    db = f"sqlite:///{tmp_path / 'm.db'}"
    server = ServerProcess(db, tmp_path).start()
    _seed(server)

    answered_at_kill: list[int] = []
    clients_box: list[list[Client]] = []
    total = LOAD_CLIENTS * LOAD_REQUESTS

    def kill_and_restart():
        deadline = time.monotonic() + 600
        while sum(c.answered for c in clients_box[0]) < total // 3 and time.monotonic() < deadline:
            time.sleep(0.01)  # a third of the requests answered: mid-load
        answered_at_kill.append(sum(c.answered for c in clients_box[0]))
        server.stop(signal.SIGKILL)
        time.sleep(0.5)
        server.start()

    t0 = time.monotonic()
    try:
        clients = _run_clients([server.port], LOAD_CLIENTS, LOAD_REQUESTS, during=kill_and_restart, box=clients_box)
    finally:
        server.stop()
    assert 0 < answered_at_kill[0] < total  # killed mid-load, not before or after it
    assert sum(c.retries for c in clients) > 0  # some requests were cut or refused, then retried
    _check(db, clients, f"SIGKILL after {answered_at_kill[0]} requests answered, then a restart", t0)


@pytest.mark.slow
def test_two_servers_on_one_postgresql_agree_on_every_count(tmp_path, postgresql_url):
    a = ServerProcess(postgresql_url, tmp_path / "a").start()
    b = ServerProcess(postgresql_url, tmp_path / "b").start()
    try:
        _seed(a)
        t0 = time.monotonic()
        clients = _run_clients([a.port, b.port], LOAD_CLIENTS, LOAD_REQUESTS)  # each alternates between the two
        sa = Client([a.port], "x").post("/v1/search", {"context": "topic 1", "k": K}, "probe-a")
        sb = Client([b.port], "y").post("/v1/search", {"context": "topic 1", "k": K}, "probe-a")
        assert sa == sb  # one key, two servers: the second answers with the first's record
        stats = [_stats(s.port) for s in (a, b)]
        assert stats[0] == stats[1] and stats[0]["memories"] > len(SEED)  # every count, as each server sees it
    finally:
        a.stop()
        b.stop()
    clients.append(type(clients[0])([], "probe"))
    clients[-1].searches.add(sa["search_id"])
    _check(postgresql_url, clients, f"2 servers on one PostgreSQL, {LOAD_CLIENTS} clients x {LOAD_REQUESTS}", t0)


def _stats(port: int) -> dict:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/v1/stats", headers={"Authorization": f"Bearer {TOKEN}"})
    r = c.getresponse()
    out = json.loads(r.read())
    c.close()
    assert r.status == 200
    out.pop("hook_replies_this_process")  # per process: the Stop hooks this server answered
    return out
