"""Writing what a benchmark measured: its JSON and markdown result files. One place, so every
benchmark's files look alike. (Thresholds a benchmark chose go into a judge's config.json
through `localeval.training.export.store_thresholds`.)"""

from __future__ import annotations

import json
import lzma
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["command_line", "finite", "portable_path", "publish", "read_data", "write_data", "write_results"]

REPO_ROOT = Path(__file__).resolve().parents[2]


def portable_path(path: Path | str) -> str:
    """A path as it may appear in committed results: relative to the repository (``../shared/data``
    for the data beside it), never a machine's absolute path."""
    path = Path(path)
    if not path.is_absolute():
        return str(path)
    try:
        return os.path.relpath(path, REPO_ROOT)
    except ValueError:  # another drive (Windows)
        return path.name


def command_line(program: str, argv: list[str]) -> str:
    """The command a result file names: ``program`` and its arguments, absolute paths made
    portable."""
    return " ".join([program, *(portable_path(a) if os.path.isabs(a) else a for a in argv)])


def finite(value: Any) -> Any:
    """NaN / inf (a one-class sample has no AUROC) become None: strict JSON has no NaN."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        return None
    return value


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def write_results(output: Path, result: dict[str, Any], markdown: str) -> None:
    """``output`` (JSON, non-finite numbers as null) and the markdown report beside it (.md)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(finite(result), indent=2, default=_json_default, allow_nan=False)
    output.write_text(text + "\n", encoding="utf-8")
    output.with_suffix(".md").write_text(markdown, encoding="utf-8")


def publish(output: Path, result: dict[str, Any], markdown: str) -> None:
    """What a benchmark run ends with: its result files written (`write_results`), and the
    markdown report printed for the one who ran it."""
    write_results(output, result, markdown)
    print(markdown)


def read_data(path: Path) -> Any:
    """A JSON data file one benchmark writes for another to read (signals, dumped scores),
    xz-compressed when its name ends in ``.xz``."""
    path = Path(path)
    if path.suffix == ".xz":
        with lzma.open(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    return json.loads(path.read_text(encoding="utf-8"))


def write_data(path: Path, data: Any) -> None:
    """``data`` as one line of JSON, xz-compressed when the name ends in ``.xz``. The large ones
    are committed compressed: every device call carries the whole tree within 64 MiB, and
    what the tree takes each call cannot carry (benchmarks/gpu_session.sh)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, default=_json_default) + "\n"
    if path.suffix == ".xz":
        with lzma.open(path, "wt", encoding="utf-8", preset=9) as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
