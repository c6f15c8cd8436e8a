"""`RunOptions`: the one set of options a run is made with, from the CLI to the Ray actors.

The command line, the configuration file, `localeval.evaluate` and the Ray engine all build
this object once, at their boundary (where the CLI's and the config file's encodings are
parsed), and pass it down unchanged: `localeval.runner.run.resolve_metrics` builds the metrics
from it and `localeval.judge.session.JudgeSession` keeps it for the run. It is frozen (no
layer can change what another one sees) and picklable (a Ray actor receives it as it is).

Only options that change how rows are scored live here; where rows come from and go to
(input, output, resume, progress, gates) stay with the caller.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from localeval.catalog import check_threshold_keys

__all__ = [
    "CANDIDATE_SELECTORS",
    "DEFAULT_BLOCK_SIZE",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_LOCATE",
    "DEFAULT_MAX_UNITS",
    "DEFAULT_SELECTOR",
    "Candidates",
    "Locate",
    "RENAMED_OPTIONS",
    "RULE_NAMES",
    "RunOptions",
    "parse_max_units",
    "renamed_options",
]

DEFAULT_MAX_UNITS = 6
"""Units of the contexts each claim is judged against by default (`localeval.evidence.attribution`)."""
# The attribution options' names and defaults live here, not beside their code, so the CLI and
# the config file check a value without importing the judge's modules (torch).
Candidates = Literal["overlap", "bm25", "embedding", "hybrid"]
"""The candidate selectors of `localeval.evidence.candidates` (``SELECTORS``; a test keeps both equal)."""
CANDIDATE_SELECTORS: tuple[str, ...] = get_args(Candidates)
DEFAULT_SELECTOR: Candidates = "overlap"
"""How a claim's ``max_units`` units are chosen unless told otherwise (benchmarks/results/candidates.md)."""
Locate = Literal["words", "judge"]
DEFAULT_LOCATE: Locate = "words"
"""How a claim's evidence is narrowed to one sentence by default (`localeval.evidence.attribution.attribute`)."""
RULE_NAMES = frozenset({"rule", "rules", "rule-based", "rule_based", "default"})
"""Decomposer names that mean the default rules (``None``); kept here so checking the option
loads no model code (`localeval.llm` re-exports it)."""
DEFAULT_BLOCK_SIZE = 256
"""Rows scored together (a *block*) by default (`localeval.runner.run`)."""
DEFAULT_CHUNK_SIZE = DEFAULT_BLOCK_SIZE  # the name before the rename (README, "Changelog")

RENAMED_OPTIONS: dict[str, str] = {"chunk_size": "block_size", "precision": "dtype"}
"""Options renamed so one word means one thing (a *chunk* is a retrieved text to RAG users, and
*precision* a metric): old name -> new name. The old names are still accepted where users wrote
them (RunOptions, evaluate(), the config file, the CLI), with a warning."""


def renamed_options(values: Mapping[str, Any], *, where: str, category: type[Warning] = DeprecationWarning,
                    stacklevel: int = 3) -> dict[str, Any]:
    """``values`` with each old option name (`RENAMED_OPTIONS`) replaced by its new one, and a
    warning per old name; both names given is an error (which one was meant?)."""
    out = dict(values)
    for old, new in RENAMED_OPTIONS.items():
        if old not in out:
            continue
        if new in out:
            raise ValueError(f"{where}: {old!r} and {new!r} are the same option (renamed); give {new!r} only")
        warnings.warn(f"{where}: {old!r} is deprecated, use {new!r}", category, stacklevel=stacklevel)
        out[new] = out.pop(old)
    return out


def parse_max_units(value: int | str | None, *, zero_means_all: bool = True) -> int | None:
    """``max_units`` as every layer below the boundary reads it: a positive int, or ``None``
    for every unit.

    What the boundaries accept: ``"default"`` (the `evaluate` keyword's historical default)
    -> `DEFAULT_MAX_UNITS`; from the CLI and the config file, where a missing value means the
    default, ``None`` -> `DEFAULT_MAX_UNITS` and ``0`` -> ``None`` (every unit)."""
    if isinstance(value, str):
        if value.strip().lower() == "default":
            return DEFAULT_MAX_UNITS
        value = int(value)
    if value is None:
        return None if not zero_means_all else DEFAULT_MAX_UNITS
    if value == 0 and zero_means_all:
        return None
    if value < 1:
        raise ValueError(f"max_units must be >= 1 or None, got {value}")
    return int(value)


