"""What stands between a run and the files it must not damage.

* **Output over input.** An output (or report) path that is an input file, by name or by
  inode (a hard link, a symlink, ``./x`` for ``x``), is refused before anything is opened for
  writing; so is a directory.
* **One writer per output.** A run that writes a file holds an advisory lock
  (``OUTPUT.lock``, `fcntl.flock`) for its whole duration; a second run on the same output,
  resuming or not, is refused at once instead of interleaving rows.
* **Run record.** Beside a JSON Lines output, ``OUTPUT.run.json`` records what produced it:
  the input's identity (sha256 of the file, or the kind and row count of in-memory data), the
  metrics and their options, the column map, the thresholds and the judge's weights. A resume
  whose record differs, or an output without a record, is refused with what differs, so one
  file never mixes two settings or two inputs. A record written by an earlier version lacks
  the options added since: each counts as what that version did (``exhaustive`` off, units
  by word overlap; evidence located by the judge and every sentence judged for relevance, so
  such an output resumes with ``--locate judge`` / ``--no-screen``), never blindly as today's
  default.
* **Staged writes.** CSV and Parquet (never appended to) are written to a temporary file
  beside the output and renamed over it when the run succeeds; a failed run leaves the
  previous file as it was. JSON Lines is written in place: that is what lets a killed run
  resume.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "OutputLock",
    "cache_file",
    "check_output_path",
    "check_run_paths",
    "check_run_record",
    "file_sha256",
    "is_regular_target",
    "lock_path",
    "record_path",
    "run_paths",
    "run_record",
    "staging_path",
    "write_run_record",
]

RECORD_FORMAT = 1


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def _is_device(path: Path) -> bool:
    """An existing path that is not a regular file (/dev/null, a FIFO): several outputs may
    all be sent there without overwriting each other."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not path.is_dir()
    except OSError:
        return False


PathLike = str | os.PathLike[str]


def check_output_path(output: PathLike, inputs: Sequence[PathLike], *, what: str = "output") -> None:
    """Raise `ValueError` when ``output`` is a directory or is one of ``inputs`` (same path
    after resolving links, or the same inode)."""
    path = Path(output)
    if path.is_dir():
        raise ValueError(f"{what} {path} is a directory; give a file name")
    check_run_paths({"input": list(inputs)}, {what: output})


def lock_path(output: PathLike) -> Path:
    """The lock file of ``output``: beside the file a symlink points to, so that every name
    of one file shares one lock (`OutputLock` also locks the file's inode)."""
    real = Path(output).resolve()
    return real.with_name(real.name + ".lock")


def cache_file(cache: Any) -> Path | None:
    """The file of a ``cache=`` value (a path or a `JudgementCache`), if it has one."""
    if isinstance(cache, (str, os.PathLike)):
        return Path(cache)
    path = getattr(cache, "path", None)
    return Path(path) if isinstance(path, (str, os.PathLike)) else None


def run_paths(output: PathLike | None, cache: Any = None) -> dict[str, Path | None]:
    """Every file a run writes besides its reports: the output, its run record and lock (for
    a regular file) and the verdict cache (written, moved aside when damaged)."""
    paths: dict[str, Path | None] = {"output": None if output is None else Path(output), "cache": cache_file(cache)}
    if output is not None and is_regular_target(output) and not Path(output).is_dir():
        paths["run record"] = record_path(output)
        paths["lock"] = lock_path(output)
    return paths


def check_run_paths(reads: Mapping[str, PathLike | Sequence[PathLike] | None],
                    writes: Mapping[str, PathLike | None]) -> None:
    """Refuse a run (`ValueError`, before anything is opened for writing) when a file it
    writes is a file it reads, or another file it writes: same path after resolving links,
    or the same device and inode (a hard link). ``reads`` and ``writes`` map what a file is
    ("input", "--summary-json") to its path; devices such as /dev/null are exempt."""
    read_items = [(what, Path(p)) for what, value in reads.items() if value is not None
                  for p in (value if isinstance(value, (list, tuple)) else [value])]
    write_items = [(what, Path(p)) for what, p in writes.items() if p is not None]
    for i, (what, path) in enumerate(write_items):
        if _is_device(path):
            continue
        for other_what, other in read_items:
            if _same_file(path, other):
                if other_what == "input":
                    raise ValueError(f"{what} {path} is the input file {other}: it would be overwritten; "
                                     "write to another file")
                raise ValueError(f"{what} {path} is the {other_what} {other}, which this run reads: it would be "
                                 "overwritten; write to another file")
        for other_what, other in write_items[i + 1:]:
            if _same_file(path, other):
                raise ValueError(f"{what} {path} and {other_what} {other} are the same file: one would "
                                 "overwrite the other; give each its own file")


