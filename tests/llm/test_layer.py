"""assay.llm: request key, token estimate, strict JSON, stub, settings, budget, cache, client."""

from __future__ import annotations

import asyncio
import threading

import pytest

from assay.llm import (
    BudgetExhausted,
    LLMClient,
    LLMError,
    LLMNotConfigured,
    LLMRequest,
    LLMResponse,
    LLMSettings,
    StubBackend,
    TokenBudget,
    estimate_tokens,
    make_client,
    parse_json_text,
    request_key,
)
from assay.llm.cache import CACHE_FILE, ResponseCache, cache_url


def _req(model: str = "m", content: str = "hello", **params) -> LLMRequest:
    return LLMRequest(
        model=model,
        messages=({"role": "user", "content": content},),
        json_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}},
        schema_name="t",
        schema_version="1",
        params=params or {"temperature": 0, "max_tokens": 50},
    )


# --- request key, estimate, JSON ------------------------------------------------------------


def test_request_key_separates_backend_model_tier_params_and_schema_version():
    base = _req()
    keys = {
        request_key("stub", base),
        request_key("openai_compatible", base),
        request_key("stub", _req(model="strong")),
        request_key("stub", _req(max_tokens=51)),
        request_key("stub", base.model_copy(update={"schema_version": "2"})),
        request_key("stub", _req(content="hello!")),
    }
    assert len(keys) == 6
    assert request_key("stub", base) == request_key("stub", _req())  # stable
    assert len(request_key("stub", base)) == 64


def test_estimate_tokens_counts_prompt_bytes_and_completion_cap():
    r = _req(content="x" * 300, max_tokens=50)
    assert estimate_tokens(r) == 100 + 8 + 50
    assert estimate_tokens(_req(content="가" * 10, max_tokens=0)) >= 10  # 3 bytes/char → ≥ 1 token/char
    no_cap = LLMRequest(model="m", messages=({"role": "user", "content": ""},))
    assert estimate_tokens(no_cap) == 8 + 1024


@pytest.mark.parametrize(
    "text, reason_kind",
    [
        ('Here it is: {"a": 1}', "not JSON"),
        ('{"a": 1} hope this helps', "text around the JSON"),
        ('{"a": 1}{"b": 2}', "text around the JSON"),
        ('{"a": NaN}', "unparseable JSON"),
        ('{"a": Infinity}', "unparseable JSON"),
        ('{"a": 1, "a": 2}', "duplicate JSON key"),
        ('{"a": [1, 2', "unparseable JSON"),
        ("", "empty reply"),
        ("   \n ", "empty reply"),
        ('```python\n{"a": 1}\n```', "not JSON"),
    ],
)
def test_parse_json_text_rejects_with_a_reason(text, reason_kind):
    value, reason = parse_json_text(text)
    assert value is None
    assert reason.split(":")[0] == reason_kind


def test_parse_json_text_accepts_plain_and_one_json_fence():
    assert parse_json_text(' {"a": [1, true, null]} \n') == ({"a": [1, True, None]}, None)
    assert parse_json_text('```json\n{"a": 1}\n```') == ({"a": 1}, None)
    assert parse_json_text("```\n[1]\n```") == ([1], None)


# --- stub ------------------------------------------------------------------------------------


def test_stub_is_deterministic_and_follows_the_schema():
    schema = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "x-stub-items": 3,
                "x-stub-values": {"id": ["a", "b", "c"]},
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "ok": {"type": "boolean"},
                        "x": {"type": "number", "minimum": 0, "maximum": 1},
                        "ref": {"type": ["string", "null"]},
                    },
                },
            }
        },
    }
    req = LLMRequest(model="stub", messages=({"role": "user", "content": "q"},), json_schema=schema)
    a = asyncio.run(StubBackend().complete(req))
    b = asyncio.run(StubBackend().complete(req))
    assert a == b and a.backend == "stub" and a.finish_reason == "stop"
    assert [e["id"] for e in a.parsed["items"]] == ["a", "b", "c"]
    assert all(isinstance(e["ok"], bool) and 0 <= e["x"] <= 1 and e["ref"] is None for e in a.parsed["items"])
    assert parse_json_text(a.text)[0] == a.parsed
    other = asyncio.run(
        StubBackend().complete(req.model_copy(update={"messages": ({"role": "user", "content": "r"},)}))
    )
    assert other.parsed != a.parsed  # a different request hashes differently


# --- settings --------------------------------------------------------------------------------


def test_settings_from_env_with_openai_fallbacks_and_secret_hidden():
    s = LLMSettings.from_env(
        {
            "OPENAI_BASE_URL": "http://x/v1",
            "OPENAI_API_KEY": "sk-secret-1",
            "ASSAY_JUDGE_MODEL": "small",
            "ASSAY_LLM_RESPONSE_FORMAT": "none",
            "ASSAY_LLM_OMIT_TEMPERATURE": "1",
            "ASSAY_LLM_TIMEOUT": "5",
        }
    )
    assert s.base_url == "http://x/v1" and s.api_key.get_secret_value() == "sk-secret-1"
    assert s.judge_model == "small" and s.response_format == "none" and s.omit_temperature and s.timeout_s == 5
    assert "sk-secret-1" not in repr(s) and "sk-secret-1" not in str(s.model_dump())
    s2 = LLMSettings.from_env({"ASSAY_LLM_BASE_URL": "http://a/v1", "OPENAI_BASE_URL": "http://b/v1"})
    assert s2.base_url == "http://a/v1" and s2.api_key is None and s2.configured  # a local server needs no key
    assert s2.model_for(True) == "gpt-4o" and s2.model_for(False) == "gpt-4o-mini"


