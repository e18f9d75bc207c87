"""Three leftovers of the memory server (issue 19), each pinned with its failing input: an unknown
``--experiment`` / route experiment is an error naming the known ones (it served the control arm
silently), the ready line of an IPv6 host is bracketed, and (``test_reply_block.py``) an unclosed
``[cm]`` block is stripped from the response."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from assay.cli import app
from assay.memory.experiments import ExperimentStore
from assay.memory.tables import memories
from assay.server.config import ServerSettings


def _start_writer(engine) -> None:
    ExperimentStore(engine).start(
        "writer", control_version="gen-7", control_rules="Write facts.", candidate_version="gen-7+b1",
        instruction="Record units.", seed=3,
    )  # fmt: skip


def test_an_unknown_experiment_on_the_routes_is_404_naming_the_known_ones(client, store):
    _start_writer(store.engine)
    r = client.post("/v1/ab/assign", json={"experiment": "wirter", "units": ["u1"]})
    assert r.status_code == 404 and r.json()["detail"] == "unknown experiment 'wirter' (known: writer)"
    req = {"experiment": "wirter", "unit": "u1", "memories": [{"id": "x1", "text": "The user runs in km."}]}
    r = client.post("/v1/ab/stamp", json=req, headers={"Idempotency-Key": "k1"})
    assert r.status_code == 404 and "known: writer" in r.json()["detail"]
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(memories)).scalar_one() == 0  # nothing written
    ok = client.post("/v1/ab/assign", json={"experiment": "writer", "units": ["u1"]})
    assert ok.status_code == 200 and ok.json()["assignments"][0]["arm"] in ("A", "B")


def test_an_experiment_started_after_a_miss_is_found(client, store):
    assert client.post("/v1/ab/assign", json={"experiment": "writer", "units": ["u"]}).status_code == 404
    _start_writer(store.engine)  # the store's cached "unknown" must not hide it
    assert client.post("/v1/ab/assign", json={"experiment": "writer", "units": ["u"]}).status_code == 200


@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_SERVER_TOKEN", raising=False)
    monkeypatch.delenv("ASSAY_SERVER_EXPERIMENT", raising=False)
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path))
    served: list[ServerSettings] = []

    def fake_serve(settings, make_store, *, on_ready=None):  # the real one binds and blocks
        served.append(settings)
        if on_ready is not None:
            on_ready()

    monkeypatch.setattr("assay.server.run.serve", fake_serve)
    return served


def _serve(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", f"sqlite:///{db}", "serve", "--embedder", "hashing", *args])


def test_serve_with_a_typo_experiment_exits_2_naming_the_known_ones(tmp_path, cli_env, monkeypatch):
    from assay.storage import make_engine

    db = tmp_path / "m.db"
    _start_writer(make_engine(f"sqlite:///{db}"))
    r = _serve(db, "--experiment", "wirter")
    assert r.exit_code == 2 and "unknown experiment 'wirter' (known: writer)" in r.output, r.output
    assert "Traceback" not in r.output and cli_env == []  # never served
    monkeypatch.setenv("ASSAY_SERVER_EXPERIMENT", "wirter")
    r = _serve(db)
    assert r.exit_code == 2 and "ASSAY_SERVER_EXPERIMENT" in r.output and cli_env == []
    r = _serve(db, "--experiment", "writer")
    assert r.exit_code == 0 and [s.hook_experiment for s in cli_env] == ["writer"]


def test_serve_with_an_experiment_on_a_database_not_created_yet_creates_nothing(tmp_path, cli_env):
    db = tmp_path / "new.db"
    r = _serve(db, "--experiment", "writer")
    assert r.exit_code == 2 and "unknown experiment 'writer' (known: none yet" in r.output
    assert not db.exists() and cli_env == []


@pytest.mark.parametrize(
    ("host", "url"),
    [("127.0.0.1", "http://127.0.0.1:8377"), ("::1", "http://[::1]:8377"), ("localhost", "http://localhost:8377")],
)
def test_the_ready_line_brackets_an_ipv6_host(tmp_path, cli_env, host, url):
    # failing input: `assay serve --host ::1` printed http://::1:8377, which no client parses
    r = _serve(tmp_path / "m.db", "--host", host)
    assert r.exit_code == 0, r.output
    assert f"assay memory server on {url} " in r.output
    assert ServerSettings(token_file=tmp_path / "t", host=host).url == url
