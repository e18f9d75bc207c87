"""The 10,000-trace workload of the rationality benchmarks (not a benchmark itself).

Real traces when ``../shared/data`` is present: the 160 tau-bench airline runs imported to native
traces (~27 KB each: policy, conversation, tool outputs), copied round-robin to 10,000 files with
distinct case ids. Without the shared data: synthetic traces of the same shape (documented, seeded).
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from assay.traces import Attempt, CaseResult, LLMCall, Planner, Step, Trace

N_TRACES = 10_000
TAU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tau_bench" / "gpt-4o-airline.tasks00-39.json"


def build(n: int = N_TRACES) -> tuple[Path, str]:
    """Write ``n`` traces + a summary into a temp folder; returns ``(summary path, description)``."""
    out = Path(tempfile.mkdtemp(prefix="assay-bench-rationality-"))
    if TAU.is_file():
        from assay.importers.taubench import import_taubench

        base = import_taubench(TAU)
        what = f"{n} real tau-bench traces (160 distinct, round-robin)"
    else:
        base = [_synthetic(i) for i in range(160)]
        what = f"{n} synthetic tau-bench-shaped traces (shared data absent)"
    texts = [json.dumps(t.to_json(), ensure_ascii=False) for _, t in base]
    (out / "traces").mkdir()
    rows = []
    for i in range(n):
        row = base[i % len(base)][0]
        name = f"traces/t{i:05d}.json"
        (out / name).write_text(texts[i % len(base)], encoding="utf-8")
        rows.append({"id": f"case-{i:05d}", "slice": row.slice, "trace_path": name})
    summary = out / "summary.json"
    summary.write_text(json.dumps({"case_results": rows}), encoding="utf-8")
    return summary, what


def _synthetic(i: int) -> tuple[CaseResult, Trace]:
    rng = random.Random(i)
    steps = [Step(index=0, actor="system", content="# Policy\n" + "Rules about bookings and refunds. " * 250)]
    for k in range(1, 30):
        kind = ("message", "tool_call", "tool_result")[k % 3]
        if kind == "tool_call":
            steps.append(
                Step(
                    index=k,
                    actor="assistant",
                    kind=kind,
                    name=rng.choice(["get_booking", "search_flight", "update_booking"]),
                    arguments={"id": f"B{rng.randrange(10**5)}"},
                )
            )
        elif kind == "tool_result":
            steps.append(
                Step(
                    index=k,
                    actor="tool",
                    kind=kind,
                    name="tool",
                    content=json.dumps(
                        [
                            {
                                "flight": f"HAT{rng.randrange(999)}",
                                "price": rng.randrange(50, 900),
                                "date": f"2024-05-2{rng.randrange(10)}",
                            }
                        ]
                        * 8
                    ),
                )
            )
        else:
            steps.append(
                Step(
                    index=k,
                    actor=rng.choice(["user", "assistant"]),
                    content=f"Flight HAT{rng.randrange(999)} costs ${rng.randrange(50, 900)}.",
                )
            )
    attempts = tuple(
        Attempt(stage="get_booking", step=k, verification_reasons=("new_arguments: id",)) for k in range(2, 8, 3)
    )
    planner = Planner(
        query_type="modify",
        pipeline="synthetic",
        stage_sequence=tuple(s.name for s in steps if s.name),
        attempts=attempts,
    )
    synthesis = LLMCall(user_prompt_text="\n".join(s.content for s in steps[1:-1]), completion_text=steps[-1].content)
    return CaseResult(id=f"s{i}", slice="modify", trace_path=f"traces/s{i}.json"), Trace(
        planner=planner, synthesis_llm_call=synthesis, steps=tuple(steps)
    )


def time_backend(backend: str, target_s: float) -> int:
    """Time ``judge_rationality(summary, backend=...)`` end to end on the workload against
    ``json.loads`` of the same files (the parse floor, same run); print figure, target and
    ratio; return the exit code (1 when the target is missed)."""
    import shutil
    import time

    from assay.judges.rationality import judge_rationality

    summary, what = build()
    try:
        rows = json.loads(summary.read_text())["case_results"]
        t0 = time.perf_counter()
        for r in rows:
            json.loads((summary.parent / r["trace_path"]).read_text(encoding="utf-8"))
        parse_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        _local, agg = judge_rationality(summary, backend=backend)
        judge_s = time.perf_counter() - t0
    finally:
        shutil.rmtree(summary.parent, ignore_errors=True)
    assert agg["n"] == len(rows) and agg["n_missing_trace"] == 0
    ok = judge_s <= target_s
    print(
        f"rationality {backend}, {what}: {judge_s:.2f} s end to end (target ≤ {target_s:.0f} s); "
        f"json.loads baseline {parse_s:.2f} s; ratio {judge_s / parse_s:.2f}× — {'MET' if ok else 'MISSED'}"
    )
    return 0 if ok else 1
