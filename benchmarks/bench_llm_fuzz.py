"""Fuzz benchmark: generated malformed judge replies must all be rejected — zero numeric scores.

Run as a script::

    python benchmarks/bench_llm_fuzz.py [--n 600] [--seed 0]

Generates ``--n`` (≥ 500) malformed replies for cases of 1–8 claims with a seeded RNG — 18
mutation kinds of what models and servers produce: truncation at any byte, prose before/after,
code fences of another language, missing/extra/duplicate/renamed claim ids, wrong types
(``"true"``, ``1``, ``null`` for ``supported``; numbers for ``id``), missing or extra fields,
wrapped or bare lists, NaN, duplicate keys, out-of-range citations, ``finish_reason=length`` or
``content_filter``, empty lists — and feeds each through the whole judge
(``FaithfulnessJudge`` with a scripted backend that returns it). Same-run baseline (control):
the same number of *valid* replies through the same path, which must all be scored — so the
validator is not simply rejecting everything. Targets (exit 1 when missed): malformed → 0
numeric scores and 100 % ``rejected`` with a reason; valid → 100 % scored.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from collections import Counter

from _common import report
from assay.cases import Case
from assay.judges.faithfulness import FaithfulnessJudge
from assay.judges.faithfulness_prompt import split_claims
from assay.llm import LLMClient, LLMRequest, LLMResponse

KINDS = (
    "truncate",
    "prose_before",
    "prose_after",
    "fence_other",
    "drop",
    "duplicate",
    "extra_id",
    "rename",
    "type_supported",
    "type_id",
    "missing_field",
    "extra_field",
    "wrap",
    "nan",
    "dup_key",
    "bad_citation",
    "finish",
    "empty",
)


class ScriptedBackend:
    """Returns the reply scripted for each request (keyed by its fenced data message)."""

    name = "scripted"

    def __init__(self) -> None:
        self.replies: dict[str, LLMResponse] = {}

    async def complete(self, request: LLMRequest) -> LLMResponse:
        return self.replies[request.messages[1]["content"]]


def make_case(rng: random.Random, i: int) -> Case:
    n = rng.randint(1, 8)
    answer = " ".join(f"Claim {k} of case {i} says revenue was ${rng.randint(1, 99)} billion." for k in range(n))
    return Case(
        id=f"f{i}",
        answer=answer,
        facts=({"id": "F1", "label": "Revenue", "value": 5, "unit": "USD billions"},),
        sources=("Revenue was $5bn.", "Margins were thin."),
    )


def valid_obj(case: Case, rng: random.Random) -> dict:
    return {
        "claims": [
            {
                "id": cid,
                "supported": rng.random() < 0.5,
                "citation": rng.choice([None, "F1", 0, 1, "1"]),
                "rationale": "r",
            }
            for cid, _, _ in split_claims(case)
        ]
    }


def mutate(obj: dict, kind: str, rng: random.Random) -> tuple[str, str]:
    """(text, finish_reason) of a malformed variant of the valid reply ``obj``."""
    entries = obj["claims"]
    e = rng.choice(entries)
    finish = "stop"
    text = None
    if kind == "truncate":
        full = json.dumps(obj)
        text = full[: rng.randrange(0, len(full))]
    elif kind == "prose_before":
        text = rng.choice(["Sure! ", "Here is the JSON:\n", "Answer: "]) + json.dumps(obj)
    elif kind == "prose_after":
        text = json.dumps(obj) + rng.choice([" Hope this helps.", "\n\nAll claims checked.", " {}"])
    elif kind == "fence_other":
        text = "```python\n" + json.dumps(obj) + "\n```"
    elif kind == "drop":
        entries.remove(e)
    elif kind == "duplicate":
        entries.insert(rng.randrange(len(entries) + 1), dict(e))
    elif kind == "extra_id":
        entries.append(
            {"id": f"c{len(entries) + rng.randint(1, 5)}", "supported": True, "citation": None, "rationale": ""}
        )
    elif kind == "rename":
        e["id"] = rng.choice(["C1", "claim1", e["id"] + " ", "", "1"])
    elif kind == "type_supported":
        e["supported"] = rng.choice(["true", "false", 1, 0, None, "yes", 0.5, [], {}])
    elif kind == "type_id":
        e["id"] = rng.choice([1, None, ["c1"], 1.0])
    elif kind == "missing_field":
        del e[rng.choice(["id", "supported", "citation", "rationale"])]
    elif kind == "extra_field":
        e[rng.choice(["score", "confidence", "label"])] = rng.choice([1, "x", None])
    elif kind == "wrap":
        text = json.dumps(
            rng.choice([{"result": obj}, [obj], entries, {"claims": obj}, {"claims": entries, "score": 1.0}])
        )
    elif kind == "nan":
        text = json.dumps(obj).replace('"r"', "NaN", 1) if '"r"' in json.dumps(obj) else '{"claims": NaN}'
    elif kind == "dup_key":
        text = json.dumps(obj)[:-1] + ', "claims": []}'
    elif kind == "bad_citation":
        e["citation"] = rng.choice(["F2", "S1", "2", 2, -1, 99, True, "source 0", "[F1]"])
    elif kind == "finish":
        finish = rng.choice(["length", "content_filter"])
    elif kind == "empty":
        obj["claims"] = []
    return (json.dumps(obj) if text is None else text), finish


def run(cases: list[Case], replies: list[tuple[str, str]]) -> list:
    backend = ScriptedBackend()
    judge = FaithfulnessJudge(LLMClient(backend, concurrency=8))
    from assay.judges.faithfulness_prompt import build_request

    for case, (text, finish) in zip(cases, replies, strict=True):
        request, _ = build_request(case, judge.model)
        backend.replies[request.messages[1]["content"]] = LLMResponse(
            text=text, parsed=None, finish_reason=finish, model="scripted"
        )
    return asyncio.run(judge.ajudge_many(cases))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.n < 500:
        parser.error("--n must be >= 500")
    rng = random.Random(args.seed)
    cases = [make_case(rng, i) for i in range(args.n)]
    kinds = [KINDS[i % len(KINDS)] for i in range(args.n)]
    bad = [mutate(valid_obj(c, rng), k, rng) for c, k in zip(cases, kinds, strict=True)]
    good = [(json.dumps(valid_obj(c, rng)), "stop") for c in cases]
    bad_v, good_v = run(cases, bad), run(cases, good)
    numeric = sum(v.score is not None for v in bad_v)
    rejected = sum(v.status == "rejected" and bool(v.reason) for v in bad_v)
    reasons = Counter(v.reason.split(":")[0] for v in bad_v if v.reason)
    print(
        f"{args.n} malformed replies over {len(KINDS)} kinds → {numeric} numeric scores, "
        f"{rejected} rejected with a reason"
    )
    print("reasons: " + ", ".join(f"{k} {n}" for k, n in reasons.most_common()))
    leaks = [(k, v.status) for k, v in zip(kinds, bad_v, strict=True) if v.status != "rejected"]
    if leaks:
        print(f"NOT REJECTED: {Counter(leaks).most_common(5)}")
    control = sum(v.status == "scored" for v in good_v) / len(good_v)
    ok = report(
        "malformed replies rejected",
        rejected / args.n,
        "share",
        1.0,
        higher_is_better=True,
        baseline=control,
        baseline_name="valid replies scored (control)",
    )
    ok &= report("numeric scores from malformed replies", float(numeric), "scores", 0.0, higher_is_better=False)
    ok &= control == 1.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
