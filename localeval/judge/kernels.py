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

__all__ = ["ONEDNN_CACHE_CAPACITY", "ONEDNN_CACHE_ENV", "bound_kernel_cache"]

ONEDNN_CACHE_ENV = "ONEDNN_PRIMITIVE_CACHE_CAPACITY"
ONEDNN_CACHE_CAPACITY = 16


def bound_kernel_cache() -> None:
    """Cap oneDNN's kernel cache at `ONEDNN_CACHE_CAPACITY`, unless the environment sets it."""
    os.environ.setdefault(ONEDNN_CACHE_ENV, str(ONEDNN_CACHE_CAPACITY))
