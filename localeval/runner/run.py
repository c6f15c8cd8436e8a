"""The bulk scoring loop: chunks of rows, every metric batched across a chunk, judge memo.

Design (the simplest one that keeps the judge's batches full and never judges a pair twice):

1. **Chunks.** Rows are read lazily and cut into chunks of ``chunk_size`` consecutive rows,
   on absolute row positions (row ``i`` is in chunk ``i // chunk_size``), so memory is bounded
   by a chunk and a resumed run cuts the same chunks as an uninterrupted one.
2. **Batching across rows.** Each metric scores the chunk's valid rows with one
   `Metric.score_many` call; metrics already gather every judge pair of those rows into one
   `NLIJudge.predict` call, which drops duplicate pairs, sorts them by length and pads per
   batch. Nothing is reordered across metrics: they stay independent and simple.
3. **Judge memo.** While a run is on, every judge it uses gets a `JudgementCache`: an
   in-memory LRU in front of the optional SQLite file. A (premise, hypothesis, task) verdict
   asked by a second metric, or by another row of the chunk, is read, not recomputed (context
   recall and context precision, for instance, ask the same claim-window pairs). The LRU is
   emptied at each chunk so memory stays bounded and every chunk's numbers depend on that
   chunk alone; the SQLite file, when given, keeps verdicts across chunks and runs.
4. **Failures stay local.** If a metric fails on a chunk, its rows are retried one by one so
   one bad row costs only itself, and its error becomes that row's reason. Rows that fail to
   read or validate are kept, unscored, with the reason.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import groupby
from pathlib import Path
from typing import Any, Literal, TextIO

from localeval.backends.cache import JudgementCache, open_cache
from localeval.backends.nli import NLIJudge
from localeval.metrics.base import Metric, MetricResult
from localeval.metrics.claim_support import JudgedMetric
from localeval.runner.output import dumps, record
from localeval.runner.progress import Progress
from localeval.runner.rows import Row, count_lines, read_jsonl
from localeval.runner.summary import MetricSummary, RunSummary, SummaryBuilder
from localeval.text.language import language_warnings

__all__ = [
    "MetricSummary",
    "RunSummary",
    "ScoredRow",
    "attach_caches",
    "iter_chunks",
    "resolve_metrics",
    "run_chunks",
    "score_file",
    "score_rows",
]

ScoredRow = tuple[Row, dict[str, MetricResult]]
DEFAULT_CHUNK_SIZE = 256


# ---------------------------------------------------------------------- metrics and judges
def resolve_metrics(
    metrics: str | Sequence[str | Metric | tuple[str, Metric]],
    *,
    model: Any = None,
    device: str | None = None,
    batch_size: int | None = None,
    thresholds: Mapping[str, float] | None = None,
    load_judge: bool = True,
    decomposer: Any = None,
    precision: str | None = None,
    max_units: int | None | Literal["default"] = "default",
) -> list[tuple[str, Metric]]:
    """``(output name, metric)`` for names (ours or RAGAS aliases) and `Metric` objects.

    Judged metrics built from names share one judge; ``batch_size=None`` picks 32 pairs per
    forward pass on CPU and 128 on CUDA (fp16 leaves room for larger batches).
    ``thresholds`` (``{"entailment": 0.7}``) replace the judge's stored ones for these metrics
    only: they get a copy of the judge that shares its weights. ``load_judge=False`` builds
    them without loading the judge (to learn the output names).
    Metrics built from names that split claims or questions share ``decomposer``
    (``None``/``"rule"``: the rules; a model directory or ``.gguf`` file: an `LLMDecomposer`;
    or a decomposer object). ``precision`` is the judge's number format
    (`localeval.backends.precision`). ``max_units`` (unless ``"default"``) goes to every judged
    metric built from a name (`JudgedMetric`).
    """
    from localeval.backends import get_judge
    from localeval.metrics.registry import resolve_name

    items = [m.strip() for m in metrics.split(",") if m.strip()] if isinstance(metrics, str) else list(metrics)
    if not items:
        raise ValueError("no metric given")
    judge: NLIJudge | None = None
    chosen: Any = None  # the decomposer, built once, on first use
    out: list[tuple[str, Metric]] = []
    for item in items:
        if isinstance(item, tuple):  # already resolved: (output name, metric)
            name, metric = item
            if name in {n for n, _ in out}:
                raise ValueError(f"metric {name!r} is asked for twice")
            out.append((name, metric))
            continue
        if isinstance(item, Metric):
            metric, requested = item, item.name
        elif isinstance(item, str):
            cls, options = resolve_name(item)
            if issubclass(cls, JudgedMetric) and load_judge:
                judge = judge or with_thresholds(get_judge(model, device=device, precision=precision), thresholds)
                size = batch_size or (128 if judge.device.type == "cuda" else 32)
                options.update(model=judge, batch_size=size)
                if max_units != "default":
                    options["max_units"] = max_units
            if decomposer is not None and load_judge and "decomposer" in inspect.signature(cls.__init__).parameters:
                if chosen is None:
                    from localeval.llm import resolve_decomposer

                    chosen = resolve_decomposer(decomposer, judge=judge, device=device)
                if chosen is not None:
                    options["decomposer"] = chosen
            metric, requested = cls(**options), item.strip().lower()
        else:
            from localeval.compat.ragas_metrics import is_ragas_metric, ragas_metric_hint

            if is_ragas_metric(item):
                raise TypeError(ragas_metric_hint(item))
            raise TypeError(f"metrics must be names or Metric objects, got {type(item).__name__}")
        # The metric's own name, unless two entries share it (an alias asked beside its
        # metric): then the name the user typed, so no column overwrites another.
        names = {name for name, _ in out}
        name = metric.name if metric.name not in names else requested
        if name in names:
            raise ValueError(f"metric {name!r} is asked for twice")
        out.append((name, metric))
    return out


def with_thresholds(judge: NLIJudge, thresholds: Mapping[str, float] | None) -> NLIJudge:
    """``judge`` with other decision thresholds. A shallow copy: weights, tokenizer and cache
    are shared (a verdict does not depend on the threshold), and the shared judge that other
    code holds keeps its own thresholds."""
    if not thresholds:
        return judge
    from localeval.metrics.registry import known_threshold_keys
    from localeval.metrics.thresholds import check_threshold_keys

    check_threshold_keys(thresholds, known_threshold_keys())
    copied = copy.copy(judge)
    given = {k: float(v) for k, v in thresholds.items()}
    # Kept apart from the stored ones: a given generic key must beat a stored per-metric one
    # (`localeval.metrics.thresholds`); the merged table serves code that reads it directly.
    copied.given_thresholds = {**getattr(judge, "given_thresholds", {}), **given}
    copied.thresholds = {**judge.thresholds, **given}
    return copied


def judges_of(metrics: Iterable[tuple[str, Metric]]) -> list[NLIJudge]:
    judges: dict[int, NLIJudge] = {}
    for _, metric in metrics:
        if isinstance(metric, JudgedMetric):
            judge = metric.judge
            judges.setdefault(id(judge), judge)
    return list(judges.values())


def decomposers_of(metrics: Iterable[tuple[str, Metric]]) -> list[Any]:
    """The metrics' decomposers that keep a cache (have a ``cache`` attribute)."""
    return [d for _, m in metrics if hasattr(d := getattr(m, "decomposer", None), "cache")]


