"""The ``assay-hook`` command client: stdlib only, never blocks or breaks the agent's turn."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memory_server import TOKEN, ServerProcess, free_port

SRC = str(Path(__file__).resolve().parents[2] / "src")
HEAVY = ("pydantic", "sqlalchemy", "numpy", "torch", "assay", "fastapi", "typer")
EVENT = {"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": "/p", "prompt": "what is the dog called?"}


def _run(stdin: bytes, env: dict[str, str], timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "assay_hook"], input=stdin, env=env, capture_output=True, timeout=timeout
    )


def _env(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": SRC,
        "ASSAY_HOME": str(tmp_path / "home"),
        "ASSAY_SERVER_URL": url,
        "ASSAY_SERVER_TOKEN": TOKEN,
        **extra,
    }


def test_importing_the_client_loads_no_heavy_package():
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import assay_hook"],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    modules = {line.split("|")[-1].strip().split(".")[0] for line in out.stderr.splitlines() if "|" in line}
    assert "assay_hook" in modules
    assert not modules & set(HEAVY), modules & set(HEAVY)


def test_server_down_prints_nothing_exits_0_and_logs_one_line(tmp_path):
    port = free_port()  # nothing listens there
    r = _run(json.dumps(EVENT).encode(), _env(tmp_path, f"http://127.0.0.1:{port}"))
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b""
    log = (tmp_path / "home" / "hook.log").read_text().splitlines()
    assert len(log) == 1 and "UserPromptSubmit" in log[0] and "unreachable" in log[0] and TOKEN not in log[0]


def test_a_server_slower_than_the_budget_is_given_up_on_within_it(tmp_path):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    held = []
    t = threading.Thread(target=lambda: held.append(srv.accept()), daemon=True)  # accepts, never answers
    t.start()
    t0 = time.monotonic()
    r = _run(
        json.dumps(EVENT).encode(),
        _env(tmp_path, f"http://127.0.0.1:{srv.getsockname()[1]}", ASSAY_HOOK_BUDGET_MS="300"),
    )
    elapsed = time.monotonic() - t0
    srv.close()
    assert r.returncode == 0 and r.stdout == b""
    assert elapsed < 10  # process start + the 0.3 s budget, with room for a loaded machine
    assert "over budget" in (tmp_path / "home" / "hook.log").read_text()


def test_bad_input_or_no_token_prints_nothing_and_exits_0(tmp_path):
    env = _env(tmp_path, "http://127.0.0.1:1")
    assert _run(b"not json", env).returncode == 0
    env.pop("ASSAY_SERVER_TOKEN")
    r = _run(json.dumps(EVENT).encode(), {**env, "ASSAY_SERVER_TOKEN_FILE": str(tmp_path / "none")})
    assert r.returncode == 0 and r.stdout == b""
    assert len((tmp_path / "home" / "hook.log").read_text().splitlines()) == 2


@pytest.mark.slow
def test_through_a_real_server_the_client_prints_the_hook_output(tmp_path):
    db = f"sqlite:///{tmp_path / 'm.db'}"
    server = ServerProcess(db, tmp_path / "home").start()
    try:
        import urllib.request

        req = urllib.request.Request(
            server.url + "/v1/memories",
            data=json.dumps({"memories": [{"text": "The user's dog is called Rex."}]}).encode(),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        urllib.request.urlopen(req, timeout=10).read()
        r = _run(json.dumps(EVENT).encode(), _env(tmp_path, server.url, ASSAY_HOOK_BUDGET_MS="5000"))
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
        assert "The user's dog is called Rex." in out["hookSpecificOutput"]["additionalContext"]
        # a wrong token: nothing printed, one line logged
        r = _run(json.dumps(EVENT).encode(), _env(tmp_path, server.url, ASSAY_SERVER_TOKEN="wrong"))
        assert r.stdout == b"" and "answered 401" in (tmp_path / "home" / "hook.log").read_text()
    finally:
        assert server.stop() == 0  # SIGTERM: drained, exit 0
    assert TOKEN not in server.stderr


def test_help_prints_the_usage_without_reading_stdin(tmp_path):
    # found by rtry: `assay-hook --help` printed nothing and logged "input is not a JSON object"
    r = subprocess.run(
        [sys.executable, "-m", "assay_hook", "--help"],
        env=_env(tmp_path, "http://127.0.0.1:1"),
        capture_output=True,
        timeout=30,
    )
    assert r.returncode == 0 and r.stdout.startswith(b"usage: assay-hook")
    assert b"ASSAY_SERVER_TOKEN_FILE" in r.stdout and not (tmp_path / "home" / "hook.log").exists()
