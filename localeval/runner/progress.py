"""Progress of a run: a Rich bar with rows/s and an ETA on a terminal, plain lines otherwise.

Rows are scored a chunk at a time, so rows move in steps; between them the display moves with
every forward pass of the judge (`judged`: pairs judged, rate and ETA refreshed), so a long
chunk never looks stalled. Logs and CI output are not terminals: there a line every ``every``
seconds says how far the run is, how fast and when it should end, instead of a bar redrawn
hundreds of times into a file.
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

        self.pairs = 0

    def advance(self, rows: int) -> None:
        self.done += rows

    def judged(self, pairs: int) -> None:
        """One forward pass of the judge finished with ``pairs`` pairs."""
        self.pairs += pairs

    @property
    def rate(self) -> float:
        elapsed = time.perf_counter() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the rate so far; ``None`` before the first row or without a total."""
        if self.total is None or self.done == 0 or self.rate <= 0:
            return None
        return max(0, self.total - self.done) / self.rate

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
        eta = "" if self.eta is None else f", ETA {_clock(self.eta)}"
        self.stream.write(f"scored {of} ({self.rate:.1f} rows/s, {self.pairs:,} pairs judged{eta})\n")
        self.stream.flush()

    def _maybe_line(self) -> None:
        now = time.perf_counter()
        if now - self._last >= self.every:
            self._last = now
            self._line()

    def advance(self, rows: int) -> None:
        super().advance(rows)
        self._maybe_line()

    def judged(self, pairs: int) -> None:
        super().judged(pairs)
        self._maybe_line()

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
            TextColumn("{task.fields[pairs]} pairs"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(file=stream),
            transient=False,
        )
        self._task = self._bar.add_task("scoring", total=total, rate="-", pairs="0")
        self._bar.start()

    def advance(self, rows: int) -> None:
        super().advance(rows)
        self._bar.update(self._task, advance=rows, rate=f"{self.rate:.1f}")

    def judged(self, pairs: int) -> None:
        super().judged(pairs)
        self._bar.update(self._task, pairs=f"{self.pairs:,}", rate=f"{self.rate:.1f}")

    def close(self) -> None:
        self._bar.stop()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def make_progress(total: int | None, *, enabled: bool = True, stream: TextIO | None = None, every: float = 10.0) -> Progress:
    """The right progress display for ``stream`` (stderr by default)."""
    stream = stream or sys.stderr
    if not enabled:
        return Progress(total)
    if getattr(stream, "isatty", lambda: False)():
        return _RichProgress(total, stream)
    return _PlainProgress(total, stream, every)
