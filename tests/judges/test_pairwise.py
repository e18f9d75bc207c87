"""The pairwise judge: blindness, both orders, reconciliation, fail-closed, cache keys, CI clustering."""

from __future__ import annotations

import asyncio
import importlib.util
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.judges.pairwise import LengthBackend, PairwiseJudge, judge_pairs, make_pairwise_judge, reconcile
from assay.judges.pairwise_prompt import PLACEHOLDER, Criterion, Pair, PairVerdict, blind, build_request
from assay.judges.pairwise_stats import criterion_stats
from assay.llm import LLMClient, LLMResponse, LLMSettings, request_key

CANARY = "ZQX-canary-7f3a"
CRIT = (Criterion(name="quality", definition="better overall"),)


def _pair(i: int = 0, a: str = "short", b: str = "a longer answer", cohort: str | None = None) -> Pair:
    return Pair(id=f"p{i}", context="What is it?", output_a=a, output_b=b, cohort=cohort)


def _user_data(request) -> dict:
    user = request.messages[1]["content"]
    return json.loads(user[len("<data>") : -len("</data>")])


def test_blind_is_word_bounded_case_insensitive_longest_first_and_counted():
    text, n = blind("gpt-4o-mini beat gpt-4o; ARM-B too; warm arm-b.", ["gpt-4o", "gpt-4o-mini", "arm-b", "x"])
    assert text == f"{PLACEHOLDER} beat {PLACEHOLDER}; {PLACEHOLDER} too; warm {PLACEHOLDER}."
    assert n == 4
    assert blind("swarm", ["arm"]) == ("swarm", 0)
    assert blind("A is a letter", ["A"]) == ("A is a letter", 0)  # 1-character names are ignored


def test_blindness_canary_never_reaches_any_request_and_replacements_are_reported():
    pair = Pair(
        id="p1",
        context=f"Compare {CANARY} outputs",
        output_a=f"I am {CANARY}, version v2.3.1.",
        output_b=f"{CANARY.lower()} here (model gpt-4o).",
        redact=(CANARY,),
    )
    seen: list = []

    class Spy(LengthBackend):
        async def complete(self, request):
            seen.append(request)
            return await super().complete(request)

    judge = PairwiseJudge(LLMClient(Spy()), CRIT, names=["v2.3.1", "gpt-4o"])
    (v,) = judge.judge_many([pair])
    assert len(seen) == 2 and v.status == "scored"
    for req in seen:
        blob = json.dumps([req.messages, req.json_schema, req.schema_name, req.schema_version]).lower()
        assert CANARY.lower() not in blob and "v2.3.1" not in blob and "gpt-4o" not in blob
        assert "response_1" in blob and "output_a" not in blob
    assert v.redactions == 2 * 5  # 3 canaries + version + model, in each of the two requests


def test_both_orders_are_sent_with_the_outputs_swapped_and_the_order_in_the_cache_key():
    pair = _pair(a="same", b="same")
    ab, _ = build_request(pair, CRIT, "ab", "m")
    ba, _ = build_request(pair, CRIT, "ba", "m")
    assert ab.messages == ba.messages  # identical outputs: only the order tells the requests apart
    assert request_key("x", ab) != request_key("x", ba)
    assert ab.schema_version.endswith(":ab") and ba.schema_version.endswith(":ba")
    p = _pair()
    d1, d2 = _user_data(build_request(p, CRIT, "ab", "m")[0]), _user_data(build_request(p, CRIT, "ba", "m")[0])
    assert (d1["response_1"], d1["response_2"]) == (p.output_a, p.output_b) == (d2["response_2"], d2["response_1"])
    with pytest.raises(ValueError):
        build_request(p, CRIT, "ab2", "m")


@pytest.mark.parametrize(
    "first, second, final",
    [("A", "A", "A"), ("B", "B", "B"), ("tie", "tie", "tie"), ("A", "B", "inconsistent"), ("tie", "B", "inconsistent")],
)
def test_reconcile_only_two_identical_verdicts_count(first, second, final):
    assert reconcile(first, second) == final


