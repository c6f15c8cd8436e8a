"""Per-metric summaries of a run: every row counted, never a NaN.

A row with no score is not an average's silent hole: it is counted as unscored under its
reason (the text before the first colon, e.g. ``missing required column(s)``), and the full
reason stays on the row itself.

Each mean comes with a 95 % percentile bootstrap interval over the scored rows (seeded, so the
same scores give the same interval; `bootstrap_settings` changes the number of resamples).
Unscored rows are counted, never resampled as zeros. Rows carrying a human label for a metric
(``human_<metric>``, `localeval.runner.human`) add the labels-only mean and the
prediction-powered (PPI++) estimate of the mean a human would give over all scored rows.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic import BaseModel

from localeval.stats.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_mean
from localeval.stats.ppi import MIN_LABELS, classical_mean, ppi_mean

__all__ = ["HumanEstimate", "MetricSummary", "RunSummary", "SummaryBuilder", "bootstrap_settings", "plural",
           "reason_key"]

_BOOTSTRAP: ContextVar[tuple[int, int]] = ContextVar("localeval_bootstrap", default=(DEFAULT_RESAMPLES, DEFAULT_SEED))


@contextmanager
def bootstrap_settings(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Iterator[None]:
    """Summaries built inside use ``resamples`` bootstrap resamples drawn from ``seed``
    (`localeval score --resamples`): a setting of the run, not of each call that builds one."""
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    token = _BOOTSTRAP.set((int(resamples), int(seed)))
    try:
        yield
    finally:
        _BOOTSTRAP.reset(token)


def plural(n: int, word: str) -> str:
    """``"1 row"``, ``"2 rows"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class HumanEstimate(BaseModel):
    """What the rows' human labels say about a metric's mean (see `localeval.stats.ppi`)."""

    labelled: int
    """Rows with a label and a score (the labels used)."""
    labelled_unscored: int = 0
    """Rows with a label but no score: left out (the estimate is over scored rows)."""
    invalid: int = 0
    """Label cells that were not 0/1 or a number in [0, 1]: left out, counted here."""
    judge_mean_labelled: float | None = None
    """The judge's mean over the labelled rows (beside the labels' mean: the judge's bias there)."""
    labels_mean: float | None = None
    labels_low: float | None = None
    labels_high: float | None = None
    """Labels-only mean with its 95 % normal interval."""
    ppi_mean: float | None = None
    ppi_low: float | None = None
    ppi_high: float | None = None
    """Prediction-powered (PPI++) estimate of the mean a human would give over all scored rows."""
    ppi_lambda: float | None = None
    """PPI++'s weight on the judge (0: labels alone; 1: plain PPI)."""
    note: str | None = None
    """Why there is no estimate (fewer labels than the minimum)."""


class MetricSummary(BaseModel):
    metric: str
    mean: float | None
    """Mean over scored rows only; ``None`` (never NaN) when no row could be scored."""
    ci_low: float | None = None
    ci_high: float | None = None
    """95 % percentile bootstrap interval of the mean, rows resampled (``RunSummary.resamples``)."""
    median: float | None = None
    std: float | None = None
    """Population standard deviation of the scores (0.0 for a single score)."""
    scored: int
    unscored: int
    reasons: dict[str, int]
    """Why rows went unscored, with counts."""
    human: HumanEstimate | None = None
    """Present when some row carries a human label for this metric."""


class RunSummary(BaseModel):
    rows: int
    metrics: list[MetricSummary]
    rows_with_warnings: int = 0
    """Rows scored with a warning (a language the judge was not trained on): see each row's ``_warnings``."""
    warnings: dict[str, int] = {}
    """Warnings by kind (the text before the first colon), with counts."""
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    """Bootstrap resamples of every interval, and the seed they were drawn from."""

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
        """The tables the CLI draws, as text: ``print(result.summary())`` reads like the CLI."""
        import io

        from rich.console import Console

        console = Console(file=io.StringIO(), width=160, color_system=None, force_terminal=False)
        for table in self.tables(title=f"{plural(self.rows, 'row')}"):
            console.print(table)
        return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())

    def tables(self, title: str | None = None) -> list:
        """`to_table`, then `labels_table` when some row carries a human label."""
        labels = self.labels_table()
        return [self.to_table(title=title)] + ([labels] if labels is not None else [])

    def to_table(self, title: str | None = None):
        """The summary as a Rich table (what the CLI prints)."""
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        for header, justify in [("metric", "left"), ("mean", "right"), ("95% CI", "right"), ("median", "right"),
                                ("std", "right"), ("scored", "right"), ("unscored", "right"), ("unscored because", "left")]:
            table.add_column(header, justify=justify, no_wrap=header == "95% CI")  # type: ignore[arg-type]

        for m in self.metrics:
            why = "\n".join(f"{n} x {r}" for r, n in sorted(m.reasons.items(), key=lambda kv: (-kv[1], kv[0])))
            table.add_row(m.metric, _fmt(m.mean), interval_text(m.ci_low, m.ci_high), _fmt(m.median), _fmt(m.std),
                          str(m.scored), str(m.unscored), why)
        table.caption = f"95% CI: bootstrap over the scored rows, {self.resamples} resamples, seed {self.seed}."
        table.caption_justify = "left"
        if self.rows_with_warnings:
            kinds = "; ".join(f"{n} x {w}" for w, n in sorted(self.warnings.items(), key=lambda kv: (-kv[1], kv[0])))
            table.caption += f"\n{plural(self.rows_with_warnings, 'row')} with warnings: {kinds}"
        return table

    def labels_table(self):
        """What the rows' human labels say (`HumanEstimate`), or ``None`` when no row has one."""
        from rich.table import Table

        if not any(m.human is not None for m in self.metrics):
            return None
        table = Table(title="human labels", title_justify="left")
        for header in ("metric", "labelled", "judge on labelled", "labels only [95% CI]", "human over all rows, PPI++ [95% CI]"):
            table.add_column(header, justify="left" if header == "metric" else "right")
        for m in self.metrics:
            if m.human is not None:
                table.add_row(m.metric, *human_cells(m.human))
        table.caption = ("PPI++: the judge's mean over every scored row, corrected by its error on the labelled rows "
                         "(Angelopoulos et al. 2023).")
        table.caption_justify = "left"
        return table


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4f}"


