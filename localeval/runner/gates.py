"""Quality gates for CI: turn a run's summary into pass/fail, JSON for dashboards, JUnit XML.

A run fails a gate when:

* the input has no row at all, or a metric scored no row ("nothing scored": a file of broken
  rows must not pass a pipeline silently);
* a metric's mean is below its ``--fail-under METRIC=VALUE``;
* more than ``--max-unscored PERCENT`` of the rows went unscored for a metric.

`localeval score` exits with 1 when a gate fails (2 stays for usage and input errors), after
writing the output, the summary JSON and the JUnit file, so a CI job keeps its artefacts.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from localeval.metrics.thresholds import did_you_mean
from localeval.runner.summary import MetricSummary, RunSummary, plural

__all__ = ["GateFailure", "GateReport", "check_gates", "parse_fail_under", "write_junit_xml", "write_summary_json"]


class GateFailure(BaseModel):
    check: str
    """``rows``, ``scored``, ``fail_under`` or ``max_unscored``."""
    metric: str | None
    message: str


class GateReport(BaseModel):
    """What the gates found: ``passed`` is what the exit code says."""

    fail_under: dict[str, float]
    max_unscored: float | None
    failures: list[GateFailure]

    @property
    def passed(self) -> bool:
        return not self.failures


def parse_fail_under(items: Iterable[str], metrics: Iterable[str]) -> dict[str, float]:
    """``["faithfulness=0.7"]`` -> ``{"faithfulness": 0.7}``; names must be metrics of the run."""
    metrics = list(metrics)
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        try:
            bound = float(value)
        except ValueError:
            sep = ""
        if not sep or not name:
            raise ValueError(f"--fail-under takes METRIC=VALUE (faithfulness=0.7), got {item!r}")
        if name not in metrics:
            raise ValueError(
                f"--fail-under {name!r}: not a metric of this run{did_you_mean(name, metrics)}; metrics: {', '.join(metrics)}"
            )
        if not 0.0 <= bound <= 1.0:
            raise ValueError(f"--fail-under {name}: a mean is in [0, 1], got {bound}")
        out[name] = bound
    return out


def _percent(n: int, total: int) -> float:
    return 100.0 * n / total if total else 0.0


def check_gates(summary: RunSummary, fail_under: Mapping[str, float] | None = None,
                max_unscored: float | None = None) -> GateReport:
    """Every gate of the module docstring, checked against ``summary``."""
    fail_under = dict(fail_under or {})
    if max_unscored is not None and not 0.0 <= max_unscored <= 100.0:
        raise ValueError(f"--max-unscored is a percentage in [0, 100], got {max_unscored}")
    failures: list[GateFailure] = []
    if summary.rows == 0:
        failures.append(GateFailure(check="rows", metric=None, message="the input has no rows: nothing was scored"))
    for m in summary.metrics:
        if summary.rows and m.scored == 0:
            failures.append(GateFailure(check="scored", metric=m.metric,
                                        message=f"{m.metric}: no row could be scored ({_why(m)})"))
        bound = fail_under.get(m.metric)
        if bound is not None and m.mean is not None and m.mean < bound:
            failures.append(GateFailure(check="fail_under", metric=m.metric,
                                        message=f"{m.metric}: mean {m.mean:.4f} is under {bound}"))
        share = _percent(m.unscored, summary.rows)
        if max_unscored is not None and share > max_unscored:
            failures.append(GateFailure(
                check="max_unscored", metric=m.metric,
                message=f"{m.metric}: {plural(m.unscored, 'row')} of {summary.rows} unscored ({share:.1f} % > {max_unscored:g} %; {_why(m)})",
            ))
    return GateReport(fail_under=fail_under, max_unscored=max_unscored, failures=failures)


def _why(m: MetricSummary) -> str:
    reasons = sorted(m.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    return "; ".join(f"{n} x {r}" for r, n in reasons[:3]) or "no reason recorded"


def summary_document(summary: RunSummary, gates: GateReport, metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON written by ``--summary-json``: rows, per-metric statistics, gates, run metadata."""
    return {
        "passed": gates.passed,
        "rows": summary.rows,
        "metrics": {m.metric: m.model_dump(exclude={"metric"}) for m in summary.metrics},
        "gates": {**gates.model_dump(), "passed": gates.passed},
        "run": dict(metadata or {}),
    }


def _ensure_parent(path: Path) -> None:
    if not path.parent.is_dir():
        raise FileNotFoundError(f"cannot write {path}: folder {path.parent} does not exist")


def write_summary_json(path: str | os.PathLike[str], summary: RunSummary, gates: GateReport,
                       metadata: Mapping[str, Any] | None = None) -> None:
    import json

    target = Path(path)
    _ensure_parent(target)
    target.write_text(json.dumps(summary_document(summary, gates, metadata), indent=2, default=str) + "\n", encoding="utf-8")


def junit_xml(summary: RunSummary, gates: GateReport, *, suite: str = "localeval") -> str:
    """JUnit XML: one test case per metric (failed by any of its gates) and one for the input."""
    cases: list[tuple[str, list[GateFailure], dict[str, str]]] = [
        ("input", [f for f in gates.failures if f.metric is None], {"rows": str(summary.rows)})
    ]
    for m in summary.metrics:
        props = {"mean": "n/a" if m.mean is None else f"{m.mean:.6f}", "scored": str(m.scored), "unscored": str(m.unscored)}
        if m.metric in gates.fail_under:
            props["fail_under"] = str(gates.fail_under[m.metric])
        cases.append((m.metric, [f for f in gates.failures if f.metric == m.metric], props))
    root = ET.Element("testsuites")
    node = ET.SubElement(root, "testsuite", name=suite, tests=str(len(cases)),
                         failures=str(sum(bool(f) for _, f, _ in cases)), errors="0", skipped="0")
    for name, failed, props in cases:
        case = ET.SubElement(node, "testcase", classname=suite, name=name)
        properties = ET.SubElement(case, "properties")
        for key, value in props.items():
            ET.SubElement(properties, "property", name=key, value=value)
        for failure in failed:
            ET.SubElement(case, "failure", message=failure.message, type=failure.check).text = failure.message
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit_xml(path: str | os.PathLike[str], summary: RunSummary, gates: GateReport) -> None:
    target = Path(path)
    _ensure_parent(target)
    target.write_text(junit_xml(summary, gates), encoding="utf-8")