@contextmanager
def attach_caches(
    metrics: Sequence[tuple[str, Metric]], cache: str | Path | JudgementCache | None = None
) -> Iterator[list[JudgementCache]]:
    """Give every judge of ``metrics`` a verdict memo for the run, then restore its own.

    ``cache`` (a SQLite path or a `JudgementCache`) is shared by all judges (keys hold the
    model identity); without one, a judge keeps the cache it was built with, or gets a
    memory-only memo.
    """
    opened = open_cache(cache)
    # Decomposers that cache (the LLM one) share the run's file with the judges: decompositions
    # are keyed by the decomposer's identity, verdicts by the judge's, in separate tables.
    decomposers = list({id(d): d for d in decomposers_of(metrics)}.values())
    holders = [*decomposers, *judges_of(metrics)]
    saved = [h.cache for h in holders]
    caches: list[JudgementCache] = []
    try:
        for holder in holders:
            # Explicit None tests: an empty cache has len() 0, so it is falsy.
            if opened is not None:
                holder.cache = opened
            elif holder.cache is None:
                holder.cache = JudgementCache(None)
            if all(holder.cache is not c for c in caches):
                caches.append(holder.cache)
        yield caches
    finally:
        for holder, previous in zip(holders, saved):
            holder.cache = previous
        if opened is not None and opened is not cache:  # we opened it from a path
            opened.close()