def interval_text(low: float | None, high: float | None) -> str:
    return "n/a" if low is None or high is None else f"[{low:.4f}, {high:.4f}]"


def human_cells(h: HumanEstimate) -> list[str]:
    """The labels table's cells after the metric: count, judge on labelled rows, labels-only, PPI."""
    judged = _fmt(h.judge_mean_labelled)
    if h.ppi_mean is None:
        return [str(h.labelled), judged, h.note or "n/a", ""]
    return [str(h.labelled), judged, f"{h.labels_mean:.4f} {interval_text(h.labels_low, h.labels_high)}",
            f"{h.ppi_mean:.4f} {interval_text(h.ppi_low, h.ppi_high)}"]


def human_estimate(scores: list[float], labelled: list[tuple[int, float]], labelled_unscored: int,
                   invalid: int) -> HumanEstimate:
    """Labels-only and PPI++ estimates; ``labelled``: (index into ``scores``, label) pairs."""
    import numpy as np

    x = np.asarray(scores, dtype=float)
    where = np.zeros(x.size, dtype=bool)
    idx = np.array([i for i, _ in labelled], dtype=int)
    y = np.array([v for _, v in labelled], dtype=float)
    where[idx] = True
    out = HumanEstimate(labelled=len(labelled), labelled_unscored=labelled_unscored, invalid=invalid,
                        judge_mean_labelled=float(x[idx].mean()) if idx.size else None)
    if idx.size < MIN_LABELS:
        return out.model_copy(update={"note": f"fewer than {MIN_LABELS} labelled rows"})
    labels_only, ppi = classical_mean(y), ppi_mean(y, x[idx], x[~where])
    assert labels_only is not None and ppi is not None
    return out.model_copy(update={
        "labels_mean": labels_only.estimate, "labels_low": labels_only.low, "labels_high": labels_only.high,
        "ppi_mean": ppi.estimate, "ppi_low": ppi.low, "ppi_high": ppi.high, "ppi_lambda": ppi.lam,
    })


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
        self._labels: dict[str, list[tuple[int, float]]] = {}
        self._labelled_unscored: dict[str, int] = {}
        self._invalid: dict[str, int] = {}

    def add(self, metric: str, score: float | None, reason: str | None, label: object = None) -> None:
        """Count one row's result; ``label``: the row's ``human_<metric>`` cell, if any."""
        from localeval.runner.human import LabelError, read_label

        try:
            value = read_label(label)
        except LabelError:
            value = None
            self._invalid[metric] = self._invalid.get(metric, 0) + 1
        if score is not None and math.isfinite(score):
            if value is not None:
                self._labels.setdefault(metric, []).append((len(self._scores[metric]), value))
            self._scores[metric].append(float(score))
        else:
            if value is not None:
                self._labelled_unscored[metric] = self._labelled_unscored.get(metric, 0) + 1
            key = reason_key(reason)
            self._reasons[metric][key] = self._reasons[metric].get(key, 0) + 1

    def warn(self, warnings: list[str]) -> None:
        if warnings:
            self.rows_with_warnings += 1
        for warning in warnings:
            key = reason_key(warning)  # "language German (de)"
            self._warnings[key] = self._warnings.get(key, 0) + 1

    def build(self) -> RunSummary:
        resamples, seed = _BOOTSTRAP.get()
        out = []
        for metric, scores in self._scores.items():
            interval = bootstrap_mean(scores, resamples=resamples, seed=seed)
            human = None
            if metric in self._labels or metric in self._labelled_unscored or metric in self._invalid:
                human = human_estimate(scores, self._labels.get(metric, []), self._labelled_unscored.get(metric, 0),
                                       self._invalid.get(metric, 0))
            out.append(
                MetricSummary(
                    metric=metric,
                    mean=statistics.fmean(scores) if scores else None,
                    ci_low=None if interval is None else interval.low,
                    ci_high=None if interval is None else interval.high,
                    median=statistics.median(scores) if scores else None,
                    std=statistics.pstdev(scores) if scores else None,
                    scored=len(scores),
                    unscored=sum(self._reasons[metric].values()),
                    reasons=dict(self._reasons[metric]),
                    human=human,
                )
            )
        return RunSummary(rows=self.rows, metrics=out, rows_with_warnings=self.rows_with_warnings,
                          warnings=dict(self._warnings), resamples=resamples, seed=seed)
