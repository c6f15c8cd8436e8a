"""Process-wide settings of the CPU kernels the judges run on.

PyTorch runs a judge's matrix products on CPU through oneDNN, which keeps the kernels it
compiled, one per input shape, in a cache of 1,024 by default. A judge meets a new shape with
almost every batch (pairs are padded to their batch's longest pair, so the length varies), so
over a long run that cache fills with kernels and their buffers: on 2 CPU cores, 400 judge
batches of varied lengths left RSS ~250 MB higher with the default than with a cache of 16,
at the same speed (compiling a kernel costs far less than running it; measured in
benchmarks/results/kernel_cache.md).

The capacity is read by oneDNN when it first compiles a kernel, so `bound_kernel_cache` runs
when `localeval.judge` is imported, before any judge is loaded. A value the user set in the
environment is kept, and a process that ran PyTorch CPU work before importing localeval keeps
the capacity it started with.
"""

from __future__ import annotations

import os

__all__ = ["ONEDNN_CACHE_CAPACITY", "ONEDNN_CACHE_ENV", "bound_kernel_cache", "pack_bf16_linears"]

ONEDNN_CACHE_ENV = "ONEDNN_PRIMITIVE_CACHE_CAPACITY"
ONEDNN_CACHE_CAPACITY = 16


def bound_kernel_cache() -> None:
    """Cap oneDNN's kernel cache at `ONEDNN_CACHE_CAPACITY`, unless the environment sets it."""
    os.environ.setdefault(ONEDNN_CACHE_ENV, str(ONEDNN_CACHE_CAPACITY))


# ------------------------------------------------------------------ bf16 linear layers on CPU
# Why. On a CPU with AMX / AVX512-BF16, a bf16 ``nn.Linear`` with a bias runs as ``addmm``,
# which first copies the bias into every row of the output and then lets the matrix product
# add onto it: on the judge's shapes that copy took as long as the product itself (``aten::
# copy_`` was 26 % of a forward pass under the profiler, benchmarks/results/judge_time.md).
# oneDNN's own linear kernel adds the bias inside the product, on a weight laid out once in
# its blocked format. It computes the same sums and rounds once, as ``addmm`` does, so the
# outputs are the same bits (checked below on every judge at load, and in
# tests/test_packed_linear.py); only the bias copy and the per-call weight reorder go.
# Activations (GELU) and residual adds are NOT fused: fusing them skips a bf16 rounding and
# moved probabilities by up to 0.017, beyond the 1e-3 a bf16 run promises.

_PACK_ROWS_HINT = 4096
"""Rows (batch x tokens) oneDNN tunes the packed weight's layout for: a judge batch of 32
pairs of ~128 tokens. Other row counts run on the same packed weight."""


def _packed_ops_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    ops = getattr(torch.ops, "mkldnn", None)
    return bool(torch.backends.mkldnn.is_available() and ops is not None
                and hasattr(ops, "_reorder_linear_weight") and hasattr(ops, "_linear_pointwise"))


def _packed_linear_class():
    import torch

    class _PackedLinear(torch.nn.Module):
        """``nn.Linear`` in bf16 through oneDNN's linear kernel on a pre-packed weight."""

        def __init__(self, linear: torch.nn.Linear) -> None:
            super().__init__()
            self.in_features, self.out_features = linear.in_features, linear.out_features
            weight = linear.weight.detach()
            self.register_buffer("packed_weight", torch.ops.mkldnn._reorder_linear_weight(weight, _PACK_ROWS_HINT),
                                 persistent=False)
            bias = linear.bias.detach() if linear.bias is not None else None
            self.register_buffer("bias", bias, persistent=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.ops.mkldnn._linear_pointwise(x, self.packed_weight, self.bias, "none", [], "")

    return _PackedLinear


_PROBE_ROWS = (*range(1, 72), 96, 127, 128, 129, 200, 256, 300, 512)
"""Row counts a layer shape is checked on before it is packed. With a 1,536-wide input (the
judge's feed-forward output) the two kernels split the sum differently at some row counts
(33, 36, 48, 128, 256... on an AMX Xeon) and the last bit moves; with 384-wide inputs no
probed count differed."""


def _same_as_linear(linear, packed) -> bool:
    """Whether the packed layer gives ``linear``'s bits on every probed row count."""
    import torch

    gen = torch.Generator().manual_seed(0)
    with torch.inference_mode():
        for rows in _PROBE_ROWS:
            x = torch.randn(rows, linear.in_features, generator=gen).to(torch.bfloat16)
            if not torch.equal(linear(x), packed(x)):
                return False
    return True


def pack_bf16_linears(model) -> int:
    """Replace ``model``'s bf16 ``nn.Linear`` layers (on the CPU) by `_PackedLinear`, for each
    layer shape whose packed output is bit for bit the plain layer's on every probed row count
    (`_PROBE_ROWS`); the number replaced. Nothing is replaced where oneDNN's ops are missing.
    Set ``LOCALEVAL_PACKED_LINEAR=0`` to turn it off."""
    import torch

    if os.environ.get("LOCALEVAL_PACKED_LINEAR", "1") == "0" or not _packed_ops_available():
        return 0
    targets = [(parent, name, child) for parent in model.modules() for name, child in parent.named_children()
               if type(child) is torch.nn.Linear and child.weight.dtype == torch.bfloat16
               and child.weight.device.type == "cpu"]
    cls = _packed_linear_class()
    same: dict[tuple[int, int, bool], bool] = {}
    replaced = 0
    for parent, name, child in targets:
        shape = (child.in_features, child.out_features, child.bias is not None)
        packed = cls(child)
        if shape not in same:
            try:
                same[shape] = _same_as_linear(child, packed)
            except RuntimeError:  # a oneDNN build without this bf16 kernel
                same[shape] = False
        if same[shape]:
            setattr(parent, name, packed)
            replaced += 1
    return replaced
