"""The per-claim judge on a real local model, before/after schema-constrained decoding (issue 18, item 1).

Judges a seeded sample of FaithBench summaries with an OpenAI-compatible server (SmolLM2-135M on
llama-cpp-python's server here), alternating the two ``response_format`` modes case by case —
``json_object`` (before: valid JSON of any shape) and ``json_object_schema`` (after: the judge's
strict schema, enforced by the server's grammar) — so that a run stopped early still compares the
modes on the same cases. Each verdict is appended to ``--log`` (JSONL, case ids: local only) as it
comes; the summary (scored / rejected by reason / skipped per mode, and balanced accuracy with a
95 % bootstrap CI against the strict and inclusive readings) is printed from the log, so
``--summary-only`` re-prints it without calling anything. It is a measurement, not a test: a 135M
model is expected near chance.

    ASSAY_LLM_BASE_URL=http://127.0.0.1:PORT/v1 python benchmarks/real_faithbench_structured.py \\
        --data ../shared/data/faithbench --limit 50 --log runs/faithbench-smollm2.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from assay.judges.faithfulness import make_faithfulness_judge
from assay.judges.validate import binary_metrics, sample_groups
from assay.judges.validation_sets import load_faithbench
from assay.llm import LLMSettings

MODES = ("json_object", "json_object_schema")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data/faithbench")
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--sample-seed", type=int, default=0)
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--summary-only", action="store_true")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per call (a timeout is skipped)")
    args = ap.parse_args(argv)
    items = sample_groups(load_faithbench(args.data), args.limit, args.sample_seed)
    done = _read(args.log)
    if not args.summary_only:
        base = os.environ.get("ASSAY_LLM_BASE_URL", "")
        if not base:
            print("set ASSAY_LLM_BASE_URL to the server", file=sys.stderr)
            return 2
        judges = {
            m: make_faithfulness_judge(
                "openai_compatible",
                settings=LLMSettings(
                    base_url=base, judge_model=args.model, response_format=m, timeout_s=args.timeout, max_retries=0
                ),
                token_budget=None,
                cache_dir=args.log.parent / f"cache-{m}",
            )
            for m in MODES
        }
        args.log.parent.mkdir(parents=True, exist_ok=True)
        for it in items:
            for m in MODES:
                if (it.case.id, m) in done:
                    continue
                v = judges[m].judge(it.case)  # type: ignore[union-attr]
                row = {"id": it.case.id, "mode": m, "status": v.status, "score": v.score, "reason": v.reason}
                row |= {"tokens": v.tokens, "n_claims": len(v.claims), "labels": it.hallucinated, "group": it.group}
                with args.log.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")
                done[(it.case.id, m)] = row
                print(f"{it.case.id} {m}: {v.status} {v.reason or ''}"[:160], file=sys.stderr, flush=True)
    print(json.dumps(summary(list(done.values())), indent=1))
    return 0


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per mode: n, scored / rejected / skipped, rejection reasons by kind, and balanced accuracy
    (hallucination call = some claim unsupported) with its 95 % bootstrap CI per reading."""
    out: dict[str, Any] = {}
    for m in MODES:
        rs = [r for r in rows if r["mode"] == m]
        status = Counter(r["status"] for r in rs)
        reasons = Counter((r["reason"] or "").split(":", 1)[0] for r in rs if r["status"] != "scored")
        pred = [None if r["status"] != "scored" else r["score"] < 1.0 for r in rs]
        readings = sorted({k for r in rs for k in r["labels"]})
        out[m] = {
            "n": len(rs),
            "scored": status["scored"],
            "rejected": status["rejected"],
            "skipped": status["skipped"],
            "reasons": dict(reasons.most_common()),
            "balanced_accuracy": {
                k: binary_metrics(pred, [r["labels"][k] for r in rs], [r["group"] for r in rs])["balanced_accuracy"]
                for k in readings
            },
        }
    return out


def _read(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                rows[(r["id"], r["mode"])] = r
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
