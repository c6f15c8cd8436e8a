"""Reading a run's output file (what `localeval score` writes) for a report.

A run may hold millions of rows, so the file is streamed once: scores are kept as floats (NaN
for "no score"), and only the ``worst`` lowest-scored rows of each metric are kept whole, for
their explanations. Rows needed later (the comparison's biggest changes) are fetched with
`fetch_rows`, a second pass over the file.

The metrics are found from the rows themselves: a column ``m`` is a metric when the row also
has ``m_reason`` and ``m_details`` (see `localeval.runner.output.record`).
"""

from __future__ import annotations

import heapq
import json
import math
import os
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from localeval.runner import RunSummary, SummaryBuilder, csv_records, human_column

__all__ = ["RunData", "detect_metrics", "fetch_rows", "iter_records", "load_run", "score_of"]

_PARQUET = (".parquet", ".pq")


class RunData(BaseModel):
    """What a report needs from one run file."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    path: Path
    rows: int
    unreadable: list[int]
    """Physical line numbers (1-based) of JSON Lines that could not be read: reported, not hidden."""
    metrics: list[str]
    summary: RunSummary
    lines: array
    """``_line`` of every row, in file order."""
    scores: dict[str, array]
    """Per metric, the score of every row in file order; NaN where the row has no score."""
    reasons: dict[str, dict[int, str]]
    """Per metric, ``_line`` -> the reason of every unscored row (reasons are short)."""
    worst: dict[str, list[dict[str, Any]]]
    """Per metric, the lowest-scored rows (ties: earlier rows first), whole."""
    labels: list[tuple[str, str, list[str]]] = []
    """Per row in file order: its id (or ""), its question cut to 140 characters, its warnings:
    what the table of every row shows (bounded per row, so memory stays bounded by the rows)."""
    texts: list[str] = []
    """Per row in file order: its text fields (question, response, reference, contexts, id),
    lower-cased, what the table's search reads (at most `SEARCH_CHARS` per row)."""


def _unflatten(item: dict[str, Any]) -> dict[str, Any]:
    """A row of the flat output (Parquet, CSV) back in the JSON Lines shape: the input row from
    ``_input``, details decoded from JSON."""
    row: dict[str, Any] = {}
    raw = item.pop("_input", None)
    if isinstance(raw, str):
        try:
            loaded = json.loads(raw)
            if isinstance(loaded, dict):
                row.update(loaded)
        except json.JSONDecodeError:
            pass
    for key, value in item.items():
        if key.endswith("_details") and isinstance(value, str):
            try:
                value = json.loads(value) if value else None
            except json.JSONDecodeError:
                pass
        if value is not None or key not in row:
            row[key] = value
    return row


def _parquet_records(path: Path) -> Iterator[dict[str, Any]]:
    import pyarrow.parquet as pq

    handle = pq.ParquetFile(path)
    for batch in handle.iter_batches(batch_size=1024):
        for item in batch.to_pylist():
            yield _unflatten(item)


def _number(text: str | None) -> float | int | None:
    if text is None or not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def _csv_records(path: Path) -> Iterator[dict[str, Any]]:
    # CSV cells are text: the score columns (one per ``<metric>_details`` column) and ``_line``
    # are numbers again, an empty cell is a missing value.
    # Read as the runner reads CSV input: cells of any size (``_input`` often exceeds the csv
    # module's default limit), a BOM dropped, a malformed record skipped rather than fatal.
    for found in csv_records(path):
        if found.error is None:
            flat: dict[str, Any] = {k: (v if v != "" else None) for k, v in found.cells.items() if k != "_extra"}
            for key in list(flat):
                if key.endswith("_details"):
                    metric = key[: -len("_details")]
                    if metric in flat:
                        flat[metric] = _number(flat[metric])
            if "_line" in flat:
                flat["_line"] = _number(flat["_line"])
            yield _unflatten(flat)


def iter_records(path: str | os.PathLike[str], unreadable: list[int] | None = None) -> Iterator[dict[str, Any]]:
    """The output rows of a run file (JSON Lines, CSV or Parquet). A JSON line that is not an object
    is skipped and its line number appended to ``unreadable``."""
    path = Path(path)
    if path.suffix.lower() in _PARQUET:
        yield from _parquet_records(path)
        return
    if path.suffix.lower() == ".csv":
        yield from _csv_records(path)
        return
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError:
                obj = None
            if not isinstance(obj, dict):
                if unreadable is not None:
                    unreadable.append(number)
                continue
            yield obj


def detect_metrics(record: dict[str, Any]) -> list[str]:
    return [k for k in record if f"{k}_reason" in record and f"{k}_details" in record]