def test_settings_not_configured_and_invalid_values():
    s = LLMSettings.from_env({"ASSAY_LLM_BASE_URL": "  ", "OPENAI_API_KEY": ""})
    assert not s.configured and "ASSAY_LLM_BASE_URL" in s.not_configured_reason()
    with pytest.raises(ValueError, match="ASSAY_LLM_RESPONSE_FORMAT"):
        LLMSettings.from_env({"ASSAY_LLM_RESPONSE_FORMAT": "xml"})
    with pytest.raises(ValueError, match="ASSAY_LLM_MAX_RETRIES"):
        LLMSettings.from_env({"ASSAY_LLM_MAX_RETRIES": "-1"})
    with pytest.raises(LLMNotConfigured, match="not configured"):
        make_client("openai_compatible", settings=s)
    with pytest.raises(ValueError, match="unknown LLM backend"):
        make_client("gpt")


# --- budget ----------------------------------------------------------------------------------


def test_budget_reserves_settles_and_refuses():
    b = TokenBudget(100)
    r = b.reserve(60)
    with pytest.raises(BudgetExhausted, match="budget"):
        b.reserve(50)
    b.settle(r, 30)
    assert b.spent == 30 and b.reserved == 0 and b.remaining == 70
    b.release(b.reserve(70))
    assert b.remaining == 70 and b.refused == 1
    assert TokenBudget(None).reserve(10**9) == 10**9
    with pytest.raises(ValueError):
        TokenBudget(-1)


def test_budget_is_safe_under_thread_concurrency():
    b = TokenBudget(10_000)
    admitted = []

    def worker():
        for _ in range(200):
            try:
                admitted.append(b.reserve(7))
            except BudgetExhausted:
                pass

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(admitted) == b.reserved <= 10_000
    assert len(admitted) == 10_000 // 7


class _CountingBackend:
    """Reports usage equal to a share of the estimate, and tracks calls in flight."""

    name = "counting"

    def __init__(self, delay: float = 0.002, fail_every: int = 0):
        self.delay, self.fail_every = delay, fail_every
        self.in_flight = self.max_in_flight = self.n = 0

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.n += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            if self.fail_every and self.n % self.fail_every == 0:
                raise LLMError("HTTP 500: scripted")
            return LLMResponse(
                text="{}",
                parsed={},
                prompt_tokens=estimate_tokens(request) // 2,
                completion_tokens=3,
                model=request.model,
            )
        finally:
            self.in_flight -= 1


def test_client_budget_never_exceeded_under_asyncio_concurrency_and_concurrency_bounded():
    backend = _CountingBackend(fail_every=7)
    client = LLMClient(backend, budget=TokenBudget(5_000), concurrency=3)
    reqs = [_req(content=f"case {i} " * (i % 5 + 1), max_tokens=40) for i in range(200)]

    async def one(r):
        try:
            return await client.complete(r)
        except (BudgetExhausted, LLMError) as e:
            return e

    results = asyncio.run(_gather(one, reqs))
    largest = max(estimate_tokens(r) for r in reqs)
    assert client.budget.spent <= 5_000 + largest
    assert client.budget.spent <= 5_000  # usage ≤ estimate here, so the limit itself holds
    assert client.budget.reserved == 0
    assert backend.max_in_flight <= 3
    assert any(isinstance(x, BudgetExhausted) for x in results)
    assert any(isinstance(x, LLMError) for x in results) and client.errors > 0
    u = client.usage()
    assert u["calls"] == sum(isinstance(x, LLMResponse) for x in results) and u["budget"]["refused"] > 0


async def _gather(fn, items):
    return await asyncio.gather(*(fn(x) for x in items))


# --- cache -----------------------------------------------------------------------------------


def test_cache_roundtrip_location_and_tier_separation(tmp_path):
    assert cache_url(tmp_path) == f"sqlite:///{tmp_path / CACHE_FILE}"
    cache = ResponseCache.open(tmp_path)
    req = _req(model="cheap")
    assert cache.get("openai_compatible", req) is None
    reply = LLMResponse(
        text='{"ok": true}',
        parsed={"ok": True},
        prompt_tokens=5,
        completion_tokens=2,
        model="cheap",
        backend="openai_compatible",
    )
    cache.put("openai_compatible", req, reply)
    cache.put(
        "openai_compatible", req, reply.model_copy(update={"text": "{}"})
    )  # a second writer: no error, the first row stays
    hit = cache.get("openai_compatible", req)
    assert hit.cached and hit.parsed == {"ok": True} and hit.tokens == 7
    assert cache.get("openai_compatible", _req(model="strong")) is None  # tier in the key
    assert cache.get("stub", req) is None
    assert len(cache) == 1 and (tmp_path / CACHE_FILE).exists()
    assert ResponseCache.open(tmp_path).get("openai_compatible", req).text == reply.text  # persisted


def test_client_serves_cache_hits_without_budget_or_backend(tmp_path):
    backend = _CountingBackend()
    client = LLMClient(backend, cache=ResponseCache.open(tmp_path), budget=TokenBudget(10_000))
    req = _req()
    first = asyncio.run(client.complete(req))
    spent = client.budget.spent
    second = asyncio.run(client.complete(req))
    assert not first.cached and second.cached and backend.n == 1
    assert client.budget.spent == spent and client.cache_hits == 1


def test_make_client_stub_caches_only_with_a_cache_dir(tmp_path):
    assert make_client("stub").cache is None
    c = make_client("stub", cache_dir=tmp_path, token_budget=1000)
    assert c.cache is not None and c.budget.limit == 1000 and c.model_for(True) == "stub-high-stakes"
