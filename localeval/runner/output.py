"""Writing scored rows as they finish, and picking a killed run up where it stopped.

Each output row is the input row plus ``_line`` (its input line, so a resumed run knows what
is done), ``_error`` when the row could not be read, and per metric ``<m>``, ``<m>_reason``
and ``<m>_details``. Those names are reserved: an input column that has one of them is
written as ``input.<name>``, with a warning. Rows are written in input order, one chunk per ``write`` call.

**Resume** (JSON Lines only): complete lines of the existing output are kept, a torn last line
(the process was killed mid-write) is cut off, and rows whose ``_line`` is already there are
skipped. Chunks are cut on absolute row positions and the judge memo is reset per chunk, so
the resumed file is byte-identical to an uninterrupted run's.

**Parquet** and **CSV** need one set of columns for the whole file while input rows may
differ in shape, so they hold ``_line``, ``_input`` (the input row as JSON, lossless), the
text fields as read (``user_input``, ``response``, ``reference``, ``retrieved_contexts``),
``_error`` and the metric columns, with details as JSON text. In CSV, list cells
(``retrieved_contexts``) are JSON text too, and a missing value is an empty cell, so a scored
CSV file can be read back as input.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from localeval.metrics.base import MetricResult
from localeval.runner.columns import clean_value
from localeval.runner.rows import Row

__all__ = [
    "CsvWriter", "JsonlWriter", "ParquetWriter", "Writer", "check_writable", "flat_record", "open_writer",
    "output_format", "read_done", "record",
]


def _json_default(value: Any) -> Any:
    cleaned = clean_value(value)
    if cleaned is not value:
        return cleaned
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _finite(value: Any) -> Any:
    """NaN/inf are not JSON: they are written as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(obj: Any) -> str:
    text = json.dumps(_finite(clean_value(obj)), ensure_ascii=False, default=_json_default)
    # A lone surrogate (read from a JSON "\ud800" escape; such a row is unscored as invalid)
    # cannot be encoded as UTF-8 and would end the run in the writer. Inside a JSON string
    # its escape is valid and reads back as the same character, so it is written escaped.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


INPUT_PREFIX = "input."


def output_columns(metrics: Iterable[str]) -> set[str]:
    """Column names localeval writes itself: an input column must not take one of them."""
    return {"_line", "_error", "_warnings", *(c for m in metrics for c in (m, f"{m}_reason", f"{m}_details"))}


def namespaced(data: dict[str, Any], reserved: set[str]) -> dict[str, Any]:
    """``data`` with every column that is also an output column renamed ``input.<name>``, so
    no input value is overwritten or taken for a score (`warn_reserved` says so at run time)."""
    if not any(k in reserved for k in data):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = key
        while name in reserved or (name != key and name in data):
            name = INPUT_PREFIX + name
        out[name] = value
    return out


def warn_reserved(rows: Iterable[Row], metrics: Iterable[str]) -> Iterator[Row]:
    """``rows`` unchanged; the first time a row holds a column with an output column's name,
    a warning names it and what it is written as."""
    reserved = output_columns(metrics)
    seen: set[str] = set()
    for row in rows:
        clash = [k for k in row.data if k in reserved and k not in seen]
        if clash:
            seen.update(clash)
            warnings.warn(
                f"input column(s) {', '.join(map(repr, clash))} have the name of an output column; "
                f"they are written as {', '.join(repr(INPUT_PREFIX + k) for k in clash)}",
                UserWarning,
                stacklevel=2,
            )
        yield row


def record(row: Row, results: dict[str, MetricResult]) -> dict[str, Any]:
    """The output row for one input row and its results (keyed by output metric name)."""
    out: dict[str, Any] = {"_line": row.line}
    out.update(namespaced(row.data, output_columns(results)))
    out["_line"] = row.line
    if row.error:
        out["_error"] = row.error
    if row.warnings:
        out["_warnings"] = list(row.warnings)
    for name, result in results.items():
        out[name] = result.score
        out[f"{name}_reason"] = result.reason
        out[f"{name}_details"] = result.details()
    return out


class Writer(Protocol):
    def write(self, rows: list[tuple[Row, dict[str, MetricResult]]]) -> None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


