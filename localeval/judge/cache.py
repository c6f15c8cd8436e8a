"""Memo of judge verdicts: an in-memory LRU in front of an optional SQLite file.

A verdict is a deterministic function of (exact weights and config, task, premise,
hypothesis), so it is stored under exactly that key:

* **model identity**: a hash of the safetensors file(s), ``config.json``, the input length
  and the dtype (fp16 on CUDA gives slightly different probabilities than fp32 on CPU, and a
  cache must never return numbers the current judge would not have computed);
* **pair**: a 16-byte BLAKE2b digest of ``task \\0 premise \\0 hypothesis``, so the file does
  not store (possibly confidential) text and rows stay small.

Values are the probabilities ``NLIJudge.predict`` returns for that task (float32 bytes).

The same file also keeps **decompositions** (claims or sub-questions a local instruction
model produced, `localeval.llm`), in their own table, keyed by the decomposer's identity
(model file hash, prompts, settings) and a digest of the kind and text. Unlike verdicts,
these values are text: the validated items, derived from the input.

And it keeps **text analyses** (sentence splits, claims, the units a context is cut into;
`localeval.text.analyses`) in a third table, keyed by a digest of the text and a kind that
names the analysis, its parameters and the identity of the code that made it, so a re-run
in a new process splits nothing it split before. They are read for all the texts of a chunk
at once (`read_analyses`) and written once per chunk (`write_analyses`).
SQLite runs in WAL mode, so a reader never blocks the writer and several processes may share
one file; every write is its own short transaction, so a killed run loses at most the batch
it was judging.

**A damaged file never changes a score or stops a run.** At open, ``PRAGMA quick_check`` runs;
a file that is not a database or fails the check is moved aside (``NAME.corrupt-<time>``, with
its ``-wal``/``-shm`` companions) and a fresh one is started, with a warning naming both. A
database error later in the run does the same. Every stored verdict is validated when read
(the right number of float32 probabilities, finite, in [0, 1], summing to 1): one that is not
is treated as absent, judged again and overwritten (counted in ``repaired``).

**Every stored value carries a checksum** (8 bytes of BLAKE2b over its key and its bytes:
verdicts, analyses and stored results, decompositions). A flipped bit inside a value leaves
valid SQLite and, often, a plausible verdict; its checksum does not match, so it is read as
a miss and judged again. Values written before checksums were stored read as misses too (and
are rewritten with one).

**A cache that cannot be used never stops a run.** A file on a full disk or a read-only
mount, or a device such as /dev/null: one warning names the file and the cause, and the run
goes on without the file (verdicts kept in memory only). A SQLite file of another program
(tables that are not a localeval cache's) is refused at open with one line
(`CacheSchemaError`), before anything is scored or written to it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

__all__ = ["CacheSchemaError", "JudgementCache", "model_identity", "open_cache", "pair_key"]

Pair = tuple[str, str]
# What reading a damaged file raises (see `_is_damage` for which of them mean damage).
_ERRORS = (sqlite3.DatabaseError, UnicodeDecodeError)
_SQL_BATCH = 500  # keys per SELECT ... IN (...), well under SQLite's variable limit
_ANALYSIS_BATCH = 30_000  # text digests per query, at most (SQLite's own limit may be lower)


_SUM = 8  # bytes of checksum stored after each value
_TABLES: dict[str, tuple[str, ...]] = {
    "judgements": ("model", "key", "probs"),
    "decompositions": ("decomposer", "key", "value"),
    "analyses": ("text", "kind", "value"),
}
"""The tables of a cache file and their columns: a file whose tables differ is not ours."""


class CacheSchemaError(ValueError):
    """The cache file is a SQLite database of another program (or another layout)."""


def _checksum(key: bytes, value: bytes) -> bytes:
    return hashlib.blake2b(value, digest_size=_SUM, key=hashlib.blake2b(key, digest_size=32).digest()).digest()


def seal(key: bytes, value: bytes) -> bytes:
    """``value`` followed by its checksum (bound to ``key``: a value stored under another key
    does not verify either)."""
    return value + _checksum(key, value)


def unseal(key: bytes, blob: object) -> bytes | None:
    """The value of a sealed blob, ``None`` when it is not one or its checksum differs."""
    if not isinstance(blob, bytes) or len(blob) < _SUM:
        return None
    value, stored = blob[:-_SUM], blob[-_SUM:]
    return value if _checksum(key, value) == stored else None


def pair_key(task: str, premise: str, hypothesis: str) -> bytes:
    """The digest a pair is stored under (the text itself is never written)."""
    data = f"{task}\0{premise}\0{hypothesis}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).digest()


def model_identity(model_dir: str | os.PathLike[str], *, max_length: int, dtype: str, judge_format: str = "nli") -> str:
    """A hex id for "these exact weights, read this way": changes when any of them changes
    (``judge_format``: how the folder is read, `localeval.judge.formats`)."""
    digest = hashlib.sha256()
    path = Path(model_dir)
    for file in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.ckpt")) + [path / "config.json"]:
        digest.update(file.name.encode())
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    digest.update(f"max_length={max_length};dtype={dtype}".encode())
    if judge_format != "nli":  # the NLI format's identities stay what they were before formats
        digest.update(f";format={judge_format}".encode())
    return digest.hexdigest()[:32]


class JudgementCache:
    """Verdicts by (model identity, task, pair): memory first, then the SQLite file if any.

    Args:
        path: SQLite file to persist verdicts in; ``None`` keeps them in memory only.
        memory_size: entries kept in the in-memory LRU.

    ``hits``/``misses`` count pairs answered from the cache / left to the model.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, memory_size: int = 200_000) -> None:
        self.path = Path(path) if path is not None else None
        self.memory_size = memory_size
        self._memory: OrderedDict[tuple[str, bytes], np.ndarray | str] = OrderedDict()
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        self.repaired = 0
        self.moved_aside: Path | None = None
        self.unusable: str | None = None
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._open()
            except (*_ERRORS, OSError) as exc:
                self._failed(exc)

    def _open(self) -> None:
        assert self.path is not None
        if self.path.is_dir():
            raise IsADirectoryError(f"verdict cache {self.path} is a directory; give a file name")
        # One connection used under a lock: the judge may be called from worker threads
        # (`ascore` uses asyncio.to_thread).
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None)
        # Text read back from a damaged file (a table name in a check's message, a stored
        # decomposition) may not be UTF-8: replaced, never an exception.
        self._db.text_factory = lambda raw: raw.decode("utf-8", "replace")
        try:
            found = self._db.execute("PRAGMA quick_check").fetchone()
            if not found or found[0] != "ok":
                raise sqlite3.DatabaseError(f"quick_check: {found[0] if found else 'no answer'}")
            self._check_schema()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS judgements ("
                " model TEXT NOT NULL, key BLOB NOT NULL, probs BLOB NOT NULL,"
                " PRIMARY KEY (model, key)) WITHOUT ROWID"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS decompositions ("
                " decomposer TEXT NOT NULL, key BLOB NOT NULL, value TEXT NOT NULL,"
                " PRIMARY KEY (decomposer, key)) WITHOUT ROWID"
            )
            # Keyed text first: one chunk's texts are read with one `text IN (...)` query.
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS analyses ("
                " text BLOB NOT NULL, kind TEXT NOT NULL, value BLOB NOT NULL,"
                " PRIMARY KEY (text, kind)) WITHOUT ROWID"
            )
        except BaseException:
            self._db.close()
            self._db = None
            raise

    def _check_schema(self) -> None:
        """Refuse a database whose tables are not a localeval cache's (before any is created)."""
        assert self._db is not None
        tables = {name for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        ours = tables & set(_TABLES)
        wrong = [f"{t} ({', '.join(c)})" for t in sorted(ours)
                 if (c := tuple(r[1] for r in self._db.execute(f"PRAGMA table_info({t})"))) != _TABLES[t]]
        if (tables and not ours) or wrong:
            found = "; ".join(wrong) if wrong else ", ".join(sorted(tables)[:5])
            raise CacheSchemaError(
                f"cache {self.path} is a SQLite file of another program or layout (tables: {found}); "
                "it is left untouched: give a new file name for --cache / cache="
            )

    def _drop_connection(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None

    def _give_up(self, exc: BaseException) -> None:
        """Go on without the file: one warning naming it and the cause."""
        self._drop_connection()
        if self.unusable is None:
            self.unusable = str(exc)
            warnings.warn(
                f"verdict cache {self.path} cannot be used ({exc}); the run goes on without it "
                "(verdicts are judged and kept in memory only)",
                RuntimeWarning,
                stacklevel=3,
            )

    def _failed(self, exc: BaseException) -> None:
        """A database error during the run: a damaged file is moved aside and a fresh one
        started; any other (a full disk, a read-only file, an I/O error) leaves the file out."""
        if _is_damage(exc):
            try:
                self._start_fresh(exc)
            except (*_ERRORS, OSError) as again:
                self._give_up(again)
        else:
            self._give_up(exc)

    def _start_fresh(self, exc: BaseException) -> None:
        """Move a damaged file (and its WAL companions) aside and open a new, empty one."""
        assert self.path is not None
        self._drop_connection()
        aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        for suffix in ("", "-wal", "-shm"):
            part = Path(f"{self.path}{suffix}")
            if part.exists():
                os.replace(part, Path(f"{aside}{suffix}"))
        self.moved_aside = aside
        warnings.warn(
            f"verdict cache {self.path} is damaged ({exc}); it was moved to {aside} and a new, "
            "empty cache started (verdicts are judged again; delete the old file when done)",
            RuntimeWarning,
            stacklevel=3,
        )
        self._open()

    def __repr__(self) -> str:
        where = str(self.path) if self.path else "memory"
        return f"JudgementCache({where!r}, hits={self.hits}, misses={self.misses})"

    # ------------------------------------------------------------------ lookup
    def get_many(
        self, model: str, task: str, pairs: Sequence[Pair], width: int | None = None
    ) -> list[np.ndarray | None]:
        """The stored probabilities of each pair, ``None`` where nothing valid is stored
        (``width``: the number of probabilities a verdict holds, when known)."""
        keys = [pair_key(task, p, h) for p, h in pairs]
        found: list[np.ndarray | None] = [None] * len(keys)
        with self._lock:
            to_disk: dict[bytes, list[int]] = {}
            for i, key in enumerate(keys):
                value = self._memory.get((model, key))
                if value is not None:
                    self._memory.move_to_end((model, key))
                    found[i] = value
                else:
                    to_disk.setdefault(key, []).append(i)
            if to_disk and self._db is not None:
                for key, value in self._read_disk(model, list(to_disk), width):
                    self._remember(model, key, value)
                    for i in to_disk[key]:
                        found[i] = value
        hit = sum(v is not None for v in found)
        self.hits += hit
        self.misses += len(found) - hit
        return found

    def _read_disk(self, model: str, wanted: list[bytes], width: int | None) -> list[tuple[bytes, np.ndarray]]:
        """Valid stored verdicts among ``wanted`` keys (an invalid one is left out: judged again)."""
        out = []
        try:
            for start in range(0, len(wanted), _SQL_BATCH):
                part = wanted[start : start + _SQL_BATCH]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(  # type: ignore[union-attr]
                    f"SELECT key, probs FROM judgements WHERE model = ? AND key IN ({marks})",
                    [model, *part],
                ).fetchall()
                blobs = [unseal(_verdict_key(model, key), blob) for key, blob in rows]
                for (key, _), value in zip(rows, _valid_verdicts(blobs, width)):
                    if value is None:
                        self.repaired += 1
                    else:
                        out.append((key, value))
        except _ERRORS as exc:
            self._failed(exc)
            return []
        return out

    def put_many(self, model: str, task: str, pairs: Sequence[Pair], probs: np.ndarray) -> None:
        """Store the probabilities (one row per pair) of freshly judged pairs."""
        probs = np.asarray(probs, dtype=np.float32)
        keys = [pair_key(task, p, h) for p, h in pairs]
        with self._lock:
            for key, row in zip(keys, probs):
                self._remember(model, key, row.copy())
            if self._db is not None and keys:
                self._write(
                    "INSERT OR REPLACE INTO judgements (model, key, probs) VALUES (?, ?, ?)",
                    [(model, key, seal(_verdict_key(model, key), row.tobytes())) for key, row in zip(keys, probs)],
                )

    def _write(self, sql: str, rows: list[tuple]) -> None:
        """One transaction: all of these rows or none of them. A database error moves the file
        aside and retries once on the fresh one."""
        for attempt in (1, 2):
            if self._db is None:
                return
            try:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany(sql, rows)
                return
            except _ERRORS as exc:
                if attempt == 2:
                    self._give_up(exc)
                else:
                    self._failed(exc)

    def lookup_or_score(
        self,
        model: str,
        task: str,
        pairs: Sequence[Pair],
        score: Callable[[list[Pair]], np.ndarray],
        width: int | None = None,
    ) -> np.ndarray:
        """Probabilities for distinct ``pairs``: cached ones are read, only the rest are scored."""
        found = self.get_many(model, task, pairs, width)
        missing = [i for i, value in enumerate(found) if value is None]
        if missing:
            fresh = score([pairs[i] for i in missing])
            self.put_many(model, task, [pairs[i] for i in missing], fresh)
            for i, row in zip(missing, fresh):
                found[i] = row
        if not found:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack(found).astype(np.float32, copy=False)

    # ------------------------------------------------------------------ decompositions
    def get_records(self, decomposer: str, kind: str, texts: Sequence[str]) -> list[str | None]:
        """Stored decompositions (JSON text) of ``texts``, ``None`` where nothing is stored."""
        space = f"decompose:{decomposer}"
        keys = [pair_key(kind, text, "") for text in texts]
        found: list[str | None] = []
        with self._lock:
            for key in keys:
                value = self._memory.get((space, key))
                if value is None and self._db is not None:
                    try:
                        row = self._db.execute(
                            "SELECT value FROM decompositions WHERE decomposer = ? AND key = ?", (decomposer, key)
                        ).fetchone()
                    except _ERRORS as exc:
                        self._failed(exc)
                        row = None
                    value = _unseal_text(_record_key(decomposer, key), row[0]) if row else None
                    if value is not None:
                        self._remember(space, key, value)
                found.append(value)  # type: ignore[arg-type]
        hit = sum(v is not None for v in found)
        self.hits += hit
        self.misses += len(found) - hit
        return found

    def put_records(self, decomposer: str, kind: str, records: dict[str, str]) -> None:
        """Store decompositions (JSON text) by text, in one transaction."""
        space = f"decompose:{decomposer}"
        rows = [(pair_key(kind, text, ""), value) for text, value in records.items()]
        with self._lock:
            for key, value in rows:
                self._remember(space, key, value)  # type: ignore[arg-type]
            if self._db is not None and rows:
                self._write(
                    "INSERT OR REPLACE INTO decompositions (decomposer, key, value) VALUES (?, ?, ?)",
                    [(decomposer, key, _seal_text(_record_key(decomposer, key), value)) for key, value in rows],
                )

    # ------------------------------------------------------------------ text analyses
    @property
    def persistent(self) -> bool:
        """True when the cache has a file (analyses are only worth encoding then)."""
        return self._db is not None

    def read_analyses(self, texts: Sequence[bytes]) -> list[tuple[bytes, str, bytes]]:
        """Every stored ``(text digest, kind, value)`` of the given text digests, read with
        as few queries as SQLite's variable limit allows (one for a usual chunk). A damaged
        file is moved aside (nothing is read)."""
        out: list[tuple[bytes, str, bytes]] = []
        wanted = list(dict.fromkeys(texts))
        with self._lock:
            if self._db is None or not wanted:
                return out
            limit = getattr(self._db, "getlimit", None)  # Python >= 3.11
            size = min(_ANALYSIS_BATCH, limit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)) if limit else 999
            try:
                for start in range(0, len(wanted), size):
                    part = wanted[start : start + size]
                    marks = ",".join("?" * len(part))
                    out.extend(self._db.execute(
                        f"SELECT text, kind, value FROM analyses WHERE text IN ({marks})", part
                    ).fetchall())
            except _ERRORS as exc:
                self._failed(exc)
                return []
        # A damaged row (not bytes, or a checksum that differs) is left out: the analysis is
        # made again and overwritten.
        found = [(t, k, unseal(_analysis_key(t, k), v)) for t, k, v in out if isinstance(t, bytes) and isinstance(k, str)]
        return [(t, k, v) for t, k, v in found if v is not None]

    def write_analyses(self, rows: Sequence[tuple[bytes, str, bytes]]) -> None:
        """Store ``(text digest, kind, value)`` rows in one transaction."""
        with self._lock:
            if self._db is not None and rows:
                self._write("INSERT OR REPLACE INTO analyses (text, kind, value) VALUES (?, ?, ?)",
                            [(t, k, seal(_analysis_key(t, k), v)) for t, k, v in rows])

    # ------------------------------------------------------------------ housekeeping
    def _remember(self, model: str, key: bytes, value: np.ndarray | str) -> None:
        self._memory[(model, key)] = value
        self._memory.move_to_end((model, key))
        while len(self._memory) > self.memory_size:
            self._memory.popitem(last=False)

    def clear_memory(self) -> None:
        """Forget the in-memory entries (the file keeps them)."""
        with self._lock:
            self._memory.clear()

    def __bool__(self) -> bool:
        return True  # an empty cache is still a cache (``len`` alone would make it falsy)

    def __len__(self) -> int:
        """Entries in the file (or in memory when there is no file)."""
        with self._lock:
            if self._db is not None:
                try:
                    return int(self._db.execute("SELECT COUNT(*) FROM judgements").fetchone()[0])
                except _ERRORS as exc:
                    self._failed(exc)
            return len(self._memory)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> JudgementCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _verdict_key(model: str, key: bytes) -> bytes:
    return b"verdict\0" + model.encode() + b"\0" + key


def _record_key(decomposer: str, key: bytes) -> bytes:
    return b"decomposition\0" + decomposer.encode("utf-8", "surrogatepass") + b"\0" + key


def _analysis_key(text: bytes, kind: str) -> bytes:
    return b"analysis\0" + text + b"\0" + kind.encode("utf-8", "surrogatepass")


def _seal_text(key: bytes, value: str) -> str:
    return _checksum(key, value.encode("utf-8", "surrogatepass")).hex() + value


def _unseal_text(key: bytes, stored: object) -> str | None:
    if not isinstance(stored, str) or len(stored) < 2 * _SUM:
        return None
    head, value = stored[: 2 * _SUM], stored[2 * _SUM :]
    return value if _checksum(key, value.encode("utf-8", "surrogatepass")).hex() == head else None


def _is_damage(exc: BaseException) -> bool:
    """A damaged file (not a database, malformed, failed check, an error message that is not
    even UTF-8: SQLite quoting a damaged schema), as opposed to a busy, locked or unreadable
    one, which must never be moved aside."""
    if isinstance(exc, UnicodeDecodeError):
        return True
    text = str(exc).lower()
    return type(exc) is sqlite3.DatabaseError or "malformed" in text or "not a database" in text


def _valid_verdicts(blobs: Sequence[object], width: int | None) -> list[np.ndarray | None]:
    """The probabilities in each blob, ``None`` where they cannot be a verdict: a wrong size,
    a non-finite value, one outside [0, 1], or a distribution that does not sum to 1.
    Checked with one numpy pass per blob size (a cached re-run reads ~60 verdicts a row)."""
    out: list[np.ndarray | None] = [None] * len(blobs)
    by_size: dict[int, list[int]] = {}
    for i, blob in enumerate(blobs):
        if isinstance(blob, bytes) and blob and not len(blob) % 4 and (width is None or len(blob) == 4 * width):
            by_size.setdefault(len(blob), []).append(i)
    for size, indices in by_size.items():
        values = np.frombuffer(b"".join(blobs[i] for i in indices), dtype=np.float32).reshape(len(indices), size // 4)  # type: ignore[misc]
        with np.errstate(invalid="ignore"):  # NaN fails the range test below, as it should
            ok = (values >= 0.0).all(axis=1) & (values <= 1.0).all(axis=1)
        ok &= np.abs(values.sum(axis=1, dtype=np.float64) - 1.0) <= 1e-3
        for i, row, good in zip(indices, values, ok):
            if good:
                out[i] = row
    return out


def open_cache(cache: str | os.PathLike[str] | JudgementCache | None) -> JudgementCache | None:
    """A cache object from what users pass as ``cache=``: a path, a cache, or ``None``."""
    if cache is None or isinstance(cache, JudgementCache):
        return cache
    return JudgementCache(cache)
