"""Test helpers for the Claude Code hook contract: the recorded fixtures of ``tests/server/fixtures/claude_code``.

``{root}`` in a fixture stands for the configured project root and ``{m_…}`` in the transcript
for the memory ids of :data:`NOTES` (``m_other``: an id that is not stored).
"""

from __future__ import annotations

import json
from pathlib import Path

FIX = Path(__file__).resolve().parents[1] / "server" / "fixtures" / "claude_code"
SCOPE = "/home/ana/falcon"
NOTES = {
    "m_falcon": "Project Falcon ships on 12 March.",
    "m_priya": "Priya reviews the release notes for every Falcon release.",
    "m_dog": "The user's dog is called Rex.",
}


def fixture(name: str, root: Path) -> dict:
    """The fixture ``name`` as JSON, ``{root}`` replaced."""
    return json.loads((FIX / name).read_text().replace("{root}", str(root)))


def write_transcript(root: Path, ids: dict[str, str]) -> Path:
    """The recorded transcript written where the Stop fixture's ``transcript_path`` points, ids filled in."""
    text = (FIX / "transcript.jsonl").read_text()
    for k, v in {**ids, "m_other": "mffffffffffffffff"}.items():
        text = text.replace("{" + k + "}", v)
    path = root / "-home-ana-falcon" / "3f1c9a52-7d2e-4b8a-9e41-0c6d5b2a7f10.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
