"""Keep a run's long-lived objects out of the garbage collector's full passes.

A loaded judge, tokenizer and spaCy pipeline are hundreds of thousands of Python objects. Every
full pass of CPython's cycle collector walks all of them, and a run allocates enough small
objects (spans, verdicts, results) to trigger such passes throughout: measured on the bulk
benchmark's rows, they were about a quarter of a cached re-run's time. `gc.freeze` moves the
objects alive at a moment into a permanent generation the collector skips; `gc.unfreeze` puts
them back.

`long_lived_heap` freezes at the start of a run and once more when ``settle()`` is first
called (after the first chunk, when the models it loaded are alive), and unfreezes at the end,
so nothing stays frozen after the run. The one cost: cyclic garbage that exists at a freeze is
freed at the run's end instead of during it (a chunk's worth at most). Nested runs freeze and
unfreeze once, at the outermost.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

__all__ = ["long_lived_heap", "release_freed_memory"]

_lock = threading.Lock()
_depth = 0


@contextmanager
def long_lived_heap() -> Iterator[Callable[[], None]]:
    """Within the block, objects alive at its start are frozen (`gc.freeze`); the function it
    yields freezes once more, the first time it is called. Unfrozen on leaving the outermost
    block."""
    global _depth
    with _lock:
        _depth += 1
        outermost = _depth == 1
    settled = not outermost

    def settle() -> None:
        nonlocal settled
        if not settled:
            settled = True
            gc.freeze()

    if outermost:
        gc.freeze()
    try:
        yield settle
    finally:
        with _lock:
            _depth -= 1
            last = _depth == 0
        if last:
            gc.unfreeze()


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # no glibc (macOS, musl): nothing to hand back
        return None


def release_freed_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``). A chunk's
    texts, token tensors and results are freed when the next chunk starts, but glibc keeps
    freed pages inside its arenas, so without this a long run's RSS grows with fragmentation
    rather than with what is alive. A no-op where the C library has no ``malloc_trim``."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