class _Staged:
    """A file written under a temporary name beside its target and renamed over it by
    `commit` (a failed run leaves the previous file untouched); a device or FIFO target is
    written in place (`localeval.runner.guard.staging_path`)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        from localeval.runner.guard import staging_path

        self.target = Path(path)
        self.staged = staging_path(self.target)
        self.path = self.staged or self.target

    def commit(self) -> None:
        if self.staged is not None:
            os.replace(self.staged, self.target)
            self.staged = None

    def discard(self) -> None:
        if self.staged is not None:
            self.staged.unlink(missing_ok=True)
            self.staged = None


class JsonlWriter:
    """JSON Lines to a file (appending when resuming) or to a text stream.

    The file is opened (and an existing one truncated) only when the first chunk is ready, or
    at `close` for a run that wrote none: a run that fails before its first row leaves an
    existing output as it was. ``on_open`` is called right after opening (the run record and
    the inode lock follow the file)."""

    def __init__(self, path: str | os.PathLike[str] | None, *, append: bool = False,
                 on_open: Callable[[], None] | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.append = append
        self.on_open = on_open
        self._fd: int | None = None
        self._closed = False

    def _open(self) -> int:
        if self._fd is None:
            flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if self.append else os.O_TRUNC)
            self._fd = os.open(self.path, flags, 0o644)  # type: ignore[arg-type]
            if self.on_open is not None:
                self.on_open()
        return self._fd

    def write(self, rows: list[tuple[Row, dict[str, MetricResult]]]) -> None:
        text = "".join(dumps(record(row, results)) + "\n" for row, results in rows)
        if self.path is None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        # One write call per chunk, straight to the file (no user-space buffer): a killed
        # process leaves whole chunks, at worst one torn last line, which resume cuts off.
        fd = self._open()
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data) :]

    def close(self) -> None:
        """The run is complete: a run that scored no row still leaves its (empty) file."""
        if self.path is not None and not self._closed:
            self._open()
        self.abort()

    def abort(self) -> None:
        # In place: the rows written so far are what a resume continues from; a file never
        # opened is left untouched.
        self._closed = True
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


FLAT_COLUMNS = ("_line", "_input", "user_input", "response", "reference", "retrieved_contexts", "_error", "_warnings")


def flat_record(row: Row, results: dict[str, MetricResult], metrics: list[str]) -> dict[str, Any]:
    """The row in the fixed columns of Parquet and CSV output (see the module docstring)."""
    s = row.sample
    item: dict[str, Any] = {
        "_line": row.line,
        "_input": dumps(row.data),
        "user_input": s.user_input if s else None,
        "response": s.response if s else None,
        "reference": s.reference if s else None,
        "retrieved_contexts": s.retrieved_contexts if s else None,
        "_error": row.error,
        "_warnings": dumps(row.warnings) if row.warnings else None,
    }
    for m in metrics:
        r = results[m]
        item[m] = r.score
        item[f"{m}_reason"] = r.reason
        item[f"{m}_details"] = dumps(r.details())
    return item


class CsvWriter:
    """CSV with a header, the columns of `flat_record`; one flushed write per chunk."""

    def __init__(self, path: str | os.PathLike[str], metrics: list[str]) -> None:
        self.metrics = metrics
        self.columns = [*FLAT_COLUMNS, *(c for m in metrics for c in (m, f"{m}_reason", f"{m}_details"))]
        self._file = _Staged(path)
        # newline="" lets the csv module quote cells that hold line breaks.
        self._handle = open(self._file.path, "w", encoding="utf-8", newline="")
        self._writer = csv.DictWriter(self._handle, fieldnames=self.columns)
        self._writer.writeheader()

    def write(self, rows: list[tuple[Row, dict[str, MetricResult]]]) -> None:
        for row, results in rows:
            item = flat_record(row, results, self.metrics)
            if item["retrieved_contexts"] is not None:
                item["retrieved_contexts"] = dumps(item["retrieved_contexts"])
            # repr keeps every digit of a score; None becomes an empty cell.
            self._writer.writerow({k: "" if v is None else (repr(v) if isinstance(v, float) else v) for k, v in item.items()})
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()
        self._file.commit()

    def abort(self) -> None:
        try:
            self._handle.close()  # flushes: raises on a full disk
        except OSError:
            pass  # the staged file is discarded whatever it holds
        finally:
            self._file.discard()


class ParquetWriter:
    """Parquet, one row group per chunk (see the module docstring for the columns)."""

    def __init__(self, path: str | os.PathLike[str], metrics: list[str]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._pa = pa
        fields = [
            pa.field("_line", pa.int64()),
            pa.field("_input", pa.string()),
            pa.field("user_input", pa.string()),
            pa.field("response", pa.string()),
            pa.field("reference", pa.string()),
            pa.field("retrieved_contexts", pa.list_(pa.string())),
            pa.field("_error", pa.string()),
            pa.field("_warnings", pa.string()),
        ]
        for m in metrics:
            fields += [pa.field(m, pa.float64()), pa.field(f"{m}_reason", pa.string()), pa.field(f"{m}_details", pa.string())]
        self.schema = pa.schema(fields)
        self.metrics = metrics
        self._file = _Staged(path)
        self._writer = pq.ParquetWriter(self._file.path, self.schema)

    def write(self, rows: list[tuple[Row, dict[str, MetricResult]]]) -> None:
        out = [flat_record(row, results, self.metrics) for row, results in rows]
        self._writer.write_table(self._pa.Table.from_pylist(out, schema=self.schema))

    def close(self) -> None:
        self._writer.close()
        self._file.commit()

    def abort(self) -> None:
        try:
            self._writer.close()
        finally:
            self._file.discard()


OUTPUT_FORMATS: dict[str, str] = {
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv", ".parquet": "parquet", ".pq": "parquet",
}


def output_format(path: str | os.PathLike[str]) -> str:
    """``jsonl``, ``csv`` or ``parquet`` by extension; anything else is an error (an ``.xlsx``
    must not silently become JSON Lines)."""
    suffix = Path(path).suffix.lower()
    if suffix not in OUTPUT_FORMATS:
        raise ValueError(
            f"cannot write {os.fspath(path)!r}: unknown output format {suffix or '(no extension)'!r}; "
            f"supported: {', '.join(OUTPUT_FORMATS)}"
        )
    return OUTPUT_FORMATS[suffix]


def check_writable(path: str | os.PathLike[str], what: str = "output") -> None:
    """Fail early, in one line, for a path that cannot become a file: a folder, or one whose
    folder does not exist (before a model loads and a run's time is spent)."""
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{what} {os.fspath(path)!r} is a directory; give a file name")
    if not target.parent.is_dir():
        raise ValueError(f"{what} {os.fspath(path)!r}: folder {os.fspath(target.parent)!r} does not exist")


def open_writer(path: str | os.PathLike[str] | None, metrics: list[str], *, append: bool = False,
                on_open: Callable[[], None] | None = None) -> Writer:
    """A writer for ``path`` by extension (``.parquet``/``.pq``: Parquet, ``.csv``: CSV,
    ``.jsonl``/``.ndjson``/``.json``: JSON Lines, others: ValueError; ``None``: JSON Lines on
    stdout)."""
    suffix = Path(path).suffix.lower() if path is not None else ""
    if path is not None:
        output_format(path)
    if suffix in (".parquet", ".pq", ".csv"):
        if append:
            raise ValueError("resume needs a JSON Lines output: a Parquet or CSV file is not appended to")
        return CsvWriter(path, metrics) if suffix == ".csv" else ParquetWriter(path, metrics)  # type: ignore[arg-type]
    return JsonlWriter(path, append=append, on_open=on_open)


def read_done(
    path: str | os.PathLike[str],
    metrics: Iterable[str],
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> set[int]:
    """Lines already scored in an output file (each output row is passed to ``on_record``,
    one at a time, so memory stays bounded); cuts off a torn tail.

    Reading stops at the first line that is incomplete or unreadable, and the file is
    truncated there, so everything after it is scored again and appended in order.
    """
    metrics = list(metrics)
    done: set[int] = set()
    good_end = 0
    handle: BinaryIO
    with open(path, "rb+") as handle:
        for raw in iter(handle.readline, b""):
            if not raw.endswith(b"\n"):
                break
            try:
                obj = json.loads(raw)
            except ValueError:  # not JSON, or an integer over Python's digit limit
                break
            if not isinstance(obj, dict) or not isinstance(obj.get("_line"), int):
                break
            missing = [m for m in metrics if m not in obj]
            if missing:
                raise ValueError(
                    f"{path} was not written with these metrics (no column {missing[0]!r}); "
                    "resume with the same --metrics, or write to a new file"
                )
            done.add(obj["_line"])
            if on_record is not None:
                on_record(obj)
            good_end += len(raw)
        handle.truncate(good_end)
    return done
