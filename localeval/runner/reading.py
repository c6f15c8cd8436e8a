"""Reading input files so that no single line or cell can stop a run.

Every hazard of a real file becomes one unscored row with its reason and line number, and the
rest of the file is read:

* **encodings**: a UTF-8 byte-order mark (Excel's CSV export writes one) is dropped; a line or
  cell that is not valid UTF-8 is reported with its line and byte offset;
* **JSON Lines** are split on ``\\n`` only, so a raw carriage return (or U+2028, or a form
  feed) inside a JSON string neither splits the row nor shifts later line numbers, and such
  a control character inside a string is read as written;
* **nesting**: a value nested deeper than `MAX_DEPTH` levels (which would exhaust Python's
  recursion in the decoder, the column map or the writer) is refused before it is walked
  recursively;
* **CSV**: cells of any size are read (the standard library stops at 131,072 characters, and
  a scored CSV's ``_input`` column is often longer); a malformed record is reported with its
  line and reading goes on with the next one;
* **huge numbers**: an integer longer than Python's int-string limit (4,300 digits) raises a
  plain `ValueError` in the decoder; such a line is unscored with its reason like any other
  invalid JSON;
* **silent last-value-wins**: a JSON object holding one key twice, or a CSV header naming one
  column twice, is read as the last value (as every JSON and CSV reader does) with a warning
  naming the key and line;
* **wrong files**: a UTF-16 file (a byte-order mark, or NUL bytes between characters) is
  refused with the way to convert it; a CSV file whose header is one column holding ``;`` or
  a tab gets a warning that localeval reads comma-separated files.
"""

from __future__ import annotations

import codecs
import csv
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "CsvRecord",
    "check_not_utf16",
    "JsonLine",
    "count_csv_records",
    "count_json_lines",
    "csv_header",
    "csv_records",
    "depth_error",
    "json_lines",
    "too_deep",
]

MAX_DEPTH = 200
"""Deepest nesting of lists and dicts a row may hold. Real rows nest a few levels; 200 keeps
every recursive step (decoder, cleaner, writer, resume) far from Python's 1,000-frame limit."""

_BOM = codecs.BOM_UTF8
# The largest value the csv module accepts (a C long): cells are bounded by the row budget
# (`localeval.runner.budget`), not by a parser limit that would end the run.
_CSV_FIELD_LIMIT = min(sys.maxsize, 2**31 - 1)


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests lists/tuples/dicts more than ``limit`` levels (iterative: it
    never recurses, whatever the depth)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def depth_error(limit: int = MAX_DEPTH) -> str:
    return f"nested more than {limit} levels deep"


class JsonLine:
    """One non-blank line of a JSON Lines file: its number, its text, and why it cannot be
    read (``None`` when it decoded)."""

    __slots__ = ("number", "text", "value", "error")

    def __init__(self, number: int, text: str, value: Any = None, error: str | None = None) -> None:
        self.number, self.text, self.value, self.error = number, text, value, error


def _decode(raw: bytes, number: int) -> tuple[str, str | None]:
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        # The text is kept (bad bytes as U+FFFD) so the output row shows what was there.
        return raw.decode("utf-8", "replace"), f"invalid UTF-8: byte {exc.start} of line {number} is not UTF-8"


