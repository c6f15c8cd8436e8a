"""How fast could bulk scoring be on this machine at all? The judge's arithmetic per row against
the machine's own matrix-multiply peak.

    python benchmarks/compute_floor.py [--rows 200] [--precision bf16] [--output FILE]

The bulk-scoring targets (rows per second on 2 CPU cores) can only be met if the judge's
forward passes fit in the time they allow. This benchmark measures, in one run:

1. **Peak.** The best multiply-add rate torch reaches on this machine, in the judge's number
   format and thread count, on the matrix shapes of the judge's own layers (a batch of 32
   pairs of 128 tokens through the 384 -> 1536 -> 384 feed-forward and the 384 x 384
   projections) and on one large square product. Nothing the judge does can run faster
   than its best matrix multiply: attention, layer norms and tokenizing only add time.
2. **Work per row.** `bulk_speed`'s rows (the issue's workload) scored by each metric alone
   and by the three together, in a `JudgeSession` of their own: judge FLOPs per row (counted
   on each pair's real length, `benchmarks.flops`), pairs per row, the seconds inside the
   judge and in the whole run.
3. **Ceiling.** Rows per second if the judge ran every FLOP at the measured peak and nothing
   else took any time: ``peak / FLOPs per row``. A target above this ceiling cannot be met
   by any code around the judge; only fewer or shorter pairs, or a smaller judge, can.
   Beside it, the ceiling at the efficiency the judge reaches today (judge seconds only).

Results: ``benchmarks/results/compute_floor.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.files import command_line, write_results  # noqa: E402
from benchmarks.machine import describe_machine  # noqa: E402

TARGETS = {"context_recall": 40.0, "three metrics": 12.0}
"""Rows per second on 2 CPU cores that the bulk-scoring issue asks for."""

BATCH_TOKENS = 32 * 128
"""Rows of the layer-shaped products: a judge batch of 32 pairs of ~128 tokens."""


def _best_rate(a, b, repeats: int, seconds: float) -> float:
    """Best FLOP/s of ``a @ b`` over timed rounds of ``repeats`` products (after a warm-up)."""
    import torch

    flops = 2.0 * a.shape[0] * a.shape[1] * b.shape[1]
    with torch.inference_mode():
        for _ in range(3):
            torch.matmul(a, b)
        best, spent = 0.0, 0.0
        while spent < seconds:
            start = time.perf_counter()
            for _ in range(repeats):
                torch.matmul(a, b)
            took = time.perf_counter() - start
            spent += took
            best = max(best, repeats * flops / took)
    return best


def matmul_peak(dtype_name: str, hidden: int, intermediate: int, seconds: float = 2.0) -> dict[str, float]:
    """TFLOP/s of the judge's layer shapes and of one large square product, in ``dtype_name``."""
    import torch

    dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[dtype_name]
    gen = torch.Generator().manual_seed(0)

    def rand(*shape):
        return torch.randn(*shape, generator=gen).to(dtype)

    shapes = {
        f"feed-forward up ({BATCH_TOKENS}x{hidden} @ {hidden}x{intermediate})": (rand(BATCH_TOKENS, hidden), rand(hidden, intermediate)),
        f"feed-forward down ({BATCH_TOKENS}x{intermediate} @ {intermediate}x{hidden})": (rand(BATCH_TOKENS, intermediate), rand(intermediate, hidden)),
        f"projection ({BATCH_TOKENS}x{hidden} @ {hidden}x{hidden})": (rand(BATCH_TOKENS, hidden), rand(hidden, hidden)),
        "square (2048x2048 @ 2048x2048)": (rand(2048, 2048), rand(2048, 2048)),
    }
    return {name: round(_best_rate(a, b, repeats=5, seconds=seconds) / 1e12, 4) for name, (a, b) in shapes.items()}


