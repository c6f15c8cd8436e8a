"""The bulk scoring loop: chunks of rows, every metric batched across a chunk, judge memo.

Design (the simplest one that keeps the judge's batches full and never judges a pair twice):

1. **Chunks.** Rows are read lazily and cut into chunks of ``chunk_size`` consecutive rows,
   on absolute row positions (row ``i`` is in chunk ``i // chunk_size``), so memory is bounded
   by a chunk and a resumed run cuts the same chunks as an uninterrupted one.
2. **Batching across rows.** Each metric scores the chunk's valid rows with one
   `Metric.score_many` call; metrics already gather every judge pair of those rows into one
   judge call (a `PairBatch`), which drops duplicate pairs, sorts them by length and pads per
   batch. Nothing is reordered across metrics: they stay independent and simple.
3. **One session per run.** The run makes one `JudgeSession`
   (`localeval.judge.session`) from its `RunOptions` and passes it to every
   ``score_many``: its verdict cache is an in-memory LRU in front of the optional SQLite file.
   A (premise, hypothesis, task) verdict asked by a second metric, or by another row of the
   chunk, is read, not recomputed (context recall and context precision, for instance, ask
   the same claim-window pairs). The LRU is emptied at each chunk so memory stays bounded and
   every chunk's numbers depend on that chunk alone; the SQLite file, when given, keeps
   verdicts across chunks and runs, and each row's results (`localeval.runner.stored`), which
   a re-run of the same row with the same metric, options, judge and code reads back instead
   of scoring. Judges are never changed by a run.
4. **Failures stay local.** If a metric fails on a chunk, its rows are retried one by one so
   one bad row costs only itself, and its error becomes that row's reason. Rows that fail to
   read or validate are kept, unscored, with the reason.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from pathlib import Path
from typing import Any, TextIO

from localeval.judge.nli import NLIJudge
from localeval.judge.session import JudgeSession
from localeval.metrics.base import Metric, MetricResult
from localeval.metrics.judged import JudgedMetric
from localeval.options import DEFAULT_CHUNK_SIZE, RunOptions, parse_max_units
from localeval.runner.heap import long_lived_heap, release_freed_memory
from localeval.runner.output import dumps, record
from localeval.runner.progress import Progress
from localeval.runner.rows import Row, count_lines, read_jsonl
from localeval.runner.stored import StoredResults
from localeval.runner.human import human_column
from localeval.runner.summary import MetricSummary, RunSummary, SummaryBuilder
from localeval.text.language import checked_texts, language_warnings

__all__ = [
    "MetricSummary",
    "RunSummary",
    "ScoredRow",
    "chunk_texts",
    "iter_chunks",
    "resolve_metrics",
    "run_chunks",
    "score_file",
    "score_rows",
]

ScoredRow = tuple[Row, dict[str, MetricResult]]


# ---------------------------------------------------------------------- metrics and judges
def resolve_metrics(
    metrics: str | Sequence[str | Metric | tuple[str, Metric]],
    options: RunOptions | None = None,
    *,
    load_judge: bool = True,
    **keywords: Any,
) -> list[tuple[str, Metric]]:
    """``(output name, metric)`` for names (ours or RAGAS aliases) and `Metric` objects.

    Metrics built from names are built from ``options`` (a `RunOptions`; keywords such as
    ``model=``, ``thresholds=``, ``max_units=`` build one, for callers that have none): they
    share one judge, with ``options.judge_batch_size`` pairs per forward pass, and are given
    the options object itself (the run's ``thresholds``: a user key beats the judge's stored
    one, `localeval.metrics.thresholds`; the judge itself is never copied or changed; each
    metric reads the options of its ``options_used``); those that split claims or questions share the decomposer (``None``/``"rule"``: the rules; a
    model directory or ``.gguf`` file: an `LLMDecomposer`; or a decomposer object).
    ``load_judge=False`` builds them without loading the judge (to learn the output names).
    """
    from localeval.judge import get_judge
    from localeval.metrics.registry import resolve_name

    if keywords:
        if options is not None:
            raise TypeError("give resolve_metrics either a RunOptions or option keywords, not both")
        if "max_units" in keywords:
            keywords["max_units"] = parse_max_units(keywords["max_units"], zero_means_all=False)
        options = RunOptions(**keywords)
    options = options or RunOptions()

    items = [m.strip() for m in metrics.split(",") if m.strip()] if isinstance(metrics, str) else list(metrics)
    items = [_from_ragas(item) for item in items]
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
            cls, kwargs = resolve_name(item)
            if issubclass(cls, JudgedMetric):
                # The run's options, whole: each metric reads those it uses (`options_used`).
                if load_judge:
                    judge = judge or get_judge(options.model, device=options.device, precision=options.dtype,
                                               relevance_model=options.relevance_model)
                    kwargs.update(model=judge, options=options.model_copy(
                        update={"batch_size": options.judge_batch_size(judge.device.type)}))
                else:
                    kwargs["options"] = options
            if options.decomposer is not None and load_judge and "decomposer" in inspect.signature(cls.__init__).parameters:
                if chosen is None:
                    from localeval.llm import resolve_decomposer

                    chosen = resolve_decomposer(options.decomposer, judge=judge, device=options.device)
                if chosen is not None:
                    kwargs["decomposer"] = chosen
            metric, requested = cls(**kwargs), item.strip().lower()
            if options.score_declined:  # set only when on: default metrics keep their stored-results key
                metric.score_declined = True
        else:
            raise TypeError(f"metrics must be names or Metric objects, got {type(item).__name__}")
        # The metric's own name, unless two entries share it (an alias asked beside its
        # metric): then the name the user typed, so no column overwrites another.
        names = {name for name, _ in out}
        name = metric.name if metric.name not in names else requested
        if name in names:
            raise ValueError(f"metric {name!r} is asked for twice")
        out.append((name, metric))
    _check_thresholds_read(options, out)
    return out


def _from_ragas(item: Any) -> Any:
    """A RAGAS metric object becomes the name of localeval's metric for the same thing, said in
    one line; one without a counterpart is refused (`localeval.compat.ragas_metrics`)."""
    if isinstance(item, (str, tuple, Metric)):
        return item
    from localeval.compat.ragas_metrics import is_ragas_metric, ragas_equivalent, ragas_metric_hint, ragas_notice

    if not is_ragas_metric(item):
        return item
    name = ragas_equivalent(item)
    if name is None:
        raise TypeError(ragas_metric_hint(item))
    import warnings

    warnings.warn(ragas_notice(item, name), UserWarning, stacklevel=4)
    return name


def _check_thresholds_read(options: RunOptions, metrics: list[tuple[str, Metric]]) -> None:
    """A given threshold key that no metric of the run reads is refused, before any row."""
    from localeval.metrics.thresholds import check_thresholds_read

    if options.thresholds:
        check_thresholds_read(options.thresholds, {
            name: metric.threshold_uses() if isinstance(metric, JudgedMetric) else [] for name, metric in metrics
        })


def judges_of(metrics: Iterable[tuple[str, Metric]]) -> list[NLIJudge]:
    judges: dict[int, NLIJudge] = {}
    for _, metric in metrics:
        if isinstance(metric, JudgedMetric):
            judge = metric.judge
            judges.setdefault(id(judge), judge)
    return list(judges.values())


# ---------------------------------------------------------------------- the loop
def iter_chunks(rows: Iterable[Row], chunk_size: int) -> Iterator[list[Row]]:
    """Consecutive rows grouped by ``row.index // chunk_size`` (absolute positions)."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    for _, chunk in groupby(rows, key=lambda r: r.index // chunk_size):
        yield list(chunk)


