"""Scores as test assertions, for pytest (in the spirit of DeepEval's ``assert_test``).

```python
from localeval import Sample
from localeval.testing import assert_scores

def test_answers_stay_grounded():
    assert_scores("tests/data/golden.jsonl", {"faithfulness": 0.7, "context_recall": 0.8})

def test_one_answer():
    sample = Sample(response="Paris is in France.", retrieved_contexts=["Paris is the capital of France."])
    assert_scores(sample, {"faithfulness": 0.9})
```

By default every row must reach each metric's minimum (a row that cannot be scored fails
too, with its reason); ``mean=True`` checks the means instead. The `AssertionError` names
each failing row with its score and what explains it (the claims no context supports, the
reason it went unscored), so a failing CI job says why without opening a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from localeval.metrics.base import MetricResult
from localeval.runner.evaluate import EvaluationResult, evaluate
from localeval.runner.summary import plural
from localeval.schema import Sample

__all__ = ["assert_scores"]

_SHOWN = 5  # failing rows listed per metric
_EXPLAINERS = ("unsupported_claims", "missing_claims")


def _why(result: MetricResult) -> str:
    if result.score is None:
        return f"unscored: {result.reason}"
    for attribute in _EXPLAINERS:
        items = getattr(result, attribute, None)
        if items:
            more = f" (+{len(items) - 3} more)" if len(items) > 3 else ""
            return f"{attribute.replace('_', ' ')}: " + "; ".join(repr(str(i)[:200]) for i in items[:3]) + more
    return result.reason or ""


_ID_COLUMNS = ("id", "sample_id", "question_id", "qid", "_id")


def _row_name(row: Any) -> str:
    """A row as its reader knows it: its ``id`` when it has one (line numbers move when a
    file is edited), with the line; else the line."""
    for column in _ID_COLUMNS:
        value = row.data.get(column) if isinstance(row.data, Mapping) else None
        if value is not None and str(value).strip():
            return f"id {str(value)[:60]!r} (line {row.line})"
    return f"row {row.line}"


def _rows(data: Any) -> Any:
    # One row (a Sample or a dict of fields) is a dataset of one.
    if isinstance(data, (Sample, Mapping)):
        return [data]
    return data


def assert_scores(
    data: Any,
    minimums: Mapping[str, float],
    *,
    mean: bool = False,
    allow_unscored: bool = False,
    **options: Any,
) -> EvaluationResult:
    """Score ``data`` and raise `AssertionError` unless every metric reaches its minimum.

    Args:
        data: one row (a `Sample` or a dict) or anything `localeval.evaluate` reads (a list
            of rows, a DataFrame, a Hugging Face or RAGAS dataset, a JSONL/CSV/Parquet path).
        minimums: metric name (ours or a RAGAS alias) -> lowest acceptable score, in [0, 1].
        mean: compare each metric's mean over the scored rows instead of every row's score.
        allow_unscored: rows a metric cannot score (missing column, nothing to check) pass
            instead of failing. A metric that scores no row at all always fails.
        options: passed to `localeval.evaluate` (``model``, ``thresholds``, ``column_map`` ...).

    Returns:
        the `EvaluationResult`, for further checks.
    """
    # pytest shows no source of this helper in a failure: the message is the report.
    __tracebackhide__ = True
    if not minimums:
        raise ValueError("assert_scores needs at least one metric: {'faithfulness': 0.7}")
    for name, bound in minimums.items():
        if not 0.0 <= float(bound) <= 1.0:
            raise ValueError(f"minimum for {name!r} must be in [0, 1], got {bound}")
    options.setdefault("show_progress", False)
    result = evaluate(_rows(data), list(minimums), **options)
    problems: list[str] = []
    for name, bound in zip(result.metrics, minimums.values()):
        summary = result.summary()[name]
        if summary.scored == 0:
            problems.append(f"{name}: no row could be scored ({', '.join(summary.reasons) or 'no rows'})")
            continue
        if mean:
            if summary.mean is not None and summary.mean < bound:
                problems.append(f"{name}: mean {summary.mean:.4f} < {bound} over {plural(summary.scored, 'scored row')}")
            if not allow_unscored and summary.unscored:
                problems.append(f"{name}: {plural(summary.unscored, 'row')} unscored ({', '.join(summary.reasons)})")
            continue
        failing = [
            (_row_name(row), r) for row in result.rows
            if ((r := row.results[name]).score is None and not allow_unscored) or (r.score is not None and r.score < bound)
        ]
        if failing:
            lines = [f"{name}: {len(failing)} of {plural(len(result), 'row')} under {bound}"]
            for where, r in failing[:_SHOWN]:
                shown = "n/a" if r.score is None else f"{r.score:.4f}"
                lines.append(f"  {where}: {shown}  {_why(r)}")
            if len(failing) > _SHOWN:
                lines.append(f"  ... and {len(failing) - _SHOWN} more")
            problems.append("\n".join(lines))
    if problems:
        raise AssertionError("localeval scores below the minimum:\n" + "\n".join(problems))
    return result
