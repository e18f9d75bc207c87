"""LoCoMo conversations as replay input: each conversation a cohort, each ``session_<n>`` a session,
its QA (categories 1–4; 5 is adversarial, unanswerable) the findability questions with their
evidence ``dia_id`` turns. Format: ``../shared/data/locomo/README.md`` (Maharana et al., ACL 2024).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from assay.jsonl import read_utf8
from assay.memory.replay.models import Question, Session, Turn

__all__ = ["load_locomo_replay"]

_SESSION = re.compile(r"^session_(\d+)$")


def load_locomo_replay(src: str | Path, *, limit: int | None = None) -> tuple[list[Session], list[Question]]:
    """Sessions and questions of the ``conv_*.json`` files under ``src`` (a folder or one file),
    in file-name order; ``limit`` keeps the first N conversations. Evidence ids that name no turn
    are dropped; a question left without evidence is skipped. Raises ``FileNotFoundError`` when
    there is no file, ``ValueError`` ``file: field: problem`` for a malformed one."""
    root = Path(src)
    files = [root] if root.is_file() else sorted(root.glob("conv_*.json"))
    if not files:
        raise FileNotFoundError(f"{root}: no conv_*.json file")
    sessions: list[Session] = []
    questions: list[Question] = []
    for path in files[:limit]:
        try:
            conv = json.loads(read_utf8(path))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{e.lineno}: <json>: {e.msg}") from None
        cohort = path.stem
        ids: set[str] = set()
        nums = sorted(int(m.group(1)) for k in conv if (m := _SESSION.match(k)) and isinstance(conv[k], list))
        for n in nums:
            turns = []
            for j, t in enumerate(conv[f"session_{n}"]):
                if not isinstance(t, dict) or not isinstance(t.get("dia_id"), str):
                    raise ValueError(f"{path}: session_{n}[{j}].dia_id: missing")
                text = str(t.get("text", ""))
                if t.get("blip_caption"):
                    text = f"{text} [shares a photo: {t['blip_caption']}]"
                turns.append(Turn(id=t["dia_id"], speaker=str(t.get("speaker", "")), text=text))
                ids.add(t["dia_id"])
            date = conv.get(f"session_{n}_date_time")
            sessions.append(
                Session(id=f"{cohort}:s{n}", turns=tuple(turns), cohort=cohort, date=str(date) if date else None)
            )
        for i, qa in enumerate(conv.get("qa", [])):
            if qa.get("category") == 5:
                continue
            evidence = tuple(e for e in qa.get("evidence", []) if isinstance(e, str) and e in ids)
            if evidence:
                questions.append(
                    Question(id=f"{cohort}:q{i}", cohort=cohort, text=str(qa["question"]), evidence=evidence)
                )
    return sessions, questions