def check_not_utf16(path: str | Path) -> None:
    """Refuse a UTF-16 file in one line (read as UTF-8, every line would be invalid)."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    bom = head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    # ASCII text in UTF-16 has a NUL byte beside every character; UTF-8 text has none.
    if bom or (len(head) >= 8 and head.count(0) * 3 >= len(head)):
        raise ValueError(
            f"{path} looks UTF-16 encoded ({'a UTF-16 byte-order mark' if bom else 'NUL bytes between characters'}); "
            "localeval reads UTF-8: save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 in > out)"
        )


class _Duplicates:
    """Collects the first duplicate key met while decoding JSON objects (an object hook)."""

    def __init__(self) -> None:
        self.key: str | None = None

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs) and self.key is None:
            seen: set[str] = set()
            self.key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        return out


def warn_duplicate(what: str, name: str, line: int) -> None:
    warnings.warn(
        f"{what} {name!r} appears twice (line {line}); the last value is used (first such line shown)",
        UserWarning,
        stacklevel=3,
    )


def _raw_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes without the trailing newline) of non-blank lines; split on b"\\n"
    only (a binary file's ``readline``), a leading BOM dropped."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]
            raw = raw.rstrip(b"\n")
            if raw.strip():
                yield number, raw


def json_lines(path: str | Path) -> Iterator[JsonLine]:
    """Every non-blank line of a JSON Lines file, decoded, or with the reason it is not."""
    duplicates, warned = _Duplicates(), False
    for number, raw in _raw_lines(path):
        text, error = _decode(raw, number)
        if error is not None:
            yield JsonLine(number, text, error=error)
            continue
        try:
            # strict=False: a raw tab or carriage return inside a string is kept as written.
            value = json.loads(text, strict=False, object_pairs_hook=duplicates)
        except json.JSONDecodeError as exc:
            yield JsonLine(number, text, error=f"invalid JSON: {exc.msg} (line {number}, column {exc.colno})")
            continue
        except ValueError as exc:  # an integer over Python's int-string limit, for one
            yield JsonLine(number, text, error=f"invalid JSON: {str(exc).split(';')[0]} (line {number})")
            continue
        except RecursionError:  # deeper than the interpreter's stack allows
            yield JsonLine(number, text, error=f"invalid row: {depth_error()} (line {number})")
            continue
        if too_deep(value):
            yield JsonLine(number, text, error=f"invalid row: {depth_error()} (line {number})")
            continue
        if duplicates.key is not None and not warned:
            warn_duplicate("JSON key", duplicates.key, number)
            warned = True
        yield JsonLine(number, text, value=value)


def count_json_lines(path: str | Path) -> int:
    return sum(1 for _ in _raw_lines(path))


# ---------------------------------------------------------------------------- CSV
class CsvRecord:
    """One CSV record: its 1-based record number, the file line it starts on, its cells by
    column, and why it cannot be read (``None`` when it could)."""

    __slots__ = ("number", "line", "cells", "error")

    def __init__(self, number: int, line: int, cells: dict[str, Any], error: str | None = None) -> None:
        self.number, self.line, self.cells, self.error = number, line, cells, error


def _open_csv(path: str | Path):
    # utf-8-sig drops a BOM; surrogateescape keeps a bad byte as a marker (found below) instead
    # of ending the read; newline="" lets the csv module handle quoted cells that span lines.
    return open(path, encoding="utf-8-sig", errors="surrogateescape", newline="")


def _bad_bytes(values: list[str]) -> str | None:
    for value in values:
        for i, ch in enumerate(value):
            if "\udc80" <= ch <= "\udcff":
                return f"invalid UTF-8: byte 0x{ord(ch) - 0xDC00:02x} at character {i} of a cell"
    return None


def _replace_bad(value: str) -> str:
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _next_record(reader: Any) -> tuple[list[str] | None, str | None]:
    """The next record, ``(None, None)`` at the end, or ``([], reason)`` for a malformed one.
    The field limit is a module-wide setting of ``csv``: it is raised for this read only."""
    limit = csv.field_size_limit(_CSV_FIELD_LIMIT)
    try:
        return next(reader), None
    except StopIteration:
        return None, None
    except csv.Error as exc:
        return [], f"unreadable CSV record: {exc}"
    finally:
        csv.field_size_limit(limit)


def csv_header(path: str | Path) -> list[str]:
    """The header's column names (a UTF-16 file refused; a duplicate name, or one column that
    looks separated by ``;`` or a tab, warned about)."""
    check_not_utf16(path)
    with _open_csv(path) as handle:
        cells, _ = _next_record(csv.reader(handle))
    header = [_replace_bad(c) for c in cells or []]
    twice = next((c for i, c in enumerate(header) if c in header[:i]), None)
    if twice is not None:
        warn_duplicate("CSV column", twice, 1)
    if len(header) == 1 and (sep := next((s for s in (";", "\t", "|") if s in header[0]), None)):
        warnings.warn(
            f"the CSV header is one column {header[0][:80]!r}: the file looks separated by {sep!r}; "
            "localeval reads comma-separated CSV: export it with ',' as the separator",
            UserWarning,
            stacklevel=2,
        )
    return header


def csv_records(path: str | Path) -> Iterator[CsvRecord]:
    """Every record after the header, as cells by column name, or with its reason."""
    with _open_csv(path) as handle:
        reader = csv.reader(handle)
        header, _ = _next_record(reader)
        header = [_replace_bad(c) for c in header or []]
        number = 0
        while True:
            start = reader.line_num + 1
            cells, error = _next_record(reader)
            if cells is None:
                return
            if error is None and not cells:  # a blank line, as csv.DictReader skips it
                continue
            number += 1
            error = error or _bad_bytes(cells)
            if error is not None:
                error = f"{error} (line {start})"
                cells = [_replace_bad(c) for c in cells]
            row: dict[str, Any] = dict(zip(header, cells))
            if len(cells) > len(header):  # as csv.DictReader does
                row["_extra"] = cells[len(header):]
            yield CsvRecord(number, start, row, error)


def count_csv_records(path: str | Path) -> int:
    return sum(1 for _ in csv_records(path))
