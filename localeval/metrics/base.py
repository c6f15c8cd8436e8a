"""What every metric shares: input coercion, required columns, sync/async/batched entry points.

A metric is a small object with one job (torchmetrics / scikit-learn style): it is built with
its options, turns judgements into a score, and explains the score. Judging itself belongs to
the backends. `score_many` is the primitive, so a dataset run batches judge calls across rows;
`score` and `ascore` are one-row conveniences on top of it. Verdicts are asked through the
run's `localeval.judge.session.JudgeSession` (cache, memos, counters), which the runner
passes to `score_many`; without one, `score_many` makes a short-lived session.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import AliasChoices, BaseModel

from localeval.catalog import METRIC_SPECS
from localeval.schema import Sample

if TYPE_CHECKING:
    from localeval.judge.session import JudgeSession

__all__ = ["CHUNK_INDEX", "CONTEXT_INDEX", "REGISTERED", "Metric", "MetricResult", "OpaqueSetting", "plain_setting", "register_metric"]

CONTEXT_INDEX = AliasChoices("context_index", "rank", "id_chunk", "chunk_id")
"""How a retrieved context's 0-based position in ``retrieved_contexts`` may be spelled on input. Results
write it as ``context_index`` (RAGAS' name, as in `Evidence`); the older names (context
precision's ``rank``, chunk recall's ``id_chunk`` / ``chunk_id``) are read from outputs
written before the rename, so resume, reports and comparisons still load them."""

CHUNK_INDEX = CONTEXT_INDEX
"""Deprecated: the old name of `CONTEXT_INDEX` (README, "Changelog")."""


class MetricResult(BaseModel):
    """A score in [0, 1], or ``None`` together with the ``reason`` it could not be given."""

    metric: str
    score: float | None
    reason: str | None = None

    def details(self) -> dict[str, Any]:
        """The explanation fields (everything but metric, score and reason)."""
        return self.model_dump(exclude={"metric", "score", "reason"})


@lru_cache(maxsize=None)
def _takes_session(cls: type) -> bool:
    return "session" in inspect.signature(cls._score_valid).parameters


class Metric(ABC):
    """Base class: subclasses set `name`, `required_columns` and `result_type`, and implement
    `_score_valid`."""

    name: ClassVar[str]
    required_columns: ClassVar[tuple[str, ...]]
    result_type: ClassVar[type[MetricResult]]
    """The type of every result the metric returns, scored or not (resume rebuilds results
    read back from a file as this type)."""
    higher_is_better: ClassVar[bool] = True
    """Which way the score improves (torchmetrics' attribute): run comparisons, gates and
    reports read it (`localeval.metrics.registry.higher_is_better` for an output name)."""

    score_declined: bool = False
    """A metric that reads the response leaves an answer that declines to answer ("I'm sorry,
    the documents do not say.", `localeval.text.declined`) unscored with the reason
    ``"the answer declines to answer"``: refusing is not a hallucination. ``True`` (or the
    constructor keyword ``score_declined=True``, or the run's ``score_declined``) scores it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every metric takes ``score_declined=`` without each constructor spelling it out:
        # one home for the switch, whatever the subclass's own options are.
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or "score_declined" in inspect.signature(init).parameters:
            return

        @functools.wraps(init)
        def __init__(self: Metric, *args: Any, score_declined: bool | None = None, **options: Any) -> None:
            init(self, *args, **options)
            if score_declined is not None:
                self.score_declined = bool(score_declined)

        cls.__init__ = __init__  # type: ignore[method-assign]

    def declined_reason(self, sample: Sample) -> str | None:
        """`DECLINED_REASON` when this metric reads the response and the response declines."""
        if self.score_declined or "response" not in self.required_columns:
            return None
        from localeval.text.declined import DECLINED_REASON, is_declined

        return DECLINED_REASON if is_declined(sample.response) else None

    def score(self, sample: Sample | Mapping[str, Any]) -> MetricResult:
        """Score one row. A mapping is validated into a `Sample` (pydantic errors are raised)."""
        return self.score_many([sample])[0]

    async def ascore(self, sample: Sample | Mapping[str, Any]) -> MetricResult:
        """Async `score`: the judge runs in a worker thread, the event loop stays free."""
        return await asyncio.to_thread(self.score, sample)

    def score_many(
        self,
        samples: Sequence[Sample | Mapping[str, Any]],
        *,
        session: JudgeSession | None = None,
        show_progress_bar: bool = False,
    ) -> list[MetricResult]:
        """Score many rows at once, batching judge calls across them. Order is kept.

        ``session``: the run's `JudgeSession`; ``None``: a short-lived one for this call (its
        memory cache and memos end with it)."""
        rows = [s if isinstance(s, Sample) else Sample.model_validate(s) for s in samples]
        results: list[MetricResult | None] = [None] * len(rows)
        valid: list[int] = []
        for i, row in enumerate(rows):
            reason = self.missing_columns(row) or self.declined_reason(row)
            if reason:
                results[i] = self.unscored(reason)
            else:
                valid.append(i)
        if valid:
            # Imported here: metrics that ask no judge keep `import localeval` free of torch.
            from localeval.judge.session import session_scope

            with session_scope(session) as run:
                # A metric written before sessions (``_score_valid(samples, *, show_progress_bar)``)
                # keeps working: it just asks for no verdict through the run's session.
                extra = {"session": run} if _takes_session(type(self)) else {}
                scored = self._score_valid([rows[i] for i in valid], show_progress_bar=show_progress_bar, **extra)
            for i, result in zip(valid, scored):
                results[i] = result
        return [r for r in results if r is not None]

    def identity(self) -> dict[str, Any]:
        """What the metric's results depend on besides the row and the code: its name and public
        settings as plain values (a run with a cache file stores results under it,
        `localeval.runner.stored`). Metrics holding more than public settings add it."""
        return {"metric": self.name, "type": type(self).__qualname__, "settings": plain_setting(self.settings())}

    def settings(self) -> dict[str, Any]:
        """The metric's public settings, by name: what its identity, a run's record and its
        metadata describe it by."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def missing_columns(self, sample: Sample) -> str | None:
        missing = [c for c in self.required_columns if getattr(sample, c) is None]
        if missing:
            return f"missing required column(s): {', '.join(missing)}"
        return None

    def unscored(self, reason: str) -> MetricResult:
        """The result for a row that cannot be scored (metrics whose results carry their
        options, such as a mode, override it)."""
        result_type = getattr(self, "result_type", None)
        if result_type is None:
            raise TypeError(f"{type(self).__name__} declares no result_type: set it, or override unscored()")
        return result_type(score=None, reason=reason)

    @abstractmethod
    def _score_valid(
        self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession
    ) -> list[MetricResult]:
        """Score rows that have every required column, asking ``session`` for verdicts."""


class OpaqueSetting(TypeError):
    """A metric setting localeval cannot describe stably (its results are not stored)."""


def plain_setting(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON values that identify it; `OpaqueSetting` when it cannot be."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (list, tuple)):
        return [plain_setting(v, depth) for v in value]
    if isinstance(value, Mapping):
        return {str(k): plain_setting(v, depth) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, Metric):
        return value.identity()
    identity = getattr(type(value), "identity", None)
    if isinstance(identity, property):  # a judge, a decomposer: the identity their caches use
        return {"identity": value.identity}
    if type(value).__module__.startswith("localeval.") and hasattr(value, "__dict__") and depth < 3:
        # Rule-based helpers of localeval itself: their code is in the stored results key
        # (`localeval.runner.stored.localeval_identity`), their
        # settings in their public attributes (private ones are memos and locks).
        return {"type": type(value).__qualname__,
                **{k: plain_setting(v, depth + 1) for k, v in sorted(vars(value).items()) if not k.startswith("_")}}
    raise OpaqueSetting(type(value).__qualname__)


M = TypeVar("M", bound=type)

REGISTERED: dict[str, type[Metric]] = {}
"""Metric classes by versioned name (``"context_recall.v1"``), filled by `register_metric` as
their modules are imported (`localeval.metrics.registry` imports them)."""


def register_metric(versioned: str) -> Callable[[M], M]:
    """Class decorator: register a metric under its versioned name (spaCy style,
    ``@register_metric("context_recall.v1")``).

    The declaration is data in `localeval.catalog`: the class takes its ``options_used`` and
    ``higher_is_better`` from there, and a class whose name or threshold decisions differ from
    its declaration is refused when its module is imported."""
    spec = next((s for s in METRIC_SPECS if s.name == versioned), None)
    if spec is None:
        raise ValueError(f"{versioned!r} is not declared in localeval.catalog.METRIC_SPECS")

    def bind(cls: M) -> M:
        if cls.name != spec.plain:
            raise TypeError(f"{cls.__qualname__}.name is {cls.name!r}, declared as {spec.name!r}")
        cls.options_used = spec.options
        if not isinstance(inspect.getattr_static(cls, "higher_is_better"), property):  # RAGChecker: by its figure
            cls.higher_is_better = spec.higher_is_better
        uses = tuple(tuple(use) for use in getattr(cls, "threshold_uses", list)())
        if uses != spec.thresholds:
            raise TypeError(f"{cls.__qualname__} decides {uses}, its declaration {spec.name!r} says {spec.thresholds}")
        cls.registered_name = spec.name
        REGISTERED[spec.name] = cls
        return cls

    return bind