def score_of(record: dict[str, Any], metric: str) -> float | None:
    """The row's score, or None when it has none (or a value that is not a finite number)."""
    value = record.get(metric)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _reason_of(record: dict[str, Any], metric: str) -> str:
    if metric not in record:
        return "metric missing from this output row"
    reason = record.get(f"{metric}_reason")
    if reason:
        return str(reason)
    return "score is not a finite number" if record.get(metric) is not None else "no score and no reason given"


_LABEL_CHARS = 140


def _warnings_of(record: dict[str, Any]) -> list[str]:
    value = record.get("_warnings")
    if isinstance(value, str):  # CSV and Parquet hold it as JSON text
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            value = [value]
    return [str(w) for w in value] if isinstance(value, list) else []


def _label(record: dict[str, Any]) -> tuple[str, str, list[str]]:
    ident = record.get("id")
    ident = str(ident) if isinstance(ident, (str, int)) and not isinstance(ident, bool) else ""
    question = next((record[k] for k in ("user_input", "question") if isinstance(record.get(k), str)), "")
    if len(question) > _LABEL_CHARS:
        question = question[: _LABEL_CHARS - 3] + "..."
    return ident, question, _warnings_of(record)


SEARCH_CHARS = 20_000
"""Characters of one row the report's search reads: every text field, not only the question,
but bounded, so a report of long contexts stays a page, not a copy of the file."""
_SEARCHED = ("user_input", "question", "response", "answer", "reference", "ground_truth",
             "retrieved_contexts", "contexts", "reference_contexts")


def _search_text(record: dict[str, Any]) -> str:
    parts: list[str] = []
    for key in _SEARCHED:
        value = record.get(key)
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, list):
            parts.extend(v for v in value if isinstance(v, str))
    return " ".join(" ".join(parts).split())[:SEARCH_CHARS].lower()


def load_run(path: str | os.PathLike[str], *, worst: int = 10, name: str | None = None) -> RunData:
    """Read a run file once: summary, every score, and the ``worst`` rows of each metric."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path} is not a file")
    unreadable: list[int] = []
    metrics: list[str] | None = None
    builder: SummaryBuilder | None = None
    lines = array("q")
    scores: dict[str, array] = {}
    reasons: dict[str, dict[int, str]] = {}
    heaps: dict[str, list[tuple[float, int, int, dict[str, Any]]]] = {}
    labels: list[tuple[str, str, list[str]]] = []
    texts: list[str] = []
    for position, rec in enumerate(iter_records(path, unreadable)):
        if metrics is None:
            metrics = detect_metrics(rec)
            if not metrics:
                raise ValueError(f"{path}: no metric columns (<m>, <m>_reason, <m>_details); is it an output of `localeval score`?")
            builder = SummaryBuilder(metrics)
            scores = {m: array("d") for m in metrics}
            reasons = {m: {} for m in metrics}
            heaps = {m: [] for m in metrics}
        assert builder is not None
        line = rec.get("_line")
        line = line if isinstance(line, int) and not isinstance(line, bool) else position + 1
        lines.append(line)
        labels.append(_label(rec))
        texts.append(_search_text(rec))
        builder.rows += 1
        builder.warn(_warnings_of(rec))
        for m in metrics:
            value = score_of(rec, m)
            if value is None:
                reason = _reason_of(rec, m)
                reasons[m][line] = reason
                builder.add(m, None, reason, rec.get(human_column(m)))
                scores[m].append(math.nan)
                continue
            builder.add(m, value, None, rec.get(human_column(m)))
            scores[m].append(value)
            if worst > 0:
                # A max-heap on (score, line) of size `worst`: the best of the kept rows leaves first.
                item = (-value, -line, position, rec)
                if len(heaps[m]) < worst:
                    heapq.heappush(heaps[m], item)
                elif item > heaps[m][0]:
                    heapq.heapreplace(heaps[m], item)
    if metrics is None or builder is None:
        raise ValueError(f"{path} holds no readable output row")
    return RunData(
        name=name or path.name,
        path=path,
        rows=builder.rows,
        unreadable=unreadable,
        metrics=metrics,
        summary=builder.build(),
        lines=lines,
        scores=scores,
        reasons=reasons,
        worst={m: [item[3] for item in sorted(heaps[m], key=lambda t: (-t[0], -t[1]))] for m in metrics},
        labels=labels,
        texts=texts,
    )


def fetch_rows(path: str | os.PathLike[str], lines: Iterable[int]) -> dict[int, dict[str, Any]]:
    """The whole rows of a run file whose ``_line`` is in ``lines`` (a second pass)."""
    wanted = set(lines)
    found: dict[int, dict[str, Any]] = {}
    if not wanted:
        return found
    for position, rec in enumerate(iter_records(path)):
        line = rec.get("_line")
        line = line if isinstance(line, int) and not isinstance(line, bool) else position + 1
        if line in wanted:
            found[line] = rec
            if len(found) == len(wanted):
                break
    return found
