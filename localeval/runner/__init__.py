"""Dataset runner: read rows, score them in batches with several metrics, summarise."""

from localeval.runner.rows import Row, read_jsonl
from localeval.runner.run import MetricSummary, RunSummary, score_file, score_rows

__all__ = ["MetricSummary", "Row", "RunSummary", "read_jsonl", "score_file", "score_rows"]
