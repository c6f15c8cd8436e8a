"""The judge in fp32 and in bf16 on this CPU: speed, and how far the probabilities move.

    python benchmarks/precision.py [--pairs 512] [--repeats 3]

Pairs are realistic (a WiCE claim against a 100-200 token passage of its cited article, see
benchmarks/lib/speed.py). Measured in one run, alternating the two formats, so the speed ratio
compares like with like on a shared machine. Reported:

* pairs/s of each format (best of ``--repeats``) and the ratio;
* |P(bf16) - P(fp32)| for entailment and relevance: mean, 99th percentile, max;
* decisions that flip at the judge's stored thresholds;
* batch dependence: the largest change of a pair's probability between batch size 1 and the
  default batch, in each format (fp32 is the reference: it should not move beyond rounding).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib.cli import add_data_dir, add_judge  # noqa: E402
from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402
from benchmarks.lib.speed import measure_throughput, realistic_pairs  # noqa: E402


def _moves(a: np.ndarray, b: np.ndarray, threshold: float) -> dict:
    d = np.abs(a - b)
    return {
        "mean_abs_diff": round(float(d.mean()), 5),
        "p99_abs_diff": round(float(np.quantile(d, 0.99)), 5),
        "max_abs_diff": round(float(d.max()), 5),
        "threshold": threshold,
        "decision_flips": int(((a >= threshold) != (b >= threshold)).sum()),
    }


def _batch_dependence(judge, pairs: list[tuple[str, str]], batch_size: int) -> float:
    one = judge.entailment_probability(pairs, batch_size=1)
    many = judge.entailment_probability(pairs, batch_size=batch_size)
    return round(float(np.abs(one - many).max()), 7)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_judge(p)
    add_data_dir(p, sub=None)
    p.add_argument("--pairs", type=int, default=512)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/precision.json")
    args = p.parse_args(argv)

    from localeval.judge import NLIJudge
    from localeval.judge.dtypes import cpu_has_native_bf16

    if not cpu_has_native_bf16():
        print("this CPU has no native bf16 (AVX512-BF16 / AMX): nothing to compare", file=sys.stderr)
        return 1
    fp32 = NLIJudge(args.model, device="cpu", batch_size=args.batch_size)
    bf16 = NLIJudge(args.model, device="cpu", batch_size=args.batch_size, precision="bf16")
    pairs = realistic_pairs(args.data_dir, fp32, args.pairs)
    speed = {"fp32": [], "bf16": []}
    for _ in range(args.repeats):  # alternate, so both see the same machine load
        speed["fp32"].append(measure_throughput(fp32, pairs, args.batch_size))
        speed["bf16"].append(measure_throughput(bf16, pairs, args.batch_size))
    best = {k: max(v, key=lambda m: m["pairs_per_second"]) for k, v in speed.items()}

    moves = {
        "entailment": _moves(fp32.entailment_probability(pairs), bf16.entailment_probability(pairs),
                             fp32.thresholds["entailment"]),
    }
    if fp32.has_relevance_head:
        # The claims of the pairs read as questions are not questions; the head's numbers still
        # show how far bf16 moves them.
        moves["relevance"] = _moves(fp32.relevance_probability(pairs), bf16.relevance_probability(pairs),
                                    fp32.thresholds["relevance"])
    sample = pairs[:64]
    batch = {"fp32": _batch_dependence(fp32, sample, args.batch_size),
             "bf16": _batch_dependence(bf16, sample, args.batch_size)}
    ratio = best["bf16"]["pairs_per_second"] / best["fp32"]["pairs_per_second"]
    result = {
        "machine": describe_machine(),
        "model": fp32.name,
        "pairs": len(pairs),
        "mean_tokens_per_pair": best["fp32"]["mean_tokens_per_pair"],
        "speed": best,
        "speed_all": speed,
        "bf16_over_fp32": round(ratio, 2),
        "bf16_vs_fp32": moves,
        "batch_dependence_max_abs_diff": batch,
    }
    m = result["machine"]
    lines = [
        f"# Judge precision on CPU: fp32 vs bf16 ({fp32.name})",
        "",
        f"Measured {m['date_utc']} on {m['cpu']} ({m['cpu_cores']} cores, {m['torch_threads']} torch threads), "
        f"torch {m['torch']}. Command: `{command_line('python benchmarks/precision.py', argv)}`.",
        "",
        f"{len(pairs)} realistic pairs ({best['fp32']['mean_tokens_per_pair']} tokens on average), batch {args.batch_size}, "
        f"best of {args.repeats} alternating runs.",
        "",
        "| format | pairs/s | 1-min load |",
        "|---|---|---|",
        *(f"| {k} | {v['pairs_per_second']} | {v['load_average_1min']} |" for k, v in best.items()),
        "",
        f"bf16 / fp32 speed: **{ratio:.2f}x**",
        "",
        "| head | mean abs diff | p99 | max | threshold | decisions flipped |",
        "|---|---|---|---|---|---|",
        *(f"| {k} | {v['mean_abs_diff']} | {v['p99_abs_diff']} | {v['max_abs_diff']} | {v['threshold']} | "
          f"{v['decision_flips']} of {len(pairs)} |" for k, v in moves.items()),
        "",
        f"Batch dependence (largest change of P(entailment) between batch 1 and batch {args.batch_size}, 64 pairs): "
        f"fp32 {batch['fp32']}, bf16 {batch['bf16']}. fp32 stays the default on CPU because the runner promises "
        "the same score for a row whatever it is batched with; bf16 (`--precision bf16`) trades that for speed.",
    ]
    report = "\n".join(lines) + "\n"
    write_results(args.output, result, report)
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
