"""A scripted OpenAI-compatible fault server on loopback, for what a real model won't do on demand.

The requested ``model`` names the scenario, so one server serves every test::

    with FaultServer() as srv:                      # 127.0.0.1, a free port
        settings = LLMSettings(base_url=srv.base_url, judge_model="429-once", ...)

Scenarios (the reply to ``POST /v1/chat/completions``):
``ok`` a valid verdict per claim of the request (all supported) · ``unsupported`` all unsupported ·
``429-once`` 429 then ``ok`` · ``500`` always 500 · ``500-once`` 500 then ``ok`` · ``hang``
no answer for ``hang_s`` seconds, then ``ok`` · ``truncated`` valid JSON cut in half ·
``length`` ``finish_reason="length"`` · ``wrong-schema`` valid JSON, other keys · ``fewer`` one
entry short · ``duplicate`` an id twice · ``prose`` prose around the JSON · ``empty`` an empty
list · ``401`` unauthorized · ``echo-key`` a 500 whose body repeats the Authorization header ·
``no-usage`` ``ok`` without a usage block. A pairwise-judge request gets the same shapes with
one entry per criterion (``ok`` always picks Response 1, ``unsupported`` Response 2). ``latency_s`` delays every reply;
``reject_json_schema`` answers ``response_format: json_schema`` with HTTP 500 (as llama.cpp's
server does). Every request body is kept in ``requests``; the server stops by itself after
``max_requests`` requests (bounded load) and on ``close()``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FaultServer", "verdicts_for"]


class FaultServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 (see module docstring)."""

    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        hang_s: float = 3.0,
        reject_json_schema: bool = False,
        max_requests: int = 20_000,
    ):
        self.latency_s = latency_s
        self.hang_s = hang_s
        self.reject_json_schema = reject_json_schema
        self.max_requests = max_requests
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        handler = type("Handler", (_Handler,), {"server_ref": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> FaultServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving and wake any hanging handler."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def count(self, scenario: str) -> int:
        """Requests seen for ``scenario``."""
        with self._lock:
            return self._seen.get(scenario, 0)

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> int:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            n = self._seen.get(body.get("model", ""), 0) + 1
            self._seen[body.get("model", "")] = n
            return n


def verdicts_for(body: dict[str, Any], supported: bool = True) -> dict[str, Any]:
    """A valid reply object for a claims-judge request body (one entry per claim id), or for a
    pairwise request (one entry per criterion; ``supported`` picks Response 1, else Response 2 —
    a judge with total position bias)."""
    data = _data(body)
    if "criteria" in data:
        winner = "response_1" if supported else "response_2"
        return {"verdicts": [{"criterion": c, "winner": winner, "rationale": "scripted"} for c in data["criteria"]]}
    ids = [c["id"] for c in data.get("claims", [])] or ["c1"]
    return {"claims": [{"id": i, "supported": supported, "citation": None, "rationale": "scripted"} for i in ids]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall
    server_ref: FaultServer

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802
        srv = self.server_ref
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        n = srv._record(body, {k.lower(): v for k, v in self.headers.items()})
        if n > srv.max_requests or len(srv.requests) > srv.max_requests:
            return self._send(503, {"error": {"message": "fault server request limit reached"}})
        scenario = body.get("model", "ok")
        if srv.latency_s:
            time.sleep(srv.latency_s)
        rf = (body.get("response_format") or {}).get("type")
        if srv.reject_json_schema and rf == "json_schema":
            return self._send(500, {"error": {"message": "json_schema is not supported"}})
        if scenario == "hang":
            srv._stop.wait(srv.hang_s)
            scenario = "ok"
        if scenario == "429-once" and n == 1:
            return self._send(429, {"error": {"message": "rate limited"}}, {"retry-after-ms": "20"})
        if scenario == "500" or (scenario == "500-once" and n == 1):
            return self._send(500, {"error": {"message": "internal error"}})
        if scenario == "401":
            return self._send(401, {"error": {"message": "invalid api key"}})
        if scenario == "echo-key":
            return self._send(500, {"error": {"message": f"bad key {self.headers.get('Authorization')}"}})
        valid = verdicts_for(body, supported=scenario != "unsupported")
        key = next(iter(valid))  # "claims" (claims judge) or "verdicts" (pairwise judge)
        entries = valid[key]
        good = json.dumps(valid)
        content, finish = good, "stop"
        if scenario == "truncated":
            content = good[: len(good) // 2]
        elif scenario == "length":
            content, finish = good[: len(good) - 3], "length"
        elif scenario == "wrong-schema":
            content = json.dumps({"claims" if key == "verdicts" else "verdicts": entries})
        elif scenario == "fewer":
            content = json.dumps({key: entries[:-1]})
        elif scenario == "duplicate":
            content = json.dumps({key: entries + entries[:1]})
        elif scenario == "prose":
            content = f"Sure! Here is my assessment:\n{good}\nLet me know if you need more."
        elif scenario == "empty":
            content = json.dumps({key: []})
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": scenario,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        }
        if scenario != "no-usage":
            reply["usage"] = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        self._send(200, reply)

    def _send(self, status: int, obj: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass


def _data(body: dict[str, Any]) -> dict[str, Any]:
    """The JSON data block of a judge request's user message (``<data>…</data>``), else ``{}``."""
    for m in body.get("messages", []):
        content = m.get("content", "")
        if m.get("role") == "user" and content.startswith("<data>") and content.endswith("</data>"):
            data = json.loads(content[len("<data>") : -len("</data>")])
            return data if isinstance(data, dict) else {}
    return {}


def main(argv: list[str] | None = None) -> None:
    """Serve in this process until stdin closes; prints the base URL on the first line.

    ``python tests/llm_fault_server.py [--latency-ms 50]`` — used by benchmarks to keep the
    server's CPU and GIL out of the measured client process.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--max-requests", type=int, default=20_000)
    args = parser.parse_args(argv)
    with FaultServer(latency_s=args.latency_ms / 1000, max_requests=args.max_requests) as srv:
        print(srv.base_url, flush=True)
        sys.stdin.read()  # the parent closes stdin (or exits) to stop the server


if __name__ == "__main__":
    main()
