"""What a result was measured on: hardware, library versions, the model and a hash of its weights.

Nothing here records a filesystem path of the machine: results are committed, and a path says
nothing to a reader on another machine.
"""

from __future__ import annotations

import hashlib
import os
import platform
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["describe_machine", "weights_sha256"]


def _cpu_model() -> str:
    # platform.processor() is empty on most Linux builds; /proc/cpuinfo names the part.
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe_machine() -> dict:
    import torch
    import transformers

    gpu = None
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        gpu = {
            "name": props.name,
            "count": torch.cuda.device_count(),
            "memory_gib": round(props.total_memory / 2**30, 1),
            "cuda": torch.version.cuda,
        }
    return {
        "date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu": _cpu_model(),
        "cpu_cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "gpu": gpu,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "os": f"{platform.system()} {platform.release()}",
    }


def weights_sha256(model_dir: Path) -> str:
    """sha256 over the model's safetensors files (sorted by name): identifies the exact weights."""
    digest = hashlib.sha256()
    for path in sorted(model_dir.glob("*.safetensors")):
        digest.update(path.name.encode())
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