class RunOptions(BaseModel):
    """How a run scores: the judge, its number format and batches, thresholds, the claim
    attribution budget and how it is spent (candidates, locate), the context relevance
    screen, the decomposer, the block size and the verdict cache.

    ``model`` and ``decomposer`` are names or paths (what a Ray actor can load on its own);
    the local engine also takes a loaded `NLIJudge` or decomposer object there.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    model: Any = Field(default=None, description="judge name, local model folder or loaded NLIJudge; None: the shipped judge")
    relevance_model: Any = Field(default=None, description="separate relevance judge (a reranker folder, FORMAT:PATH or loaded judge); None: the judge's own relevance head")
    device: str | None = Field(default=None, description="cpu, cuda, cuda:1 ...; None: CUDA when present")
    dtype: str | None = Field(default=None, description="the judge's number format: auto, fp32, bf16, fp16 (localeval.judge.dtypes)")
    batch_size: int | None = Field(default=None, ge=1, description="pairs per forward pass; None: 32 on CPU, 128 on CUDA")
    thresholds: Mapping[str, float] = Field(default_factory=dict, description="user thresholds; a key here beats a stored one")
    max_units: int | None = Field(default=DEFAULT_MAX_UNITS, ge=1, description="units per claim; None: every unit")
    exhaustive: bool = Field(default=False, description="judge every chosen unit even after one accepts the claim")
    candidates: Candidates = Field(default=DEFAULT_SELECTOR, description="how a claim's max_units units are chosen")
    locate: Locate = Field(default=DEFAULT_LOCATE, description="evidence narrowed to a sentence by its words or by the judge")
    screen: bool = Field(default=True, description="context relevance decides sentences sharing no question word unjudged")
    contrasts: bool = Field(default=True, description="contrast rules overrule the judge on a unit that states the opposite of a claim")
    score_declined: bool = Field(default=False, description="score answers that decline to answer (default: unscored with the reason)")
    decomposer: Any = Field(default=None, description="None/'rule', an instruction model path, or a decomposer object")
    block_size: int = Field(default=DEFAULT_BLOCK_SIZE, ge=1, description="rows scored together (a block)")
    cache: Any = Field(default=None, description="SQLite file of verdicts (a path, or a JudgementCache locally)")

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, value: Any) -> Any:
        return renamed_options(value, where="RunOptions", stacklevel=6) if isinstance(value, Mapping) else value

    @property
    def chunk_size(self) -> int:
        """Deprecated name of `block_size`."""
        return self.block_size

    @property
    def precision(self) -> str | None:
        """Deprecated name of `dtype`."""
        return self.dtype

    @field_validator("model", "relevance_model", "cache", "decomposer")
    @classmethod
    def _plain_paths(cls, value: Any) -> Any:
        # One spelling for a path, so two equal option sets compare (and hash a run) equal.
        return os.fspath(value) if isinstance(value, os.PathLike) else value

    @field_validator("thresholds", mode="before")
    @classmethod
    def _checked_thresholds(cls, value: Any) -> dict[str, float]:
        table = {str(k): float(v) for k, v in dict(value or {}).items()}
        if table:  # a typo ("entail") fails here, before any model loads (the catalog is data only)
            check_threshold_keys(table)
        return table

    @field_validator("decomposer")
    @classmethod
    def _rule_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and value.strip().lower() in RULE_NAMES else value

    def judge_batch_size(self, device_type: str) -> int:
        """Pairs per forward pass on ``device_type``: the option, else 32 on CPU and 128 on
        CUDA (fp16 leaves room for larger batches)."""
        return self.batch_size or (128 if device_type == "cuda" else 32)

    def record(self) -> dict[str, Any]:
        """The options that change scores, as plain values (a run record, metadata)."""
        return {
            "thresholds": dict(self.thresholds) or None,
            "max_units": self.max_units,
            "exhaustive": self.exhaustive,
            "candidates": self.candidates,
            "locate": self.locate,
            "screen": self.screen,
            "contrasts": self.contrasts,
            # Spelled as before the rename: stored results and run records of earlier runs are keyed on it.
            "precision": self.dtype,
            # Only when given: the records (and stored-results keys) of runs without one stay as they were.
            **({} if self.relevance_model is None else {"relevance_model": self.relevance_model
                if isinstance(self.relevance_model, str) else getattr(self.relevance_model, "name", "loaded judge")}),
            "decomposer": self.decomposer if self.decomposer is None or isinstance(self.decomposer, str)
            else type(self.decomposer).__name__,
        }
