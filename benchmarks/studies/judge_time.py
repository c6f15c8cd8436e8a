"""Where the judge's own time goes on CPU: tokenizing, padding, and the model by operator.

    python benchmarks/studies/judge_time.py [--rows 20] [--metrics context_recall] [--precision bf16]

`compute_floor.py` measures the judge at about half of the machine's best matrix multiply.
This benchmark takes the pairs a run really sends to the judge (`bulk_speed`'s rows, captured
from `NLIJudge.score_distinct`) and times, in one process, so the shares compare like with like:

* tokenizing (the tokenizer's call on each slice of pairs);
* padding a batch: the tokenizer's ``pad`` against `NLIJudge.pad_batch` (what the judge uses);
* the forward passes, split by operator with ``torch.profiler``: the linear layers (the
  matrix products `compute_floor` calls the peak), attention, layer norms, GELU, the rest;
* the matrix products' own FLOP rate, against the peak measured in the same run;
* the judge process's work per pair outside the model, tokenizing itself or given a worker's ids.

Results: ``benchmarks/results/judge_time.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, publish  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

GROUPS = (("linear layers", ("aten::addmm", "aten::mm", "aten::linear", "aten::matmul",
                             "mkldnn::_linear_pointwise")),  # the packed bf16 layers (localeval.judge.kernels)
          ("attention", ("scaled_dot_product", "aten::bmm", "aten::softmax", "aten::_softmax", "aten::baddbmm")),
          ("layer norm", ("layer_norm",)),
          ("GELU", ("gelu",)))
"""Operator name fragments of each group (the first group that matches wins)."""


def capture_pairs(rows: list[dict], metrics: list[str], judge) -> list[tuple[list, str]]:
    """The (pairs, task) of every `score_distinct` call a run of ``metrics`` makes."""
    from localeval import evaluate
    from localeval.judge.nli import NLIJudge

    captured: list[tuple[list, str]] = []
    original = NLIJudge.score_distinct

    def record(self, pairs, task, **kwargs):
        captured.append((list(pairs), task))
        return original(self, pairs, task, **kwargs)

    NLIJudge.score_distinct = record
    try:
        evaluate(rows, metrics, model=judge, show_progress=False)
    finally:
        NLIJudge.score_distinct = original
    return captured


def _group(name: str) -> str:
    for group, fragments in GROUPS:
        if any(f in name for f in fragments):
            return group
    return "other operators"


def time_parts(judge, captured: list[tuple[list, str]], batch: int) -> dict:
    """Seconds of tokenizing, padding (both ways) and the forward passes by operator group."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    from localeval.judge.formats import Packed
    from localeval.judge.nli import ScoringState

    encode = lambda pairs: judge.tokenizer([p for p, _ in pairs], [h for _, h in pairs],  # noqa: E731
                                           truncation="longest_first", max_length=judge.max_length)
    start = time.perf_counter()
    encoded = [encode(pairs) for pairs, _ in captured]
    tokenize_s = time.perf_counter() - start
    batches = []
    for enc in encoded:
        order = sorted(range(len(enc["input_ids"])), key=lambda i: -len(enc["input_ids"][i]))
        batches += [(enc, order[i : i + batch]) for i in range(0, len(order), batch)]
    start = time.perf_counter()
    for enc, ids in batches:
        judge.tokenizer.pad({k: [enc[k][i] for i in ids] for k in enc.keys()}, return_tensors="pt")
    pad_tokenizer_s = time.perf_counter() - start
    packed = {id(enc): Packed.of(enc) for enc in encoded}  # what the judge pads from (not timed)
    start = time.perf_counter()
    for enc, ids in batches:
        judge.pad_batch(packed[id(enc)], ids)
    pad_ours_s = time.perf_counter() - start

    state = ScoringState()
    with torch.inference_mode(), profile(activities=[ProfilerActivity.CPU]) as prof:
        start = time.perf_counter()
        for pairs, task in captured:
            judge.score_distinct(pairs, task, batch_size=batch, state=state)
        scoring_s = time.perf_counter() - start
    by_group: dict[str, float] = defaultdict(float)
    others: dict[str, float] = {}
    for event in prof.key_averages():
        by_group[_group(event.key)] += event.self_cpu_time_total / 1e6
        if _group(event.key) == "other operators":
            others[event.key] = event.self_cpu_time_total / 1e6
    feed = time_feed(judge, captured, batch)
    return {**feed, "pairs": sum(len(p) for p, _ in captured), "batches": len(batches), "tokens": state.tokens,
            "tokens_squared": state.tokens_squared, "tokenize_s": round(tokenize_s, 3),
            "pad_tokenizer_s": round(pad_tokenizer_s, 4), "pad_ours_s": round(pad_ours_s, 4),
            "scoring_s_profiled": round(scoring_s, 3),
            "operator_s": {k: round(v, 3) for k, v in sorted(by_group.items(), key=lambda kv: -kv[1])},
            "other_operators_s": {k: round(v, 3) for k, v in sorted(others.items(), key=lambda kv: -kv[1])[:8]}}