def is_regular_target(path: str | os.PathLike[str]) -> bool:
    """A path that is, or will be, a regular file (not a device such as /dev/null, a FIFO...)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True


def staging_path(path: str | os.PathLike[str]) -> Path | None:
    """Where to write ``path``'s content before renaming it into place; ``None`` to write in
    place (a device or a FIFO must never be replaced by a rename)."""
    path = Path(path)
    if not is_regular_target(path):
        return None
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


# ------------------------------------------------------------------------------ lock
class OutputLock:
    """An exclusive advisory lock on a file while a run writes it.

    Two locks, so that every name of one file shares them: ``OUTPUT.lock`` beside the file a
    symlink resolves to (`lock_path`), and, once the output exists, the output's own inode
    (device + inode: a hard link is the same inode), taken at `acquire` and again by `pin`
    after the writer has created the file.

    The lock file is removed on release. Between opening and locking, another run may have
    removed it and created a new one; the inode is checked after locking, and the lock taken
    again on the new file if so, so two runs never both believe they hold it."""

    def __init__(self, output: PathLike) -> None:
        self.output = Path(output)
        self.path = lock_path(output)
        self._fd: int | None = None
        self._inode_fd: int | None = None

    def _refuse(self, holder: str) -> ValueError:
        return ValueError(
            f"another localeval run{f' (pid {holder})' if holder else ''} is writing {self.output}: wait for it to "
            f"finish, or write to another file (lock: {self.path})"
        )

    def acquire(self) -> None:
        import fcntl

        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 64).decode("ascii", "replace").strip()
                os.close(fd)
                raise self._refuse(holder) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                self._fd = fd
                break
            os.close(fd)
        try:
            self.pin()
        except BaseException:
            self.release()
            raise

    def pin(self) -> None:
        """Lock the output's inode, once it exists (a no-op before, and once done)."""
        import fcntl

        if self._inode_fd is not None or not self.output.exists():
            return
        try:
            fd = os.open(self.output, os.O_RDONLY)
        except OSError:
            return  # unreadable: the name lock alone stands
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise self._refuse("") from None
        self._inode_fd = fd

    def release(self) -> None:
        if self._inode_fd is not None:
            os.close(self._inode_fd)
            self._inode_fd = None
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None

    def __enter__(self) -> OutputLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


# ------------------------------------------------------------------------------ run record
_HASHES: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str | os.PathLike[str]) -> str:
    """sha256 of a file's bytes (memoised by path, size and mtime within a process)."""
    st = os.stat(path)
    key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


def _weights_hash(model_dir: Path) -> str:
    files = sorted(model_dir.glob("*.safetensors")) + [model_dir / "config.json"]
    return hashlib.sha256("".join(f"{f.name}:{file_sha256(f)};" for f in files if f.exists()).encode()).hexdigest()[:32]


