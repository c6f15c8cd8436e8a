"""Where rows come from: Python lists, pandas DataFrames, Hugging Face Datasets, and files
(JSON Lines, CSV, Parquet). Every source is read lazily, so memory stays bounded by a chunk.

Files are recognised by extension. CSV is read with the standard library (every cell is
text; list cells are JSON, decoded by the column map); Parquet by pyarrow in record batches.
JSON Lines and CSV go through `localeval.runner.reading`, so a bad line or cell (encoding,
nesting, size) is one unscored row with its reason, never the end of the run.

RAGAS objects are read by field name, without importing ragas: an ``EvaluationDataset`` (its
``samples``) or a list of ``SingleTurnSample`` (any pydantic model or dataclass row works the
same way: its fields become the row's columns). A ``MultiTurnSample`` (a conversation) is
kept as an unscored row with the reason: localeval scores single-turn RAG rows.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localeval.runner.columns import ColumnMap
from localeval.runner.reading import check_not_utf16, count_csv_records, csv_header, csv_records
from localeval.runner.rows import Row, count_lines, make_row, read_jsonl

__all__ = ["Source", "file_format", "file_rows", "open_source", "plain_record"]

_BATCH = 1024  # records pulled from a DataFrame or a Parquet file at a time


@dataclass
class Source:
    """A lazily read dataset: its rows, how many there are when known, and what it is."""

    kind: str
    total: int | None
    rows: Iterable[Row]


def file_format(path: str | os.PathLike[str]) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    raise ValueError(f"unknown input format {suffix!r}: expected .jsonl, .csv or .parquet")


MULTI_TURN = "invalid row: a multi-turn sample (a conversation) cannot be scored; localeval scores single-turn RAG rows"


def _is_multi_turn(raw: Any) -> bool:
    return type(raw).__name__ == "MultiTurnSample"


def plain_record(raw: Any) -> Any:
    """A mapping for a row given as an object: a pydantic model (RAGAS' ``SingleTurnSample``,
    localeval's ``Sample``) or a dataclass, by field name; unset (``None``) fields are left out
    so that they read as missing. Anything else is returned as it is."""
    if isinstance(raw, Mapping):
        return raw
    dump = getattr(raw, "model_dump", None)
    if callable(dump) and hasattr(type(raw), "model_fields"):
        return dump(exclude_none=True)
    if dataclasses.is_dataclass(raw) and not isinstance(raw, type):
        return {k: v for k, v in dataclasses.asdict(raw).items() if v is not None}
    return raw


def _records(records: Iterable[Any], columns: ColumnMap) -> Iterator[Row]:
    for index, raw in enumerate(records):
        if _is_multi_turn(raw):
            yield Row(line=index + 1, data=plain_record(raw), error=MULTI_TURN, index=index)
            continue
        yield make_row(index, index + 1, plain_record(raw), columns)


def _csv_rows(path: Path, columns: ColumnMap) -> Iterator[Row]:
    for index, record in enumerate(csv_records(path)):
        if record.error is not None:
            yield Row(line=record.number, data=record.cells, error=record.error, index=index)
        else:
            yield make_row(index, record.number, record.cells, columns)


def _parquet_records(path: Path) -> Iterator[dict[str, Any]]:
    import pyarrow.parquet as pq

    for batch in pq.ParquetFile(path).iter_batches(batch_size=_BATCH):
        yield from batch.to_pylist()


def _frame_records(frame: Any) -> Iterator[dict[str, Any]]:
    for start in range(0, len(frame), _BATCH):
        yield from frame.iloc[start : start + _BATCH].to_dict("records")


def _is_dataframe(data: Any) -> bool:
    return hasattr(data, "iloc") and hasattr(data, "columns") and hasattr(data, "to_dict")


def _is_ragas_dataset(data: Any) -> bool:
    """RAGAS' ``EvaluationDataset`` (recognised by its module and ``samples``, not imported)."""
    return type(data).__module__.split(".")[0] == "ragas" and isinstance(getattr(data, "samples", None), list)


def _is_hf_dataset(data: Any) -> bool:
    return hasattr(data, "column_names") and hasattr(data, "features")


def file_rows(path: str | os.PathLike[str], kind: str, columns: ColumnMap) -> Iterator[Row]:
    """The rows of a ``kind`` file (``file_format``), read lazily: what `open_source` reads, and
    what the Ray engine's read task reads on a worker (same rows, lines and reasons)."""
    path = Path(path)
    if kind == "jsonl":
        return read_jsonl(path, columns)
    if kind == "csv":
        return _csv_rows(path, columns)
    if kind == "parquet":
        return _records(_parquet_records(path), columns)
    raise ValueError(f"unknown file format {kind!r}")


def open_source(data: Any, columns: ColumnMap) -> Source:
    """A `Source` for any supported input (see the module docstring)."""
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        if not path.is_file():
            raise FileNotFoundError(f"no such input file: {path}")
        kind = file_format(path)
        if kind in ("jsonl", "csv"):
            check_not_utf16(path)
        if kind == "jsonl":
            return Source(kind, count_lines(path), file_rows(path, kind, columns))
        if kind == "csv":
            columns.check_columns(csv_header(path))
            return Source(kind, count_csv_records(path), file_rows(path, kind, columns))
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(path)
        columns.check_columns(list(meta.schema_arrow.names))
        return Source(kind, meta.metadata.num_rows, file_rows(path, kind, columns))
    if _is_dataframe(data):
        columns.check_columns([str(c) for c in data.columns])
        return Source("dataframe", len(data), _records(_frame_records(data), columns))
    if _is_ragas_dataset(data):
        return Source("ragas", len(data.samples), _records(data.samples, columns))
    if _is_hf_dataset(data):
        columns.check_columns(list(data.column_names))
        return Source("dataset", len(data), _records(iter(data), columns))
    if isinstance(data, Mapping):
        raise TypeError("data must be rows (a list of dicts), not a single dict; wrap it in a list")
    if isinstance(data, Iterable):
        total = len(data) if hasattr(data, "__len__") else None
        return Source("records", total, _records(data, columns))
    raise TypeError(f"cannot read rows from {type(data).__name__}")
