"""LoCoMo (Maharana et al., ACL 2024) → assay memories and labelled retrieval queries.

Reads the per-conversation files of the upstream ``locomo10_v2`` layout (one JSON object per
conversation: ``session_<n>``, ``session_<n>_date_time``, ``session_<n>_observation``, ``qa``)
from a folder (every ``*.json``) or one file, or the ``locomo10.json`` list whose records wrap
the same content as ``{sample_id, conversation, observation, qa, …}``.

- Memories: every session observation ``[fact, dia_id]`` → ``{"id": "<conv>:s<n>:o<j>",
  "text": fact, "scope": <conv>, "created_at": the session's date (UTC) when it parses,
  "meta": {"source_dia_ids": [...], "speaker", "session"}}``. ``dia_id`` may be a list or a
  comma-separated string; pieces that are not ``D<n>:<k>`` are dropped and counted (an
  observation left with none is left out). The same text twice in one conversation becomes one
  memory with the union of its dia_ids (counted). Keywords are not written: the store derives
  them from each memory's own text — never from the questions.
- Queries: every QA → ``{"id": "<conv>:q<i>", "query": question, "relevant": [memory ids whose
  source dia_ids intersect the evidence], "scope": <conv>, "category": "1".."5", "answer",
  "meta": {"evidence": [...]}}`` (category 5, adversarial, has ``answer: null`` and
  ``meta.adversarial_answer``). Evidence is split like ``dia_id`` (``"D8:6; D9:17"`` is two
  ids). A question whose evidence no memory covers is left out and counted.

The conversation id (scope) is the record's ``sample_id`` when present, else the file stem.
Category codes as upstream; the common reading (mem0 and later work) is 1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.atomic import atomic_write_text

__all__ = ["LocomoImport", "import_locomo", "write_locomo"]

_DIA = re.compile(r"D\d+:\d+")
_SESSION_OBS = re.compile(r"session_(\d+)_observation")


@dataclass
class LocomoImport:
    """Memories and queries (JSON-ready dicts), ``skipped`` reason → count, conversations read."""

    memories: list[dict[str, Any]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    conversations: int = 0

    def count(self, reason: str, n: int = 1) -> None:
        """Add ``n`` to the ``skipped`` count of ``reason``."""
        if n:
            self.skipped[reason] = self.skipped.get(reason, 0) + n


def import_locomo(src: str | Path) -> LocomoImport:
    """Read LoCoMo from a folder or a file (see the module docstring).

    Raises ``FileNotFoundError`` when ``src`` is missing, ``ValueError`` naming the file (and
    record) for a file that is not JSON, not a conversation, or holds no ``qa`` list.
    """
    src = Path(src)
    if not src.exists():
        raise FileNotFoundError(2, "no such file or directory", str(src))
    files = sorted(src.glob("*.json")) if src.is_dir() else [src]
    if not files:
        raise ValueError(f"{src}: no *.json files")
    out = LocomoImport()
    for f in files:
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"{f}: not a JSON file ({e})") from None
        records = data if isinstance(data, list) else [data]
        for i, rec in enumerate(records):
            where = f"{f}" if not isinstance(data, list) else f"{f}[{i}]"
            if not isinstance(rec, dict):
                raise ValueError(f"{where}: expected a conversation object")
            conv, scope = _unwrap(rec, f.stem)
            _one_conversation(conv, scope, where, out)
    return out


def write_locomo(result: LocomoImport, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``memories.jsonl`` and ``queries.jsonl`` into ``out_dir`` (created), atomically."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    mem = atomic_write_text(
        out_dir / "memories.jsonl", "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in result.memories)
    )
    qry = atomic_write_text(
        out_dir / "queries.jsonl", "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in result.queries)
    )
    return mem, qry


# --- helpers -------------------------------------------------------------------------------


def _unwrap(rec: dict[str, Any], stem: str) -> tuple[dict[str, Any], str]:
    """The flat conversation object and its id, from either layout."""
    if isinstance(rec.get("conversation"), dict):
        flat = {**rec["conversation"], **(rec.get("observation") or {}), "qa": rec.get("qa")}
        return flat, str(rec.get("sample_id") or stem)
    return rec, str(rec.get("sample_id") or stem)


def _dia_ids(value: Any, out: LocomoImport, what: str) -> list[str]:
    items = value if isinstance(value, list) else [value]
    pieces = [p for item in items for p in re.split(r"[,;\s]+", str(item))]  # a list item may itself be "D8:6; D9:17"
    ids = []
    for p in pieces:
        p = str(p).strip()
        if not p:
            continue
        if _DIA.fullmatch(p):
            ids.append(p)
        else:
            out.count(f"malformed {what} id (dropped)")
    return list(dict.fromkeys(ids))


def _one_conversation(conv: dict[str, Any], scope: str, where: str, out: LocomoImport) -> None:
    qa = conv.get("qa")
    if not isinstance(qa, list):
        raise ValueError(f"{where}: qa: expected a list of questions")
    out.conversations += 1
    by_text: dict[str, dict[str, Any]] = {}
    sessions = sorted((int(m.group(1)), k) for k in conv if (m := _SESSION_OBS.fullmatch(k)))
    for n, key in sessions:
        obs = conv[key]
        if not isinstance(obs, dict):
            raise ValueError(f"{where}: {key}: expected {{speaker: [[fact, dia_id], ...]}}")
        created = _session_date(conv.get(f"session_{n}_date_time"))
        j = 0
        for speaker, items in obs.items():
            for item in items or ():
                if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and item[0].strip()):
                    out.count("malformed observation (left out)")
                    continue
                dias = _dia_ids(item[1], out, "observation dia")
                if not dias:
                    out.count("observation without a valid dia_id (left out)")
                    continue
                text = item[0].strip()
                prev = by_text.get(text.casefold())
                if prev is not None:
                    prev["meta"]["source_dia_ids"] = list(dict.fromkeys(prev["meta"]["source_dia_ids"] + dias))
                    out.count("duplicate observation text (merged)")
                    continue
                j += 1
                mem = {
                    "id": f"{scope}:s{n}:o{j}",
                    "text": text,
                    "scope": scope,
                    "meta": {"source_dia_ids": dias, "speaker": str(speaker), "session": n},
                }
                if created is not None:
                    mem["created_at"] = created
                by_text[text.casefold()] = mem
                out.memories.append(mem)
    covering: dict[str, list[str]] = {}
    for kept in by_text.values():
        for d in kept["meta"]["source_dia_ids"]:
            covering.setdefault(d, []).append(kept["id"])
    for i, q in enumerate(qa, start=1):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str) or not q["question"].strip():
            out.count("malformed question (left out)")
            continue
        evidence = _dia_ids(q.get("evidence") or [], out, "evidence dia")
        relevant = list(dict.fromkeys(mid for d in evidence for mid in covering.get(d, ())))
        if not relevant:
            out.count("question with no covering memory (left out)")
            continue
        cat = q.get("category")
        meta: dict[str, Any] = {"evidence": evidence}
        if "adversarial_answer" in q:
            meta["adversarial_answer"] = q["adversarial_answer"]
        out.queries.append(
            {
                "id": f"{scope}:q{i}",
                "query": q["question"].strip(),
                "relevant": relevant,
                "scope": scope,
                "category": None if cat is None else str(cat),
                "answer": q.get("answer"),
                "meta": meta,
            }
        )


def _session_date(value: Any) -> str | None:
    """``"1:56 pm on 8 May, 2023"`` → ISO-8601 UTC; ``None`` when absent or unparsable."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).isoformat()
    except ValueError:
        return None