def _plain(value: Any) -> Any:
    """A JSON-comparable description of an option value (callables and objects by name)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return f"{type(value).__module__}.{getattr(value, '__qualname__', type(value).__qualname__)}"


# Attributes that change how fast a metric runs, not what it scores.
_SPEED_ONLY = frozenset({"batch_size", "show_progress", "cache"})


def _settings(metric: Any) -> dict[str, Any]:
    """A localeval metric's `Metric.settings` (its options included); another object's
    public attributes."""
    settings = getattr(metric, "settings", None)
    return settings() if callable(settings) else vars(metric)


def _metric_description(name: str, metric: Any) -> dict[str, Any]:
    options = {
        k: _plain(v)
        for k, v in sorted(_settings(metric).items())
        if not k.startswith("_") and k not in _SPEED_ONLY and (v is None or isinstance(v, (str, bool, int, float, list, tuple, dict)))
    }
    return {"name": name, "class": f"{type(metric).__module__}.{type(metric).__qualname__}", "options": options}


def _judge_weights(named: Sequence[tuple[str, Any]], model: Any) -> list[str]:
    """The weights of every judge the metrics use, without loading one that is not loaded."""
    from localeval.judge.registry import resolve_model
    from localeval.metrics.judged import JudgedMetric

    dirs: dict[str, Path] = {}
    for _, metric in named:
        if not isinstance(metric, JudgedMetric):
            continue
        loaded = getattr(metric, "_judge", None)
        source = loaded.path if loaded is not None else resolve_model(getattr(metric, "_model", None) or model)
        dirs[str(Path(source).resolve())] = Path(source)
    return sorted(_weights_hash(d) for d in dirs.values())


def input_identity(data: Any, total: int | None) -> dict[str, Any]:
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        return {"kind": "file", "sha256": file_sha256(path), "bytes": path.stat().st_size}
    # In-memory data cannot be hashed without reading it twice: its kind and size stand for it.
    return {"kind": type(data).__name__, "rows": total}


def run_record(
    data: Any,
    total: int | None,
    named: Sequence[tuple[str, Any]],
    *,
    column_map: Mapping[str, Any] | None,
    model: Any,
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """What identifies a run's rows: same record, same scores for the same row."""
    return {
        "format": RECORD_FORMAT,
        "input": input_identity(data, total),
        "metrics": [_metric_description(n, m) for n, m in named],
        "column_map": _plain(dict(column_map or {})),
        "judge_weights": _judge_weights(named, model),
        "options": _plain(dict(options)),
    }


def record_path(output: str | os.PathLike[str]) -> Path:
    output = Path(output)
    return output.with_name(output.name + ".run.json")


