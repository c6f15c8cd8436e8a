"""Reading rows from JSON Lines without ever losing one.

A line that is not valid JSON, or not a JSON object, still becomes a row: it carries an
``error`` so every metric reports it as unscored with that reason, and the output file keeps
one line per input line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from localeval.schema import Sample

__all__ = ["Row", "read_jsonl", "count_lines"]


class Row(BaseModel):
    line: int
    data: dict[str, Any]
    sample: Sample | None = None
    error: str | None = None


def _validation_message(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        where = ".".join(str(x) for x in e["loc"]) or "row"
        parts.append(f"{where}: {e['msg']}")
    return "invalid row: " + "; ".join(parts)


def parse_row(line_number: int, text: str) -> Row:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return Row(line=line_number, data={"_raw": text}, error=f"invalid JSON: {exc.msg}")
    if not isinstance(data, dict):
        return Row(line=line_number, data={"_raw": data}, error="invalid row: not a JSON object")
    try:
        return Row(line=line_number, data=data, sample=Sample.model_validate(data))
    except ValidationError as exc:
        return Row(line=line_number, data=data, error=_validation_message(exc))


def read_jsonl(path: str | Path) -> Iterator[Row]:
    """Rows of a JSON Lines file; blank lines are skipped, every other line yields a row."""
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if text.strip():
                yield parse_row(number, text)


def count_lines(path: str | Path) -> int:
    with open(path, encoding="utf-8") as handle:
        return sum(1 for text in handle if text.strip())
