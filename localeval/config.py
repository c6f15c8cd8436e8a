"""Project configuration: ``localeval.toml`` (or ``[tool.localeval]`` in ``pyproject.toml``).

Keys are the options of ``localeval score``, with ``_`` for ``-`` (``--batch-size`` is
``batch_size``; ``batch-size`` is accepted too), so an option added to the command maps to a
key of the same name. Precedence, lowest first: built-in defaults, the file, command-line
flags. The file is ``--config PATH`` when given, else ``localeval.toml`` in the current
folder, else the ``[tool.localeval]`` table of ``pyproject.toml`` there. Relative paths in a
file (``cache``, a ``model``, ``relevance_model`` or ``decomposer`` that names a folder or file) are
relative to that file.

```toml
model = "localeval-judge-minilm-l6"   # judge name or model folder (or FORMAT:PATH: localeval judges)
# relevance_model = "models/bge-reranker-base"   # a separate relevance judge (cross-encoder reranker)
device = "cuda"
dtype = "auto"                        # auto, fp32, bf16 (fast on CPUs with native bf16), fp16
candidates = "overlap"                # how a claim's units are chosen: overlap, bm25, embedding, hybrid
locate = "words"                      # evidence sentence found by words, or "judge"
screen = true                         # context relevance: no shared word, no judge call
contrasts = true                      # contrast rules overrule the judge (numbers, opposites, negation)
exhaustive = false                    # claims: stop at the first unit that accepts (true: judge all)
score_declined = false                # declined answers unscored with their reason (true: scored)
no_progress = true                    # or progress = false (any --no-X flag works as no_X)
fail_under = { faithfulness = 0.7 }   # CI gates: exit 1 under a mean (or ["faithfulness=0.7"])
max_unscored = 5                      # ... or when over 5 % of rows go unscored for a metric
batch_size = 128
block_size = 512
metrics = ["context_recall", "faithfulness"]
engine = "ray"                        # or "local"
ray_address = "auto"                  # an existing Ray cluster (omit: a local one)
workers = 2                           # text side in 2 processes, the judge in one (same scores)
profile = true                        # print ms per row by stage after the run

[thresholds]                          # override the judge's stored thresholds
entailment = 0.7
relevance = 0.6

[column_map]
reference = "gold.answer"
```
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator

from localeval.catalog import check_threshold_keys
from localeval.options import RunOptions, parse_max_units, renamed_options

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["ConfigError", "EffectiveConfig", "LocalevalConfig", "find_config_file", "load_config"]

CONFIG_FILE = "localeval.toml"
DEFAULT_SOURCE = "default"


class ConfigError(ValueError):
    """A configuration file that cannot be read or holds an unknown or invalid key."""


# The run options the file spells as `RunOptions` does are taken from it (annotation, default,
# bounds, description): the option list is written once, in `localeval.options`. The file
# overrides below only the keys it encodes differently (``max_units = 0``: every unit,
# ``decomposer = "rule"``, ``dtype = "auto"``, paths as text).
_RunOptionKeys = create_model(  # type: ignore[call-overload]
    "_RunOptionKeys",
    __config__=ConfigDict(extra="forbid", frozen=True),
    **{name: (info.annotation, info) for name, info in RunOptions.model_fields.items()},
)


class LocalevalConfig(_RunOptionKeys):
    """Every setting with its default; unknown keys are an error (a typo must not be ignored).
    The scoring keys are `RunOptions`' fields; the others say where rows come from and go to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metrics: list[str] = Field(default_factory=lambda: ["context_recall"])
    model: str | None = Field(default=None, description="judge name or local model folder (default: the shipped judge)")
    dtype: Literal["auto", "fp32", "bf16", "fp16"] = Field(
        default="auto", description="judge number format: auto (fp32 on CPU, fp16 on CUDA), fp32, bf16, fp16"
    )
    max_units: int | None = Field(
        default=None, ge=0,
        description="units of the contexts each claim is judged against, those sharing most of its words (default: the metrics' own, 6); 0: every unit",
    )
    thresholds: dict[str, float] = Field(default_factory=dict, description="override the judge's stored thresholds (entailment, relevance)")
    column_map: dict[str, str] = Field(default_factory=dict, description="target field -> column name or dotted path")
    cache: str | None = Field(default=None, description="SQLite file of judge verdicts")
    progress: bool = True
    engine: Literal["local", "ray"] = "local"
    ray_address: str | None = Field(default=None, description="Ray cluster to join, e.g. auto (default: start a local one)")
    ray_actors: int | None = Field(default=None, ge=1, description="scoring actors (default: one per GPU, else one per CPU)")
    workers: int | None = Field(
        default=None, ge=1,
        description="processes (Ray: actors) for the text side while one judges every worker's pairs; the same scores (default: the cores minus the judge's: 1 on a CPU judge; Ray: its actor pool)",
    )
    profile: bool = Field(default=False, description="print the time per row of each stage after a run (local engine)")
    decomposer: str = Field(default="rule", description="claims and sub-questions: rule, or a local instruction model (folder or .gguf file)")
    max_row_chars: int = Field(
        default=1_000_000, ge=0,
        description="characters one row may hold (question, response, reference, contexts); over it the row is unscored with the reason; 0: no limit",
    )
    max_contexts: int = Field(default=1_000, ge=0, description="contexts one row may hold; over it the row is unscored with the reason; 0: no limit")
    max_row_pairs: int = Field(default=4_000, ge=0, description="judge pairs one metric may ask for one row (estimated before scoring); over it the row is unscored with the reason; 0: no limit")
    # CI gates (`localeval score` only): a job's thresholds can live beside its metrics.
    fail_under: dict[str, float] = Field(default_factory=dict, description="metric -> lowest acceptable mean; under it the command exits with 1")
    max_unscored: float | None = Field(default=None, ge=0.0, le=100.0, description="percentage of rows a metric may leave unscored before the command exits with 1")

    @field_validator("fail_under", mode="before")
    @classmethod
    def _gate_table(cls, value: Any) -> Any:
        # ``fail_under = ["faithfulness=0.7"]`` (the flag's spelling) or a table.
        if isinstance(value, list):
            table: dict[str, Any] = {}
            for item in value:
                name, sep, bound = str(item).partition("=")
                if not sep or not name.strip():
                    raise ValueError(f"fail_under takes METRIC=VALUE items or a table, got {item!r}")
                table[name.strip()] = bound.strip()
            return table
        return value

    @field_validator("metrics", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [m.strip() for m in value.split(",") if m.strip()]
        if isinstance(value, list) and not value:
            raise ValueError("at least one metric is needed")
        return value

    @field_validator("thresholds")
    @classmethod
    def _probabilities(cls, value: dict[str, float]) -> dict[str, float]:
        if value:  # a typo ("entail") must fail here, before any model loads (the catalog is data only)
            check_threshold_keys(value)
        return value

    def run_options(self) -> RunOptions:
        """The run's `RunOptions`: this file's encodings (``max_units`` unset: the default, 0:
        every unit; ``decomposer = "rule"``) parsed once, here."""
        kwargs = self.score_kwargs()
        return RunOptions(**{key: kwargs[key] for key in RunOptions.model_fields if key in kwargs})

    def score_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `localeval.evaluate` / `score_dataset` (all but ``progress``):
        every `RunOptions` field by its name, with this file's encodings parsed."""
        return {
            **{key: getattr(self, key) for key in RunOptions.model_fields},
            "thresholds": self.thresholds or None,
            "decomposer": None if self.decomposer == "rule" else self.decomposer,
            "max_units": parse_max_units(self.max_units),
            "column_map": self.column_map or None, "engine": self.engine,
            "ray_address": self.ray_address, "ray_actors": self.ray_actors,
            "max_row_chars": self.max_row_chars or None, "max_contexts": self.max_contexts or None,
            "max_row_pairs": self.max_row_pairs or None,
        }


class EffectiveConfig(BaseModel):
    """The configuration in force and, per key, where its value came from."""

    config: LocalevalConfig
    sources: dict[str, str]
    file: str | None = None

    def rows(self) -> list[tuple[str, Any, str]]:
        values = self.config.model_dump()
        return [(key, values[key], self.sources.get(key, DEFAULT_SOURCE)) for key in LocalevalConfig.model_fields]


def find_config_file(cwd: str | os.PathLike[str] | None = None) -> tuple[Path, bool] | None:
    """``(path, is_pyproject)`` of the file that configures ``cwd``, or ``None``."""
    folder = Path(cwd or Path.cwd())
    if (folder / CONFIG_FILE).is_file():
        return folder / CONFIG_FILE, False
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file() and "localeval" in _read_toml(pyproject).get("tool", {}):
        return pyproject, True
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc


def _relative_to(folder: Path, data: dict[str, Any]) -> dict[str, Any]:
    """Paths written in a file are relative to the file, not to where the command runs."""
    out = dict(data)
    if isinstance(out.get("cache"), str):
        out["cache"] = str(folder / Path(out["cache"]).expanduser())
    for key in ("model", "relevance_model", "decomposer"):
        value = out.get(key)
        # A judge may name its format before the path ("minicheck:./models/x"): the path is relative.
        head, sep, rest = value.partition(":") if isinstance(value, str) else ("", "", "")
        prefix, value = (head + sep, rest) if sep and len(head) > 1 and head.replace("-", "").isalpha() else ("", value)
        if isinstance(value, str) and (value.startswith((".", "~")) or "/" in value or os.sep in value):
            out[key] = prefix + str(folder / Path(value).expanduser())
    return out


def _file_values(path: Path, is_pyproject: bool) -> dict[str, Any]:
    data = _read_toml(path)
    if is_pyproject:
        data = data.get("tool", {}).get("localeval", {})
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: [tool.localeval] must be a table")
    data = {key.replace("-", "_"): value for key, value in data.items()}
    try:  # a key's old name (chunk_size, precision) still works, with a warning the CLI prints
        data = renamed_options(data, where=str(path), category=FutureWarning)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    # Flags written as keys: ``no_progress = true`` is ``progress = false`` (--no-progress).
    for key in [k for k in data if k.startswith("no_") and k[3:] in LocalevalConfig.model_fields]:
        value = data.pop(key)
        if not isinstance(value, bool):
            raise ConfigError(f"{path}: {key} must be true or false, got {value!r}")
        if key[3:] in data:
            raise ConfigError(f"{path}: both {key} and {key[3:]} are set; keep one")
        data[key[3:]] = not value
    unknown = sorted(set(data) - set(LocalevalConfig.model_fields))
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) {', '.join(map(repr, unknown))}; known keys: {', '.join(LocalevalConfig.model_fields)}"
        )
    return _relative_to(path.resolve().parent, data)


