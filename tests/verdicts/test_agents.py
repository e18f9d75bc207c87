"""The Microsoft Agent Framework context provider, run inside a real ``agent_framework.Agent``.

The chat client is a ``BaseChatClient`` subclass that records what the framework hands to the
model (the merged ``instructions`` option and the messages) and answers "ok" — so these tests
check the instructions the agent actually sends, after the framework's own provider pipeline.
Without ``agent-framework-core`` the module is skipped locally and FAILS under ``CI=true``.
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest

try:
    import agent_framework  # noqa: F401
except ModuleNotFoundError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI") == "true":
        raise RuntimeError("agent-framework-core is required when CI=true: pip install 'assay[agents]'") from None
    pytest.skip("agent-framework-core not installed (pip install 'assay[agents]')", allow_module_level=True)

from agent_framework import Agent, BaseChatClient, ChatResponse, Message

from assay.verdicts import QueryError, VerdictStore
from assay.verdicts.agents import DEFAULT_SOURCE_ID, VerdictFewShotProvider, query_from_messages
from verdict_fixtures import DECOYS, FIXTURE, QUERY, TRUE_MATCH

BASE_INSTRUCTIONS = "You review cost-saving proposals and answer approve or reject."


class RecordingClient(BaseChatClient):
    """A chat client that records each request the agent sends and answers 'ok'."""

    def __init__(self):
        super().__init__()
        self.requests: list[dict] = []

    async def _inner_get_response(self, *, messages, stream, options, **kwargs):
        self.requests.append({"messages": list(messages), "options": dict(options)})
        return ChatResponse(messages=[Message(role="assistant", contents=["ok"])])


@pytest.fixture()
def store(tmp_path):
    s = VerdictStore(f"sqlite:///{tmp_path / 'agent.db'}")
    s.add(FIXTURE)
    return s


def _run(agent, text, session=None):
    return asyncio.run(agent.run(text, session=session))


def test_agent_receives_the_most_similar_verdicts_in_its_instructions(store):
    client = RecordingClient()
    provider = VerdictFewShotProvider(store, k=3)
    agent = Agent(client=client, instructions=BASE_INSTRUCTIONS, context_providers=[provider])
    session = agent.create_session()
    reply = _run(agent, json.dumps(QUERY), session)
    assert reply.text == "ok"
    sent = client.requests[-1]["options"]["instructions"]
    assert sent.startswith(BASE_INSTRUCTIONS)
    assert sent.count("<precedent ") == 3
    first = sent.index('<precedent n="1" similarity="1.000">')
    assert sent.index("per-kWh tariff", first) < sent.index('<precedent n="2"')  # the true match is precedent 1
    for decoy in DECOYS:  # same wording as the query, unrelated structure: never injected
        desc = next(v["description"] for v in FIXTURE if v["id"] == decoy)
        assert desc not in sent
    state = session.state[DEFAULT_SOURCE_ID]["precedents"]
    assert [p["id"] for p in state][0] == TRUE_MATCH and len(state) == 3
    assert [m.text for m in client.requests[-1]["messages"]][-1] == json.dumps(QUERY)


def test_fenced_json_in_prose_and_min_score(store):
    client = RecordingClient()
    agent = Agent(
        client=client,
        instructions=BASE_INSTRUCTIONS,
        context_providers=[VerdictFewShotProvider(store, k=5, min_score=0.5)],
    )
    text = "Please review this proposal:\n```json\n" + json.dumps({"fields": QUERY["fields"]}) + "\n```\nThanks."
    _run(agent, text)
    sent = client.requests[-1]["options"]["instructions"]
    assert sent.count("<precedent ") == 1  # only the true match scores >= 0.5


def test_nothing_injected_without_a_query_or_without_related_verdicts(store):
    client = RecordingClient()
    agent = Agent(client=client, instructions=BASE_INSTRUCTIONS, context_providers=[VerdictFewShotProvider(store)])
    _run(agent, "Hello, what can you do?")
    assert client.requests[-1]["options"]["instructions"] == BASE_INSTRUCTIONS
    _run(agent, json.dumps({"fields": {"cost_codes": ["NOT-A-CODE"], "measure_type": "unknown"}}))
    assert client.requests[-1]["options"]["instructions"] == BASE_INSTRUCTIONS  # all scores 0


def test_custom_async_query_function(store):
    client = RecordingClient()

    async def from_metadata(context):
        return {"fields": {"cost_codes": ["FAC-RENT"]}}

    agent = Agent(
        client=client,
        context_providers=[VerdictFewShotProvider(store, k=1, query=from_metadata, source_id="precedents")],
    )
    _run(agent, "anything")
    sent = client.requests[-1]["options"]["instructions"]
    assert "Sublet two empty floors" in sent and sent.count("<precedent ") == 1


def test_malformed_query_fails_the_run(store):
    agent = Agent(client=RecordingClient(), context_providers=[VerdictFewShotProvider(store)])
    with pytest.raises(QueryError, match="fields.cost_codes: expected a list of strings"):
        _run(agent, json.dumps({"fields": {"cost_codes": "FAC-HVAC"}}))


def test_query_from_messages_reads_the_last_user_message():
    class Ctx:
        input_messages = [
            Message(role="user", contents=[json.dumps({"fields": {"measure_type": "x"}})]),
            Message(role="assistant", contents=['{"fields": {"measure_type": "y"}}']),
            Message(role="user", contents=["no query here"]),
        ]

    assert query_from_messages(Ctx()) is None
    Ctx.input_messages = Ctx.input_messages[:2]
    assert query_from_messages(Ctx()) == {"fields": {"measure_type": "x"}}


def test_provider_arguments_are_checked(store):
    with pytest.raises(ValueError, match="k must be >= 1"):
        VerdictFewShotProvider(store, k=0)
    with pytest.raises(ValueError, match="min_score"):
        VerdictFewShotProvider(store, min_score=2)


def test_missing_extra_is_one_clear_line(monkeypatch):
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "agent_framework", None)
    monkeypatch.delitem(sys.modules, "assay.verdicts.agents")
    with pytest.raises(ModuleNotFoundError, match=r"needs the 'agents' extra: pip install 'assay\[agents\]'"):
        importlib.import_module("assay.verdicts.agents")
