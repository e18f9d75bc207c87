"""Canary: the API key never appears in logs, caches, reports, verdicts or exception messages."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import subprocess
import sys

import pytest

if importlib.util.find_spec("openai") is None:  # the llm extra: CI installs it, so there a missing SDK fails
    if os.environ.get("CI") == "true":
        raise ImportError("the openai SDK (assay[llm]) is required when CI=true")
    pytest.skip("the openai SDK (assay[llm]) is not installed", allow_module_level=True)

from assay.cases import Case  # noqa: E402
from assay.judges.faithfulness import make_faithfulness_judge  # noqa: E402
from assay.llm import LLMSettings  # noqa: E402
from llm_fault_server import FaultServer  # noqa: E402

CANARY = "sk-canary-7f3a9c1e5b2d4680ffee"
SCENARIOS = ("echo-key", "401", "500", "ok", "truncated", "prose")


def _env(srv, model, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSAY_", "OPENAI_"))}
    env.update(
        {
            "ASSAY_LLM_BASE_URL": srv.base_url,
            "ASSAY_LLM_API_KEY": CANARY,
            "ASSAY_JUDGE_MODEL": model,
            "ASSAY_LLM_MAX_RETRIES": "1",
            "ASSAY_LLM_BACKOFF": "0.01",
            "ASSAY_LLM_TIMEOUT": "2",
            "ASSAY_HOME": str(tmp_path / "home"),
        }
    )
    return env


def test_key_is_sent_to_the_server_but_never_leaks(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    case = Case(id="c", answer="Revenue was $5 billion. Margins rose.", sources=("Revenue was $5bn.",))
    with FaultServer() as srv:
        seen = []
        for model in SCENARIOS:
            for k, v in _env(srv, model, tmp_path).items():
                monkeypatch.setenv(k, v)
            settings = LLMSettings.from_env()
            assert CANARY not in repr(settings) and CANARY not in json.dumps(settings.model_dump(mode="json"))
            judge = make_faithfulness_judge("openai_compatible", cache_dir=tmp_path / "cache", token_budget=None)
            verdicts = judge.judge_many([case])
            seen.append(
                json.dumps([v.model_dump() for v in verdicts])
                + json.dumps(judge.summary(verdicts))
                + " ".join(judge.notes)
            )
        assert any(h.get("authorization") == f"Bearer {CANARY}" for h in srv.headers)  # the key did go to the endpoint
        blob = "\n".join(seen)
        assert "Bearer ***" in blob  # the echoing server's message was kept, redacted
        assert CANARY not in blob
        assert CANARY not in caplog.text
        cache_bytes = b"".join(p.read_bytes() for p in (tmp_path / "cache").iterdir())
        assert cache_bytes and CANARY.encode() not in cache_bytes

        # the CLI end to end, with --debug: stdout, stderr and every report file
        cases = tmp_path / "cases.jsonl"
        cases.write_text(case.model_dump_json() + "\n", encoding="utf-8")
        for model in ("echo-key", "ok"):
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "assay.cli",
                    "--debug",
                    "eval",
                    str(cases),
                    "--out",
                    str(tmp_path / "out"),
                    "--name",
                    model,
                    "--judge",
                    "openai_compatible",
                    "--cache-dir",
                    str(tmp_path / "cache"),
                ],
                env=_env(srv, model, tmp_path),
                capture_output=True,
                text=True,
                timeout=120,
            )
            # echo-key's endpoint errors on every call: written, but the judge scored nothing → exit 3
            assert proc.returncode == (3 if model == "echo-key" else 0), proc.stderr[-2000:]
            assert CANARY not in proc.stdout + proc.stderr
        reports = list((tmp_path / "out").iterdir())
        assert len(reports) >= 4
        for p in reports + list((tmp_path / "cache").iterdir()):
            assert CANARY.encode() not in p.read_bytes(), p.name
        local = json.loads((tmp_path / "out" / "echo-key.local.json").read_text())
        assert local["cases"][0]["scores"]["faithfulness"] is None  # a server error is never a score


def test_invalid_setting_error_does_not_echo_the_key():
    with pytest.raises(ValueError) as e:
        LLMSettings.from_env({"ASSAY_LLM_API_KEY": CANARY, "ASSAY_LLM_TIMEOUT": "soon"})
    assert CANARY not in str(e.value) and "ASSAY_LLM_TIMEOUT" in str(e.value)