def _score_metric(metric: Metric, rows: list[Row], session: JudgeSession) -> dict[int, MetricResult]:
    """Results keyed by ``id(row)``. If the batched call fails, rows are retried one by one so
    that one bad row costs only itself, and its failure is reported as its reason."""
    if not rows:
        return {}
    try:
        return {id(r): res for r, res in zip(rows, metric.score_many([r.sample for r in rows], session=session))}
    except Exception:  # noqa: BLE001 - isolate the failing row below
        pass
    out: dict[int, MetricResult] = {}
    for row in rows:
        try:
            out[id(row)] = metric.score_many([row.sample], session=session)[0]
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


def chunk_texts(rows: Iterable[Row]) -> Iterator[str]:
    """The texts of rows' samples (question, answer, reference, each context, and the
    contexts as one text, whose language is checked): what the session's stored analyses
    are prefetched for."""
    for row in rows:
        sample = row.sample
        for text in getattr(sample, "retrieved_contexts", None) or ():
            if isinstance(text, str):
                yield text
        for _, text in checked_texts(sample):
            yield text


def score_chunk(chunk: list[Row], metrics: Sequence[tuple[str, Metric]], session: JudgeSession) -> list[ScoredRow]:
    valid = [r for r in chunk if r.sample is not None]
    # One read of the chunk's stored analyses (sentence splits, claims, units) and results
    # before the metrics ask for them; what they made anew is written once, after them.
    stored = StoredResults(session, metrics)
    session.prefetch(chunk_texts(valid))
    stored.fetch(valid)
    with session.timings.stage("metric"):
        languages = metric_languages(metrics)
        for row in valid:
            row.warnings = language_warnings(row.sample, languages, session.detect_language)
        per_metric = {name: stored.score(name, metric, valid, lambda rows, m=metric: _score_metric(m, rows, session))
                      for name, metric in metrics}
    session.flush()
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
    session: JudgeSession,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    skip: set[int] | None = None,
    progress: Progress | None = None,
) -> Iterator[list[ScoredRow]]:
    """Scored chunks in input order; rows whose ``line`` is in ``skip`` are not scored. The
    session's in-memory verdicts are forgotten at each chunk."""
    timings = session.timings
    chunks = iter_chunks(rows, chunk_size)
    with long_lived_heap() as settle, progress_of_judge(session, progress):
        while True:
            # Reading (and validating) rows happens as the chunk is pulled from the source;
            # writing, while the caller has the chunk (between our yield and the next pull).
            with timings.stage("read"):
                chunk = next(chunks, None)
            if chunk is None:
                return
            if progress is not None and skip:
                progress.advance(sum(r.line in skip for r in chunk))
            todo = [r for r in chunk if not skip or r.line not in skip]
            if not todo:
                continue
            session.clear_memory()
            release_freed_memory()  # the previous chunk's pages, written and dropped by now
            scored = score_chunk(todo, metrics, session)
            settle()  # the models the first chunk loaded stay for the run
            if progress is not None:
                progress.advance(len(todo))
            with timings.stage("write"):
                yield scored


