"""Dataset runner: read rows from any source, score them in chunks with several metrics
(batched across rows, judge verdicts memoised and optionally cached on disk), stream the
results out, resume killed runs, summarise. The design is described in `localeval.runner.run`."""

from localeval.runner.columns import ColumnMap
from localeval.runner.evaluate import EvaluationResult, RowResult, aevaluate, evaluate, score_dataset
from localeval.runner.rows import Row, read_jsonl
from localeval.runner.run import MetricSummary, RunSummary, resolve_metrics, score_file, score_rows

__all__ = [
    "ColumnMap",
    "EvaluationResult",
    "MetricSummary",
    "Row",
    "RowResult",
    "RunSummary",
    "aevaluate",
    "evaluate",
    "read_jsonl",
    "resolve_metrics",
    "score_dataset",
    "score_file",
    "score_rows",
]
