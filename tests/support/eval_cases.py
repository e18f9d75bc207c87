"""Case builders shared by the eval tests (test_eval, test_cli_eval, test_privacy).

Answers are chosen so the sourcing gate's verdict does not hinge on fine matching rules: every
quantity is stated with its citation and either equals the cited fact or is far off it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: Material facts (completeness is measured against them).
FACTS: list[dict[str, Any]] = [
    {"id": "F1", "label": "Total net sales", "value": 100, "unit": "USD millions", "period": "FY2023"},
    {"id": "F2", "label": "Net income", "value": 20, "unit": "USD millions", "period": "FY2023"},
]
#: A non-material fact only: completeness is not measured (None), so its weight is renormalised away.
NON_MATERIAL: list[dict[str, Any]] = [{"id": "E1", "label": "Employees", "value": 1200, "unit": "count"}]

GOOD = "Total net sales were $100 million [F1] and net income was $20 million [F2]."  # pass, sourcing 1
HALF = "Total net sales were $130 million [F1] and net income was $20 million [F2]."  # fail, sourcing 0.5
WRONG = "Total net sales were $130 million [F1] and net income was $45 million [F2]."  # fail, sourcing 0
REFUSAL = "I cannot answer this from the information provided."  # no_claims
ADVICE = "Total net sales were $100 million [F1]. You should buy the stock for your portfolio."  # impersonal 0
EMPLOYEES = "The company had 1,200 employees [E1]."  # pass, completeness None (with NON_MATERIAL)


def case(
    id: str, variant: str, answer: str, *, facts: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    """One case line as a dict (``facts`` default :data:`FACTS`)."""
    return {"id": id, "variant": variant, "answer": answer, "facts": FACTS if facts is None else facts, **extra}


def write_jsonl(path: Path, rows: Iterable[dict[str, Any] | str]) -> Path:
    """Write ``rows`` (dicts, or raw strings for malformed lines) as JSONL; returns ``path``."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def two_variant_rows(prefix: str = "q", n: int = 6) -> list[dict[str, Any]]:
    """``n`` questions answered by ``base`` (all GOOD) and ``cand`` (alternating GOOD/HALF/WRONG),
    plus a refusal by ``base`` on one extra question and a ``solo`` variant with one case."""
    answers = [GOOD, HALF, WRONG]
    rows = []
    for i in range(n):
        rows.append(case(f"{prefix}{i}", "base", GOOD, slice="income"))
        rows.append(case(f"{prefix}{i}", "cand", answers[i % 3], slice="income" if i % 2 else "margins"))
    rows.append(case(f"{prefix}refuse", "base", REFUSAL, slice="other"))
    rows.append(case(f"{prefix}0", "solo", GOOD, slice="income"))
    return rows
