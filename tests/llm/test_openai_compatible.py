"""The openai_compatible backend and the claims judge against the scripted fault server."""

from __future__ import annotations

import importlib.util
import os
import time

import pytest

if importlib.util.find_spec("openai") is None:  # the llm extra: CI installs it, so there a missing SDK fails
    if os.environ.get("CI") == "true":
        raise ImportError("the openai SDK (assay[llm]) is required when CI=true")
    pytest.skip("the openai SDK (assay[llm]) is not installed", allow_module_level=True)

from assay.cases import Case  # noqa: E402
from assay.judges.faithfulness import make_faithfulness_judge  # noqa: E402
from assay.llm import LLMSettings  # noqa: E402
from llm_fault_server import FaultServer  # noqa: E402

CASE = Case(
    id="q1",
    question="What was revenue?",
    answer="Revenue was $5 billion. It grew 10%.",
    sources=("Revenue was $5bn, up 10%.",),
)


@pytest.fixture(scope="module")
def server():
    with FaultServer(hang_s=2.0) as srv:
        yield srv


def _judge(srv, model, *, tmp_path=None, budget=None, **settings):
    opts = dict(
        base_url=srv.base_url, judge_model=model, high_stakes_model="ok", timeout_s=0.5, max_retries=2, backoff_s=0.01
    )
    opts.update(settings)
    s = LLMSettings(**opts)
    judge = make_faithfulness_judge("openai_compatible", settings=s, token_budget=budget, cache_dir=tmp_path)
    if tmp_path is None:
        judge.client.cache = None
    return judge


@pytest.mark.parametrize(
    "scenario, status, kind",
    [
        ("ok", "scored", None),
        ("unsupported", "scored", None),
        ("no-usage", "scored", None),
        ("truncated", "rejected", "unparseable JSON"),
        ("length", "rejected", "truncated"),
        ("wrong-schema", "rejected", "schema mismatch"),
        ("fewer", "rejected", "claim ids do not match"),
        ("duplicate", "rejected", "duplicate claim ids"),
        ("prose", "rejected", "not JSON"),
        ("empty", "rejected", "empty claim list"),
        ("500", "skipped", "backend error"),
        ("401", "skipped", "backend error"),
    ],
)
def test_fault_scenarios_fail_closed(server, scenario, status, kind):
    v = _judge(server, scenario).judge(CASE)
    assert v.status == status, v.reason
    if status == "scored":
        assert v.score == (0.0 if scenario == "unsupported" else 1.0) and len(v.claims) == 2
        assert all(c.model == scenario for c in v.claims)
    else:
        assert v.score is None and v.claims == () and v.reason.split(":")[0] == kind


def test_429_then_success_is_retried(server):
    """(A 5 s timeout: the module's 0.5 s, meant for the hang scenarios, once timed a request out on a
    loaded 2-core host and made a third attempt; this test is about the 429's retry alone.)"""
    before = server.count("429-once")
    judge = _judge(server, "429-once", timeout_s=5.0)
    v = judge.judge(CASE)
    assert v.status == "scored" and server.count("429-once") - before == 2 and judge.client.backend.attempts == 2


def test_500_is_retried_a_bounded_number_of_times_and_401_not_at_all(server):
    j500, j401 = _judge(server, "500", max_retries=3), _judge(server, "401", max_retries=3)
    v500, v401 = j500.judge(CASE), j401.judge(CASE)
    assert j500.client.backend.attempts == 4 and "after 4 attempt(s)" in v500.reason
    assert j401.client.backend.attempts == 1 and v401.reason.startswith("backend error: HTTP 401")
    assert _judge(server, "500-once").judge(CASE).status == "scored"


def test_hang_past_the_timeout_is_bounded(server):
    t = time.perf_counter()
    v = _judge(server, "hang", timeout_s=0.3, max_retries=1).judge(CASE)
    elapsed = time.perf_counter() - t
    assert v.status == "skipped" and "timeout" in v.reason and v.score is None
    assert elapsed < 1.5  # 2 attempts × 0.3 s + backoff, never the server's 2 s hang


def test_connection_refused_is_skipped():
    s = LLMSettings(base_url="http://127.0.0.1:9/v1", timeout_s=0.5, max_retries=1, backoff_s=0.01)
    judge = make_faithfulness_judge("openai_compatible", settings=s, token_budget=None)
    judge.client.cache = None
    v = judge.judge(CASE)
    assert v.status == "skipped" and v.reason.startswith("backend error: connection error")


