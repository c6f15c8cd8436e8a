"""Is run B better than run A? Per metric, over rows paired between the runs: the mean
difference with a paired bootstrap 95 % interval and a paired permutation p-value
(`localeval.stats.intervals`), read in the metric's direction (`higher_is_better`), the
prediction-powered estimate of the difference a human would see when both runs carry labels
(`localeval.stats.ppi`), and the rows whose score changed most.

Rows are paired by ``id`` when every row of both runs has one and no id repeats, else by input
line (``_line``); rows found in one run only are listed, never compared. A metric's test uses
the paired rows scored in both runs; rows scored in one run only are counted (``lost`` /
``gained``).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from localeval.reports.data import RunData, fetch_rows, iter_records
from localeval.runner import LabelError, human_column, read_label
from localeval.stats.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, paired_difference
from localeval.stats.ppi import ppi_mean

__all__ = ["ALPHA", "MetricTest", "Pairing", "RunTest", "compare_files", "compare_pair", "direction", "pair_runs"]

ALPHA = 0.05
"""A change is significant when its 95 % interval excludes 0 and its p-value is below this."""

Verdict = Literal["better", "worse", "no significant change", "not compared"]


def direction(metric: str) -> bool:
    """Whether a higher score is better, as the metric declares it (`localeval.catalog`: read
    without loading a metric); a column named after no known metric (a custom metric) reads
    higher-is-better."""
    from localeval.catalog import higher_is_better

    try:
        return higher_is_better(metric)
    except ValueError:
        return True


class Pairing(BaseModel):
    by: Literal["id", "line"]
    pairs: list[tuple[int, int]]
    """(position in A, position in B) of each paired row."""
    only_a: list[str]
    only_b: list[str]
    """Keys (ids, or lines) found in one run only: not compared (the first 20 of each)."""
    only_a_count: int
    only_b_count: int


def _keys(run: RunData, by: str) -> list[str]:
    return [ident for ident, _, _ in run.labels] if by == "id" else [str(line) for line in run.lines]


def pair_runs(a: RunData, b: RunData) -> Pairing:
    """Pair the rows of two runs by ``id`` when both have a unique id on every row, else by line."""
    ids_a, ids_b = _keys(a, "id"), _keys(b, "id")
    usable = all(ids_a) and all(ids_b) and len(set(ids_a)) == len(ids_a) and len(set(ids_b)) == len(ids_b)
    by: Literal["id", "line"] = "id" if usable and ids_a and ids_b else "line"
    keys_a, keys_b = _keys(a, by), _keys(b, by)
    where_b = {k: j for j, k in enumerate(keys_b)}
    pairs = [(i, where_b[k]) for i, k in enumerate(keys_a) if k in where_b]
    set_a = set(keys_a)
    only_a = [k for k in keys_a if k not in where_b]
    only_b = [k for k in keys_b if k not in set_a]
    return Pairing(by=by, pairs=pairs, only_a=only_a[:20], only_b=only_b[:20], only_a_count=len(only_a),
                   only_b_count=len(only_b))


class RowChange(BaseModel):
    key: str
    line_a: int
    line_b: int
    a: float
    b: float
    explanation_a: str = ""
    explanation_b: str = ""


class HumanDifference(BaseModel):
    """PPI++ estimate of mean(human B - human A) over the paired rows scored in both runs."""

    labelled: int
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    ppi_lambda: float | None = None
    note: str | None = None


class MetricTest(BaseModel):
    metric: str
    higher_is_better: bool
    n: int
    """Paired rows scored in both runs (the rows the figures are over)."""
    lost: int
    gained: int
    mean_a: float | None = None
    mean_b: float | None = None
    difference: float | None = None
    """mean(B - A) over the ``n`` rows."""
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    verdict: Verdict = "not compared"
    """Read in the metric's direction: "worse" for a significant rise of noise sensitivity."""
    human: HumanDifference | None = None
    worsened: list[RowChange] = []
    improved: list[RowChange] = []


class RunTest(BaseModel):
    a: str
    b: str
    pairing: Pairing
    resamples: int
    seed: int
    metrics: list[MetricTest]
    only_a: list[str]
    only_b: list[str]
    """Metrics in one run only (not compared)."""

    def worse(self, metric: str) -> bool:
        return any(m.metric == metric and m.verdict == "worse" for m in self.metrics)


def _labels(run: RunData, metric: str) -> dict[int, float]:
    """Position -> the human label of ``metric``, read from the run's file (labels are few)."""
    out: dict[int, float] = {}
    column = human_column(metric)
    for position, rec in enumerate(iter_records(run.path)):
        try:
            value = read_label(rec.get(column))
        except LabelError:
            value = None
        if value is not None:
            out[position] = value
    return out


