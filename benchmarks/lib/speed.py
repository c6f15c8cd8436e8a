"""Throughput of the judge on realistic RAG pairs: a claim against a 100-200 token passage.

Passages are runs of consecutive lines of WiCE cited articles (real web text) and claims are
the WiCE claims, so the token lengths look like a metric's windows, not like SNLI.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import torch

from localeval.judge.nli import NLIJudge

__all__ = ["realistic_pairs", "measure_throughput"]


def realistic_pairs(data: Path, judge: NLIJudge, n: int, low: int = 100, high: int = 200) -> list[tuple[str, str]]:
    """Up to ``n`` distinct (passage, claim) pairs with passages of ``low``-``high`` tokens."""
    pairs: list[tuple[str, str]] = []
    with (data / "meta-eval/wice/claim/dev.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    for row in rows:
        lines = [line for line in row["evidence"] if len(line.split()) >= 5]
        counts = judge.count_tokens_batch(lines)
        passage: list[str] = []
        size = 0
        for line, tokens in zip(lines, counts):
            if size + tokens > high:
                passage, size = [], 0  # a line that overflows starts a fresh passage
                if tokens > high:
                    continue
            passage.append(line)
            size += tokens
            if size >= low:
                pairs.append((" ".join(passage), row["claim"]))
                passage, size = [], 0
                if len(pairs) >= n:
                    return pairs
    return pairs


def measure_throughput(
    judge: NLIJudge, pairs: list[tuple[str, str]], batch_size: int = 32, repeats: int = 1
) -> dict:
    """Pairs per second of ``judge.entailment_probability`` (after one warm-up batch)."""
    judge.entailment_probability(pairs[:batch_size], batch_size=batch_size)  # warm-up: kernels, caches
    if judge.device.type == "cuda":
        torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        judge.entailment_probability(pairs, batch_size=batch_size)
        if judge.device.type == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    tokens = [len(ids) for ids in judge.tokenizer([p for p, _ in pairs], [h for _, h in pairs])["input_ids"]]
    return {
        # Other processes on the machine slow a CPU measurement down: the load says how busy it was.
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "device": judge.device.type,
        "dtype": str(next(judge.model.parameters()).dtype).replace("torch.", ""),
        "batch_size": batch_size,
        "pairs": len(pairs),
        "mean_tokens_per_pair": round(sum(tokens) / len(tokens), 1),
        "seconds": round(best, 3),
        "pairs_per_second": round(len(pairs) / best, 1),
        "torch_threads": torch.get_num_threads(),
    }
