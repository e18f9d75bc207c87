"""Same benchmarks, two source trees, interleaved: is a refactor free? (issue 14's ±10% check)

Runs each named benchmark script of tree BEFORE and of tree AFTER alternately (before, after,
before, …) ``--runs`` times each, every run as a fresh process with ``PYTHONPATH=<tree>/src`` so it
imports that tree's ``assay``, and each tree's own copy of the script (a refactor may move what a
script imports). Every line a script prints as ``name: 1,234.5 unit …`` is a figure; the table
gives, per script and figure, the median of the runs of each tree and the ratio after/before.
Interleaving spreads machine noise (other jobs, thermal state) over both trees alike.

    python benchmarks/ab_trees.py --before ../before --after . \\
        bench_gate_financebench.py bench_cache_hit.py bench_memory_search.py bench_eval_10k.py

Exit 0 when every ratio is within ``--tolerance`` (default 0.10) in the worse direction, 1 when a
figure got worse by more, 2 on bad arguments. "Worse" needs the direction: figures whose unit is a
rate (``/s``) are higher-is-better, everything else (ms, s, MB) lower-is-better.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

# "name: 1,234.5 unit …" (the scripts' report()), also "name : p50   4.5 ms …" (a statistic named first)
FIGURE = re.compile(
    r"^(?P<name>[^:\n]{3,120}?)\s*:\s+(?:(?P<stat>p\d\d|mean|median)\s+)?"
    r"(?P<value>-?[0-9][0-9,]*(?:\.[0-9]+)?)\s*(?P<unit>[^\s(;,]+)"
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="source tree before the change (has src/, benchmarks/)")
    ap.add_argument("--after", type=Path, required=True, help="source tree after the change")
    ap.add_argument("--runs", type=int, default=5, help="runs per tree and script (default 5)")
    ap.add_argument("--tolerance", type=float, default=0.10, help="allowed relative slowdown (default 0.10)")
    ap.add_argument("scripts", nargs="+", help="benchmark script names under each tree's benchmarks/")
    args = ap.parse_args(argv)
    for tree in (args.before, args.after):
        for s in args.scripts:
            if not (tree / "benchmarks" / s).is_file():
                print(f"error: {tree / 'benchmarks' / s}: no such script", file=sys.stderr)
                return 2
    worse = False
    for script in args.scripts:
        runs: dict[str, list[dict[str, tuple[float, str]]]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for label, tree in (("before", args.before), ("after", args.after)):
                runs[label].append(_run(tree, script))
        names = [n for n in runs["after"][0] if all(n in r for rs in runs.values() for r in rs)]
        print(f"== {script} (median of {args.runs} interleaved runs per tree)")
        for name in names:
            unit = runs["after"][0][name][1]
            b = statistics.median(r[name][0] for r in runs["before"])
            a = statistics.median(r[name][0] for r in runs["after"])
            ratio = a / b if b else float("nan")
            higher_better = unit.endswith("/s")
            change = (ratio - 1) if higher_better else (1 - ratio)  # > 0 is better
            flag = "ok" if change >= -args.tolerance else "WORSE"
            worse |= flag == "WORSE"
            print(f"  {name}: before {b:,.3f} {unit}, after {a:,.3f} {unit}, ratio {ratio:.3f}  {flag}")
    return 1 if worse else 0


def _run(tree: Path, script: str) -> dict[str, tuple[float, str]]:
    env = dict(os.environ, PYTHONPATH=str((tree / "src").resolve()))
    proc = subprocess.run(
        [sys.executable, str(tree / "benchmarks" / script)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    figures: dict[str, tuple[float, str]] = {}
    for line in proc.stdout.splitlines():
        m = FIGURE.match(line.strip())
        name = m and (f"{m['name']} {m['stat']}" if m["stat"] else m["name"])
        if m and name not in figures:
            figures[name] = (float(m["value"].replace(",", "")), m["unit"])
    if proc.returncode not in (0, 1) or not figures:
        raise SystemExit(
            f"{tree}/benchmarks/{script} exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return figures


if __name__ == "__main__":
    sys.exit(main())
