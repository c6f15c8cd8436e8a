"""Progress of a run: a Rich bar with rows/s on a terminal, plain lines otherwise.

Logs and CI output are not terminals: there a line every ``every`` seconds says how far the
run is and how fast, instead of a bar redrawn hundreds of times into a file.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from localeval.runner.summary import plural

__all__ = ["Progress", "make_progress", "quiet_loading", "set_verbose", "verbose"]


VERBOSE_ENV = "LOCALEVAL_VERBOSE"


def verbose() -> bool:
    """Whether third-party loading bars and log lines are shown: off by default (an API call
    or a CI log should hold localeval's own output only), on with ``localeval -v`` or
    ``LOCALEVAL_VERBOSE=1``. An environment variable, so Ray actors inherit it."""
    import os

    return os.environ.get(VERBOSE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def set_verbose(on: bool) -> None:
    import os

    os.environ[VERBOSE_ENV] = "1" if on else "0"


@contextmanager
def quiet_loading(quiet: bool | None = None) -> Iterator[None]:
    """Hide transformers' "Loading weights" bar and its info lines while ``quiet`` (``None``:
    unless `verbose`); their earlier state is restored after."""
    if quiet is None:
        quiet = not verbose()
    if not quiet:
        yield
        return
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    level = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if was_enabled:
            hf_logging.enable_progress_bar()


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