def work_per_row(rows: list[dict], metrics: list[str], judge, batch: int) -> dict[str, float]:
    """One run of ``metrics`` over ``rows`` in a fresh session: FLOPs, pairs and seconds per row."""
    from benchmarks.bulk_speed import measured

    run = measured(rows, metrics, judge, batch)
    n = len(rows)
    return {"rows": n, "pairs_per_row": round(run.pairs / n, 2), "gflop_per_row": round(run.flops / n / 1e9, 3),
            "judge_ms_per_row": round(1000 * run.judge_seconds / n, 2), "ms_per_row": round(1000 * run.seconds / n, 2),
            "rows_per_s": round(n / run.seconds, 2), "judge_tflop_per_s": round(run.flop_per_s / 1e12, 4)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--model", default=None, help="judge name or folder (default: the shipped judge)")
    parser.add_argument("--precision", default="bf16", choices=["bf16", "fp32"])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--peak-seconds", type=float, default=2.0, help="time spent timing each matrix product")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/compute_floor.json")
    parser.add_argument("--metrics", default=None,
                        help="comma-separated metrics measured alone (default: each of bulk_speed's, then the three)")
    args = parser.parse_args(argv)

    import torch

    from benchmarks.bulk_speed import METRICS, PROFILE_SEED, make_rows
    from localeval.judge import get_judge

    judge = get_judge(args.model, device="cpu", precision=args.precision)
    cfg = judge.model.config
    peaks = matmul_peak(args.precision, cfg.hidden_size, cfg.intermediate_size, seconds=args.peak_seconds)
    peak = max(peaks.values())

    rows = make_rows(args.rows, seed=PROFILE_SEED)
    work_per_row(make_rows(10, seed=5), ["context_recall"], judge, args.batch_size)  # warm-up: first batches, lazy imports
    alone = METRICS if args.metrics is None else [m.strip() for m in args.metrics.split(",") if m.strip()]
    runs = {m: work_per_row(rows, [m], judge, args.batch_size) for m in alone}
    if args.metrics is None:
        runs["three metrics"] = work_per_row(rows, METRICS, judge, args.batch_size)
    for name, run in runs.items():
        # The two measures of "the judge at the machine's limit": the judge's FLOP
        # rate against the peak of the same run, and the wall time outside the judge.
        run["judge_share_of_peak"] = round(run["judge_tflop_per_s"] / peak, 3)
        run["outside_judge_share_of_row"] = round(1 - run["judge_ms_per_row"] / run["ms_per_row"], 3)
        run["ceiling_rows_per_s_at_peak"] = round(peak * 1e12 / (run["gflop_per_row"] * 1e9), 1)
        run["ceiling_rows_per_s_judge_only"] = round(1000 / run["judge_ms_per_row"], 1)
        if name in TARGETS:
            run["target_rows_per_s"] = TARGETS[name]
            # Pairs per row the target would allow at the measured peak, pairs as long as today's.
            run["pairs_per_row_target_allows_at_peak"] = round(
                run["pairs_per_row"] * run["ceiling_rows_per_s_at_peak"] / TARGETS[name], 2)

    machine = describe_machine()
    result = {"machine": machine, "command": command_line("python benchmarks/compute_floor.py", argv),
              "precision": args.precision, "torch_threads": torch.get_num_threads(), "batch_size": args.batch_size,
              "judge": {"layers": cfg.num_hidden_layers, "hidden": cfg.hidden_size, "intermediate": cfg.intermediate_size},
              "matmul_tflop_per_s": peaks, "peak_tflop_per_s": peak, "runs": runs}
    markdown = render(result)
    write_results(args.output, result, markdown)
    print(markdown)
    return 0


def render(result: dict) -> str:
    m = result["machine"]
    lines = [
        "# Compute floor: how fast the judge lets bulk scoring be on this machine",
        "",
        f"Measured {m['date_utc']} on {m['cpu']} ({m['cpu_cores']} cores), torch {m['torch']}, "
        f"{result['precision']}, {result['torch_threads']} torch threads, judge batch {result['batch_size']}. "
        f"Command: `{result['command']}`.",
        "",
        "## Peak: the best matrix multiply this machine does",
        "",
        "| product | TFLOP/s |",
        "|---|---|",
        *[f"| {name} | {v} |" for name, v in result["matmul_tflop_per_s"].items()],
        "",
        f"Peak used below: **{result['peak_tflop_per_s']} TFLOP/s** (the best of these).",
        "",
        "## Work per row and the ceilings it sets",
        "",
        "`bulk_speed`'s rows; FLOPs counted on each pair's real length (no padding). Ceiling at peak = "
        "peak / FLOPs per row: rows/s if every judge FLOP ran at the peak and nothing else took time. "
        "Judge-only ceiling = 1 / judge seconds per row as measured (tokenizing, padding and the model).",
        "",
        "| metrics | rows | pairs/row | GFLOP/row | judge ms/row | total ms/row | rows/s | judge TFLOP/s | "
        "judge / peak | outside the judge / row | "
        "ceiling at peak (rows/s) | judge-only ceiling (rows/s) | target (rows/s) | pairs/row the target allows at peak |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in result["runs"].items():
        lines.append(f"| {name} | {r['rows']} | {r['pairs_per_row']} | {r['gflop_per_row']} | {r['judge_ms_per_row']} | "
                     f"{r['ms_per_row']} | {r['rows_per_s']} | {r['judge_tflop_per_s']} | "
                     f"{r.get('judge_share_of_peak', '—')} | {r.get('outside_judge_share_of_row', '—')} | "
                     f"{r['ceiling_rows_per_s_at_peak']} | "
                     f"{r['ceiling_rows_per_s_judge_only']} | {r.get('target_rows_per_s', '—')} | "
                     f"{r.get('pairs_per_row_target_allows_at_peak', '—')} |")
    lines += ["", "A target above its ceiling at peak cannot be met by any work outside the judge: it needs "
              "fewer or shorter pairs per row (measured in benchmarks/results/candidates.md: fewer units lose "
              "agreement beyond one standard error) or a smaller judge.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
