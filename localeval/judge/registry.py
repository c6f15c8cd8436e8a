"""Where judges live, and how a name or a path becomes a model directory.

A judge is a folder holding a Hugging Face ``config.json``, safetensors weights and a
tokenizer. Folders are looked up, in order, in:

1. the directories of the ``LOCALEVAL_MODELS_DIR`` environment variable (``os.pathsep``-separated);
2. the project's own registry (``models/`` in the source tree, ``localeval_models`` when installed).

A path to an existing directory always wins over a name, so users can point at any local
NLI model (for instance a DeBERTa MNLI model copied into an air-gapped network).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel

__all__ = ["ModelInfo", "JudgeNotFoundError", "default_judge_name", "list_models", "resolve_model", "stored_thresholds"]


class JudgeNotFoundError(FileNotFoundError):
    """Raised when a judge name or path cannot be resolved to a local model folder."""


class ModelInfo(BaseModel):
    """One judge found on disk, as `localeval models` lists it."""

    name: str
    path: str
    labels: list[str]
    tasks: list[str]
    size_mb: float
    default: bool = False


def _registry_dirs() -> list[Path]:
    dirs = [Path(p) for p in os.environ.get("LOCALEVAL_MODELS_DIR", "").split(os.pathsep) if p]
    try:
        from localeval_models import MODELS_DIR

        dirs.append(MODELS_DIR)
    except ImportError:  # running from a source tree that was not installed
        dirs.append(Path(__file__).resolve().parents[2] / "models")
    return [d for d in dirs if d.is_dir()]


def default_judge_name() -> str:
    try:
        from localeval_models import DEFAULT_JUDGE
    except ImportError:
        DEFAULT_JUDGE = "localeval-judge-minilm-l6"
    return os.environ.get("LOCALEVAL_DEFAULT_JUDGE", DEFAULT_JUDGE)


def _is_model_dir(path: Path) -> bool:
    return (path / "config.json").is_file()


def _without_format(requested: str) -> str:
    """``"minicheck:/models/x"`` -> ``"/models/x"``: a judge may name its format before its
    path (`localeval.judge.formats.split_format`, which the judge itself reads)."""
    head, sep, rest = requested.partition(":")
    if sep and rest and len(head) > 1 and head.replace("-", "").isalpha() and not Path(requested).exists():
        return rest
    return requested


def resolve_model(name_or_path: str | os.PathLike[str] | None = None) -> Path:
    """Turn a judge name, a path, or ``None`` (the default judge) into a model folder."""
    requested = default_judge_name() if name_or_path is None else os.fspath(name_or_path)
    requested = _without_format(requested)
    candidate = Path(requested).expanduser()
    if candidate.is_dir():
        if not _is_model_dir(candidate):
            found = sorted(p.name for p in candidate.iterdir())[:20]
            raise JudgeNotFoundError(
                f"{candidate} is a directory but holds no config.json (found: {found or 'nothing'}); "
                "every judge format needs one: see `localeval judges` for what each expects")
        return candidate
    for directory in _registry_dirs():
        if _is_model_dir(directory / requested):
            return directory / requested
    known = ", ".join(m.name for m in list_models()) or "none"
    hint = (
        "The default judge is not installed. Train it with `python -m localeval.training` "
        "or pass model=PATH to a local Hugging Face NLI model directory."
        if name_or_path is None
        else "Pass the path of a local Hugging Face model directory, or one of the names above."
    )
    raise JudgeNotFoundError(
        f"No judge named {requested!r} was found (known judges: {known}). {hint} "
        "localeval never downloads models."
    )


def _describe(path: Path, default_name: str) -> ModelInfo:
    config = json.loads((path / "config.json").read_text())
    id2label = config.get("id2label", {})
    labels = [str(id2label[k]) for k in sorted(id2label, key=int)]
    tasks = sorted(config.get("localeval", {}).get("tasks", {"nli": None}))
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6
    return ModelInfo(
        name=path.name,
        path=str(path),
        labels=labels,
        tasks=tasks,
        size_mb=round(size, 1),
        default=path.name == default_name,
    )


def list_models() -> list[ModelInfo]:
    """All judges in the registry directories (first occurrence of a name wins)."""
    seen: dict[str, ModelInfo] = {}
    default_name = default_judge_name()
    for directory in _registry_dirs():
        for path in sorted(p for p in directory.iterdir() if p.is_dir() and _is_model_dir(p)):
            if path.name not in seen:
                seen[path.name] = _describe(path, default_name)
    return list(seen.values())


def stored_thresholds(config: dict) -> dict[str, float]:
    """The decision thresholds a judge's ``config.json`` (as a dict) stores, with the generic
    ones (0.5) for judges that store none: what `NLIJudge.thresholds` starts from."""
    stored = config.get("localeval", {}).get("thresholds", {})
    return {"entailment": 0.5, "relevance": 0.5, **{k: float(v) for k, v in stored.items()}}
