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
   on each pair's real length, `benchmarks.lib.flops`), pairs per row, the seconds inside the
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

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

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


AB_LENGTHS = (48, 96, 160)
"""Pair lengths (tokens) of the interleaved comparison's batches: short, typical, long pairs."""


def _one_length_batch(cfg, batch: int, length: int, gen) -> dict:
    """A judge's inputs for ``batch`` pairs of random tokens, all ``length`` long (no padding)."""
    import torch

    ids = torch.randint(cfg.vocab_size // 2, cfg.vocab_size, (batch, length), generator=gen)
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids)}


def packed_vs_plain(model: str | None, rounds: int, batch: int) -> dict:
    """The bf16 judge's forward pass with its linear layers packed (`localeval.judge.kernels`)
    and plain, and the judge's layer-shaped matrix product, timed in turns (A, B, peak, A, B,
    peak...) on the same batches: on a machine other work loads, each round's three timings
    meet the same load, so the ratios hold where a before/after pair of runs would not.
    Median milliseconds per batch over ``rounds``, and the forward's FLOP rate against the
    product's (the judge's share of the peak measured beside it)."""
    import os
    import statistics

    import torch

    from benchmarks.lib.flops import encoder_flops
    from localeval.judge import NLIJudge

    packed = NLIJudge(model, device="cpu", precision="bf16")
    before = os.environ.get("LOCALEVAL_PACKED_LINEAR")
    os.environ["LOCALEVAL_PACKED_LINEAR"] = "0"
    try:
        plain = NLIJudge(model, device="cpu", precision="bf16")
    finally:
        if before is None:
            os.environ.pop("LOCALEVAL_PACKED_LINEAR")
        else:
            os.environ["LOCALEVAL_PACKED_LINEAR"] = before
    cfg = packed.model.config
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(BATCH_TOKENS, cfg.hidden_size, generator=gen).to(torch.bfloat16)
    b = torch.randn(cfg.hidden_size, cfg.intermediate_size, generator=gen).to(torch.bfloat16)
    product_flops = 2.0 * a.shape[0] * a.shape[1] * b.shape[1]

    def timed(fn) -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    out = {"rounds": rounds, "batch": batch, "packed_linear_layers": packed.packed_linears, "lengths": {}}
    with torch.inference_mode():
        for length in sorted({min(n, cfg.max_position_embeddings) for n in AB_LENGTHS}):
            features = _one_length_batch(cfg, batch, length, gen)
            same = torch.equal(packed.model(**features).logits, plain.model(**features).logits)  # also the warm-up
            flops = encoder_flops([length] * batch, layers=cfg.num_hidden_layers, hidden=cfg.hidden_size,
                                  intermediate=cfg.intermediate_size)
            times: dict[str, list[float]] = {"packed": [], "plain": [], "product": []}
            for _ in range(rounds):
                times["packed"].append(timed(lambda: packed.model(**features)))
                times["plain"].append(timed(lambda: plain.model(**features)))
                times["product"].append(timed(lambda: torch.matmul(a, b)))
            med = {k: statistics.median(v) for k, v in times.items()}
            peak = product_flops / med["product"]
            out["lengths"][length] = {
                "packed_ms": round(1000 * med["packed"], 2), "plain_ms": round(1000 * med["plain"], 2),
                "speedup": round(med["plain"] / med["packed"], 3), "same_logits": same,
                "product_tflop_per_s": round(peak / 1e12, 4),
                "packed_share_of_product": round(flops / med["packed"] / peak, 3),
                "plain_share_of_product": round(flops / med["plain"] / peak, 3)}
    return out


OP_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("linear layers", ("_linear_pointwise", "addmm", "aten::mm", "aten::linear")),
    ("attention", ("scaled_dot_product", "flash_attention", "bmm", "softmax", "aten::matmul")),
    ("GELU", ("gelu",)),
    ("layer norms", ("layer_norm",)),
    ("residual adds", ("aten::add",)),
)
"""Kinds of a forward pass's operators, by a part of the profiler's operator name; the first
kind that matches wins, the rest is "other" (embeddings, copies, views, the classifier)."""


def _kind_of(op: str) -> str:
    return next((kind for kind, parts in OP_KINDS if any(part in op for part in parts)), "other")


