"""Progress of a run: a Rich bar with rows/s on a terminal, plain lines otherwise.

Logs and CI output are not terminals: there a line every ``every`` seconds says how far the
run is and how fast, instead of a bar redrawn hundreds of times into a file.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

# quiet_loading's home is localeval.quiet (the backends use it too); kept importable from here.
from localeval.quiet import quiet_loading
from localeval.runner.summary import plural

__all__ = ["Progress", "make_progress", "quiet_loading"]


class Progress:
    """No output at all (``--no-progress``); the base of the two visible kinds."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.done = 0
        self.started = time.perf_counter()

    def advance(self, rows: int) -> None:
        self.done += rows

    @property
    def rate(self) -> float:
        elapsed = time.perf_counter() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    def close(self) -> None:
        pass

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _PlainProgress(Progress):
    def __init__(self, total: int | None, stream: TextIO, every: float) -> None:
        super().__init__(total)
        self.stream, self.every = stream, every
        self._last = self.started

    def _line(self) -> None:
        of = f"{self.done}/{plural(self.total, 'row')}" if self.total is not None else plural(self.done, "row")
        self.stream.write(f"scored {of} ({self.rate:.1f} rows/s)\n")
        self.stream.flush()

    def advance(self, rows: int) -> None:
        super().advance(rows)
        now = time.perf_counter()
        if now - self._last >= self.every:
            self._last = now
            self._line()

    def close(self) -> None:
        self._line()


class _RichProgress(Progress):
    def __init__(self, total: int | None, stream: TextIO) -> None:
        super().__init__(total)
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress as Bar,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Bar(
            TextColumn("scoring"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} rows/s"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(file=stream),
            transient=False,
        )
        self._task = self._bar.add_task("scoring", total=total, rate="-")
        self._bar.start()

    def advance(self, rows: int) -> None:
        super().advance(rows)
        self._bar.update(self._task, advance=rows, rate=f"{self.rate:.1f}")

    def close(self) -> None:
        self._bar.stop()


def make_progress(total: int | None, *, enabled: bool = True, stream: TextIO | None = None, every: float = 10.0) -> Progress:
    """The right progress display for ``stream`` (stderr by default)."""
    stream = stream or sys.stderr
    if not enabled:
        return Progress(total)
    if getattr(stream, "isatty", lambda: False)():
        return _RichProgress(total, stream)
    return _PlainProgress(total, stream, every)