class _Scripted:
    """Answers each order with a fixed position per criterion (``picks[order]``)."""

    name = "scripted"

    def __init__(self, picks):
        self.picks = picks

    async def complete(self, request):
        data = _user_data(request)
        order = request.schema_version.rsplit(":", 1)[1]
        parsed = {
            "verdicts": [{"criterion": c, "winner": self.picks[order], "rationale": "s"} for c in data["criteria"]]
        }
        return LLMResponse(text=json.dumps(parsed), parsed=parsed, model="m")


@pytest.mark.parametrize(
    "picks, final, consistency, first_rate",
    [
        ({"ab": "response_2", "ba": "response_1"}, "B", 1.0, 0.5),  # B both times
        ({"ab": "response_1", "ba": "response_1"}, "inconsistent", 0.0, 1.0),  # always the first
        ({"ab": "tie", "ba": "tie"}, "tie", 1.0, None),
        ({"ab": "tie", "ba": "response_1"}, "inconsistent", 0.0, 1.0),  # tie + B
    ],
)
def test_order_swap_maps_back_and_measures_position_bias(picks, final, consistency, first_rate):
    judge = PairwiseJudge(LLMClient(_Scripted(picks)), CRIT)
    verdicts = judge.judge_many([_pair(i) for i in range(4)])
    assert {v.verdicts["quality"] for v in verdicts} == {final}
    s = criterion_stats(verdicts, ["quality"], n_resamples=200)
    assert s["position_consistency"] == consistency and s["first_position_rate"] == first_rate
    expected = {"B": 1.0, "A": 0.0}.get(final, 0.5)  # tie and inconsistent count as half
    assert s["win_rate_b"]["value"] == expected


def test_length_backend_prefers_the_longer_output_a_bias_baseline():
    pairs = [_pair(0, a="x" * 50, b="y"), _pair(1, a="y", b="x" * 50), _pair(2, a="same", b="same")]
    local, agg = judge_pairs(pairs, backend="length", criteria=CRIT, n_resamples=200)
    assert [c["verdicts"]["quality"] for c in local["cases"]] == ["A", "B", "tie"]
    assert agg["position_consistency"] == 1.0 and agg["first_position_rate"] == 0.5
    assert any("length backend" in n for n in agg["notes"])


def test_stub_is_deterministic_and_labelled():
    pairs = [_pair(i) for i in range(5)]
    one = judge_pairs(pairs, backend="stub", n_resamples=200)
    two = judge_pairs(pairs, backend="stub", n_resamples=200)
    assert one == two and one[1]["n_scored"] == 5 and "stub backend" in " ".join(one[1]["notes"])
    assert "p0" not in json.dumps(one[1])  # the aggregate names no pair


def test_ci_is_clustered_by_cohort():
    # 10 pairs in 2 cohorts: B wins all of cohort x, A all of cohort y. Clustered, the resample
    # draws whole cohorts: only 0, 0.5 and 1 are possible means, so the CI spans [0, 1].
    verdicts = [
        PairVerdict(
            id=f"p{i}",
            cohort="x" if i < 5 else "y",
            status="scored",
            verdicts={"q": "B" if i < 5 else "A"},
            orders={"ab": {"q": "B" if i < 5 else "A"}, "ba": {"q": "B" if i < 5 else "A"}},
            positions={"ab": {"q": "response_2"}, "ba": {"q": "response_1"}},
        )
        for i in range(10)
    ]
    clustered = criterion_stats(verdicts, ["q"], n_resamples=2000)
    assert clustered["win_rate_b"]["value"] == 0.5 and clustered["win_rate_b"]["n_cohorts"] == 2
    assert clustered["win_rate_b"]["ci"] == [0.0, 1.0]
    unclustered = criterion_stats([v.model_copy(update={"cohort": v.id}) for v in verdicts], ["q"], n_resamples=2000)
    lo, hi = unclustered["win_rate_b"]["ci"]
    assert 0.0 < lo < 0.5 < hi < 1.0  # treating the 10 pairs as independent is narrower


