"""The memory ContextProvider against the real agent-framework-core package."""

from __future__ import annotations

import asyncio
import os

import pytest

if os.environ.get("CI") != "true":  # under CI its extra is installed and its absence must fail
    pytest.importorskip("agent_framework")

from agent_framework import Agent, BaseChatClient, ChatResponse, Message  # noqa: E402
from sqlalchemy import select  # noqa: E402

from assay.memory import MemoryStore, default_settings  # noqa: E402
from assay.memory.agents import DEFAULT_SOURCE_ID, MemoryContextProvider  # noqa: E402
from assay.memory.tables import memories, memory_deliveries  # noqa: E402


class ScriptedClient(BaseChatClient):
    """Records each request and answers with a reply that grades the first memory it was shown."""

    def __init__(self):
        super().__init__()
        self.requests: list[dict] = []

    async def _inner_get_response(self, *, messages, stream, options, **kwargs):
        self.requests.append({"messages": list(messages), "options": dict(options)})
        ins = options.get("instructions") or ""
        mid = ins.split("[", 2)[2].split("]", 1)[0] if "[m" in ins else "none"
        text = f"Your dog Rex is doing well.\n[cm]\nrg: {mid}:3\nm: The user walks Rex every morning.\nbad line\n[/cm]"
        return ChatResponse(messages=[Message(role="assistant", contents=[text])])


@pytest.fixture()
def store(tmp_path):
    s = MemoryStore(f"sqlite:///{tmp_path / 'a.db'}", settings=default_settings(embedder="hashing"))
    s.add([{"text": "The user's dog is called Rex."}, {"text": "The user lives in Lisbon."}])
    return s


def test_memories_go_in_before_the_run_and_grades_engagement_memories_come_back_after(store):
    client = ScriptedClient()
    agent = Agent(client=client, instructions="You are helpful.", context_providers=[MemoryContextProvider(store, k=2)])
    session = agent.create_session()
    reply = asyncio.run(agent.run("How is my dog Rex?", session=session))
    assert "Rex" in reply.text
    sent = client.requests[-1]["options"]["instructions"]
    assert sent.startswith("You are helpful.") and "The user's dog is called Rex." in sent and "[cm]" in sent
    state = session.state[DEFAULT_SOURCE_ID]
    assert state["graded"] == 1 and state["engaged"] >= 1 and len(state["added"]) == 1 and len(state["malformed"]) == 1
    with store.engine.connect() as conn:
        grades = dict(conn.execute(select(memory_deliveries.c.memory_id, memory_deliveries.c.grade)).all())
        texts = set(conn.execute(select(memories.c.text)).scalars())
    assert grades[state["delivered"][0]] == 3
    assert "The user walks Rex every morning." in texts


def test_an_empty_store_injects_nothing(tmp_path):
    empty = MemoryStore(f"sqlite:///{tmp_path / 'e.db'}", settings=default_settings(embedder="hashing"))
    client = ScriptedClient()
    agent = Agent(client=client, instructions="Base.", context_providers=[MemoryContextProvider(empty)])
    asyncio.run(agent.run("hello there"))
    assert client.requests[-1]["options"]["instructions"] == "Base."