def _validate(values: dict[str, Any], where: str) -> LocalevalConfig:
    try:
        return LocalevalConfig.model_validate(values)
    except ValidationError as exc:
        parts = [f"{'.'.join(str(x) for x in e['loc']) or 'config'}: {e['msg'].removeprefix('Value error, ')}" for e in exc.errors()]
        raise ConfigError(f"{where}: " + "; ".join(parts)) from None


def load_config(
    path: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
) -> EffectiveConfig:
    """Defaults, then the configuration file (``path``, or the one found in ``cwd``), then
    ``overrides`` (command-line flags: a key whose value is ``None`` was not given)."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    found: tuple[Path, bool] | None
    if path is not None:
        file = Path(path)
        if not file.is_file():
            raise ConfigError(f"no such configuration file: {file}")
        found = (file, file.name == "pyproject.toml")
    else:
        found = find_config_file(cwd)
    label = None
    if found is not None:
        file, is_pyproject = found
        label = f"{file.name} [tool.localeval]" if is_pyproject else file.name
        from_file = _file_values(file, is_pyproject)
        _validate(from_file, str(file))  # name the file in the error, before any flag is mixed in
        values.update(from_file)
        sources.update({key: label for key in from_file})
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in LocalevalConfig.model_fields:
            raise ConfigError(f"unknown setting {key!r}")
        flag = f"--{key.replace('_', '-')}"
        if isinstance(value, dict) and isinstance(values.get(key), dict):
            # Tables merge: a flag replaces only the entries it names.
            values[key] = {**values[key], **value}
            sources[key] = f"{sources[key]} + {flag}"
        else:
            values[key] = value
            sources[key] = flag
    config = _validate(values, "configuration")
    return EffectiveConfig(config=config, sources=sources, file=str(found[0]) if found else None)