@given(st.lists(st.sampled_from(["A", "B", "tie"]), min_size=2, max_size=2), st.integers(1, 6))
def test_rates_stay_in_range(two, n):
    v = PairVerdict(
        id="p",
        cohort="c",
        status="scored",
        verdicts={"q": reconcile(two[0], two[1])},  # type: ignore[arg-type]
        orders={"ab": {"q": two[0]}, "ba": {"q": two[1]}},
        positions={"ab": {"q": "tie"}, "ba": {"q": "tie"}},
    )
    s = criterion_stats([v] * n, ["q"], n_resamples=50)
    assert 0.0 <= s["win_rate_b"]["value"] <= 1.0 and s["position_consistency"] in (0.0, 1.0)


def test_duplicate_ids_and_unknown_backends_are_refused():
    with pytest.raises(ValueError, match="duplicate pair ids"):
        judge_pairs([_pair(1), _pair(1)], backend="length")
    with pytest.raises(ValueError, match="unknown pairwise backend"):
        make_pairwise_judge("none")


def test_not_configured_skips_every_pair_with_the_reason():
    judge = make_pairwise_judge("openai_compatible", settings=LLMSettings())
    (v,) = judge.judge_many([_pair()])
    assert v.status == "skipped" and "not configured" in v.reason


def test_budget_exhausted_is_skipped_not_scored():
    judge = make_pairwise_judge("stub", token_budget=10)
    (v,) = judge.judge_many([_pair()])
    assert v.status == "skipped" and v.reason.startswith("budget")


def test_the_stub_cache_serves_both_orders_separately(tmp_path):
    pairs = [_pair(0, a="same", b="same")]
    first = make_pairwise_judge("stub", cache_dir=tmp_path)
    v1 = first.judge_many(pairs)
    assert first.client.calls == 2  # both orders asked, although their messages are equal
    again = make_pairwise_judge("stub", cache_dir=tmp_path)
    (v2,) = again.judge_many(pairs)
    assert v2.model_copy(update={"tokens": v1[0].tokens}) == v1[0] and v2.tokens == 0  # a hit costs nothing
    assert again.client.calls == 0 and again.client.cache_hits == 2


openai_missing = importlib.util.find_spec("openai") is None


@pytest.mark.skipif(openai_missing, reason="the llm extra (openai) is not installed")
@pytest.mark.parametrize(
    "scenario, status, kind",
    [
        ("ok", "scored", None),
        ("truncated", "rejected", "unparseable JSON"),
        ("length", "rejected", "truncated"),
        ("wrong-schema", "rejected", "schema mismatch"),
        ("fewer", "rejected", "criteria do not match"),
        ("duplicate", "rejected", "duplicate criteria"),
        ("prose", "rejected", "not JSON"),
        ("empty", "rejected", "empty verdict list"),
        ("500", "skipped", "backend error"),
    ],
)
def test_fail_closed_on_every_malformed_reply_shape(fault_server, scenario, status, kind):
    settings = LLMSettings(base_url=fault_server.base_url, judge_model=scenario, max_retries=0, timeout_s=5)
    judge = make_pairwise_judge("openai_compatible", settings=settings, token_budget=None)
    judge.client.cache = None
    (v,) = judge.judge_many([_pair()])
    assert v.status == status, v.reason
    if kind is None:
        # the scripted "ok" always picks Response 1: total position bias, every verdict inconsistent
        assert set(v.verdicts.values()) == {"inconsistent"}
    else:
        assert v.reason.startswith(kind) and v.verdicts == {}


@pytest.fixture(scope="module")
def fault_server():
    from llm_fault_server import FaultServer

    with FaultServer() as srv:
        yield srv


def test_sync_wrapper_inside_no_loop():
    judge = PairwiseJudge(LLMClient(LengthBackend()), CRIT)
    assert asyncio.run(judge.ajudge(_pair())).status == "scored"
