"""Quiet by default: third-party output (transformers' "Loading weights" bars and info lines,
Ray's log lines) is hidden unless the user asks with ``localeval -v`` or
``LOCALEVAL_VERBOSE=1``. A module of its own, at the bottom of the package, so the backends
that load models and the runner that starts Ray read the same switch."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["VERBOSE_ENV", "quiet_loading", "set_verbose", "verbose"]

VERBOSE_ENV = "LOCALEVAL_VERBOSE"


def verbose() -> bool:
    """Whether third-party loading bars and log lines are shown: off by default (an API call
    or a CI log should hold localeval's own output only), on with ``localeval -v`` or
    ``LOCALEVAL_VERBOSE=1``. An environment variable, so Ray actors inherit it."""
    return os.environ.get(VERBOSE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def set_verbose(on: bool) -> None:
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
