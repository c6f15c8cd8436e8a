"""Which floating-point format a judge computes in.

``auto`` keeps the reference formats: fp32 on CPU (bit-stable whatever the batch size) and fp16
on CUDA. ``bf16`` on a CPU with native bfloat16 instructions (AVX512-BF16 or AMX) runs the
judge 2-3x as fast at a small cost: probabilities move by about 4e-4 on average (at most
about 0.02 measured), and a pair's probability may move by about 1e-3 with the batch it is
padded with, so a bf16 run is not bit-identical to a per-row run. benchmarks/results/precision.md has the measurements.
"""

from __future__ import annotations

import platform
from functools import lru_cache

import torch

PRECISIONS = ("auto", "fp32", "bf16", "fp16")

__all__ = ["PRECISIONS", "cpu_has_native_bf16", "resolve_dtype"]


@lru_cache(maxsize=1)
def cpu_has_native_bf16() -> bool:
    """True when this CPU computes bfloat16 matrix products in hardware (AVX512-BF16 or AMX on
    x86 Linux). Elsewhere bf16 is emulated and slower than fp32, so the answer is False."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            flags = next((line for line in fh if line.startswith("flags")), "")
    except OSError:
        return False
    words = set(flags.split())
    return bool(words & {"avx512_bf16", "amx_bf16"})


def resolve_dtype(precision: str | None, device: torch.device) -> torch.dtype:
    """The torch dtype for ``precision`` on ``device``; a clear error for a pairing that cannot
    work or would be slower than the reference (fp16 on CPU, bf16 on a CPU without it)."""
    choice = (precision or "auto").lower()
    if choice not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
    if choice == "auto":
        return torch.float16 if device.type == "cuda" else torch.float32
    if choice == "fp32":
        return torch.float32
    if choice == "fp16":
        if device.type != "cuda":
            raise ValueError("precision fp16 needs a CUDA device; on CPU use fp32 or bf16")
        return torch.float16
    if device.type == "cpu" and not cpu_has_native_bf16():
        raise ValueError(
            "precision bf16 on this CPU would be emulated (no AVX512-BF16 / AMX) and slower "
            "than fp32; use fp32"
        )
    return torch.bfloat16
