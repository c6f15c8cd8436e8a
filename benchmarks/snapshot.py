"""Scores before and after a refactor: every metric on ``examples/`` and on a sample of the
agreement harness's development items, written to one JSON file, and compared with another.

A change that should not move any score (a refactor, a package move, a rename) is checked with

    python -m benchmarks.snapshot --output /tmp/before.json          # on the old tree
    python -m benchmarks.snapshot --output /tmp/after.json --compare /tmp/before.json

which lists every value that differs (none: exit 0; some: exit 1). Floats are compared as
written by ``repr`` (byte-identical), so a change in the last bit is a difference.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.agreement.__main__ import REPO_ROOT
from benchmarks.lib.cli import meta_eval_dir

# Every metric by its own name; the retrieval metric needs ids the examples do not all carry,
# so it is scored only where a row has them (the runner marks the others unscored, with a reason).
METRICS = (
    "context_recall", "faithfulness", "chunk_recall", "context_precision", "precision_recall",
    "context_entity_recall", "retrieval", "context_relevance", "question_recall",
    "factual_correctness", "answer_relevancy", "semantic_similarity", "answer_correctness",
    "ragchecker", "trace_utilization", "trace_completeness",
)


def plain(value: Any, depth: int = 0) -> Any:
    """JSON-ready copy of a result object: dataclasses, pydantic models, arrays, floats by repr."""
    if depth > 12:
        return repr(value)
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, (float, np.floating)):
        return "nan" if math.isnan(value) else repr(float(value))
    if isinstance(value, np.ndarray):
        return [plain(v, depth + 1) for v in value.tolist()]
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(), depth + 1)
    return repr(value)


def score_examples() -> dict[str, Any]:
    """Every metric on every row of every examples/ file, details included."""
    from localeval import evaluate

    out: dict[str, Any] = {}
    for path in sorted((REPO_ROOT / "examples").glob("*.jsonl")):
        result = evaluate(str(path), metrics=list(METRICS), show_progress=False)
        out[path.name] = {name: plain(result.results(name)) for name in result.metrics}
    return out


def score_development(limit: int) -> dict[str, Any]:
    """The agreement harness's per-item results on its first ``limit`` items of every set."""
    from benchmarks.agreement.run import run_agreement

    data = meta_eval_dir()
    state = run_agreement(data, limit=limit, log=lambda _msg: None)
    keep = ("rb_results", "binary_sets", "frank_set", "answers", "ablation")
    return {k: plain(state[k]) for k in keep}


def differences(before: Any, after: Any, where: str = "") -> list[str]:
    """Every path at which two snapshots differ (type, length, key or value)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = [f"{where}/{k}: only before" for k in before.keys() - after.keys()]
        out += [f"{where}/{k}: only after" for k in after.keys() - before.keys()]
        for k in sorted(before.keys() & after.keys()):
            out += differences(before[k], after[k], f"{where}/{k}")
        return out
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return [f"{where}: {len(before)} items before, {len(after)} after"]
        return [d for i, (b, a) in enumerate(zip(before, after)) for d in differences(b, a, f"{where}[{i}]")]
    return [] if before == after else [f"{where}: {before!r} -> {after!r}"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.snapshot", description=__doc__.split("\n\n")[0])
    p.add_argument("--output", type=Path, required=True, help="where the snapshot JSON is written")
    p.add_argument("--compare", type=Path, default=None, help="an earlier snapshot to compare with")
    p.add_argument("--limit-per-set", type=int, default=8, help="development items per set (default: %(default)s)")
    args = p.parse_args(argv)
    snap = {"examples": score_examples(), "development": score_development(args.limit_per_set)}
    args.output.write_text(json.dumps(snap, indent=1, sort_keys=True), encoding="utf-8")
    if args.compare is None:
        return 0
    found = differences(json.loads(args.compare.read_text(encoding="utf-8")), json.loads(args.output.read_text(encoding="utf-8")))
    for line in found[:200]:
        print(line)
    print(f"{len(found)} difference(s) from {args.compare.name}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
