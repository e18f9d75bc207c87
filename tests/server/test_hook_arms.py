"""The A/B arm in the Claude Code hooks: the prompt hook injects arm B's instruction, the Stop hook stamps.

Pinned with the recorded fixtures of ``fixtures/claude_code/`` (the same hook input as
``test_claude_code_hooks.py``): ``user_prompt_submit.arm_b.output.json`` is the answer for a
session assigned arm B; arm A answers ``user_prompt_submit.output.json`` unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from assay.memory.experiments import ExperimentStore, unit_draw
from assay.memory.tables import memories
from assay.server.app import create_app
from claude_code_hook import FIX, NOTES, SCOPE
from claude_code_hook import fixture as _fixture
from claude_code_hook import write_transcript as _write_transcript
from memory_server import TOKEN

SESSION = "3f1c9a52-7d2e-4b8a-9e41-0c6d5b2a7f10"  # the fixtures' session_id
INSTRUCTION = "When a note states a deadline, write it as a new memory with its date."


def _seed_for(arm: str, unit: str, name: str = "writer") -> int:
    """A seed that puts ``unit`` in ``arm`` at allocation 0.5 (round 1): found, not hard-coded."""
    return next(s for s in range(1000) if (unit_draw(name, 1, s, unit) < 0.5) == (arm == "B"))


def _start(store, arm: str, unit: str = "session") -> ExperimentStore:
    ab = ExperimentStore(store.engine)
    seed = _seed_for(arm, SESSION) if unit == "session" else 0
    ab.start(
        "writer",
        control_version="gen-1",
        control_rules="Write what the user states as facts.",
        candidate_version="gen-1+deadlines",
        instruction=INSTRUCTION,
        seed=seed,
        unit=unit,
    )
    return ab


@pytest.fixture
def armed(service, settings) -> TestClient:
    app = create_app(service, settings.with_(hook_experiment="writer"), token=TOKEN)
    return TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})


@pytest.fixture
def ids(armed) -> dict[str, str]:
    r = armed.post("/v1/memories", json={"memories": [{"text": t, "scope": SCOPE} for t in NOTES.values()]})
    return dict(zip(NOTES, r.json()["added"], strict=True))


def _prompt(client, root):
    return client.post("/v1/hooks/claude-code", json=_fixture("user_prompt_submit.input.json", root))


def _stamps(store) -> dict[str, tuple]:
    c = memories.c
    with store.engine.connect() as conn:
        rows = conn.execute(select(c.text, c.ab_experiment, c.ab_arm, c.ab_unit, c.source_ref, c.meta))
        return {r.text: (r.ab_experiment, r.ab_arm, r.ab_unit, r.source_ref, r.meta) for r in rows}


@pytest.mark.parametrize("arm", ["A", "B"])
def test_the_prompt_hook_answers_the_recorded_output_of_the_sessions_arm(armed, store, ids, settings, arm):
    _start(store, arm)
    r = _prompt(armed, settings.project_roots[0])
    want = "user_prompt_submit.arm_b.output.json" if arm == "B" else "user_prompt_submit.output.json"
    assert r.status_code == 200 and r.json() == json.loads((FIX / want).read_text())
    assign = armed.post("/v1/ab/assign", json={"experiment": "writer", "units": [SESSION]}).json()
    assert assign["assignments"][0]["arm"] == arm  # the route and the hook agree


@pytest.mark.parametrize("arm", ["A", "B"])
def test_the_stop_hook_stamps_the_memories_it_writes_with_the_arm(armed, store, ids, settings, arm):
    _start(store, arm)
    root: Path = settings.project_roots[0]
    _prompt(armed, root)
    _write_transcript(root, ids)
    assert armed.post("/v1/hooks/claude-code", json=_fixture("stop.input.json", root)).json() == {}
    stamps = _stamps(store)
    exp, ab_arm, unit, ref, meta = stamps["Falcon release notes need Priya's sign-off before 10 March."]
    assert (exp, ab_arm, unit) == ("writer", arm, SESSION)
    assert ref == ("gen-1+deadlines" if arm == "B" else "gen-1") and meta["writer_source_ref"] == "claude-code"
    assert all(s[0] is None for t, s in stamps.items() if t in NOTES.values())  # added before: unstamped


def test_a_prompt_unit_experiment_uses_the_prompts_search_id(armed, store, ids, settings):
    _start(store, "B", unit="prompt")
    root = settings.project_roots[0]
    _prompt(armed, root)
    _write_transcript(root, ids)
    armed.post("/v1/hooks/claude-code", json=_fixture("stop.input.json", root))
    exp, ab_arm, unit, _, _ = _stamps(store)["Falcon release notes need Priya's sign-off before 10 March."]
    from sqlalchemy import text

    with store.engine.connect() as conn:
        sids = set(conn.execute(text("SELECT DISTINCT search_id FROM memory_deliveries")).scalars())
    assert exp == "writer" and unit in sids and ab_arm in ("A", "B")


def test_without_a_running_experiment_nothing_is_injected_or_stamped(armed, store, ids, settings):
    root = settings.project_roots[0]
    r = _prompt(armed, root)  # hook_experiment names an experiment that does not exist
    assert r.json() == json.loads((FIX / "user_prompt_submit.output.json").read_text())
    _write_transcript(root, ids)
    armed.post("/v1/hooks/claude-code", json=_fixture("stop.input.json", root))
    exp, _, _, ref, _ = _stamps(store)["Falcon release notes need Priya's sign-off before 10 March."]
    assert exp is None and ref == "claude-code"


def test_the_instruction_is_shown_even_when_no_memory_is(armed, store, settings):
    _start(store, "B")
    ctx = _prompt(armed, settings.project_roots[0]).json()["hookSpecificOutput"]["additionalContext"]
    assert INSTRUCTION in ctx and "[cm]" in ctx
