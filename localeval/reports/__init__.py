"""HTML reports of scored runs: one run (summary, histograms, every row, the worst rows with
their explanations), two runs of the same input (which rows got better or worse, and why), or
three and more (each run's mean per metric, its change from the first, the rows that moved most).

```python
from localeval.reports import write_report
write_report(["scored.jsonl"], "report.html")                 # one run
write_report(["run_a.jsonl", "run_b.jsonl"], "compare.html")  # comparison
```
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from localeval.reports.compare import compare_runs
from localeval.reports.data import fetch_rows, load_run
from localeval.reports.multi import compare_many
from localeval.reports.render import render_comparison, render_many, render_single
from localeval.reports.settings import run_settings

__all__ = ["build_report", "write_report"]


def build_report(
    runs: Sequence[str | os.PathLike[str]], *, worst: int = 10, title: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> str:
    """The report page for one run file, or the comparison page for two (JSON Lines, CSV or
    Parquet outputs of `localeval score`). ``metadata`` (the ``run`` part of ``--summary-json``,
    `localeval.runner.metadata.run_metadata`) is shown on a one-run page."""
    if not runs:
        raise ValueError("a report takes one run file, or several to compare; got none")
    if worst < 0:
        raise ValueError("worst must be >= 0")
    settings = [run_settings(r) for r in runs]  # each output's run record: judge, thresholds, options
    if len(runs) == 1:
        return render_single(load_run(runs[0], worst=worst), worst=worst, title=title, metadata=metadata,
                             settings=settings[0])
    if len(runs) > 2:
        loaded = [load_run(r, worst=0) for r in runs]
        if len({r.name for r in loaded}) < len(loaded):  # same file name in several folders
            loaded = [r.model_copy(update={"name": str(Path(p))}) for r, p in zip(loaded, runs)]
        return render_many(loaded, compare_many(loaded, top=worst), title=title, settings=settings)
    a = load_run(runs[0], worst=0)
    b = load_run(runs[1], worst=0)
    if a.name == b.name:  # same file name in two folders: tell them apart
        a = a.model_copy(update={"name": str(Path(runs[0]))})
        b = b.model_copy(update={"name": str(Path(runs[1]))})
    cmp = compare_runs(a, b, top=worst)
    lines = {c.line for ch in cmp.changes for c in ch.worsened + ch.improved}
    return render_comparison(a, b, cmp, fetch_rows(runs[0], lines), fetch_rows(runs[1], lines), title=title,
                             settings=settings)


def write_report(
    runs: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    worst: int = 10,
    title: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Path:
    """Write `build_report` to ``output`` (UTF-8) and return its path."""
    from localeval.runner import staging_path

    page = build_report(runs, worst=worst, title=title, metadata=metadata)
    out = Path(output)
    staged = staging_path(out)  # written beside it and renamed: never half a page over the old one
    (staged or out).write_text(page, encoding="utf-8")
    if staged is not None:
        os.replace(staged, out)
    return out
