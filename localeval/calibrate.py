"""``localeval calibrate``: choose each metric's decision threshold on a team's own labelled
rows, by cross-validation, and say how well the chosen threshold agrees with the labels on rows
it was not chosen on, beside the judge's shipped threshold and beside word overlap calibrated
the same way.

For each metric, the labelled rows (``human_<metric>``, `localeval.runner.human`) are scored
once at the shipped thresholds (every chosen unit judged), then at each threshold of `GRID`
(the metric's own threshold key, e.g. ``faithfulness``); the runs share one verdict file (the
caller's ``cache``, else a temporary one), so a pair is judged once, not once per threshold. A
metric that is the share of supported claims is re-scored at every threshold from the claims' probabilities in its details
(`grid_from_details`, checked against the score at the shipped threshold); any other is scored
again at each threshold. `localeval.stats.calibration` then
chooses the threshold fold by fold. Word overlap: each sentence of the text the metric checks
(the response; the reference for context recall) is decided by the share of its content words
found in the evidence, and the row's score is the share of its sentences decided positive, at
each threshold of the grid.

The calibration file (JSON) holds the chosen thresholds, the judge they were chosen with, and
the agreement figures; ``localeval score --calibration FILE`` uses its thresholds (a
``--threshold`` beats them) and the run's metadata names the file and its hash.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from localeval.runner.human import LabelError, human_column, read_label
from localeval.stats.calibration import MIN_LABELS, MIN_PER_CLASS, Agreement, Objective, agreement, check_labels, cross_validated_threshold

__all__ = ["FORMAT", "GRID", "CalibrationReport", "MetricCalibration", "calibrate", "read_calibration",
           "write_calibration"]

FORMAT = "localeval-calibration/1"
GRID: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(1, 20))
"""Candidate thresholds: 0.05 to 0.95 by 0.05 (finer steps choose noise on a few hundred rows)."""

# Which text a metric checks, and against what: the sides word overlap compares.
_OVERLAP_SIDES: dict[str, tuple[str, str]] = {
    "context_recall": ("reference", "retrieved_contexts"),
    "factual_correctness": ("response", "reference"),
    "answer_correctness": ("response", "reference"),
}


class MetricCalibration(BaseModel):
    metric: str
    key: str
    """The threshold key chosen (the metric's own: beats the generic one when scoring)."""
    labels: str
    """"binary" or "graded"."""
    n: int
    """Labelled rows scored at every threshold (the rows the figures are over)."""
    left_out: int
    """Labelled rows the metric could not score (missing fields ...): not used."""
    shipped_threshold: float
    threshold: float
    fold_thresholds: list[float]
    objective: str
    judge: Agreement
    """Out of fold: each row at the threshold chosen on the other folds."""
    shipped: Agreement
    """The judge at its shipped threshold (nothing chosen on these rows)."""
    overlap: Agreement
    """Word overlap, its threshold chosen by the same cross-validation."""
    overlap_threshold: float


class CalibrationReport(BaseModel):
    format: str = FORMAT
    date: str
    data: str
    judge: str | None
    weights_hash: str | None
    folds: int
    seed: int
    thresholds: dict[str, float]
    metrics: list[MetricCalibration]


def _labelled_rows(data: Any, column_map: Mapping[str, Any] | None, names: Sequence[str]) -> list[dict[str, Any]]:
    """The raw rows (mapped labels under ``human_<metric>``) holding a label for some metric."""
    from localeval.runner.columns import ColumnMap
    from localeval.runner.sources import open_source

    rows = []
    for row in open_source(data, ColumnMap(column_map)).rows:
        if any(row.data.get(human_column(n)) not in (None, "") for n in names):
            rows.append(row.data)
    return rows


def _labels(rows: list[dict[str, Any]], name: str) -> tuple[list[int], np.ndarray]:
    keep, values = [], []
    for i, row in enumerate(rows):
        try:
            value = read_label(row.get(human_column(name)))
        except LabelError as exc:
            raise ValueError(f"row {i + 1} of the labelled rows: {human_column(name)}: {exc}") from None
        if value is not None:
            keep.append(i)
            values.append(value)
    return keep, np.asarray(values, dtype=float)


def overlap_grid(rows: list[dict[str, Any]], metric: str, grid: Sequence[float]) -> np.ndarray:
    """``[threshold, row]``: the share of the checked text's sentences whose content words are
    found in the evidence at least ``threshold`` of the time (see the module)."""
    from localeval.text.lexical import content_words, word_overlap
    from localeval.text.sentences import split_sentences

    claim_side, evidence_side = _OVERLAP_SIDES.get(metric, ("response", "retrieved_contexts"))
    out = np.zeros((len(grid), len(rows)))
    for j, row in enumerate(rows):
        text = row.get(claim_side) or row.get("response") or row.get("reference") or ""
        evidence = row.get(evidence_side) or row.get("retrieved_contexts") or []
        evidence = [evidence] if isinstance(evidence, str) else [str(e) for e in evidence]
        found = set().union(*(content_words(e) for e in evidence)) if evidence else set()
        shares = [word_overlap(content_words(s.text), found) for s in split_sentences(str(text))] or [0.0]
        out[:, j] = [float(np.mean([s >= t for s in shares])) for t in grid]
    return out


def _run(rows: list[dict[str, Any]], name: str, column_map: Mapping[str, Any] | None,
         thresholds: Mapping[str, float] | None, session: Any, judge: Any) -> tuple[np.ndarray, list[Any]]:
    """Each row's score (NaN where unscored) and details; every chosen unit judged
    (``exhaustive``: the same verdicts, and each claim's best probability known)."""
    from localeval.metrics.registry import get_metric
    from localeval.runner.evaluate import evaluate

    metric = get_metric(name, model=judge, exhaustive=True, thresholds=dict(thresholds or {}))
    result = evaluate(rows, [metric], column_map, show_progress=False, session=session)
    scores = np.array([np.nan if r.results[name].score is None else float(r.results[name].score) for r in result.rows])
    return scores, [r.results[name].details() for r in result.rows]


def _claim_decisions(details: Any) -> list[tuple[float, bool]] | None:
    """(probability, overruled by a contrast rule) of each claim, or None without claims."""
    claims = details.get("claims") if isinstance(details, dict) else None
    if not isinstance(claims, list) or not claims:
        return None
    out = []
    for c in claims:
        if not isinstance(c, dict) or not isinstance(c.get("probability"), (int, float)) or "attributed" not in c:
            return None
        out.append((float(c["probability"]), c.get("contrast") is not None))
    return out


def grid_from_details(scores: np.ndarray, details: list[Any], shipped: float,
                      grid: Sequence[float]) -> np.ndarray | None:
    """Row scores at every threshold of ``grid`` from one run's claim details, when the metric
    is the share of supported claims (a claim supported when its probability reaches the
    threshold and no contrast rule overrules it): checked on every row at the threshold the
    run used, else ``None`` (the metric is then re-scored at each threshold)."""
    decisions = [_claim_decisions(d) for d in details]
    out = np.full((len(grid), len(details)), np.nan)
    for j, (score, claims) in enumerate(zip(scores, decisions)):
        if np.isnan(score):
            continue
        if claims is None:
            return None
        at = float(np.mean([p >= shipped and not vetoed for p, vetoed in claims]))
        if abs(at - score) > 1e-9:
            return None
        out[:, j] = [np.mean([p >= t and not vetoed for p, vetoed in claims]) for t in grid]
    return out


def _grid(rows: list[dict[str, Any]], name: str, column_map: Mapping[str, Any] | None, key: str,
          shipped: tuple[np.ndarray, list[Any]], shipped_value: float, session: Any, judge: Any,
          grid: Sequence[float]) -> np.ndarray:
    # With support pieced together from a claim's parts, a claim's verdict at another
    # threshold is not its probability against that threshold (parts are judged only when the
    # whole fails): such a metric is re-scored at each threshold.
    found = None if _pieces_claims(name) else grid_from_details(shipped[0], shipped[1], shipped_value, grid)
    if found is not None:
        return found
    return np.stack([_run(rows, name, column_map, {key: t}, session, judge)[0] for t in grid])


def _pieces_claims(name: str) -> bool:
    """Whether the metric ``name`` judges a failed claim again by its parts (its default)."""
    import inspect

    from localeval.metrics.registry import resolve_name

    cls, implied = resolve_name(name)
    default = inspect.signature(cls.__init__).parameters.get("pieced")
    return bool(implied.get("pieced", default.default if default is not None else False))


def _shipped_value(name: str, model: Any, device: str | None) -> tuple[str, float, Any]:
    """The metric's threshold key, the value it uses with no threshold given, and its judge."""
    from localeval.metrics.judged import JudgedMetric
    from localeval.metrics.registry import get_metric

    metric = get_metric(name, model=model, device=device)
    if not isinstance(metric, JudgedMetric) or not metric.thresholds_in_force():
        raise ValueError(f"{name} makes no judge decision with a threshold: nothing to calibrate")
    kind, own_key, choice = metric.thresholds_in_force()[0]
    return own_key, choice.value, metric.judge


def calibrate(data: Any, metrics: Sequence[str], column_map: Mapping[str, Any] | None = None, *,
              model: Any = None, device: str | None = None, objective: Objective | None = None,
              folds: int = 5, seed: int = 0, grid: Sequence[float] = GRID,
              cache: str | os.PathLike[str] | None = None) -> CalibrationReport:
    """Calibrate each of ``metrics`` on the rows of ``data`` labelled for it (see the module);
    ``cache``: a verdict file (SQLite, as ``localeval score --cache``) to read and add to.
    Raises ValueError when a metric has fewer than `MIN_LABELS` usable labels (binary: fewer
    than `MIN_PER_CLASS` of a class) or makes no thresholded judge decision."""
    from localeval.judge.session import JudgeSession
    from localeval.runner.run import resolve_metrics

    names = [n for n, _ in resolve_metrics(list(metrics), load_judge=False)]
    rows = _labelled_rows(data, column_map, names)
    results, chosen = [], {}
    judge_name = weights = None
    # A run clears the session's verdicts from memory after each chunk (`JudgeSession.clear_memory`),
    # so without a file each threshold's run would judge the same pairs again.
    with tempfile.TemporaryDirectory(prefix="localeval-calibrate-") as scratch, \
            JudgeSession(cache=cache if cache is not None else Path(scratch) / "verdicts.sqlite") as session:
        for name in names:
            keep, y = _labels(rows, name)
            if y.size < MIN_LABELS:
                raise ValueError(f"{name}: calibration needs at least {MIN_LABELS} labelled rows ({human_column(name)}), "
                                 f"got {y.size}; label more rows (see README: how many rows to label)")
            subset = [rows[i] for i in keep]
            key, shipped_value, judge = _shipped_value(name, model, device)
            judge_name, weights = judge.name, judge.identity
            run = _run(subset, name, column_map, None, session, judge)
            shipped = run[0]
            grid_scores = _grid(subset, name, column_map, key, run, shipped_value, session, judge, grid)
            ok = np.isfinite(shipped) & np.all(np.isfinite(grid_scores), axis=0)
            y_ok = y[ok]
            check_labels(y_ok)
            fit = cross_validated_threshold(grid_scores[:, ok], grid, y_ok, objective=objective, folds=folds, seed=seed)
            over = overlap_grid([subset[i] for i in np.flatnonzero(ok)], name, grid)
            over_fit = cross_validated_threshold(over, grid, y_ok, objective=fit.objective, folds=folds, seed=seed)  # type: ignore[arg-type]
            chosen[key] = fit.threshold
            results.append(MetricCalibration(
                metric=name, key=key, labels="binary" if fit.objective == "ba" else "graded", n=int(ok.sum()),
                left_out=int((~ok).sum()), shipped_threshold=shipped_value, threshold=fit.threshold,
                fold_thresholds=fit.fold_thresholds, objective=fit.objective, judge=fit.out_of_fold,
                shipped=agreement(y_ok, shipped[ok]), overlap=over_fit.out_of_fold, overlap_threshold=over_fit.threshold,
            ))
    return CalibrationReport(date=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                             data=str(data) if isinstance(data, (str, os.PathLike)) else type(data).__name__,
                             judge=judge_name, weights_hash=weights, folds=folds, seed=seed, thresholds=chosen,
                             metrics=results)


def write_calibration(report: CalibrationReport, path: str | os.PathLike[str]) -> Path:
    out = Path(path)
    out.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return out


def read_calibration(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What a run's metadata keeps of a calibration file: its path, sha256, judge and
    thresholds. Raises ValueError for a file `calibrate` did not write or unknown keys."""
    from localeval.metrics.registry import known_threshold_keys
    from localeval.metrics.thresholds import check_threshold_keys

    from pydantic import ValidationError

    raw = Path(path).read_bytes()
    try:
        doc = CalibrationReport.model_validate_json(raw)
    except ValidationError as exc:
        raise ValueError(f"{path} is not a calibration file written by `localeval calibrate` "
                         f"({exc.error_count()} problem(s), first: {exc.errors()[0]['msg']})") from None
    if doc.format != FORMAT:
        raise ValueError(f"{path}: calibration format {doc.format!r}, this localeval reads {FORMAT!r}")
    check_threshold_keys(doc.thresholds, known_threshold_keys())
    return {"file": str(path), "sha256": hashlib.sha256(raw).hexdigest(), "judge": doc.judge,
            "weights_hash": doc.weights_hash, "thresholds": dict(doc.thresholds)}


__all__ += ["MIN_LABELS", "MIN_PER_CLASS"]


def _figure(a: Agreement, labels: str) -> str:
    def pm(v: float | None, se: float | None) -> str:
        return "n/a" if v is None else f"{v:.3f} ± {se or 0:.3f}"

    if labels == "binary":
        return f"BA {pm(a.ba, a.ba_se)}, AUROC {pm(a.auroc, a.auroc_se)}"
    return f"RMSE {pm(a.rmse, a.rmse_se)}, Pearson {pm(a.pearson, a.pearson_se)}"


def print_report(report: CalibrationReport, console: Any) -> None:
    """The calibration as a table (a Rich console)."""
    from rich.table import Table

    table = Table(title=f"calibrated on {report.data} with judge {report.judge} ({report.folds}-fold, seed {report.seed})",
                  title_justify="left")
    for head in ("metric", "n", "threshold (shipped)", "judge, calibrated (out of fold)", "judge, shipped threshold",
                 "word overlap, calibrated (out of fold)"):
        table.add_column(head)
    for m in report.metrics:
        table.add_row(m.metric, str(m.n), f"{m.key}={m.threshold:g} ({m.shipped_threshold:g})", _figure(m.judge, m.labels),
                      _figure(m.shipped, m.labels), f"{_figure(m.overlap, m.labels)} at {m.overlap_threshold:g}")
    table.caption = "± one standard error; out of fold: each row at the threshold the other folds chose."
    table.caption_justify = "left"
    console.print(table)