@contextmanager
def progress_of_judge(session: JudgeSession, progress: Progress | None) -> Iterator[None]:
    """Within the block, ``progress`` is told each forward pass of the session's judges."""
    if progress is None:
        yield
        return
    before, session.on_judged = session.on_judged, progress.judged
    try:
        yield
    finally:
        session.on_judged = before


def add_to_summary(summary: SummaryBuilder, scored: Iterable[ScoredRow]) -> None:
    for row, results in scored:
        summary.rows += 1
        summary.warn(row.warnings)
        for name, result in results.items():
            summary.add(name, result.score, result.reason, row.data.get(human_column(name)))


def add_record_to_summary(summary: SummaryBuilder, names: Iterable[str], obj: dict[str, Any]) -> None:
    """Count an output row read back from a file (for the summary of a resumed run)."""
    summary.rows += 1
    summary.warn(obj.get("_warnings") or [])
    for name in names:
        summary.add(name, obj.get(name), obj.get(f"{name}_reason"), obj.get(human_column(name)))


# ---------------------------------------------------------------------- compatible helpers
def score_rows(
    rows: Iterable[Row], metrics: Sequence[Metric], *, chunk_size: int = DEFAULT_CHUNK_SIZE
) -> Iterator[ScoredRow]:
    """Each row with its result per metric; a row with an error gets unscored results."""
    named = [(m.name, m) for m in metrics]
    indexed = (r if r.index >= 0 else _with_index(r, i) for i, r in enumerate(rows))
    with JudgeSession() as session:
        for chunk in run_chunks(indexed, named, session=session, chunk_size=chunk_size):
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
        with JudgeSession() as session:
            for chunk in run_chunks(read_jsonl(input_path), named, session=session, chunk_size=chunk_size, progress=progress):
                output.write("".join(dumps(record(row, results)) + "\n" for row, results in chunk))
                add_to_summary(summary, chunk)
    return summary.build()
