"""Per-metric summaries of a run: every row counted, never a NaN.

A row with no score is not an average's silent hole: it is counted as unscored under its
reason (the text before the first colon, e.g. ``missing required column(s)``), and the full
reason stays on the row itself.
"""

from __future__ import annotations

import math
import statistics

from pydantic import BaseModel

__all__ = ["MetricSummary", "RunSummary", "SummaryBuilder", "plural", "reason_key"]


def plural(n: int, word: str) -> str:
    """``"1 row"``, ``"2 rows"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class MetricSummary(BaseModel):
    metric: str
    mean: float | None
    """Mean over scored rows only; ``None`` (never NaN) when no row could be scored."""
    median: float | None = None
    std: float | None = None
    """Population standard deviation of the scores (0.0 for a single score)."""
    scored: int
    unscored: int
    reasons: dict[str, int]
    """Why rows went unscored, with counts."""


class RunSummary(BaseModel):
    rows: int
    metrics: list[MetricSummary]
    rows_with_warnings: int = 0
    """Rows scored with a warning (a language the judge was not trained on): see each row's ``_warnings``."""
    warnings: dict[str, int] = {}
    """Warnings by kind (the text before the first colon), with counts."""

    def __getitem__(self, metric: str) -> MetricSummary:
        for m in self.metrics:
            if m.metric == metric:
                return m
        raise KeyError(metric)

    def headline(self) -> str:
        """"5 rows scored", or what was not: "3 rows read, none scored", "5 rows read; scored:
        faithfulness 4, context_recall 5" (a title must not say rows were scored that were not)."""
        read = plural(self.rows, "row")
        counts = [m.scored for m in self.metrics]
        if self.rows and counts and all(n == self.rows for n in counts):
            return f"{read} scored"
        if not any(counts):
            return f"{read} read, none scored"
        if len(self.metrics) == 1:
            return f"{read} read, {counts[0]} scored"
        return f"{read} read; scored: " + ", ".join(f"{m.metric} {m.scored}" for m in self.metrics)

    def __str__(self) -> str:
        """The table `to_table` draws, as text: ``print(result.summary())`` reads like the CLI."""
        import io

        from rich.console import Console

        console = Console(file=io.StringIO(), width=120, color_system=None, force_terminal=False)
        console.print(self.to_table(title=f"{plural(self.rows, 'row')}"))
        return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())

    def to_table(self, title: str | None = None):
        """The summary as a Rich table (what the CLI prints)."""
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        for header, justify in [("metric", "left"), ("mean", "right"), ("median", "right"), ("std", "right"),
                                ("scored", "right"), ("unscored", "right"), ("unscored because", "left")]:
            table.add_column(header, justify=justify)  # type: ignore[arg-type]

        def fmt(x: float | None) -> str:
            return "n/a" if x is None else f"{x:.4f}"

        for m in self.metrics:
            why = "\n".join(f"{n} x {r}" for r, n in sorted(m.reasons.items(), key=lambda kv: (-kv[1], kv[0])))
            table.add_row(m.metric, fmt(m.mean), fmt(m.median), fmt(m.std), str(m.scored), str(m.unscored), why)
        if self.rows_with_warnings:
            kinds = "; ".join(f"{n} x {w}" for w, n in sorted(self.warnings.items(), key=lambda kv: (-kv[1], kv[0])))
            table.caption = f"{plural(self.rows_with_warnings, 'row')} with warnings: {kinds}"
            table.caption_justify = "left"
        return table


def reason_key(reason: str | None) -> str:
    return (reason or "unknown").split(":")[0]


class SummaryBuilder:
    """Collects scores and unscored reasons as rows finish (floats only: bounded by rows)."""

    def __init__(self, metrics: list[str]) -> None:
        self.rows = 0
        self.rows_with_warnings = 0
        self._warnings: dict[str, int] = {}
        self._scores: dict[str, list[float]] = {m: [] for m in metrics}
        self._reasons: dict[str, dict[str, int]] = {m: {} for m in metrics}

    def add(self, metric: str, score: float | None, reason: str | None) -> None:
        if score is not None and math.isfinite(score):
            self._scores[metric].append(float(score))
        else:
            key = reason_key(reason)
            self._reasons[metric][key] = self._reasons[metric].get(key, 0) + 1

    def warn(self, warnings: list[str]) -> None:
        if warnings:
            self.rows_with_warnings += 1
        for warning in warnings:
            key = reason_key(warning)  # "language German (de)"
            self._warnings[key] = self._warnings.get(key, 0) + 1

    def build(self) -> RunSummary:
        out = []
        for metric, scores in self._scores.items():
            out.append(
                MetricSummary(
                    metric=metric,
                    mean=statistics.fmean(scores) if scores else None,
                    median=statistics.median(scores) if scores else None,
                    std=statistics.pstdev(scores) if scores else None,
                    scored=len(scores),
                    unscored=sum(self._reasons[metric].values()),
                    reasons=dict(self._reasons[metric]),
                )
            )
        return RunSummary(rows=self.rows, metrics=out, rows_with_warnings=self.rows_with_warnings, warnings=dict(self._warnings))
