"""Floating-point work of a BERT-style cross-encoder forward pass, for achieved-FLOP/s figures.

Per layer and sequence of n tokens, hidden size d and feed-forward size f (multiply-add = 2 FLOPs):
Q, K, V and output projections 8·n·d², feed-forward 4·n·d·f, attention scores and their
weighted sum 4·n²·d. Embeddings, layer norms, softmax and the classifier are left out (under 1 %
here). Counted on each pair's real length: padding is work the GPU does but not useful work,
so the figure says how well batching avoids it.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["H100_DENSE_BF16_PEAK", "encoder_flops", "encoder_flops_from_sums"]

H100_DENSE_BF16_PEAK = 800e12
"""The bulk-scoring issue's round figure for one H100's dense bf16/fp16 tensor-core peak
(NVIDIA lists 989 TFLOP/s for the SXM part and 756 for PCIe, without sparsity)."""


def encoder_flops(lengths: Iterable[int], *, layers: int, hidden: int, intermediate: int) -> float:
    total = 0.0
    for n in lengths:
        total += layers * (8 * n * hidden**2 + 4 * n * hidden * intermediate + 4 * n * n * hidden)
    return total


def encoder_flops_from_sums(tokens: int, tokens_squared: int, *, layers: int, hidden: int, intermediate: int) -> float:
    """`encoder_flops` from the sum of the lengths and the sum of their squares (what a
    `JudgeSession`'s counters keep): the same number, without the lengths themselves."""
    return float(layers * ((8 * hidden**2 + 4 * hidden * intermediate) * tokens + 4 * hidden * tokens_squared))
