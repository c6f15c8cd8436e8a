"""Rows as the runner sees them, and reading them from JSON Lines without ever losing one.

A line that is not valid JSON, or not a JSON object, still becomes a row: it carries an
``error`` so every metric reports it as unscored with that reason, and the output file keeps
one line per input line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from localeval.runner.columns import ColumnError, ColumnMap
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


def make_row(index: int, line: int, raw: Any, columns: ColumnMap = _NO_MAP) -> Row:
    """Validate one raw record (a mapping) into a row; failures become the row's error."""
    if not isinstance(raw, Mapping):
        return Row(line=line, data={"_raw": raw}, error="invalid row: not a JSON object", index=index)
    data = dict(raw)
    try:
        sample = Sample.model_validate(columns.apply(data))
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
    return make_row(index, line_number, data, columns)


def read_jsonl(path: str | Path, columns: ColumnMap = _NO_MAP) -> Iterator[Row]:
    """Rows of a JSON Lines file; blank lines are skipped, every other line yields a row."""
    index = 0
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if text.strip():
                yield parse_row(number, text, columns, index)
                index += 1


def count_lines(path: str | Path) -> int:
    with open(path, encoding="utf-8") as handle:
        return sum(1 for text in handle if text.strip())
