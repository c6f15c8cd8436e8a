"""Score a JSON Lines dataset with a set of metrics, in chunks, writing rows as they finish."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel
from tqdm.auto import tqdm

from localeval.metrics.base import Metric, MetricResult
from localeval.runner.rows import Row, count_lines, read_jsonl

__all__ = ["MetricSummary", "RunSummary", "score_rows", "score_file"]


class MetricSummary(BaseModel):
    metric: str
    mean: float | None
    """Mean over scored rows only; ``None`` when no row could be scored."""
    scored: int
    unscored: int
    reasons: dict[str, int]
    """Why rows went unscored, with counts."""


class RunSummary(BaseModel):
    rows: int
    metrics: list[MetricSummary]


def _chunks(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    iterator = iter(rows)
    while chunk := list(islice(iterator, size)):
        yield chunk


def score_rows(
    rows: Iterable[Row], metrics: Sequence[Metric], *, chunk_size: int = 256
) -> Iterator[tuple[Row, dict[str, MetricResult]]]:
    """Each row with its result per metric; a row with an error gets unscored results."""
    for chunk in _chunks(rows, chunk_size):
        valid = [r for r in chunk if r.sample is not None]
        per_metric: dict[str, dict[int, MetricResult]] = {}
        for metric in metrics:
            per_metric[metric.name] = _score_chunk(metric, valid)
        for row in chunk:
            yield row, {
                m.name: per_metric[m.name].get(id(row)) or m.unscored(row.error or "unscorable row")
                for m in metrics
            }


def _score_chunk(metric: Metric, rows: list[Row]) -> dict[int, MetricResult]:
    """Results keyed by ``id(row)``. If the batched call fails, rows are retried one by one so
    that one bad row costs only itself, and its failure is reported as its reason."""
    if not rows:
        return {}
    try:
        return {id(r): res for r, res in zip(rows, metric.score_many([r.sample for r in rows]))}
    except Exception:  # noqa: BLE001 - isolate the failing row below
        pass
    out: dict[int, MetricResult] = {}
    for row in rows:
        try:
            out[id(row)] = metric.score_many([row.sample])[0]
        except Exception as exc:  # noqa: BLE001 - a row's failure must not end the run
            out[id(row)] = metric.unscored(f"error: {type(exc).__name__}: {exc}")
    return out


def result_fields(result: MetricResult) -> dict[str, Any]:
    name = result.metric
    return {name: result.score, f"{name}_reason": result.reason, f"{name}_details": result.details()}


def _summarise(metric: str, scores: list[float], reasons: dict[str, int]) -> MetricSummary:
    finite = [s for s in scores if s is not None and math.isfinite(s)]
    return MetricSummary(
        metric=metric,
        mean=sum(finite) / len(finite) if finite else None,
        scored=len(finite),
        unscored=sum(reasons.values()),
        reasons=reasons,
    )


def score_file(
    input_path: str | Path,
    output: TextIO,
    metrics: Sequence[Metric],
    *,
    chunk_size: int = 256,
    show_progress_bar: bool = True,
) -> RunSummary:
    """Score every row of ``input_path``; write one JSON line per input row to ``output``."""
    total = count_lines(input_path)
    scores: dict[str, list[float]] = {m.name: [] for m in metrics}
    reasons: dict[str, dict[str, int]] = {m.name: {} for m in metrics}
    n = 0
    with tqdm(total=total, disable=not show_progress_bar, desc="scoring", unit="row") as bar:
        for row, results in score_rows(read_jsonl(input_path), metrics, chunk_size=chunk_size):
            out = dict(row.data)
            if row.error:
                out["_error"] = row.error
            for name, result in results.items():
                out.update(result_fields(result))
                if result.score is None:
                    key = (result.reason or "unknown").split(":")[0]
                    reasons[name][key] = reasons[name].get(key, 0) + 1
                else:
                    scores[name].append(result.score)
            output.write(json.dumps(out, ensure_ascii=False) + "\n")
            n += 1
            bar.update(1)
    return RunSummary(rows=n, metrics=[_summarise(m, scores[m], reasons[m]) for m in scores])