def _human_difference(a: RunData, b: RunData, metric: str, pairs: list[tuple[int, int]],
                      fa: np.ndarray, fb: np.ndarray) -> HumanDifference | None:
    if a.summary[metric].human is None or b.summary[metric].human is None:
        return None  # no label in one run: no second pass over the files
    la, lb = _labels(a, metric), _labels(b, metric)
    if not la or not lb:
        return None
    both = np.array([i in la and j in lb for i, j in pairs], dtype=bool)
    y = np.array([lb[j] - la[i] for i, j in pairs if i in la and j in lb], dtype=float)
    est = ppi_mean(y, (fb - fa)[both], (fb - fa)[~both])
    if est is None:
        return HumanDifference(labelled=int(both.sum()), note="too few rows labelled in both runs")
    return HumanDifference(labelled=est.n, estimate=est.estimate, low=est.low, high=est.high, ppi_lambda=est.lam)


def _verdict(low: float, high: float, p: float, higher: bool) -> Verdict:
    if p >= ALPHA or low <= 0.0 <= high:
        return "no significant change"
    rose = low > 0.0
    return "better" if rose == higher else "worse"


def _top(changes: list[RowChange], top: int, worse: bool, higher: bool) -> list[RowChange]:
    sign = 1.0 if higher else -1.0
    moved = [c for c in changes if (sign * (c.b - c.a) < -1e-4) == worse and abs(c.b - c.a) > 1e-4]
    moved.sort(key=lambda c: (-abs(c.b - c.a), c.key))
    return moved[:top]


def metric_test(a: RunData, b: RunData, metric: str, pairing: Pairing, *, resamples: int, seed: int,
                top: int) -> MetricTest:
    higher = direction(metric)
    sa, sb = np.asarray(a.scores[metric]), np.asarray(b.scores[metric])
    ia = np.array([i for i, _ in pairing.pairs], dtype=int)
    ib = np.array([j for _, j in pairing.pairs], dtype=int)
    va, vb = sa[ia], sb[ib]
    ok_a, ok_b = np.isfinite(va), np.isfinite(vb)
    both = ok_a & ok_b
    result = MetricTest(metric=metric, higher_is_better=higher, n=int(both.sum()),
                        lost=int((ok_a & ~ok_b).sum()), gained=int((~ok_a & ok_b).sum()))
    diff = paired_difference(va[both], vb[both], resamples=resamples, seed=seed)
    if diff is None:
        return result
    keys_a = _keys(a, pairing.by)
    changes = [RowChange(key=keys_a[i], line_a=int(a.lines[i]), line_b=int(b.lines[j]), a=float(sa[i]), b=float(sb[j]))
               for (i, j), ok in zip(pairing.pairs, both) if ok]
    return result.model_copy(update={
        "mean_a": float(va[both].mean()), "mean_b": float(vb[both].mean()), "difference": diff.estimate,
        "low": diff.low, "high": diff.high, "p_value": diff.p_value,
        "verdict": _verdict(diff.low, diff.high, diff.p_value, higher),
        "human": _human_difference(a, b, metric, [p for p, ok in zip(pairing.pairs, both) if ok], va[both], vb[both]),
        "worsened": _top(changes, top, True, higher), "improved": _top(changes, top, False, higher),
    })


def explanation(metric: str, record: dict[str, Any]) -> str:
    """One line on why a row scored what it did: the claims found unsupported, else the reason."""
    details = record.get(f"{metric}_details")
    claims = details.get("claims") if isinstance(details, dict) else None
    if isinstance(claims, list):
        missed = [str(c.get("text") or c.get("claim") or "") for c in claims
                  if isinstance(c, dict) and c.get("attributed", c.get("supported")) is False]
        if missed:
            return "unsupported: " + " | ".join(t[:80] for t in missed[:2]) + (" ..." if len(missed) > 2 else "")
        return f"all {len(claims)} claim(s) supported" if claims else "no claim"
    reason = record.get(f"{metric}_reason")
    return str(reason)[:160] if reason else ""


def _explain(a: RunData, b: RunData, tests: list[MetricTest]) -> None:
    rows = [c for t in tests for c in t.worsened + t.improved]
    if not rows:
        return
    rows_a = fetch_rows(a.path, {c.line_a for c in rows})
    rows_b = fetch_rows(b.path, {c.line_b for c in rows})
    for t in tests:
        for c in t.worsened + t.improved:
            c.explanation_a = explanation(t.metric, rows_a.get(c.line_a, {}))
            c.explanation_b = explanation(t.metric, rows_b.get(c.line_b, {}))


