"""Stopping a scoring run by a signal: files left whole, and the way to go on said in one line.

SIGTERM (a job scheduler, ``kill``, a CI timeout) would end Python at once, before the output
writer could remove a staged CSV or Parquet file or the lock; it is turned into an exception
(`Stopped`, like the KeyboardInterrupt of SIGINT) so the run unwinds as for any failure. The
score command then prints what the output holds and how to continue.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

__all__ = ["Stopped", "resume_hint", "stop_on_signals"]


class Stopped(BaseException):
    """The run received SIGTERM (a BaseException, as KeyboardInterrupt: nothing catches it
    as an ordinary error)."""


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signal.Signals(signum).name)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM raises `Stopped` (only the main thread can set a handler)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def resume_hint(exc: BaseException, output: Path | None) -> str:
    """One line: which signal stopped the run, what the output holds, how to go on."""
    name = "SIGINT" if isinstance(exc, KeyboardInterrupt) else (str(exc) or "SIGTERM")
    if output is None:
        return (f"stopped by {name}: the rows scored so far went to stdout; "
                "write to a file (-o out.jsonl) to be able to resume")
    if output.suffix.lower() in (".csv", ".parquet", ".pq"):
        return (f"stopped by {name}: {output} was left as it was (CSV and Parquet are written whole at the end); "
                "rerun the command, or write .jsonl to be able to resume")
    return (f"stopped by {name}: the rows scored so far are in {output}; "
            "rerun the same command with --resume to go on")