def write_run_record(output: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """Write the record beside ``output`` (staged and renamed: never half written)."""
    path = record_path(output)
    staged = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    staged.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(staged, path)


# ---------------------------------------------------------------------- older records
# A record written by an earlier localeval lacks the options added since (or spells one the
# old way). Such a key is compared as the value the earlier run used, never blindly as
# today's default: only where that value is known.
_RUN_OPTIONS_BEFORE: dict[str, Any] = {"exhaustive": False, "candidates": "overlap", "max_row_pairs": None,
                                       "relevance_model": None}
"""Run options absent from an earlier record: ``exhaustive`` could not be set, a claim's
units were always chosen by word overlap (the ``overlap`` selector), no judge-pair budget
(``max_row_pairs``) held a row back, and relevance was always the judge's own head (no
``relevance_model``)."""
_RECORDED_PER_METRIC = frozenset({"locate", "screen", "contrasts"})
"""Run options whose value before they were recorded depends on the version that wrote the
record (evidence located by the judge, later by words; context relevance judging every
sentence, later screening). Each metric's options record what it did and are compared, so an
earlier record's run-level key is not."""
_METRIC_OPTIONS_BEFORE: dict[str, Any] = {"exhaustive": False, "candidates": "overlap", "locate": "judge", "screen": False,
                                          "contrasts": False}
"""A metric's options absent from an earlier record, as that metric worked: units chosen by
overlap; evidence located by judging each sentence (``locate`` came with the words default);
every sentence judged (``screen`` came with the screen on); the judge alone (``contrasts`` came
with the rules on). Resuming such an output with today's defaults is refused, naming the
option (``--locate judge``, ``--no-screen``, ``--no-contrasts`` resume it)."""


def _as_recorded_now(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """``old`` with what an earlier version left out or spelt differently filled in as the
    earlier run had it (see the tables above); a current record is returned unchanged."""
    from localeval.llm import RULE_NAMES
    from localeval.options import DEFAULT_MAX_UNITS

    out = dict(old)
    old_options, new_options = old.get("options"), new.get("options")
    if isinstance(old_options, Mapping) and isinstance(new_options, Mapping):
        options = dict(old_options)
        if options.get("max_units") == "default":  # evaluate()'s keyword, recorded as given
            options["max_units"] = DEFAULT_MAX_UNITS
        if isinstance(options.get("decomposer"), str) and options["decomposer"].strip().lower() in RULE_NAMES:
            options["decomposer"] = None  # the rules, now recorded as None
        for key in new_options.keys() - old_options.keys():
            if key in _RUN_OPTIONS_BEFORE:
                options[key] = _RUN_OPTIONS_BEFORE[key]
            elif key in _RECORDED_PER_METRIC:
                options[key] = new_options[key]
        out["options"] = options
    old_metrics = old.get("metrics")
    if isinstance(old_metrics, list):
        given = (old_options or {}).get("thresholds") if isinstance(old_options, Mapping) else None
        before = {**_METRIC_OPTIONS_BEFORE, "given_thresholds": dict(given or {})}  # thresholds were run-wide
        new_metrics = list(new.get("metrics") or [])
        new_metrics += [None] * (len(old_metrics) - len(new_metrics))  # a metric more: differs anyway
        out["metrics"] = [_metric_as_recorded_now(m, n, before) for m, n in zip(old_metrics, new_metrics)]
    return out


def _metric_as_recorded_now(old: Any, new: Any, before: Mapping[str, Any]) -> Any:
    if not (isinstance(old, Mapping) and isinstance(new, Mapping) and old.get("class") == new.get("class")):
        return old
    options, now = old.get("options"), new.get("options")
    if not (isinstance(options, Mapping) and isinstance(now, Mapping)):
        return old
    # A scoring option the metric does not read is no longer recorded for it (it never changed
    # its scores): an earlier record's value of it is left out of the comparison.
    from localeval.catalog import SCORING_OPTIONS

    kept = {k: v for k, v in options.items() if k in now or k not in SCORING_OPTIONS}
    filled = {**kept, **{k: _plain(before[k]) for k in now.keys() - options.keys() if k in before}}
    return {**old, "options": dict(sorted(filled.items()))}


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    labels = {"input": "the input", "metrics": "the metrics or their options", "column_map": "the column map",
              "judge_weights": "the judge's weights", "options": "the options", "format": "the record format"}
    old = _as_recorded_now(old, new)
    out = []
    for key in new:
        if old.get(key) != new[key]:
            if key == "options" and isinstance(old.get(key), Mapping):
                changed = sorted(k for k in set(old[key]) | set(new[key]) if old[key].get(k) != new[key].get(k))
                out.append(f"the options ({', '.join(changed)})")
            elif key == "metrics" and _metric_options_changed(old[key], new[key]):
                out.append(f"the metrics' options ({_metric_options_changed(old[key], new[key])})")
            else:
                out.append(labels.get(key, key))
    return out


def _metric_options_changed(old: Any, new: Any) -> str:
    """``"context_recall: locate; ..."`` when the same metrics differ only in their options."""
    if not (isinstance(old, list) and len(old) == len(new)):
        return ""
    parts = []
    for a, b in zip(old, new):
        if not (isinstance(a, Mapping) and isinstance(a.get("options"), Mapping)) \
                or (a.get("name"), a.get("class")) != (b.get("name"), b.get("class")):
            return ""
        keys = sorted(k for k in a["options"].keys() | b["options"].keys() if a["options"].get(k) != b["options"].get(k))
        if keys:
            parts.append(f"{b['name']}: {', '.join(keys)}")
    return "; ".join(parts)


def check_run_record(output: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """Refuse to resume ``output`` unless its run record equals ``record``."""
    path = record_path(output)
    if not path.exists():
        raise ValueError(
            f"cannot resume {output}: it has no run record ({path.name}), so nothing shows it was "
            "written from this input with these settings; write to a new file, or remove it to start over"
        )
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot resume {output}: its run record {path} is unreadable ({exc})") from exc
    differs = _differences(old if isinstance(old, dict) else {}, record)
    if differs:
        raise ValueError(
            f"cannot resume {output}: it was written by a different run ({'; '.join(differs)} differ); "
            "resume with the same input and settings, or write to a new file"
        )
