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
    "check_output_path",
    "check_run_record",
    "file_sha256",
    "is_regular_target",
    "record_path",
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


def check_output_path(output: str | os.PathLike[str], inputs: Sequence[str | os.PathLike[str]], *, what: str = "output") -> None:
    """Raise `ValueError` when ``output`` is a directory or is one of ``inputs`` (same path
    after resolving links, or the same inode)."""
    path = Path(output)
    if path.is_dir():
        raise ValueError(f"{what} {path} is a directory; give a file name")
    for source in inputs:
        if _same_file(path, Path(source)):
            raise ValueError(f"{what} {path} is the input file {source}: it would be overwritten; write to another file")


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
    """An exclusive advisory lock on ``OUTPUT.lock`` while a run writes ``OUTPUT``.

    The lock file is removed on release. Between opening and locking, another run may have
    removed it and created a new one; the inode is checked after locking, and the lock taken
    again on the new file if so, so two runs never both believe they hold it."""

    def __init__(self, output: str | os.PathLike[str]) -> None:
        self.output = Path(output)
        self.path = self.output.with_name(self.output.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        import fcntl

        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise ValueError(
                    f"another localeval run (pid {holder}) is writing {self.output}: wait for it to "
                    f"finish, or write to another file (lock: {self.path})"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                self._fd = fd
                return
            os.close(fd)

    def release(self) -> None:
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


def _metric_description(name: str, metric: Any) -> dict[str, Any]:
    options = {
        k: _plain(v)
        for k, v in sorted(vars(metric).items())
        if not k.startswith("_") and k not in _SPEED_ONLY and (v is None or isinstance(v, (str, bool, int, float, list, tuple, dict)))
    }
    return {"name": name, "class": f"{type(metric).__module__}.{type(metric).__qualname__}", "options": options}


def _judge_weights(named: Sequence[tuple[str, Any]], model: Any) -> list[str]:
    """The weights of every judge the metrics use, without loading one that is not loaded."""
    from localeval.backends.registry import resolve_model
    from localeval.metrics.claim_support import JudgedMetric

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
_RUN_OPTIONS_BEFORE: dict[str, Any] = {"exhaustive": False, "candidates": "overlap", "relevance_model": None}
"""Run options absent from an earlier record: ``exhaustive`` could not be set, a claim's
units were always chosen by word overlap (the ``overlap`` selector), and relevance was always
the judge's own head (no ``relevance_model``)."""
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
    filled = {**options, **{k: _plain(before[k]) for k in now.keys() - options.keys() if k in before}}
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
