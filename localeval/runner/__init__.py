"""Dataset runner: read rows from any source, score them in chunks with several metrics
(batched across rows, judge verdicts memoised and optionally cached on disk), stream the
results out, resume killed runs, summarise. The design is described in `localeval.runner.run`.

What this package exports is the runner's public API: the reports, the CLI and users read runs
through these names, never through the runner's modules (tests/test_layering.py checks it for
the reports)."""

from localeval.runner.columns import ColumnMap
from localeval.runner.evaluate import EvaluationResult, RowResult, aevaluate, evaluate, score_dataset
from localeval.runner.guard import record_path, staging_path
from localeval.runner.human import LabelError, human_column, read_label
from localeval.runner.reading import csv_records
from localeval.runner.rows import Row, read_jsonl
from localeval.runner.run import MetricSummary, RunSummary, resolve_metrics, score_file, score_rows
from localeval.runner.summary import SummaryBuilder, plural

__all__ = [
    "ColumnMap",
    "EvaluationResult",
    "LabelError",
    "MetricSummary",
    "Row",
    "RowResult",
    "RunSummary",
    "SummaryBuilder",
    "aevaluate",
    "csv_records",
    "evaluate",
    "human_column",
    "plural",
    "read_jsonl",
    "read_label",
    "record_path",
    "resolve_metrics",
    "score_dataset",
    "score_file",
    "score_rows",
    "staging_path",
]
