"""The command client's own HTTP/1.1 (``assay_hook.post``) against scripted sockets, and its import footprint."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import assay_hook

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _serve_once(reply_parts: list[bytes], got: list[bytes]) -> str:
    """A one-connection server that reads the request, then sends ``reply_parts`` one by one."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def answer() -> None:
        conn, _ = srv.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            n = int([ln for ln in head.split(b"\r\n") if ln.lower().startswith(b"content-length")][0].split(b":")[1])
            while len(body) < n:
                body += conn.recv(65536)
            got.append(data[: len(head) + 4] + body)
            for part in reply_parts:
                conn.sendall(part)
        srv.close()

    threading.Thread(target=answer, daemon=True).start()
    return f"http://127.0.0.1:{srv.getsockname()[1]}"


def test_the_request_is_one_post_with_the_token_and_the_body_as_is():
    got: list[bytes] = []
    body = b'{"hook_event_name": "UserPromptSubmit", "prompt": "caf\xc3\xa9"}'
    url = _serve_once([b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"], got)
    assert assay_hook.post(url + "/base", body, "tok", 5.0) == (200, b"{}")
    head, _, sent = got[0].partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /base/v1/hooks/claude-code HTTP/1.1"
    assert "Authorization: Bearer tok" in lines and f"Content-Length: {len(body)}" in lines
    assert sent == body


@pytest.mark.parametrize(
    "parts",
    [
        [b'HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\n{"a": "b"}\n'],
        [b"HTTP/1.1 200 OK\r\nContent-Le", b'ngth: 11\r\n\r\n{"a"', b': "b"}\n'],  # split anywhere
        [b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n7\r\n: "b"}\n\r\n0\r\n\r\n'],
        [b'HTTP/1.1 200 OK\r\n\r\n{"a": "b"}\n'],  # no length: read to the close
    ],
)
def test_replies_are_read_by_length_chunks_or_to_the_close(parts):
    assert assay_hook.post(_serve_once(parts, []), b"{}", "t", 5.0) == (200, b'{"a": "b"}\n')


def test_a_reply_cut_short_or_not_http_is_an_error():
    with pytest.raises(assay_hook.ReplyError):
        assay_hook.post(_serve_once([b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}"], []), b"{}", "t", 5.0)
    with pytest.raises(assay_hook.ReplyError):
        assay_hook.post(_serve_once([b"SSH-2.0-OpenSSH\r\n\r\n"], []), b"{}", "t", 5.0)
    with pytest.raises(assay_hook.ReplyError):
        assay_hook.post(_serve_once([], []), b"{}", "t", 5.0)


def test_urls_and_event_names():
    assert assay_hook._split_hostport("[::1]:8377") == ("::1", 8377)
    assert assay_hook._split_hostport("localhost") == ("localhost", 80)
    with pytest.raises(ValueError):
        assay_hook.post("ftp://x", b"{}", "t", 1.0)
    assert assay_hook.event_name(b'{"session_id": "s", "hook_event_name" : "Stop"}') == "Stop"
    assert assay_hook.event_name(b'{"hook_event_name": "a\\"b"}') == "?"
    assert assay_hook.event_name(b'{"prompt": "x"}') == "?"


def test_a_token_with_a_line_break_is_never_sent(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path))
    monkeypatch.setenv("ASSAY_SERVER_TOKEN", "a\r\nX-Injected: 1")
    got: list[bytes] = []
    url = _serve_once([b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"], got)
    assert assay_hook.run(b'{"hook_event_name": "Stop"}', url=url) == ""
    assert got == [] and "line break" in (tmp_path / "hook.log").read_text()


def _imported(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}


def test_the_client_imports_the_c_socket_and_nothing_heavier():
    extra = _imported("import assay_hook") - _imported("pass")
    assert "assay_hook" in extra
    top = {m.split(".")[0] for m in extra}
    heavy = {"http", "email", "json", "ssl", "logging", "pathlib", "urllib", "re", "assay", "socket", "selectors"}
    assert not top & (heavy | {"__future__", "enum"}), top


def test_an_ip_literal_is_connected_to_without_the_resolver(monkeypatch):
    import _socket

    def no_resolver(*a, **k):
        raise AssertionError("getaddrinfo called for an IP literal")

    monkeypatch.setattr(_socket, "getaddrinfo", no_resolver)
    assert assay_hook._addresses("127.0.0.1", 8377) == [(_socket.AF_INET, _socket.SOCK_STREAM, 0, ("127.0.0.1", 8377))]
    assert assay_hook._addresses("::1", 8377)[0][0] == _socket.AF_INET6
    got: list[bytes] = []
    url = _serve_once([b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"], got)
    assert assay_hook.post(url, b"{}", "t", 5.0) == (200, b"{}") and got
