"""Rows as the runner sees them, and reading them from JSON Lines without ever losing one.

A line that is not valid JSON, not a JSON object, not valid UTF-8 or nested too deeply still
becomes a row: it carries an ``error`` so every metric reports it as unscored with that
reason, and the output file keeps one line per input line (`localeval.runner.reading`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from localeval.runner.columns import LEGACY, ColumnError, ColumnMap
from localeval.runner.reading import count_json_lines, depth_error, json_lines, too_deep
from localeval.schema import Sample

__all__ = ["Row", "count_lines", "make_row", "parse_row", "read_jsonl"]

_NO_MAP = ColumnMap()


@dataclass(slots=True)
class Row:
    """One input row: where it was, what it held, and its `Sample` or why there is none."""

    line: int
    """Line number in a JSON Lines file; 1-based row number for other inputs."""
    data: dict[str, Any]
    sample: Sample | None = None
    error: str | None = None
    index: int = field(default=-1)
    """0-based position among the input's rows (chunks are cut on it, see `runner.run`)."""
    warnings: list[str] = field(default_factory=list)
    """What may make the row's scores wrong without making them impossible (a text in a
    language the judge was not trained on), set when the row is scored."""


def _validation_message(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        where = ".".join(str(x) for x in e["loc"]) or "row"
        parts.append(f"{where}: {e['msg']}")
    return "invalid row: " + "; ".join(parts)


def _warn_if_both_names(data: Mapping[str, Any], columns: ColumnMap) -> None:
    """A row with a field under both its RAGAS name and its legacy one (``user_input`` and
    ``question``): the RAGAS name is read; say so (once per pair), as the other is ignored."""
    for legacy, name in LEGACY.items():
        if name in data and legacy in data and name not in columns.mapping:
            warnings.warn(
                f"rows hold both {name!r} and {legacy!r}: {name!r} is scored, {legacy!r} is only "
                f"kept as an input column (map another column with column_map={{{name!r}: ...}})",
                UserWarning,
                stacklevel=4,
            )


def make_row(index: int, line: int, raw: Any, columns: ColumnMap = _NO_MAP) -> Row:
    """Validate one raw record (a mapping) into a row; failures become the row's error."""
    if not isinstance(raw, Mapping):
        if too_deep(raw):
            raw = f"<a {type(raw).__name__} {depth_error()}, not kept>"
        return Row(line=line, data={"_raw": raw}, error="invalid row: not a JSON object", index=index)
    data = dict(raw)
    if too_deep(data):
        # Every later step (column map, validation, the writer) walks values recursively; the
        # shallow columns are kept, a too-deep one is replaced by a note saying so.
        data = {k: f"<value {depth_error()}, not kept>" if too_deep(v) else v for k, v in data.items()}
        return Row(line=line, data=data, error=f"invalid row: {depth_error()}", index=index)
    _warn_if_both_names(data, columns)
    if columns.human:  # mapped human labels travel under their canonical name (runner.human)
        data.update(columns.labels(data))
    try:
        sample = Sample.model_validate(columns.apply(data))
    except RecursionError:
        return Row(line=line, data=data, error=f"invalid row: {depth_error()}", index=index)
    except ColumnError as exc:
        return Row(line=line, data=data, error=f"invalid row: {exc}", index=index)
    except ValidationError as exc:
        return Row(line=line, data=data, error=_validation_message(exc), index=index)
    return Row(line=line, data=data, sample=sample, index=index)


def parse_row(line_number: int, text: str, columns: ColumnMap = _NO_MAP, index: int = -1) -> Row:
    """A row from one JSON Lines line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return Row(line=line_number, data={"_raw": text.rstrip("\n")}, error=f"invalid JSON: {exc.msg}", index=index)
    except ValueError as exc:  # an integer over Python's int-string limit
        return Row(line=line_number, data={"_raw": text.rstrip("\n")}, error=f"invalid JSON: {str(exc).split(';')[0]}",
                   index=index)
    except RecursionError:
        return Row(line=line_number, data={"_raw": text.rstrip("\n")}, error=f"invalid row: {depth_error()}", index=index)
    return make_row(index, line_number, data, columns)


def read_jsonl(path: str | Path, columns: ColumnMap = _NO_MAP) -> Iterator[Row]:
    """Rows of a JSON Lines file; blank lines are skipped, every other line yields a row."""
    for index, line in enumerate(json_lines(path)):
        if line.error is not None:
            yield Row(line=line.number, data={"_raw": line.text}, error=line.error, index=index)
        else:
            yield make_row(index, line.number, line.value, columns)


def count_lines(path: str | Path) -> int:
    return count_json_lines(path)
