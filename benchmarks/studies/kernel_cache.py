"""oneDNN's kernel cache and a judge's memory: RSS and speed of the same judge batches with
the cache at oneDNN's default capacity (1,024 kernels) and at the capacity localeval sets
(`localeval.judge.kernels`).

Workload: the judge (bf16 on CPU by default) scores pairs cut from the bulk benchmark's rows
(`benchmarks.bulk_speed.make_rows`): a claim against 1 to 12 consecutive sentences of a chunk,
so batch lengths vary as they do in a run. Pairs go to the judge 64 at a time (two batches of
32, sorted by length, as the runner sends them). Each setting runs in a fresh process, twice,
in alternating order (A B A B), so a drift of the shared machine hits both. Per run: seconds,
peak RSS (sampled after every call) and RSS at the end after the C heap's freed pages are
handed back (`localeval.runner.heap.release_freed_memory`, as the runner does per chunk).
Run: ``python benchmarks/studies/kernel_cache.py [--calls 200] [--capacities 1024,16]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

CALL_PAIRS = 64


def make_pairs(calls: int, seed: int = 7) -> list[tuple[str, str]]:
    """``calls * CALL_PAIRS`` (premise, claim) pairs of varied length from the bulk rows."""
    from benchmarks.bulk_speed import make_rows

    rng = random.Random(seed)
    rows = make_rows(max(1, calls * CALL_PAIRS // 10), seed=seed)
    pairs = []
    while len(pairs) < calls * CALL_PAIRS:
        row = rng.choice(rows)
        sentences = rng.choice(row["retrieved_contexts"]).split(". ")
        size = rng.randint(1, 12)
        start = rng.randrange(max(1, len(sentences) - size + 1))
        claim = rng.choice(row["reference"].split(". "))
        pairs.append((". ".join(sentences[start:start + size]), claim))
    return pairs


def child(calls: int, precision: str, model: str | None) -> dict:
    import psutil

    from localeval.judge import get_judge
    from localeval.runner.heap import release_freed_memory

    def rss() -> float:
        return psutil.Process().memory_info().rss / 2**20

    pairs = make_pairs(calls)
    judge = get_judge(model, precision=precision)
    judge.entailment_probability(pairs[:8], batch_size=32)  # load and first kernels: not timed
    loaded, peak = rss(), 0.0
    start = time.perf_counter()
    for k in range(calls):
        judge.entailment_probability(pairs[k * CALL_PAIRS:(k + 1) * CALL_PAIRS], batch_size=32)
        peak = max(peak, rss())
    seconds = time.perf_counter() - start
    release_freed_memory()
    return {"seconds": round(seconds, 2), "rss_loaded_mb": round(loaded, 1), "rss_peak_mb": round(peak, 1),
            "rss_end_trimmed_mb": round(rss(), 1), "pairs": len(pairs)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="judge calls of 64 pairs per run")
    parser.add_argument("--capacities", default="1024,16", help="oneDNN kernel cache capacities, comma-separated")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--precision", default="bf16")
    add_judge(parser)
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/kernel_cache.json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.calls, args.precision, args.model)))
        return 0
    from localeval.judge.kernels import ONEDNN_CACHE_ENV

    capacities = [int(c) for c in args.capacities.split(",")]
    runs: dict[int, list[dict]] = {c: [] for c in capacities}
    for _ in range(args.repeats):
        for capacity in capacities:
            cmd = [sys.executable, __file__, "--child", "--calls", str(args.calls), "--precision", args.precision] \
                + (["--model", args.model] if args.model else [])
            env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), ONEDNN_CACHE_ENV: str(capacity)}
            done = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if done.returncode != 0:
                print(done.stderr[-4000:], file=sys.stderr)
                return done.returncode
            runs[capacity].append(json.loads(done.stdout.strip().splitlines()[-1]))
    base = capacities[0]

    def mean(capacity: int, key: str) -> float:
        return round(sum(r[key] for r in runs[capacity]) / len(runs[capacity]), 2)

    summary = {c: {k: mean(c, k) for k in ("seconds", "rss_loaded_mb", "rss_peak_mb", "rss_end_trimmed_mb")}
               for c in capacities}
    for c in capacities:
        summary[c]["time_vs_first"] = round(summary[c]["seconds"] / summary[base]["seconds"], 3)
    result = {"machine": describe_machine(), "command": command_line("benchmarks/studies/kernel_cache.py", argv),
              "precision": args.precision, "calls": args.calls, "pairs_per_call": CALL_PAIRS,
              "summary": {str(c): v for c, v in summary.items()}, "runs": {str(c): v for c, v in runs.items()}}
    machine = result["machine"]
    lines = [
        "# oneDNN's kernel cache and the judge's memory",
        "",
        f"Measured {machine['date_utc']} on {machine['cpu']} ({machine['cpu_cores']} cores), torch {machine['torch']}, "
        f"GPU: none. Command: `{result['command']}`.",
        "",
        f"{args.calls} judge calls of {CALL_PAIRS} pairs ({args.calls * CALL_PAIRS} pairs of 1-12 sentences, batches "
        f"of 32) in {args.precision}; each capacity in a fresh process, {args.repeats} runs each, alternating. "
        "Means over the runs; time relative to the first capacity, measured in the same session.",
        "",
        "| kernel cache capacity | seconds | time vs first | RSS loaded (MB) | RSS peak (MB) | RSS at end, trimmed (MB) |",
        "|---:|---:|---:|---:|---:|---:|",
        *(f"| {c} | {s['seconds']} | {s['time_vs_first']} | {s['rss_loaded_mb']} | {s['rss_peak_mb']} | "
          f"{s['rss_end_trimmed_mb']} |" for c, s in summary.items()),
    ]
    write_results(args.output, result, "\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