def time_feed(judge, captured: list[tuple[list, str]], batch: int) -> dict:
    """The judge process's own work per pair, the model left out: tokenizing the texts and
    padding every batch, as one process does, against padding from the ids a worker tokenized
    (`NLIJudge.encode`, `localeval.runner.workers`). On a GPU this work, not the model, set
    the pace (benchmarks/results/gpu_session)."""
    pairs = sum(len(p) for p, _ in captured)

    def pad_all(encoded) -> None:
        for packed in encoded:
            lengths = packed.lengths()
            order = sorted(range(len(packed)), key=lambda i: -lengths[i])
            for i in range(0, len(order), batch):
                judge.pad_batch(packed, order[i : i + batch])

    start = time.perf_counter()
    encoded = [judge.encode(texts, task) for texts, task in captured]
    worker_s = time.perf_counter() - start
    start = time.perf_counter()
    for ids in encoded:
        pad_all(ids)
    given_s = time.perf_counter() - start
    return {"feed_us_per_pair": {"judge process, tokenizing itself": round((worker_s + given_s) / pairs * 1e6, 1),
                                 "judge process, given a worker's ids": round(given_s / pairs * 1e6, 1),
                                 "worker, tokenizing and packing": round(worker_s / pairs * 1e6, 1)}}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument("--metrics", default="context_recall")
    add_judge(parser)
    parser.add_argument("--precision", default="bf16", choices=["bf16", "fp32"])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--peak-seconds", type=float, default=1.0)
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/judge_time.json")
    args = parser.parse_args(argv)

    import torch

    from benchmarks.bulk_speed import PROFILE_SEED, make_rows
    from benchmarks.compute_floor import matmul_peak
    from localeval.judge import get_judge

    judge = get_judge(args.model, device="cpu", precision=args.precision)
    cfg = judge.model.config
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    captured = capture_pairs(make_rows(args.rows, seed=PROFILE_SEED), metrics, judge)
    parts = time_parts(judge, captured, args.batch_size)
    peak = max(matmul_peak(args.precision, cfg.hidden_size, cfg.intermediate_size, seconds=args.peak_seconds).values())
    linear_flops = cfg.num_hidden_layers * (8 * cfg.hidden_size**2 + 4 * cfg.hidden_size * cfg.intermediate_size) * parts["tokens"]
    linear_s = parts["operator_s"].get("linear layers", 0.0)
    result = {"machine": describe_machine(), "command": command_line("python benchmarks/studies/judge_time.py", argv),
              "precision": args.precision, "torch_threads": torch.get_num_threads(), "batch_size": args.batch_size,
              "metrics": metrics, "rows": args.rows, "peak_tflop_per_s": peak, **parts,
              "linear_tflop_per_s": round(linear_flops / linear_s / 1e12, 4) if linear_s else None}
    markdown = render(result)
    publish(args.output, result, markdown)
    return 0


def render(r: dict) -> str:
    m = r["machine"]
    ops = r["operator_s"]
    total_ops = sum(ops.values()) or 1.0
    lines = [
        "# Where the judge's time goes on CPU",
        "",
        f"Measured {m['date_utc']} on {m['cpu']} ({m['cpu_cores']} cores), torch {m['torch']}, {r['precision']}, "
        f"{r['torch_threads']} torch threads, batch {r['batch_size']}. Command: `{r['command']}`.",
        "",
        f"The pairs of {r['rows']} rows of `bulk_speed` scored by {', '.join(r['metrics'])}: {r['pairs']} pairs, "
        f"{r['batches']} batches, {r['tokens']} tokens.",
        "",
        "| part | seconds | share of the judge's time |",
        "|---|---|---|",
        f"| tokenizing | {r['tokenize_s']} | {r['tokenize_s'] / r['scoring_s_profiled']:.1%} |",
        f"| padding: the tokenizer's `pad` (before) | {r['pad_tokenizer_s']} | {r['pad_tokenizer_s'] / r['scoring_s_profiled']:.1%} |",
        f"| padding: `NLIJudge.pad_batch` (now) | {r['pad_ours_s']} | {r['pad_ours_s'] / r['scoring_s_profiled']:.1%} |",
        f"| whole judge (profiled) | {r['scoring_s_profiled']} | 100% |",
        "",
        "Operators (self CPU time under the profiler, summed over threads):",
        "",
        "| operator group | seconds | share |",
        "|---|---|---|",
        *[f"| {k} | {v} | {v / total_ops:.1%} |" for k, v in ops.items()],
        "",
        "The largest of the other operators:",
        "",
        "| operator | seconds |",
        "|---|---|",
        *[f"| `{k}` | {v} |" for k, v in r.get("other_operators_s", {}).items()],
        "",
        f"Linear layers' FLOP rate: {r['linear_tflop_per_s']} TFLOP/s against a peak of {r['peak_tflop_per_s']} "
        "TFLOP/s measured in the same run.",
        "",
        "The judge process's own work per pair with the model left out (tokenizing, packing, padding): what caps a",
        "run whose model is fast (a GPU) once workers do the text side (`--workers`):",
        "",
        "| who does what | microseconds per pair |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in r.get("feed_us_per_pair", {}).items()],
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
