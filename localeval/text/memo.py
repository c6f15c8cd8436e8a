"""`TextMemo`: what one run remembers of the text functions it calls.

The contrast rules, the merge rule's parse, the number reader, candidate selection and
language detection are pure functions of one text, called again and again within a chunk
(a claim meets every unit of its row; several metrics read the same contexts). Their results
are remembered in the run's `TextMemo`, which the run's session
(`localeval.judge.session.JudgeSession`) owns, makes active while its metrics score
(`remembering`) and empties per chunk. So no result outlives the run that asked for it: a
second run in the same process is not flattered by the first, and a long run's memory does
not grow with the rows it has scored. Outside a run nothing is remembered and every call
computes.

A function opts in with ``@remembered`` (or ``@remembered(entries=...)`` for a table of its
own size); its one argument (a text) is the key.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["TEXT_MEMO_SIZE", "TextMemo", "active_memo", "holding", "memo_scope", "remembered", "remembering"]

TEXT_MEMO_SIZE = 4096
"""Entries of each table of a run's text memo (a text's tokens, numbers, parse, word set),
emptied per chunk. A chunk's working set fits (its claims meet the same units again within a
row); when these memos were process-wide and held 32,768-65,536 entries, long texts as keys
grew a 20,000-row run by ~400 MB (benchmarks/results/memory_curve.md)."""

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_active: ContextVar[TextMemo | None] = ContextVar("localeval_text_memo", default=None)


class TextMemo:
    """Results of text functions for one run: per ``@remembered`` function, its own
    ``functools.lru_cache`` (C speed on a hit; ``maxsize`` entries unless the function asks
    for another size), and named tables a batch fills ahead (``lookup`` / ``store``)."""

    def __init__(self, maxsize: int = TEXT_MEMO_SIZE) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be >= 1, got {maxsize}")
        self.maxsize = maxsize
        self._functions: dict[str, Callable[[Any], Any]] = {}
        self._tables: dict[str, OrderedDict[Hashable, Any]] = {}
        self._lock = threading.Lock()

    def function(self, table: str, function: Callable[[K], T], entries: int | None = None) -> Callable[[K], T]:
        """``function`` with this memo's cache for ``table`` (made on first use)."""
        cached = self._functions.get(table)
        if cached is None:
            with self._lock:
                cached = self._functions.setdefault(table, functools.lru_cache(maxsize=entries or self.maxsize)(function))
        return cached

    def lookup(self, table: str, key: Hashable) -> tuple[bool, Any]:
        """``(True, value)`` when ``key`` is remembered in ``table``, else ``(False, None)``."""
        with self._lock:
            kept = self._tables.get(table)
            if kept is None or key not in kept:
                return False, None
            kept.move_to_end(key)
            return True, kept[key]

    def store(self, table: str, key: Hashable, value: Any) -> None:
        """Remember ``value`` under ``key``; ``table`` keeps its ``maxsize`` latest."""
        with self._lock:
            kept = self._tables.setdefault(table, OrderedDict())
            kept[key] = value
            kept.move_to_end(key)
            while len(kept) > self.maxsize:
                kept.popitem(last=False)

    def clear(self) -> None:
        """Forget everything (the runner does it per chunk, through the session)."""
        with self._lock:
            self._functions.clear()
            self._tables.clear()

    def __len__(self) -> int:
        with self._lock:
            return (sum(f.cache_info().currsize for f in self._functions.values())  # type: ignore[attr-defined]
                    + sum(len(kept) for kept in self._tables.values()))

    def __repr__(self) -> str:
        return f"TextMemo({len(self)} results, {self.maxsize} per function)"


def active_memo() -> TextMemo | None:
    """The memo of the run scoring in this thread or task, if any."""
    return _active.get()


@contextmanager
def holding(var: ContextVar[V], value: V) -> Iterator[None]:
    """``var`` set to ``value`` within the block (this thread or task), restored after it:
    how a run makes its memos active (`remembering`, `localeval.text.remembering_splits`)."""
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


def remembering(memo: TextMemo | None) -> AbstractContextManager[None]:
    """Within the block (this thread or task), ``@remembered`` functions read and fill ``memo``."""
    return holding(_active, memo)


@contextmanager
def memo_scope() -> Iterator[TextMemo]:
    """The active memo, or a new one for the block: a batch call (many pairs at once) shares
    its texts' results even outside a run."""
    memo = _active.get()
    if memo is not None:
        yield memo
        return
    memo = TextMemo()
    with remembering(memo):
        yield memo


def remembered(function: Callable[[K], T] | None = None, *, entries: int | None = None):
    """``function`` (of one hashable argument), its results kept in the active `TextMemo`
    (``entries``: the size of its cache, default the memo's ``maxsize``)."""
    if function is None:
        return functools.partial(remembered, entries=entries)
    table = f"{function.__module__}.{function.__qualname__}"

    @functools.wraps(function)
    def wrapper(key: K) -> T:
        memo = _active.get()
        if memo is None:
            return function(key)
        return memo.function(table, function, entries)(key)

    def bound() -> Callable[[K], T]:
        """The function with the active memo's cache, looked up once: for a hot loop."""
        memo = _active.get()
        return function if memo is None else memo.function(table, function, entries)

    wrapper.bound = bound  # type: ignore[attr-defined]
    return wrapper