def test_request_settings_response_format_temperature_and_token_param(server):
    n = len(server.requests)
    _judge(server, "ok").judge(CASE)
    _judge(server, "ok", response_format="none", omit_temperature=True, max_tokens_param="max_completion_tokens").judge(
        CASE
    )
    _judge(server, "ok", response_format="json_schema").judge(CASE)
    a, b, c = server.requests[n : n + 3]
    assert a["response_format"] == {"type": "json_object"} and a["temperature"] == 0 and a["max_tokens"] == 2 * 96 + 128
    assert "response_format" not in b and "temperature" not in b and b["max_completion_tokens"] == 2 * 96 + 128
    schema = c["response_format"]["json_schema"]["schema"]
    assert c["response_format"]["type"] == "json_schema" and "x-stub-items" not in str(schema)


def test_json_schema_refused_by_the_endpoint_is_skipped_with_the_setting_to_change():
    with FaultServer(reject_json_schema=True) as srv:
        v = _judge(srv, "ok", response_format="json_schema", max_retries=0).judge(CASE)
        assert v.status == "skipped" and "ASSAY_LLM_RESPONSE_FORMAT=json_object" in v.reason
        assert _judge(srv, "ok", response_format="json_object").judge(CASE).status == "scored"


def test_budget_exhausted_marks_the_rest_skipped_budget(server):
    cases = [CASE.model_copy(update={"id": f"q{i}"}) for i in range(10)]
    judge = _judge(server, "ok", budget=1200)  # each call reserves ~400 (prompt estimate + 320 cap)
    verdicts = judge.judge_many(cases)
    statuses = [v.status for v in verdicts]
    assert "scored" in statuses and "skipped" in statuses
    assert all(v.reason.startswith("budget:") for v in verdicts if v.status == "skipped")
    assert judge.client.budget.spent <= 1200
    s = judge.summary(verdicts)
    assert s["n_unscored"] == statuses.count("skipped") and s["reasons"] == {"budget": statuses.count("skipped")}


def test_cache_hit_skips_the_server_and_costs_no_tokens(server, tmp_path):
    n = server.count("ok")
    first = _judge(server, "ok", tmp_path=tmp_path).judge(CASE)
    again = _judge(server, "ok", tmp_path=tmp_path)
    second = again.judge(CASE)
    assert server.count("ok") - n == 1
    assert first.score == second.score and second.tokens == 0 and again.client.cache_hits == 1
    third = _judge(server, "ok", tmp_path=tmp_path, response_format="none")
    # a reply-shaping endpoint setting is in the key: no stale reply after changing it
    assert third.judge(CASE).tokens > 0 and server.count("ok") - n == 2


def test_escalation_rejudges_with_the_strong_model_and_records_it(server):
    s = dict(judge_model="unsupported", high_stakes_model="ok")
    judge = make_faithfulness_judge(
        "openai_compatible",
        settings=LLMSettings(base_url=server.base_url, timeout_s=1, max_retries=0, **s),
        escalate=True,
        token_budget=None,
    )
    judge.client.cache = None
    v = judge.judge(CASE)
    assert v.status == "scored" and v.score == 1.0 and {c.model for c in v.claims} == {"ok"}
    rej = make_faithfulness_judge(
        "openai_compatible",
        settings=LLMSettings(
            base_url=server.base_url, timeout_s=1, max_retries=0, judge_model="prose", high_stakes_model="ok"
        ),
        escalate=True,
        token_budget=None,
    )
    rej.client.cache = None
    assert rej.judge(CASE).status == "scored"
    both_bad = make_faithfulness_judge(
        "openai_compatible",
        settings=LLMSettings(
            base_url=server.base_url, timeout_s=1, max_retries=0, judge_model="prose", high_stakes_model="fewer"
        ),
        escalate=True,
        token_budget=None,
    )
    both_bad.client.cache = None
    v = both_bad.judge(CASE)
    assert v.status == "rejected" and "escalation: claim ids do not match" in v.reason
    kept = make_faithfulness_judge(
        "openai_compatible",
        settings=LLMSettings(
            base_url=server.base_url,
            timeout_s=1,
            max_retries=0,
            judge_model="unsupported",
            high_stakes_model="duplicate",
        ),
        escalate=True,
        token_budget=None,
    )
    kept.client.cache = None
    v = kept.judge(CASE)
    assert v.status == "scored" and v.score == 0.0 and v.reason.startswith("escalation failed, cheap verdicts kept")


def test_high_stakes_uses_the_strong_model(server):
    n = len(server.requests)
    judge = make_faithfulness_judge(
        "openai_compatible",
        settings=LLMSettings(
            base_url=server.base_url, judge_model="unsupported", high_stakes_model="ok", max_retries=0
        ),
        high_stakes=True,
        token_budget=None,
    )
    judge.client.cache = None
    v = judge.judge(CASE)
    assert server.requests[n]["model"] == "ok" and v.model == "ok" and v.score == 1.0