def forward_ops(model: str | None, precision: str, batch: int, rounds: int = 5) -> dict:
    """Where one forward pass's time goes, by operator kind (`OP_KINDS`), at each of
    `AB_LENGTHS`: torch's profiler over ``rounds`` passes of a batch of ``batch`` pairs of one
    length, self time per operator. Beside it, the forward's FLOP rate and the linear layers'
    own (they do nearly all of the work): what the other operators cost is the gap between
    the two, the room left for the judge's share of the peak without fusing GELU, attention
    or the adds into the products (which moves bf16 verdicts: see `localeval.judge.kernels`)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    from benchmarks.lib.flops import encoder_flops, encoder_flops_from_sums
    from localeval.judge import NLIJudge

    judge = NLIJudge(model, device="cpu", precision=precision)
    cfg = judge.model.config
    layers, hidden, inter = cfg.num_hidden_layers, cfg.hidden_size, cfg.intermediate_size
    gen = torch.Generator().manual_seed(0)
    out: dict = {"rounds": rounds, "batch": batch, "precision": precision, "lengths": {}}
    with torch.inference_mode():
        for length in sorted({min(n, cfg.max_position_embeddings) for n in AB_LENGTHS}):
            features = _one_length_batch(cfg, batch, length, gen)
            judge.model(**features)  # warm-up: kernels compiled, buffers allocated
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                for _ in range(rounds):
                    judge.model(**features)
            seconds: dict[str, float] = {}
            for event in prof.key_averages():
                kind = _kind_of(event.key)
                seconds[kind] = seconds.get(kind, 0.0) + event.self_cpu_time_total / 1e6 / rounds
            total = sum(seconds.values()) or 1.0
            # The linear layers' work: the encoder's without the attention term (no squared lengths).
            linear_flops = encoder_flops_from_sums(batch * length, 0, layers=layers, hidden=hidden, intermediate=inter)
            linear_rate = linear_flops / seconds["linear layers"] if seconds.get("linear layers") else 0.0
            flops = encoder_flops([length] * batch, layers=layers, hidden=hidden, intermediate=inter)
            out["lengths"][length] = {
                "forward_ms": round(1000 * total, 2),
                "shares": {kind: round(seconds.get(kind, 0.0) / total, 3) for kind, _ in (*OP_KINDS, ("other", ()))},
                "forward_tflop_per_s": round(flops / total / 1e12, 4),
                "linear_tflop_per_s": round(linear_rate / 1e12, 4)}
    return out


def attention_kernels(precision: str, batch: int, heads: int, head_dim: int, rounds: int = 20) -> dict:
    """PyTorch's fused attention (what the judge runs) against attention written out as two
    products and a softmax, at each of `AB_LENGTHS`, on random queries, keys and values of the
    judge's shape with the last quarter of half the pairs masked (padding): median ms over
    ``rounds`` calls each, and the largest difference between their outputs."""
    import statistics

    import torch
    import torch.nn.functional as F

    dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[precision]
    gen = torch.Generator().manual_seed(0)
    out: dict = {"batch": batch, "heads": heads, "head_dim": head_dim, "rounds": rounds, "lengths": {}}
    with torch.inference_mode():
        for length in AB_LENGTHS:
            q, k, v = (torch.randn(batch, heads, length, head_dim, generator=gen).to(dtype) for _ in range(3))
            mask = torch.zeros(batch, 1, 1, length, dtype=dtype)
            mask[batch // 2:, :, :, length * 3 // 4:] = torch.finfo(dtype).min

            def fused():
                return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

            def written():
                scores = torch.matmul(q, k.transpose(-1, -2)) * head_dim**-0.5 + mask
                return torch.matmul(scores.softmax(-1), v)

            times: dict[str, list[float]] = {"fused": [], "written": []}
            for _ in range(rounds):
                for name, fn in (("fused", fused), ("written", written)):
                    start = time.perf_counter()
                    fn()
                    times[name].append(time.perf_counter() - start)
            out["lengths"][length] = {
                "fused_ms": round(1000 * statistics.median(times["fused"]), 3),
                "written_ms": round(1000 * statistics.median(times["written"]), 3),
                "max_abs_diff": float((fused().float() - written().float()).abs().max())}
    return out


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
    add_judge(parser)
    parser.add_argument("--precision", default="bf16", choices=["bf16", "fp32"])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--peak-seconds", type=float, default=2.0, help="time spent timing each matrix product")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/compute_floor.json")
    parser.add_argument("--metrics", default=None,
                        help="comma-separated metrics measured alone (default: each of bulk_speed's, then the three)")
    parser.add_argument("--ab-rounds", type=int, default=0,
                        help="also time the bf16 judge with packed and plain linear layers in turns, this many rounds")
    parser.add_argument("--ops", action="store_true",
                        help="also profile one forward pass by operator kind (linear layers, attention, GELU...)")
    args = parser.parse_args(argv)

    import os

    import torch

    from benchmarks.bulk_speed import METRICS, PROFILE_SEED, make_rows

    # Other work on the machine changes both figures; the load average says how much there was
    # (a ratio within one run still compares like with like only while the load holds steady).
    load_before = [round(x, 2) for x in os.getloadavg()]
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

    ab = packed_vs_plain(args.model, args.ab_rounds, args.batch_size) if args.ab_rounds and args.precision == "bf16" else None
    ops = forward_ops(args.model, args.precision, args.batch_size) if args.ops else None
    if ops is not None:
        ops["attention_kernels"] = attention_kernels(args.precision, args.batch_size, cfg.num_attention_heads,
                                                     cfg.hidden_size // cfg.num_attention_heads)
        for row in ops["lengths"].values():
            row["forward_share_of_peak"] = round(row["forward_tflop_per_s"] / peak, 3)
            row["linear_share_of_peak"] = round(row["linear_tflop_per_s"] / peak, 3)
    machine = describe_machine()
    load = {"before": load_before, "after": [round(x, 2) for x in os.getloadavg()]}
    result = {"machine": machine, "load_average_1_5_15_min": load,
              "packed_linear_layers": getattr(judge, "packed_linears", 0), "command": command_line("python benchmarks/compute_floor.py", argv),
              "precision": args.precision, "torch_threads": torch.get_num_threads(), "batch_size": args.batch_size,
              "judge": {"layers": cfg.num_hidden_layers, "hidden": cfg.hidden_size, "intermediate": cfg.intermediate_size},
              "matmul_tflop_per_s": peaks, "peak_tflop_per_s": peak, "runs": runs, "packed_vs_plain": ab,
              "forward_ops": ops}
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
        f"{result['precision']}, {result['torch_threads']} torch threads, judge batch {result['batch_size']}, "
        f"{result.get('packed_linear_layers', 0)} linear layers on oneDNN's packed weights. "
        f"Load average (1, 5, 15 min) before {result['load_average_1_5_15_min']['before']}, "
        f"after {result['load_average_1_5_15_min']['after']}. Command: `{result['command']}`.",
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
    if result.get("packed_vs_plain"):
        ab = result["packed_vs_plain"]
        lines += ["", "## bf16 linear layers packed and plain, timed in turns", "",
                  f"Batches of {ab['batch']} pairs of one length; each round times the packed judge, the plain "
                  f"judge and the feed-forward-shaped product ({BATCH_TOKENS}x384 @ 384x1536) one after the other, "
                  f"so all three meet the same load; medians of {ab['rounds']} rounds. Share of the product = the "
                  "forward's FLOP rate (real tokens) / the product's.", "",
                  "| tokens per pair | packed ms | plain ms | speed-up | same logits | product TFLOP/s | "
                  "packed / product | plain / product |", "|---|---|---|---|---|---|---|---|"]
        for length, r in ab["lengths"].items():
            lines.append(f"| {length} | {r['packed_ms']} | {r['plain_ms']} | {r['speedup']} | "
                         f"{'yes' if r['same_logits'] else 'no'} | {r['product_tflop_per_s']} | "
                         f"{r['packed_share_of_product']} | {r['plain_share_of_product']} |")
    if result.get("forward_ops"):
        ops = result["forward_ops"]
        kinds = [kind for kind, _ in OP_KINDS] + ["other"]
        lines += ["", "## One forward pass by operator kind", "",
                  f"torch's profiler, self time per operator, {ops['rounds']} passes of a batch of {ops['batch']} "
                  f"pairs of one length ({ops['precision']}; the profiler adds a little time to each operator). "
                  "Forward and linear layers' rates against the peak above: the gap is what attention, GELU, "
                  "layer norms and adds cost, operators that fusing into the products would remove but that "
                  "moves bf16 verdicts by more than 1e-3 (`localeval/judge/kernels.py`).", "",
                  "| tokens per pair | forward ms | " + " | ".join(kinds) + " | forward / peak | linear layers / peak |",
                  "|---|---|" + "---|" * len(kinds) + "---|---|"]
        for length, r in ops["lengths"].items():
            lines.append(f"| {length} | {r['forward_ms']} | " + " | ".join(str(r["shares"][k]) for k in kinds)
                         + f" | {r.get('forward_share_of_peak', '—')} | {r.get('linear_share_of_peak', '—')} |")
        att = ops.get("attention_kernels")
        if att:
            lines += ["", f"Attention alone, {att['batch']} pairs x {att['heads']} heads of {att['head_dim']} "
                      f"(half the pairs a quarter padding), medians of {att['rounds']} calls: PyTorch's fused "
                      "kernel (what the judge runs) and the same written out as two products and a softmax.", "",
                      "| tokens per pair | fused ms | written out ms | largest difference |", "|---|---|---|---|"]
            for length, r in att["lengths"].items():
                lines.append(f"| {length} | {r['fused_ms']} | {r['written_ms']} | {r['max_abs_diff']:.2g} |")
    lines += ["", "A target above its ceiling at peak cannot be met by any work outside the judge: it needs "
              "fewer or shorter pairs per row (measured in benchmarks/results/candidates.md: fewer units lose "
              "agreement beyond one standard error) or a smaller judge.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
