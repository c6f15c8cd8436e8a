"""Three or more runs of the same input rows: per metric, each run's mean and its change from
the first run, and the rows whose score moved most across the runs (matched by ``_line``).

Two runs get the detailed side-by-side comparison (`localeval.reports.compare`); this view is
for a series (nightly runs, several judges or retrievers): which metric moved, and where.
"""

from __future__ import annotations

from pydantic import BaseModel

from localeval.reports.compare import _value
from localeval.reports.data import RunData
from localeval.reports.explain import esc, fmt

__all__ = ["MultiComparison", "compare_many", "render_many_body"]


class MovedRow(BaseModel):
    line: int
    label: str
    scores: list[float | None]
    """The row's score in each run (``None``: unscored there)."""
    spread: float
    """Highest minus lowest score across the runs where it is scored; a row scored in some runs
    and not in others counts as 1.0 (the largest possible move)."""


class MetricSeries(BaseModel):
    metric: str
    means: list[float | None]
    deltas: list[float | None]
    """Each run's mean minus the first run's (``None`` where either has no mean)."""
    moved: list[MovedRow]


class MultiComparison(BaseModel):
    names: list[str]
    metrics: list[str]
    """Metrics every run has (in the first run's order)."""
    matched: int
    """Rows (by ``_line``) present in every run."""
    series: list[MetricSeries]


def compare_many(runs: list[RunData], *, top: int = 10) -> MultiComparison:
    first = runs[0]
    metrics = [m for m in first.metrics if all(m in r.metrics for r in runs)]
    positions = [{line: i for i, line in enumerate(r.lines)} for r in runs]
    common = [line for line in first.lines if all(line in p for p in positions)]
    series = []
    for m in metrics:
        means = [r.summary[m].mean for r in runs]
        base = means[0]
        deltas = [None if base is None or x is None else x - base for x in means]
        moved: list[MovedRow] = []
        for line in common:
            scores = [_value(r.scores[m][p[line]]) for r, p in zip(runs, positions)]
            present = [s for s in scores if s is not None]
            if not present:
                continue
            spread = 1.0 if len(present) < len(scores) else max(present) - min(present)
            if spread > 1e-4:
                label = first.labels[positions[0][line]][1] if first.labels else ""
                moved.append(MovedRow(line=line, label=label, scores=scores, spread=spread))
        moved.sort(key=lambda row: (-row.spread, row.line))
        series.append(MetricSeries(metric=m, means=means, deltas=deltas, moved=moved[:top]))
    return MultiComparison(names=[r.name for r in runs], metrics=metrics, matched=len(common), series=series)


def _delta(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.3f}" if abs(x) > 1e-4 else "&plusmn;0"


def render_many_body(cmp: MultiComparison) -> str:
    """The page body: runs, a mean-and-delta table, then the rows that moved most per metric."""
    runs = "".join(f"<li>run {k + 1}: {esc(name)}</li>" for k, name in enumerate(cmp.names))
    heads = "".join(f"<th class=num>run {k + 1}</th>" for k in range(len(cmp.names)))
    table = [f'<table class="series"><tr><th>metric</th>{heads}</tr>']
    for s in cmp.series:
        cells = "".join(
            f"<td class=num>{fmt(mean)}" + ("" if k == 0 else f' <span class="muted">({_delta(d)})</span>') + "</td>"
            for k, (mean, d) in enumerate(zip(s.means, s.deltas))
        )
        table.append(f"<tr><td>{esc(s.metric)}</td>{cells}</tr>")
    table.append("</table>")
    sections = []
    for s in cmp.series:
        rows = "".join(
            f"<tr><td class=num>{r.line}</td><td>{esc(r.label)}</td>"
            + "".join(f"<td class=num>{fmt(x) if x is not None else 'unscored'}</td>" for x in r.scores)
            + f"<td class=num>{fmt(r.spread)}</td></tr>"
            for r in s.moved
        )
        sections.append(
            f"<h3>{esc(s.metric)}</h3>"
            + (f'<table class="moved"><tr><th>line</th><th>question</th>{heads}<th class=num>spread</th></tr>{rows}</table>'
               if rows else '<p class="muted">no row changed</p>')
        )
    return (
        f"<ol>{runs}</ol><p class=\"muted\">{cmp.matched} rows present in every run, matched by input line; "
        "a change under 1e-4 counts as none.</p>"
        f'<h2 id="means">Mean per metric (change from run 1)</h2>{"".join(table)}'
        f'<h2 id="moved">Rows that changed most across the runs</h2>{"".join(sections)}'
    )