# ---------------------------------------------------------------------- the loop
def iter_chunks(rows: Iterable[Row], chunk_size: int) -> Iterator[list[Row]]:
    """Consecutive rows grouped by ``row.index // chunk_size`` (absolute positions)."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    for _, chunk in groupby(rows, key=lambda r: r.index // chunk_size):
        yield list(chunk)


def _score_metric(metric: Metric, rows: list[Row]) -> dict[int, MetricResult]:
    """Results keyed by ``id(row)``. If the batched call fails, rows are retried one by one so
    that one bad row costs only itself, and its failure is reported as its reason."""
    if not rows:
        return {}
    try:
        return {id(r): res for r, res in zip(rows, metric.score_many([r.sample for r in rows]))}
    except Exception:  # noqa: BLE001 - isolate the failing row below
        pass
    out: dict[int, MetricResult] = {}
    for row in rows:
        try:
            out[id(row)] = metric.score_many([row.sample])[0]
        except Exception as exc:  # noqa: BLE001 - a row's failure must not end the run
            out[id(row)] = metric.unscored(f"error: {type(exc).__name__}: {exc}")
    return out


_TEXT_FIELDS = frozenset({"user_input", "response", "reference", "retrieved_contexts"})


def metric_languages(metrics: Sequence[tuple[str, Metric]]) -> frozenset[str] | None:
    """Languages every metric of the run that reads text is built for: a judged metric its
    judge's, the others (spaCy NER, the rule-based claim splitter) English; ``None`` when no
    metric reads text (IDs only)."""
    languages: frozenset[str] | None = None
    for _, metric in metrics:
        if not _TEXT_FIELDS & set(metric.required_columns):
            continue
        own = frozenset(metric.judge.languages) if isinstance(metric, JudgedMetric) else frozenset({"en"})
        languages = own if languages is None else languages & own
    return languages


def score_chunk(chunk: list[Row], metrics: Sequence[tuple[str, Metric]]) -> list[ScoredRow]:
    valid = [r for r in chunk if r.sample is not None]
    languages = metric_languages(metrics)
    for row in valid:
        row.warnings = language_warnings(row.sample, languages)
    per_metric = {name: _score_metric(metric, valid) for name, metric in metrics}
    return [
        (
            row,
            {
                name: per_metric[name].get(id(row)) or metric.unscored(row.error or "unscorable row")
                for name, metric in metrics
            },
        )
        for row in chunk
    ]


def run_chunks(
    rows: Iterable[Row],
    metrics: Sequence[tuple[str, Metric]],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    caches: Sequence[JudgementCache] = (),
    skip: set[int] | None = None,
    progress: Progress | None = None,
) -> Iterator[list[ScoredRow]]:
    """Scored chunks in input order; rows whose ``line`` is in ``skip`` are not scored."""
    for chunk in iter_chunks(rows, chunk_size):
        if progress is not None and skip:
            progress.advance(sum(r.line in skip for r in chunk))
        todo = [r for r in chunk if not skip or r.line not in skip]
        if not todo:
            continue
        for cache in caches:
            cache.clear_memory()
        scored = score_chunk(todo, metrics)
        if progress is not None:
            progress.advance(len(todo))
        yield scored


def add_to_summary(summary: SummaryBuilder, scored: Iterable[ScoredRow]) -> None:
    for row, results in scored:
        summary.rows += 1
        summary.warn(row.warnings)
        for name, result in results.items():
            summary.add(name, result.score, result.reason)


def add_record_to_summary(summary: SummaryBuilder, names: Iterable[str], obj: dict[str, Any]) -> None:
    """Count an output row read back from a file (for the summary of a resumed run)."""
    summary.rows += 1
    summary.warn(obj.get("_warnings") or [])
    for name in names:
        summary.add(name, obj.get(name), obj.get(f"{name}_reason"))


# ---------------------------------------------------------------------- compatible helpers
def score_rows(
    rows: Iterable[Row], metrics: Sequence[Metric], *, chunk_size: int = DEFAULT_CHUNK_SIZE
) -> Iterator[ScoredRow]:
    """Each row with its result per metric; a row with an error gets unscored results."""
    named = [(m.name, m) for m in metrics]
    indexed = (r if r.index >= 0 else _with_index(r, i) for i, r in enumerate(rows))
    with attach_caches(named) as caches:
        for chunk in run_chunks(indexed, named, chunk_size=chunk_size, caches=caches):
            yield from chunk


def _with_index(row: Row, index: int) -> Row:
    row.index = index
    return row


def score_file(
    input_path: str | Path,
    output: TextIO,
    metrics: Sequence[Metric],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    show_progress_bar: bool = True,
) -> RunSummary:
    """Score every row of a JSON Lines file; write one JSON line per input row to ``output``."""
    from localeval.runner.progress import make_progress

    summary = SummaryBuilder([m.name for m in metrics])
    with make_progress(count_lines(input_path), enabled=show_progress_bar) as progress:
        named = [(m.name, m) for m in metrics]
        with attach_caches(named) as caches:
            for chunk in run_chunks(read_jsonl(input_path), named, chunk_size=chunk_size, caches=caches, progress=progress):
                output.write("".join(dumps(record(row, results)) + "\n" for row, results in chunk))
                add_to_summary(summary, chunk)
    return summary.build()
