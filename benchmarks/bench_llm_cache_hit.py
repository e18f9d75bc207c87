"""Benchmark: an LLM response-cache hit against the call it saves.

Run as a script::

    python benchmarks/bench_llm_cache_hit.py [--entries 10000] [--runs 2000] [--latency-ms 50]

Builds the ``llm_cache`` table (SQLite in a temporary ``--cache-dir``, WAL) holding
``--entries`` replies of realistic size (filler rows with their own keys), then times
``LLMClient.complete`` on cached requests: the whole hit path — the request key (SHA-256 over
the canonical JSON of model, messages, params, schema), the primary-key lookup, and the reply's
decoding into an ``LLMResponse``. The same-run baseline is the miss path: the same client
sending fresh requests to the fault server (in its own process) with ``--latency-ms`` latency.
Target (exit 1 when missed): hit p50 ≤ 1 ms (p99 printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report
from assay.cases import Case
from assay.judges.faithfulness_prompt import build_request
from assay.llm import LLMClient, LLMResponse, LLMSettings
from assay.llm.cache import ResponseCache, llm_cache

TARGET_MS = 1.0


def _cases(n: int, offset: int = 0) -> list[Case]:
    return [
        Case(
            id=f"q{i}",
            question="What happened to revenue?",
            answer=f"Revenue was ${i} billion in FY2023 [F1]. It grew {i % 13}% on strong demand. Margins were stable.",
            facts=({"id": "F1", "label": "Revenue", "value": i, "unit": "USD billions", "period": "FY2023"},),
            sources=(f"In FY2023 revenue reached ${i}bn, up {i % 13}% year on year, on strong demand. " * 3,),
        )
        for i in range(offset, offset + n)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--hot", type=int, default=200)
    parser.add_argument("--misses", type=int, default=20)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args(argv)
    server = Path(__file__).resolve().parents[1] / "tests" / "llm_fault_server.py"
    with (
        tempfile.TemporaryDirectory() as tmp,
        subprocess.Popen(
            [sys.executable, str(server), "--latency-ms", str(args.latency_ms)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        ) as proc,
    ):
        try:
            base_url = proc.stdout.readline().strip()
            cache = ResponseCache.open(tmp)
            settings = LLMSettings(base_url=base_url, judge_model="ok", timeout_s=10, max_retries=0)
            from assay.llm.openai_compatible import OpenAICompatibleBackend

            client = LLMClient(OpenAICompatibleBackend(settings), cache=cache, settings=settings)
            hot = [build_request(c, "ok")[0] for c in _cases(args.hot)]
            filler = json.dumps(
                {
                    "claims": [
                        {"id": f"c{k}", "supported": True, "citation": "F1", "rationale": "stated in F1" * 3}
                        for k in range(3)
                    ]
                }
            )
            with cache.engine.begin() as conn:
                conn.execute(
                    llm_cache.insert(),
                    [
                        {
                            "key": f"{i:064x}",
                            "backend": "openai_compatible",
                            "model": "ok",
                            "schema": "claim_verdicts:claims-3",
                            "response": LLMResponse(text=filler, model="ok").model_dump_json(),
                        }
                        for i in range(args.entries - args.hot)
                    ],
                )
            misses = [build_request(c, "ok")[0] for c in _cases(args.misses, offset=10**6)]

            async def timed() -> tuple[list[float], list[float]]:
                miss_ms = []
                for r in hot:  # fill the hot keys through the real miss path
                    await client.complete(r)
                for r in misses:
                    t = time.perf_counter()
                    await client.complete(r)
                    miss_ms.append((time.perf_counter() - t) * 1000)
                rng = random.Random(0)
                hit_ms = []
                for _ in range(args.runs):
                    r = rng.choice(hot)
                    t = time.perf_counter()
                    reply = await client.complete(r)
                    hit_ms.append((time.perf_counter() - t) * 1000)
                    assert reply.cached
                await client.aclose()
                return hit_ms, miss_ms

            hit_ms, miss_ms = asyncio.run(timed())
            print(f"cache rows: {len(cache):,}; hits timed: {len(hit_ms)}; misses timed: {len(miss_ms)}")
        finally:
            proc.stdin.close()
            proc.wait(timeout=10)
    p50, p99 = statistics.median(hit_ms), statistics.quantiles(hit_ms, n=100)[98]
    miss = statistics.median(miss_ms)
    print(
        f"hit p50 {p50:.3f} ms, p99 {p99:.3f} ms; miss p50 {miss:.1f} ms ({args.latency_ms:g} ms server latency); "
        f"a hit is {miss / p50:,.0f}x faster than the call it saves"
    )
    ok = report(
        "LLM cache hit p50", p50, "ms", TARGET_MS, higher_is_better=False, baseline=miss, baseline_name="miss p50"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
