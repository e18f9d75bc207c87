"""Test helpers for the memory server: the test token, and a real ``assay serve`` in a subprocess."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

TOKEN = "test-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``assay serve`` on a free loopback port (hashing embedder unless told), token from the environment."""

    def __init__(self, db_url: str, home: Path, *, embedder: str = "hashing", port: int | None = None, roots: str = ""):
        self.db_url, self.home, self.embedder = db_url, home, embedder
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.roots = roots
        self.proc: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        src = str(Path(__file__).resolve().parents[2] / "src")
        return {
            **os.environ,
            "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", ""),
            "ASSAY_HOME": str(self.home),
            "ASSAY_SERVER_TOKEN": TOKEN,
            "ASSAY_SERVER_ROOTS": self.roots or str(self.home),
        }

    def start(self, timeout_s: float = 60.0) -> ServerProcess:
        cmd = [sys.executable, "-m", "assay.cli", "--db", self.db_url, "serve", "--port", str(self.port)]
        cmd += ["--embedder", self.embedder]
        self.proc = subprocess.Popen(cmd, env=self.env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not become healthy")

    def stop(self, sig: int | None = None) -> int:
        assert self.proc is not None
        if sig is None:
            self.proc.terminate()
        else:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:  # not drained in time: ended, and the caller's check fails
            self.proc.kill()
            self.proc.wait(timeout=30)
            return -9
        finally:
            if self.proc.stderr is not None:
                self.stderr = self.proc.stderr.read().decode()
                self.proc.stderr.close()
