"""Text analyses kept with the verdicts, so a re-run in a new process re-splits nothing.

An *analysis* is something derived from one text alone by deterministic code: its sentence
splits, its claims, the units a context is cut into for a judge. `TextAnalyses` keeps them
for one run, in front of an optional *backing* (the run's SQLite verdict cache,
`localeval.judge.cache.JudgementCache`):

* ``prefetch(texts)`` reads every stored analysis of a chunk's texts in one query (and, in
  a second, those of their stored sentences: metrics analyse a context's sentences too);
* ``fetch(texts)`` reads, in one query, those of texts known only mid-chunk (the
  (claim, unit) pairs a contrast rule reads);
* ``load(kind, text)`` answers from what was prefetched or fetched (never one query per text);
* ``save(kind, text, value)`` queues a new analysis, written by ``flush()`` in one
  transaction at the end of the chunk.

A stored analysis is found under a digest of its text and its *kind*: the analysis's name,
its parameters, and `code_identity` of the code and libraries that made it (their source
files and versions), so a changed splitter never serves stale splits -- it simply misses.
Values are compact bytes (`encode_spans` / `decode_spans`); a value that does not decode to
spans of its text is treated as absent and made again. Without a backing nothing is encoded
or stored, and a run behaves as it did before.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from importlib import import_module, metadata
from pathlib import Path
from typing import Protocol

import numpy as np

from localeval.text.spans import Span

__all__ = ["AnalysisBacking", "TextAnalyses", "code_identity", "decode_offsets", "decode_spans", "encode_spans",
           "text_digest"]


class AnalysisBacking(Protocol):
    """Where analyses persist (a `JudgementCache` with a file)."""

    def read_analyses(self, texts: Sequence[bytes]) -> list[tuple[bytes, str, bytes]]: ...

    def write_analyses(self, rows: Sequence[tuple[bytes, str, bytes]]) -> None: ...


def text_digest(text: str) -> bytes:
    """The 16-byte key a text's analyses are stored under (the text itself is never written)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16, person=b"analysis").digest()


@lru_cache(maxsize=64)
def code_identity(modules: tuple[str, ...], packages: tuple[str, ...] = ()) -> str:
    """A short hex id of the source files of ``modules`` and the installed versions of
    ``packages``: it changes whenever any of them does (an edited rule, an upgraded NLTK)."""
    digest = hashlib.blake2b(digest_size=8)
    for name in modules:
        module = import_module(name)
        digest.update(name.encode())
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:  # no source file (a zipped or frozen install): the release's version
            from localeval import __version__

            digest.update(f"localeval=={__version__}".encode())
    for name in packages:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"{name}=={version}".encode())
    return digest.hexdigest()


def encode_spans(text: str, spans: Sequence[Span]) -> bytes | None:
    """``spans`` of ``text`` as int32 (start, end) offsets; ``None`` when one is not exactly
    ``text[start:end]`` (it could not be rebuilt from offsets, so it is not stored)."""
    if any(s.text != text[s.start : s.end] for s in spans):
        return None
    return np.asarray([(s.start, s.end) for s in spans], dtype="<i4").reshape(-1).tobytes()


def decode_offsets(text: str, value: bytes) -> list[tuple[int, int]] | None:
    """The (start, end) offsets ``encode_spans`` stored, or ``None`` when ``value`` cannot be
    offsets into ``text``."""
    if len(value) % 8:
        return None
    offsets = np.frombuffer(value, dtype="<i4").reshape(-1, 2).tolist()
    if any(not 0 <= a <= b <= len(text) for a, b in offsets):
        return None
    return offsets


def decode_spans(text: str, value: bytes) -> list[Span] | None:
    """The spans ``encode_spans`` stored, or ``None`` when ``value`` cannot be spans of ``text``."""
    offsets = decode_offsets(text, value)
    if offsets is None:
        return None
    return [Span(text=text[a:b], start=a, end=b) for a, b in offsets]


class TextAnalyses:
    """One run's stored analyses: prefetched per chunk, new ones written per chunk.

    Args:
        backing: where analyses persist; ``None``: nothing is loaded or saved (``enabled`` is
            False and callers skip encoding altogether).
    """

    def __init__(self, backing: AnalysisBacking | None = None) -> None:
        self.backing = backing
        self._loaded: dict[tuple[bytes, str], bytes] = {}
        self._pending: dict[tuple[bytes, str], bytes] = {}
        self._lock = threading.Lock()
        self.loaded = 0
        """Analyses answered from the backing (cumulative)."""
        self.saved = 0
        """Analyses written to the backing (cumulative)."""

    @property
    def enabled(self) -> bool:
        return self.backing is not None

    def prefetch(self, texts: Iterable[str], derive: Callable[[str], Iterable[str]] | None = None) -> None:
        """Forget the previous chunk's analyses and read every stored one of ``texts``; with
        ``derive`` (a text -> the texts derived from it, read from what was just loaded, e.g.
        its stored sentences), a second query reads theirs (metrics analyse a context's
        sentences too)."""
        if self.backing is None:
            return
        texts = [t for t in dict.fromkeys(texts) if t]
        digests = {text_digest(t) for t in texts}
        rows = self.backing.read_analyses(sorted(digests))
        with self._lock:
            self._loaded = {(t, k): v for t, k, v in rows}
        if derive is None or not rows:
            return
        more = {text_digest(d) for t in texts for d in derive(t) if d} - digests
        if more:
            rows = self.backing.read_analyses(sorted(more))
            with self._lock:
                self._loaded.update(((t, k), v) for t, k, v in rows)

    def fetch(self, texts: Iterable[str]) -> None:
        """Also read the stored analyses of ``texts``, keeping what was prefetched (until the
        next ``prefetch``): for texts known only while a chunk is scored, such as the
        (claim, unit) pairs a contrast rule reads."""
        if self.backing is None:
            return
        with self._lock:
            known = {t for t, _ in self._loaded}
        digests = {text_digest(t) for t in texts if t} - known
        if not digests:
            return
        rows = self.backing.read_analyses(sorted(digests))
        with self._lock:
            self._loaded.update(((t, k), v) for t, k, v in rows)

    def load(self, kind: str, text: str, *, count: bool = True) -> bytes | None:
        """The stored value of analysis ``kind`` of ``text``, if it was prefetched."""
        if self.backing is None:
            return None
        with self._lock:
            value = self._loaded.get((text_digest(text), kind))
        if value is not None and count:
            self.loaded += 1
        return value

    def save(self, kind: str, text: str, value: bytes | None) -> None:
        """Queue a new analysis of ``text`` (``None``: nothing to store)."""
        if self.backing is None or value is None:
            return
        digest = text_digest(text)
        with self._lock:
            self._pending[(digest, kind)] = value
            self._loaded[(digest, kind)] = value

    def flush(self) -> None:
        """Write the queued analyses (one transaction)."""
        if self.backing is None:
            return
        with self._lock:
            rows = [(t, k, v) for (t, k), v in self._pending.items()]
            self._pending = {}
        if rows:
            self.backing.write_analyses(rows)
            self.saved += len(rows)
