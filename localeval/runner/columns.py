"""Column mapping: where each `Sample` field of a row comes from (as in seed 003).

A mapping sends a target field to one of:

* a column name: ``{"reference": "my_ground_truth_col"}``;
* a dotted path into a dict column: ``{"retrieved_contexts": "pred.retrieved_contexts"}``
  (a column literally named with the dots wins; list items are reached by number, and a dict
  column stored as JSON text, as in a CSV file, is decoded on the way);
* a callable taking the raw row: ``{"retrieved_contexts": lambda row: [row["pred"]["ctx"]]}``.

Target names may be RAGAS' current names, their legacy aliases (``question``, ``answer``,
``contexts``, ``ground_truth``) or the seed's ``<field>_column`` spelling. Fields that are
not mapped are read from the column of the same name, or of its legacy name.

A target ``human_<metric>`` maps a column of human labels (`localeval.runner.human`): never a
`Sample` field, its value is copied into the row under ``human_<metric>`` (so the output, the
summary and ``localeval compare`` find it under that name) and no metric reads it.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from localeval.runner.human import HUMAN_PREFIX
from localeval.schema import Sample

__all__ = ["ColumnError", "ColumnMap", "ColumnSource", "clean_value"]

ColumnSource = str | Callable[[Mapping[str, Any]], Any]

FIELDS: tuple[str, ...] = tuple(Sample.model_fields)
LEGACY: dict[str, str] = {
    "question": "user_input",
    "answer": "response",
    "contexts": "retrieved_contexts",
    "ground_truth": "reference",
}
LIST_FIELDS = frozenset(
    {"retrieved_contexts", "reference_contexts", "retrieved_context_ids", "reference_context_ids"}
)


class ColumnError(ValueError):
    """A mapped column could not be read from a row (the row is unscored with this reason)."""


def _canonical(target: str) -> str:
    name = target.strip()
    if name.startswith(HUMAN_PREFIX) and len(name) > len(HUMAN_PREFIX):
        return name
    if name.endswith("_column"):
        name = name[: -len("_column")]
    name = LEGACY.get(name, name)
    if name not in FIELDS:
        raise ValueError(f"unknown target field {target!r} in column map; fields: {', '.join(FIELDS)}")
    return name


_MISSING = object()


def _lookup(row: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` (a column name or a dotted path), or ``_MISSING``."""
    if path in row:
        return row[path]
    head, *rest = path.split(".")
    if not rest or head not in row:
        return _MISSING
    value: Any = row[head]
    for part in rest:
        if isinstance(value, str) and value[:1] in "{[":
            try:
                value = json.loads(value)
            except ValueError:  # not JSON, or an integer over the digit limit
                return _MISSING
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def clean_value(value: Any) -> Any:
    """Plain Python from what pandas, NumPy and Arrow hand out: arrays become lists, NumPy
    scalars Python scalars, and missing markers (NaN, ``pd.NA``, ``NaT``) become ``None``."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(value, "tolist") and not isinstance(value, Mapping):  # numpy array or scalar
        return clean_value(value.tolist())
    if isinstance(value, (list, tuple)):
        return [clean_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: clean_value(v) for k, v in value.items()}
    return value


_REPR_MAX_CHARS = 5_000_000  # a Python literal this long is not a context list someone wrote


def _python_list(text: str) -> list[Any] | None:
    """A list written by pandas' ``to_csv`` (Python's repr: ``['a', 'b']``, quotes of either
    kind), read with `ast.literal_eval` (literals only: no name, call or operator is ever
    evaluated) and kept only when it is a list of strings and numbers; else ``None``."""
    if len(text) > _REPR_MAX_CHARS:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(value, list) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        return value
    return None


def _decode_list(field: str, value: Any) -> Any:
    """A list field's value: CSV has no lists, so a list cell is JSON text, or Python's repr
    of a list when pandas wrote the file. A plain string where a list belongs is an error
    with a hint (it would otherwise be read as one context per character, or rejected bare)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return None
    if text.startswith("["):
        try:
            return json.loads(text)
        except ValueError:  # not JSON, or an integer over the digit limit
            pass
        parsed = _python_list(text)
        if parsed is not None:
            return parsed
        raise ColumnError(
            f"{field}: text starting with '[' is neither a JSON list nor a Python list of strings "
            f"(as pandas writes it): {_clip(text)}"
        )
    raise ColumnError(
        f"{field} must be a list of strings, got a plain string {_clip(text)}; "
        f'write it as a list: ["{_clip(text, 20, quote=False)}"] (JSON) or, in a CSV cell, the list as JSON text'
    )


def _clip(text: str, limit: int = 40, *, quote: bool = True) -> str:
    short = text if len(text) <= limit else text[: limit - 3] + "..."
    return repr(short) if quote else short


class ColumnMap:
    """Turns a raw row into the dict a `Sample` is validated from."""

    def __init__(self, mapping: Mapping[str, ColumnSource] | None = None) -> None:
        self.mapping: dict[str, ColumnSource] = {}
        self.human: dict[str, ColumnSource] = {}
        """``human_<metric>`` -> where its label is read (never a `Sample` field)."""
        for target, source in (mapping or {}).items():
            if not (isinstance(source, str) or callable(source)):
                raise TypeError(f"column map for {target!r} must be a column name, a dotted path or a callable")
            name = _canonical(target)
            if name.startswith(HUMAN_PREFIX):
                self.human[name] = source
            else:
                self.mapping[name] = source

    def __bool__(self) -> bool:
        return bool(self.mapping or self.human)

    def check_columns(self, columns: list[str]) -> None:
        """Fail early when a mapped column is absent from a table whose columns are known."""
        for target, source in {**self.mapping, **self.human}.items():
            if isinstance(source, str) and source not in columns and source.split(".")[0] not in columns:
                raise ValueError(f"column map {target} <- {source!r}: no such column (columns: {', '.join(columns)})")

    def labels(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """The mapped human labels of ``row`` (``human_<metric>`` -> the cell; a label that
        cannot be read is ``None``: a label is never a reason to leave a row unscored)."""
        out: dict[str, Any] = {}
        for target, source in self.human.items():
            if callable(source):
                try:
                    value = source(row)
                except Exception:  # noqa: BLE001 - no label for this row
                    value = None
            else:
                value = _lookup(row, source)
            out[target] = None if value is _MISSING else clean_value(value)
        return out

    def apply(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """The `Sample` fields of ``row``. Raises `ColumnError` when a callable fails."""
        out: dict[str, Any] = {}
        legacy_of = {v: k for k, v in LEGACY.items()}
        for field in FIELDS:
            source = self.mapping.get(field)
            if callable(source):
                try:
                    value = source(row)
                except Exception as exc:  # noqa: BLE001 - reported as the row's reason
                    raise ColumnError(f"column map for {field} failed: {type(exc).__name__}: {exc}") from exc
            elif isinstance(source, str):
                value = _lookup(row, source)
            else:
                value = row.get(field, _MISSING)
                if value is _MISSING and field in legacy_of:
                    value = row.get(legacy_of[field], _MISSING)
            if value is _MISSING:
                continue
            value = clean_value(value)
            if field in LIST_FIELDS:
                value = _decode_list(field, value)
            out[field] = value
        return out
