"""The README "Agent hooks" settings.json snippet is what ``assay hook install --http`` writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from assay.server.claude_settings import merge_hooks

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_http_snippet_is_what_install_http_writes():
    # found by rtry: the snippet showed a command UserPromptSubmit hook, --http writes http for both
    section = README.read_text(encoding="utf-8").split("## Agent hooks", 1)[1]
    snippet = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert snippet is not None
    assert json.loads(snippet.group(1)) == merge_hooks({}, "http", "http://127.0.0.1:8377")
