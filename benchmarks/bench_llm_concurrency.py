"""Benchmark: 4-way concurrency of the LLM judge against sequential calls, on the fault server.

Run as a script::

    python benchmarks/bench_llm_concurrency.py [--cases 48] [--latency-ms 50]

Starts the scripted OpenAI-compatible fault server (``tests/llm_fault_server.py``) on loopback
in its own process (as a real endpoint is: its CPU and GIL are not the client's) with a fixed
reply latency, and judges ``--cases`` distinct cases through the whole
``openai_compatible`` path (``FaithfulnessJudge.judge_many``: prompt, SDK call, validation), no
cache, first with concurrency 1 (the same-run baseline), then with concurrency 4. Target (exit 1
when missed): throughput at 4-way ≥ 3× the sequential throughput.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _common import report  # noqa: E402
from assay.cases import Case  # noqa: E402
from assay.judges.faithfulness import make_faithfulness_judge  # noqa: E402
from assay.llm import LLMSettings  # noqa: E402

TARGET_RATIO = 3.0


def run(base_url: str, cases: list[Case], concurrency: int) -> float:
    """Cases per second judged at ``concurrency`` (every verdict must be scored)."""
    s = LLMSettings(base_url=base_url, judge_model="ok", concurrency=concurrency, timeout_s=10, max_retries=0)
    judge = make_faithfulness_judge("openai_compatible", settings=s, token_budget=None, cache_dir=None)
    judge.client.cache = None
    t = time.perf_counter()
    verdicts = judge.judge_many(cases)
    elapsed = time.perf_counter() - t
    bad = [v for v in verdicts if v.status != "scored"]
    if bad:
        raise SystemExit(f"unexpected verdict: {bad[0].status} {bad[0].reason}")
    return len(cases) / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=48)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args(argv)
    cases = [
        Case(id=f"q{i}", answer=f"Revenue was ${i} billion. Margins rose {i % 7}%.", sources=(f"Revenue was ${i}bn.",))
        for i in range(args.cases)
    ]
    server = Path(__file__).resolve().parents[1] / "tests" / "llm_fault_server.py"
    with subprocess.Popen(
        [sys.executable, str(server), "--latency-ms", str(args.latency_ms), "--max-requests", str(4 * args.cases + 8)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            base_url = proc.stdout.readline().strip()
            run(base_url, cases[:4], 4)  # warm-up: imports, SDK client, connections
            seq = run(base_url, cases, 1)
            par = run(base_url, cases, 4)
        finally:
            proc.stdin.close()
            proc.wait(timeout=10)
    print(
        f"{args.cases} cases, {args.latency_ms:g} ms server latency: "
        f"sequential {seq:.2f} cases/s, 4-way {par:.2f} cases/s"
    )
    ok = report(
        "4-way / sequential throughput",
        par / seq,
        "x",
        TARGET_RATIO,
        higher_is_better=True,
        baseline=1.0,
        baseline_name="sequential = 1x",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
