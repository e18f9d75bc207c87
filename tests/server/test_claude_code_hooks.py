"""The Claude Code hook contract (``POST /v1/hooks/claude-code``), pinned with recorded input/output JSON.

The fixtures in ``fixtures/claude_code/`` are Claude Code's hook input as the tool sends it
(``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``, ``hook_event_name``, …) and
the output the server must answer; ``{root}`` stands for the configured project root and
``{m_…}`` for the memory ids of the notes below.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sqlalchemy import select

from assay.memory.tables import memories, memory_deliveries
from claude_code_hook import FIX, NOTES, SCOPE, fixture, write_transcript

_fixture, _write_transcript = fixture, write_transcript


@pytest.fixture
def ids(client) -> dict[str, str]:
    r = client.post("/v1/memories", json={"memories": [{"text": t, "scope": SCOPE} for t in NOTES.values()]})
    return dict(zip(NOTES, r.json()["added"], strict=True))


@pytest.fixture
def root(settings) -> Path:
    return settings.project_roots[0]


def _prompt(client, root):
    return client.post("/v1/hooks/claude-code", json=_fixture("user_prompt_submit.input.json", root))


def test_user_prompt_submit_answers_the_recorded_output(client, ids, root):
    r = _prompt(client, root)
    assert r.status_code == 200
    want = json.loads((FIX / "user_prompt_submit.output.json").read_text())
    assert r.json() == want
    ctx = r.json()["hookSpecificOutput"]["additionalContext"]
    assert all(f"[{mid}]" in ctx for mid in ids.values()) and "[cm]" in ctx and "[/cm]" in ctx


def test_the_context_block_is_capped(client, service, settings, root):
    client.post(
        "/v1/memories", json={"memories": [{"text": f"Falcon fact number {i}: " + "z" * 900} for i in range(20)]}
    )
    from fastapi.testclient import TestClient

    from assay.server.app import create_app
    from memory_server import TOKEN

    small = TestClient(
        create_app(service, settings.with_(hook_context_max_chars=2000, hook_k=20), token=TOKEN),
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    ctx = _prompt(small, root).json()["hookSpecificOutput"]["additionalContext"]
    assert len(ctx) <= 2000 and ctx.rstrip().endswith("[/cm]")


def _labels(store) -> dict[str, tuple]:
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(memory_deliveries.c.memory_id, memory_deliveries.c.grade, memory_deliveries.c.engaged)
        )
        return {r.memory_id: (r.grade, r.engaged) for r in rows}


def test_stop_applies_grades_engagement_and_new_memories_from_the_last_reply(client, service, store, ids, root):
    _prompt(client, root)
    _write_transcript(root, ids)
    r = client.post("/v1/hooks/claude-code", json=_fixture("stop.input.json", root))
    assert r.status_code == 200 and r.json() == {}
    labels = _labels(store)
    assert (
        labels[ids["m_falcon"]] == (3, True) and labels[ids["m_priya"]][0] == 2 and labels[ids["m_dog"]] == (0, False)
    )
    with store.engine.connect() as conn:
        texts = set(conn.execute(select(memories.c.text)).scalars())
    assert "Falcon release notes need Priya's sign-off before 10 March." in texts and len(texts) == 4
    assert service.replies == {"stop_events": 1, "malformed_lines": 1}  # the stray line: ignored, counted


@pytest.mark.parametrize("active", [True, "true", 1])
def test_stop_with_stop_hook_active_applies_nothing(client, store, ids, root, active):
    # failing input: "stop_hook_active": "true" (a string) was processed as false
    _prompt(client, root)
    _write_transcript(root, ids)
    r = client.post("/v1/hooks/claude-code", json={**_fixture("stop.input.json", root), "stop_hook_active": active})
    assert r.json() == {} and all(g is None for g, _ in _labels(store).values())


def test_stop_finds_the_search_through_the_store_when_another_server_answered_the_prompt(
    client, service, settings, store, ids, root
):
    from fastapi.testclient import TestClient

    from assay.server.app import create_app
    from assay.server.service import MemoryService
    from memory_server import TOKEN

    _prompt(client, root)
    other = TestClient(
        create_app(MemoryService(type(store)(store.engine, settings=store.settings)), settings, token=TOKEN),
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    _write_transcript(root, ids)
    assert other.post("/v1/hooks/claude-code", json=_fixture("stop.input.json", root)).status_code == 200
    assert _labels(store)[ids["m_falcon"]][0] == 3


@pytest.mark.parametrize("prompt", ["<memories>anything</memories>", 42, "   "])
def test_a_prompt_without_its_own_search_leaves_the_older_search_ungraded(client, store, ids, root, prompt):
    # failing input: the second prompt cleaned to nothing (or was not a string), the session map
    # kept the first search, and this turn's Stop graded and engaged the first search's deliveries
    _prompt(client, root)
    second = {**_fixture("user_prompt_submit.input.json", root), "prompt": prompt}
    assert client.post("/v1/hooks/claude-code", json=second).json() == {}
    _write_transcript(root, ids)
    assert client.post("/v1/hooks/claude-code", json=_fixture("stop.input.json", root)).status_code == 200
    assert all(g is None and e is None for g, e in _labels(store).values())
    with store.engine.connect() as conn:  # the reply's new memory is still stored
        texts = set(conn.execute(select(memories.c.text)).scalars())
    assert "Falcon release notes need Priya's sign-off before 10 March." in texts


@pytest.mark.parametrize("how", ["dotdot", "symlink", "outside", "relative", "missing"])
def test_a_transcript_outside_the_roots_is_400_and_nothing_is_read(
    client, store, ids, root, tmp_path, how, monkeypatch
):
    _prompt(client, root)
    outside = tmp_path / "elsewhere" / "t.jsonl"
    outside.parent.mkdir()
    real = _write_transcript(root, ids)
    outside.write_text(real.read_text())
    if how == "dotdot":
        path = str(root / ".." / "elsewhere" / "t.jsonl")
    elif how == "symlink":
        link = root / "link.jsonl"
        os.symlink(outside, link)
        path = str(link)
    elif how == "outside":
        path = str(outside)
    elif how == "relative":
        path = "elsewhere/t.jsonl"
    else:
        path = None
    opened = []
    import assay.server.hooks as hooks

    monkeypatch.setattr(hooks, "last_assistant_message", lambda *a: opened.append(a) or "")
    event = {**_fixture("stop.input.json", root), "transcript_path": path}
    r = client.post("/v1/hooks/claude-code", json=event)
    assert r.status_code == 400 and "transcript_path" in r.json()["detail"]
    assert opened == [] and all(g is None for g, _ in _labels(store).values())


def test_other_events_and_bad_input(client):
    assert client.post("/v1/hooks/claude-code", json={"hook_event_name": "PreToolUse"}).json() == {}
    assert client.post("/v1/hooks/claude-code", content=b"[1, 2]").status_code == 400
    assert client.post("/v1/hooks/claude-code", content=b"not json").status_code == 400
    assert client.post("/v1/hooks/claude-code", json={"prompt": "x"}).status_code == 400


def test_the_hook_reply_counters_are_labelled_per_process_and_the_readme_says_so(client, service, store, ids, root):
    """Audit: ``/v1/stats``' ``hook_replies`` lived in process memory while the README said "All
    state is in the store". They are per-process diagnostics (kept so, no table: see
    ``MemoryService.note_reply``), now named and dated as such; a second server over the same
    store starts its own at zero."""
    from assay.server.service import MemoryService

    _prompt(client, root)
    _write_transcript(root, ids)
    client.post("/v1/hooks/claude-code", json=_fixture("stop.input.json", root))
    stats = client.get("/v1/stats").json()
    assert "hook_replies" not in stats
    mine = stats["hook_replies_this_process"]
    assert mine["stop_events"] == 1 and mine["malformed_lines"] == 1 and mine["since"].endswith("+00:00")
    assert MemoryService(store).process_replies()["stop_events"] == 0  # not shared through the store
    section = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = section.split("## Memory server", 1)[1].split("\n## ", 1)[0]
    assert "All state is in the store" not in section and "hook_replies_this_process" in section
