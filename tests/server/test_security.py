"""Security of the memory server: token auth, bind rules, body cap, token file, no token in output."""

from __future__ import annotations

import logging
import os
import stat

import pytest
from fastapi.testclient import TestClient

from assay.server.app import create_app
from assay.server.config import ServerSettings, is_loopback, load_or_create_token, server_settings
from memory_server import TOKEN


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}])
def test_no_or_wrong_token_is_401_on_every_route_but_healthz(service, settings, headers):
    c = TestClient(create_app(service, settings, token=TOKEN), headers=headers)
    assert c.get("/healthz").status_code == 200
    for method, path in [
        ("post", "/v1/search"),
        ("post", "/v1/memories"),
        ("get", "/v1/stats"),
        ("post", "/v1/hooks/claude-code"),
        ("get", "/openapi.json"),
        ("get", "/docs"),
    ]:
        r = getattr(c, method)(path, **({"json": {}} if method == "post" else {}))
        assert r.status_code == 401, path
        assert TOKEN not in r.text


def test_the_right_token_passes(client):
    assert client.get("/v1/stats").status_code == 200
    assert client.get("/openapi.json").status_code == 200


def test_a_body_over_the_cap_is_413_declared_or_streamed(client, settings):
    big = "x" * (settings.max_body_bytes + 1)
    r = client.post("/v1/search", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413

    def chunks():  # no Content-Length: the cap is enforced while reading
        for _ in range(settings.max_body_bytes // 1000 + 2):
            yield b"y" * 1000

    r = client.post("/v1/search", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_non_loopback_bind_is_refused_without_the_flag_and_a_supplied_token(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_SERVER_TOKEN", raising=False)
    with pytest.raises(ValueError, match="not a loopback address"):
        ServerSettings(host="0.0.0.0", token_file=tmp_path / "t").check_bind()
    with pytest.raises(ValueError, match="auto-created token does not count"):
        ServerSettings(host="0.0.0.0", allow_remote=True, token_file=tmp_path / "t").check_bind()
    (tmp_path / "mine").write_text("a-token-i-chose-" + "x" * 32 + "\n")
    os.chmod(tmp_path / "mine", 0o600)
    server_settings(token_file=tmp_path / "mine", host="0.0.0.0", allow_remote=True).check_bind()
    monkeypatch.setenv("ASSAY_SERVER_TOKEN", "from-env-" + "y" * 32)
    server_settings(host="10.1.2.3", allow_remote=True).check_bind()
    ServerSettings(host="127.0.0.1").check_bind()
    assert is_loopback("localhost") and is_loopback("::1") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")


def test_a_remote_bind_refuses_a_weak_token_and_a_shared_token_file(tmp_path, monkeypatch):
    # failing inputs: ASSAY_SERVER_TOKEN=a and a --token-file of mode 0644 were served on 0.0.0.0
    monkeypatch.setenv("ASSAY_SERVER_TOKEN", "a")
    with pytest.raises(ValueError, match="token from ASSAY_SERVER_TOKEN is shorter than 32"):
        server_settings(host="0.0.0.0", allow_remote=True).check_bind()
    monkeypatch.delenv("ASSAY_SERVER_TOKEN")
    f = tmp_path / "tok"
    f.write_text("z" * 40 + "\n")
    os.chmod(f, 0o644)
    with pytest.raises(ValueError, match="readable by others"):
        server_settings(token_file=f, host="0.0.0.0", allow_remote=True).check_bind()
    os.chmod(f, 0o600)
    f.write_text("short\n")
    with pytest.raises(ValueError, match="shorter than 32"):
        server_settings(token_file=f, host="0.0.0.0", allow_remote=True).check_bind()


def test_the_ready_line_names_the_real_token_source_and_a_usable_wildcard_address(tmp_path, monkeypatch):
    from assay.cli.serve import _where

    monkeypatch.setenv("ASSAY_SERVER_TOKEN", "e" * 40)
    s = server_settings(host="0.0.0.0", allow_remote=True, token_file=None)
    assert s.token_label == "ASSAY_SERVER_TOKEN"  # was "<ASSAY_HOME>/server.token, from ASSAY_SERVER_TOKEN"
    where = _where(s)
    assert "all interfaces" in where and "http://0.0.0.0" not in where
    assert _where(ServerSettings(token_file=tmp_path / "t")) == "http://127.0.0.1:8377"


def test_the_cli_refuses_a_remote_bind_with_one_line_and_exit_2(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from assay.cli import app

    monkeypatch.delenv("ASSAY_SERVER_TOKEN", raising=False)
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path))
    r = CliRunner().invoke(app, ["--db", f"sqlite:///{tmp_path / 'x.db'}", "serve", "--host", "0.0.0.0"])
    assert r.exit_code == 2 and "not a loopback address" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x.db").exists()  # refused before the store was opened
    monkeypatch.setenv("ASSAY_SERVER_TOKEN", "a")
    r = CliRunner().invoke(
        app, ["--db", f"sqlite:///{tmp_path / 'x.db'}", "serve", "--host", "0.0.0.0", "--allow-remote"]
    )
    assert r.exit_code == 2 and "shorter than 32" in r.output and "Traceback" not in r.output


def test_the_token_file_is_created_0600_once_and_reused(tmp_path):
    path = tmp_path / "home" / "server.token"
    t1 = load_or_create_token(path)
    assert len(t1) >= 40 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_token(path) == t1
    os.chmod(path, 0o644)
    with pytest.raises(ValueError, match="readable by others"):
        load_or_create_token(path)


def test_the_token_appears_in_no_log_or_response(client, caplog):
    caplog.set_level(logging.DEBUG)
    client.post("/v1/memories", json={"memories": [{"text": "The user's dog is called Rex."}]})
    responses = [
        client.post("/v1/search", json={"context": "dog"}).text,
        client.get("/v1/stats").text,
        client.get("/openapi.json").text,
        client.post("/v1/search", json={"context": ""}).text,
        client.post("/v1/grades", json={"search_id": "nope", "grades": "m1:3"}).text,
    ]
    assert all(TOKEN not in r for r in responses)
    assert TOKEN not in caplog.text


def test_a_taken_port_is_one_line_and_exit_2_before_the_store_opens(tmp_path, monkeypatch):
    # found by rtry: uvicorn logged the bind error and exited 3 ("done, measurement incomplete")
    import socket

    from typer.testing import CliRunner

    from assay.cli import app

    monkeypatch.delenv("ASSAY_SERVER_TOKEN", raising=False)
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = CliRunner().invoke(
            app, ["--db", f"sqlite:///{tmp_path / 'x.db'}", "serve", "--port", str(port), "--embedder", "hashing"]
        )
    assert r.exit_code == 2, r.output
    assert f"--port {port}: cannot bind" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x.db").exists()  # refused before the store was opened