def compare_pair(a: RunData, b: RunData, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
              top: int = 5, explain: bool = True) -> RunTest:
    """Every metric both runs have, B against A (see the module)."""
    pairing = pair_runs(a, b)
    metrics = [m for m in a.metrics if m in b.metrics]
    tests = [metric_test(a, b, m, pairing, resamples=resamples, seed=seed, top=top) for m in metrics]
    if explain:
        _explain(a, b, tests)
    return RunTest(a=a.name, b=b.name, pairing=pairing, resamples=resamples, seed=seed, metrics=tests,
                   only_a=[m for m in a.metrics if m not in b.metrics], only_b=[m for m in b.metrics if m not in a.metrics])


def compare_files(paths: list[Any], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  top: int = 5) -> list[RunTest]:
    """Each run file after the first against the first (outputs of ``localeval score``)."""
    from pathlib import Path

    from localeval.reports.data import load_run

    if len(paths) < 2:
        raise ValueError("compare takes two run files or more")
    runs = [load_run(p, worst=0) for p in paths]
    if len({r.name for r in runs}) < len(runs):  # the same file name in several folders
        runs = [r.model_copy(update={"name": str(Path(p))}) for r, p in zip(runs, paths)]
    return [compare_pair(runs[0], run, resamples=resamples, seed=seed, top=top) for run in runs[1:]]


def _num(x: float | None, spec: str = ".4f") -> str:
    return "n/a" if x is None else format(x, spec)


def _interval(low: float | None, high: float | None, spec: str = "+.4f") -> str:
    return "n/a" if low is None or high is None else f"[{low:{spec}}, {high:{spec}}]"


def human_text(h: HumanDifference | None) -> str:
    if h is None:
        return ""
    if h.estimate is None:
        return f"{h.note} ({h.labelled})"
    return f"{h.estimate:+.4f} {_interval(h.low, h.high)} (n={h.labelled})"


def render_text(result: RunTest, console: Any) -> None:
    """Print one comparison (a Rich console): the table per metric, then the rows that moved."""
    from rich.table import Table

    p = result.pairing
    title = (f"B = {result.b} vs A = {result.a}: {len(p.pairs)} rows paired by {p.by}"
             + (f"; {p.only_a_count} only in A, {p.only_b_count} only in B" if p.only_a_count or p.only_b_count else ""))
    table = Table(title=title, title_justify="left")
    for h in ("metric", "better", "n", "mean A", "mean B", "B - A", "95% CI", "p", "verdict", "lost/gained"):
        table.add_column(h, justify="left" if h in ("metric", "verdict", "better") else "right",
                         no_wrap=True)
    for m in result.metrics:
        table.add_row(m.metric, "higher" if m.higher_is_better else "lower", str(m.n), _num(m.mean_a), _num(m.mean_b),
                      _num(m.difference, "+.4f"), _interval(m.low, m.high), _num(m.p_value, ".3g"), m.verdict,
                      f"{m.lost}/{m.gained}")
    table.caption = (f"paired bootstrap ({result.resamples} resamples) and sign-flip permutation p-value, seed "
                     f"{result.seed}; significant: interval excludes 0 and p < {ALPHA}")
    table.caption_justify = "left"
    console.print(table)
    if any(m.human is not None for m in result.metrics):
        labels = Table(title="human labels in both runs", title_justify="left")
        for h in ("metric", "labelled in both", "human B - A, PPI++ [95% CI]"):
            labels.add_column(h, justify="left" if h == "metric" else "right")
        for m in result.metrics:
            if m.human is not None:
                labels.add_row(m.metric, str(m.human.labelled), human_text(m.human).split(" (n=")[0])
        console.print(labels)
    if p.only_a or p.only_b:
        console.print(f"not compared: only in A {', '.join(p.only_a) or '-'}; only in B {', '.join(p.only_b) or '-'}"
                      + (" ..." if p.only_a_count > len(p.only_a) or p.only_b_count > len(p.only_b) else ""),
                      highlight=False)
    for m in result.metrics:
        for label, rows in (("got worse", m.worsened), ("got better", m.improved)):
            if rows:
                console.print(f"{m.metric}: rows that {label} most", style="bold", highlight=False)
            for c in rows:
                console.print(f"  {p.by} {c.key}: {c.a:.4f} -> {c.b:.4f}   A: {c.explanation_a}   B: {c.explanation_b}",
                              highlight=False, markup=False)
