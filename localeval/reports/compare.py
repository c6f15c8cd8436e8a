"""Two runs of the same input rows side by side: per metric, which rows got better or worse.

Rows are matched by ``_line`` (the input line the runner records), so both runs must score the
same input file, in any order. A change smaller than `TOLERANCE` counts as unchanged: CPU scores
already vary by up to 1e-4 across batch sizes (see docs/guarantees.md). "Better" and "worse"
follow each metric's direction (`localeval.metrics.registry.higher_is_better`): a fall of noise
sensitivity is better. Whether a change of the mean is more than noise is
`localeval.reports.significance`'s question.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from localeval.reports.data import RunData

__all__ = ["Change", "Comparison", "MetricChanges", "TOLERANCE", "compare_runs"]

TOLERANCE = 1e-4


class Change(BaseModel):
    line: int
    a: float | None
    b: float | None


class MetricChanges(BaseModel):
    metric: str
    higher_is_better: bool = True
    mean_a: float | None
    mean_b: float | None
    better: int
    worse: int
    same: int
    lost: int
    """Scored in run A, unscored in run B."""
    gained: int
    """Unscored in run A, scored in run B."""
    both_unscored: int
    worsened: list[Change]
    """The biggest drops first (rows that lost their score come first of all)."""
    improved: list[Change]


class Comparison(BaseModel):
    metrics: list[str]
    """Metrics both runs have (in run A's order)."""
    only_a: list[str]
    only_b: list[str]
    matched: int
    rows_only_a: int
    rows_only_b: int
    changes: list[MetricChanges]


def _value(x: float) -> float | None:
    return None if math.isnan(x) else x


def compare_runs(a: RunData, b: RunData, *, top: int = 10) -> Comparison:
    index_b = {line: i for i, line in enumerate(b.lines)}
    pairs = [(line, i, index_b[line]) for i, line in enumerate(a.lines) if line in index_b]
    metrics = [m for m in a.metrics if m in b.metrics]
    changes = []
    from localeval.reports.significance import direction

    for m in metrics:
        higher = direction(m)
        sign = 1.0 if higher else -1.0
        sa, sb = a.scores[m], b.scores[m]
        better: list[Change] = []
        worse: list[Change] = []
        same = lost = gained = both = 0
        for line, i, j in pairs:
            va, vb = _value(sa[i]), _value(sb[j])
            if va is None and vb is None:
                both += 1
            elif vb is None:
                lost += 1
                worse.append(Change(line=line, a=va, b=None))
            elif va is None:
                gained += 1
                better.append(Change(line=line, a=None, b=vb))
            elif sign * (vb - va) > TOLERANCE:
                better.append(Change(line=line, a=va, b=vb))
            elif sign * (va - vb) > TOLERANCE:
                worse.append(Change(line=line, a=va, b=vb))
            else:
                same += 1
        # A lost score sorts as the largest drop, a gained one as the largest gain; ties by line.
        worse.sort(key=lambda c: (-(2.0 if c.b is None else sign * (c.a - c.b)), c.line))  # type: ignore[operator]
        better.sort(key=lambda c: (-(2.0 if c.a is None else sign * (c.b - c.a)), c.line))  # type: ignore[operator]
        changes.append(
            MetricChanges(
                metric=m, higher_is_better=higher, mean_a=a.summary[m].mean, mean_b=b.summary[m].mean,
                better=len(better) - gained, worse=len(worse) - lost, same=same, lost=lost, gained=gained,
                both_unscored=both, worsened=worse[:top], improved=better[:top],
            )
        )
    return Comparison(
        metrics=metrics,
        only_a=[m for m in a.metrics if m not in b.metrics],
        only_b=[m for m in b.metrics if m not in a.metrics],
        matched=len(pairs),
        rows_only_a=len(a.lines) - len(pairs),
        rows_only_b=len(b.lines) - len(pairs),
        changes=changes,
    )
