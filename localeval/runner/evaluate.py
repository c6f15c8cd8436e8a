"""`evaluate()`: score a whole dataset with several metrics, in one call.

```python
from localeval import evaluate

result = evaluate("runs/answers.parquet", ["context_recall", "chunk_recall"],
                  column_map={"retrieved_contexts": "pred.retrieved_contexts"}, cache="verdicts.sqlite")
result.summary()          # per metric: mean, median, std, scored, unscored (with reasons)
result.to_pandas()        # input columns + <metric>, <metric>_reason, <metric>_details
```

How rows are batched, memoised and streamed is described in `localeval.runner.run`.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from localeval.judge.cache import JudgementCache
from localeval.judge.session import JudgeSession
from localeval.metrics.base import Metric, MetricResult
from localeval.metrics.thresholds import did_you_mean
from localeval.options import (
    DEFAULT_BLOCK_SIZE,
    DEFAULT_LOCATE,
    DEFAULT_SELECTOR,
    RENAMED_OPTIONS,
    Candidates,
    Locate,
    RunOptions,
    parse_max_units,
    renamed_options,
)
from localeval.runner.columns import ColumnMap, ColumnSource, clean_value
from localeval.runner.budget import DEFAULT_MAX_CONTEXTS, DEFAULT_MAX_ROW_CHARS, DEFAULT_MAX_ROW_PAIRS, RowBudget, within_budget
from localeval.runner.guard import (
    OutputLock,
    check_run_paths,
    check_run_record,
    is_regular_target,
    run_paths,
    run_record,
    write_run_record,
)
from localeval.runner.output import check_writable, dumps, open_writer, output_format, read_done, record, warn_reserved
from localeval.runner.progress import Progress, make_progress, quiet_loading
from localeval.runner.rows import Row
from localeval.runner.run import (
    ScoredRow,
    add_record_to_summary,
    add_to_summary,
    resolve_metrics,
    run_chunks,
)
from localeval.runner.sources import open_source
from localeval.runner.summary import RunSummary, SummaryBuilder

__all__ = ["EvaluationResult", "RowResult", "aevaluate", "evaluate", "score_dataset"]

_RESERVED = ("_line", "_error", "_warnings")


@dataclass
class RowResult:
    """One input row with its result per metric (keyed by output name)."""

    line: int
    data: dict[str, Any]
    error: str | None
    results: dict[str, MetricResult]
    warnings: list[str] = field(default_factory=list)
    """What may make the scores wrong (a language the judge was not trained on)."""

    def record(self) -> dict[str, Any]:
        """The row as written to JSON Lines."""
        return record(Row(line=self.line, data=self.data, error=self.error, warnings=self.warnings), self.results)


class EvaluationResult:
    """Every input row (none dropped) with its scores and explanations, in input order."""

    def __init__(self, rows: list[RowResult], metrics: list[str], summary: RunSummary) -> None:
        self.rows = rows
        self.metrics = metrics
        self._summary = summary

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[RowResult]:
        return iter(self.rows)

    @overload
    def __getitem__(self, key: int) -> RowResult: ...
    @overload
    def __getitem__(self, key: str) -> list[float | None]: ...

    def __getitem__(self, key: int | str) -> RowResult | list[float | None]:
        """``result[3]``: the fourth row; ``result["faithfulness"]``: that metric's scores, row
        by row, ``None`` where a row could not be scored (RAGAS' ``result["faithfulness"]``)."""
        if isinstance(key, str):
            return self.scores(key)
        return self.rows[key]

    def __repr__(self) -> str:
        means = ", ".join(
            f"{m.metric}={'n/a' if m.mean is None else round(m.mean, 4)}" for m in self._summary.metrics
        )
        return f"EvaluationResult({len(self.rows)} rows: {means})"

    def summary(self) -> RunSummary:
        """Per metric: mean, median, std, rows scored, rows unscored with their reasons."""
        return self._summary

    def scores(self, metric: str) -> list[float | None]:
        """The metric's score of every row, ``None`` where the row could not be scored."""
        if metric not in self.metrics:
            raise KeyError(f"no metric {metric!r} in this result{did_you_mean(metric, self.metrics)}; metrics: {', '.join(self.metrics)}")
        return [r.results[metric].score for r in self.rows]

    def results(self, metric: str) -> list[MetricResult]:
        """The full result objects (with their evidence) of one metric, row by row."""
        return [r.results[metric] for r in self.rows]

    def to_records(self) -> list[dict[str, Any]]:
        return [r.record() for r in self.rows]

    def to_pandas(self):
        """A DataFrame: input columns, ``_line``, then ``<m>``, ``<m>_reason``, ``<m>_details``."""
        import pandas as pd

        return pd.DataFrame.from_records(self.to_records())

    def to_hf_dataset(self):
        """A Hugging Face ``datasets.Dataset`` with the columns of `to_pandas`. Details are JSON
        text (their shape differs from row to row, which Arrow cannot type), and so is any
        input column whose values Arrow cannot hold in one type (a number in one row, text in
        another); every other column keeps its type."""
        import datasets
        import pyarrow as pa

        records = self.to_records()
        names = list(dict.fromkeys(k for r in records for k in r))
        details = {f"{m}_details" for m in self.metrics}
        arrays = {}
        for name in names:
            values = [clean_value(r.get(name)) for r in records]
            as_text = pa.array([None if v is None else dumps(v) for v in values], pa.string())
            if name in details:
                arrays[name] = as_text
                continue
            try:
                arrays[name] = pa.array(values)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
                arrays[name] = as_text
        return datasets.Dataset(pa.table(arrays))


def _from_record(obj: dict[str, Any], metrics: Sequence[tuple[str, Metric]]) -> RowResult:
    """A row read back from an output file (resume): the results are rebuilt as objects."""
    names = {n for name, _ in metrics for n in (name, f"{name}_reason", f"{name}_details")}
    data = {k: v for k, v in obj.items() if k not in names and k not in _RESERVED}
    results: dict[str, MetricResult] = {}
    for name, metric in metrics:
        # The metric's result type (its validation aliases read fields under their older names);
        # a metric written outside localeval may only say it through unscored().
        result_type = getattr(metric, "result_type", None) or type(metric.unscored("-"))
        details = obj.get(f"{name}_details") or {}
        results[name] = result_type.model_validate(
            {**details, "metric": metric.name, "score": obj.get(name), "reason": obj.get(f"{name}_reason")}
        )
    return RowResult(line=obj["_line"], data=data, error=obj.get("_error"), results=results, warnings=obj.get("_warnings") or [])


ENGINES = ("local", "ray")


@contextmanager
def _chunks(
    engine: str,
    rows: Iterable[Row] | Any,
    metrics: str | Sequence[str | Metric],
    named: list[tuple[str, Metric]],
    options: RunOptions,
    *,
    skip: set[int],
    progress: Progress,
    ray_address: str | None,
    ray_actors: int | None,
    total: int | None = None,
    session: JudgeSession | None = None,
    workers: int | None = 1,
) -> Iterator[Iterator[list[ScoredRow]]]:
    """Scored chunks from the chosen engine (both yield the same chunks in input order). The
    local engine scores in ``session`` when given (left open: it is the caller's), else in a
    session of the run's own."""
    if engine == "ray":
        from localeval.runner.ray_engine import ray_chunks

        items = [m.strip() for m in metrics.split(",") if m.strip()] if isinstance(metrics, str) else list(metrics)
        yield ray_chunks(rows, items, options, skip=skip, progress=progress, address=ray_address, actors=ray_actors,
                         total=total, workers=workers)
        return
    with nullcontext(session) if session is not None else JudgeSession(options) as used:
        count = _workers(workers, named, options)
        if count > 1:  # the text side in worker processes, the judge here (localeval.runner.workers)
            from localeval.runner.workers import warn_if_idle, worker_chunks

            warn_if_idle(count, total, options.block_size)

            yield worker_chunks(rows, named, session=used, workers=count, chunk_size=options.block_size, skip=skip,
                                progress=progress)
            return
        yield run_chunks(rows, named, session=used, chunk_size=options.block_size, skip=skip, progress=progress)


def _workers(workers: int | None, named: list[tuple[str, Metric]], options: RunOptions) -> int:
    """Worker processes for the text side: as asked, or (``None``) the cores minus the judge's.
    A forked worker cannot use CUDA, so a run whose text side runs models of its own (the
    embedding candidates, an LLM decomposer) on a GPU machine stays in one process."""
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if workers == 1:
        return 1
    own_models = options.candidates in ("embedding", "hybrid") or options.decomposer is not None
    if own_models and _cuda_present():
        if workers is not None:
            raise ValueError("workers above 1 cannot run the embedding candidates or an LLM decomposer on a GPU "
                             "(a forked process cannot use CUDA); use workers=1")
        return 1
    if workers is not None:
        return workers
    from localeval.runner.run import judges_of
    from localeval.runner.workers import default_workers

    judges = judges_of(named)
    return default_workers(judges[0].device.type) if judges else 1


def _cuda_present() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def run_options(**keywords: Any) -> RunOptions:
    """The `RunOptions` of `evaluate`'s scoring keywords (those named as its fields), with
    their encodings parsed: ``max_units="default"``: the metrics' default; ``thresholds=None``:
    none."""
    unknown = sorted(set(keywords) - set(RunOptions.model_fields))
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(unknown)}; options: {', '.join(RunOptions.model_fields)}")
    values = dict(keywords)
    if "max_units" in values:
        values["max_units"] = parse_max_units(values["max_units"], zero_means_all=False)
    if values.get("thresholds") is None:
        values.pop("thresholds", None)
    return RunOptions(**values)


def option_keywords(given: Mapping[str, Any]) -> dict[str, Any]:
    """The scoring keywords among a call's arguments (``locals()`` of `evaluate` or
    `score_dataset`): those named as `RunOptions`' fields, so no function lists them again.
    An option's old name (``chunk_size``, ``precision``: `RENAMED_OPTIONS`) counts as its new
    one, with a DeprecationWarning."""
    keywords = {name: given[name] for name in RunOptions.model_fields}
    old = {name: given[name] for name in RENAMED_OPTIONS if given.get(name) is not None}
    for new, value in renamed_options(old, where="evaluate()", stacklevel=4).items():
        if keywords[new] != RunOptions.model_fields[new].default:
            raise ValueError(f"{new} and its old name are both given; give {new} only")
        keywords[new] = value
    return keywords


def given_options(function: Callable[..., Any], keywords: Mapping[str, Any]) -> list[str]:
    """The scoring keywords of a call to ``function`` that differ from its defaults."""
    defaults = inspect.signature(function).parameters
    return [key for key, value in keywords.items() if not _is_default(value, defaults[key].default)]


def _options_of(function: Callable[..., Any], keywords: Mapping[str, Any], session: JudgeSession | None) -> RunOptions:
    """The run's options: from the scoring keywords, or, with a ``session``, the session's own
    (it was made with them, and its verdict cache, memos and decomposer thresholds follow
    them). One source only: a keyword given beside a session is an error, not silently lost."""
    if session is None:
        return run_options(**keywords)
    if not isinstance(session, JudgeSession):
        raise TypeError(f"session must be a JudgeSession, got {type(session).__name__}")
    given = given_options(function, keywords)
    if given:
        raise ValueError(
            f"{', '.join(given)} given beside session=: a session brings the run's options; "
            "make it with them (JudgeSession(RunOptions(...))) or leave session unset"
        )
    return session.options


def _is_default(value: Any, default: Any) -> bool:
    if value is default or (default is None and isinstance(value, Mapping) and not value):
        return True  # thresholds={} is no threshold, as None is
    return type(value) is type(default) and value == default


def _run(
    data: Any,
    metrics: str | Sequence[str | Metric],
    column_map: Mapping[str, ColumnSource] | None,
    options: RunOptions,
    *,
    show_progress: bool,
    output: str | os.PathLike[str] | None,
    resume: bool,
    on_rows: Callable[[list[ScoredRow]], None] | None,
    on_old: Callable[[dict[str, Any], list[tuple[str, Metric]]], None] | None,
    engine: str = "local",
    ray_address: str | None = None,
    ray_actors: int | None = None,
    max_row_chars: int | None = DEFAULT_MAX_ROW_CHARS,
    max_contexts: int | None = DEFAULT_MAX_CONTEXTS,
    max_row_pairs: int | None = DEFAULT_MAX_ROW_PAIRS,
    session: JudgeSession | None = None,
    workers: int | None = 1,
) -> RunSummary:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    if session is not None and engine != "local":
        raise ValueError(
            f"session= needs the local engine: on engine {engine!r} each actor scores in a session "
            "of its own, in its own process, which the caller cannot be handed"
        )
    if resume and output is None:
        raise ValueError("resume needs an output file")
    # Before a judge loads or a file opens: no file the run writes may be one it reads or
    # another it writes (the cache included: it is written, and moved aside when damaged).
    check_run_paths({"input": data if isinstance(data, (str, os.PathLike)) else None},
                    run_paths(output, session.cache if session is not None else options.cache))
    if output is not None:
        check_writable(output)
        output_format(output)
    columns = ColumnMap(column_map)
    # The Ray engine loads judges (and decomposers) in its actors; here only the output names are needed.
    with quiet_loading():
        named = resolve_metrics(metrics, options, load_judge=engine == "local")
    source = open_source(data, columns)
    budget = RowBudget(max_row_chars=max_row_chars or None, max_contexts=max_contexts or None,
                       max_row_pairs=max_row_pairs or None)
    summary = SummaryBuilder([name for name, _ in named])
    regular = output is not None and is_regular_target(output)
    with ExitStack() as stack:
        if engine == "local" and session is None:
            # Opened before the output: a cache that cannot be used is refused (or left
            # out, with a warning) before any file is touched.
            session = stack.enter_context(JudgeSession(options))
        lock = stack.enter_context(OutputLock(output)) if regular else None  # type: ignore[arg-type]
        return _run_locked(data, metrics, column_map, options, named, source, budget, summary,
                           show_progress=show_progress, output=output, resume=resume, on_rows=on_rows,
                           on_old=on_old, engine=engine, ray_address=ray_address, ray_actors=ray_actors,
                           session=session, regular=regular, lock=lock, workers=workers)


def _run_locked(
    data: Any,
    metrics: str | Sequence[str | Metric],
    column_map: Mapping[str, ColumnSource] | None,
    options: RunOptions,
    named: list[tuple[str, Metric]],
    source: Any,
    budget: RowBudget,
    summary: SummaryBuilder,
    *,
    show_progress: bool,
    output: str | os.PathLike[str] | None,
    resume: bool,
    on_rows: Callable[[list[ScoredRow]], None] | None,
    on_old: Callable[[dict[str, Any], list[tuple[str, Metric]]], None] | None,
    engine: str,
    ray_address: str | None,
    ray_actors: int | None,
    session: JudgeSession | None,
    regular: bool,
    lock: OutputLock | None,
    workers: int | None,
) -> RunSummary:
    """`_run` once the session is open and the output locked."""
    names = [name for name, _ in named]
    done: set[int] = set()
    append = False
    tabular = output is not None and Path(output).suffix.lower() in (".parquet", ".pq", ".csv")
    if resume and tabular:
        raise ValueError("resume needs a JSON Lines output: a Parquet or CSV file is not appended to")
    # The run record goes beside a JSON Lines file (the resumable format), checked on resume.
    run_id = None
    if regular and not tabular:
        run_id = run_record(
            data, source.total, named, column_map=column_map, model=options.model,
            options={**options.record(), **budget.model_dump()},
        )
    if resume and Path(output).exists() and Path(output).stat().st_size > 0:  # type: ignore[arg-type]
        if run_id is not None:
            check_run_record(output, run_id)  # type: ignore[arg-type]

        def old(obj: dict[str, Any]) -> None:
            add_record_to_summary(summary, names, obj)
            if on_old is not None:
                on_old(obj, named)

        done = read_done(output, names, old)  # type: ignore[arg-type]
        append = True

    def opened() -> None:
        # Written once the output is opened (truncated or appended to), never before: a run
        # that fails before its first row leaves the old output and its old record as they were.
        if run_id is not None:
            write_run_record(output, run_id)  # type: ignore[arg-type]
        if lock is not None:
            lock.pin()

    writer = open_writer(output, names, append=append, on_open=opened) if output is not None or on_rows is None else None
    rows: Any = warn_reserved(within_budget(source.rows, budget, named), names)
    if engine == "ray" and source.kind in ("jsonl", "csv", "parquet"):
        from localeval.runner.ray_engine import FileInput

        # Ray Data reads the file itself (on a worker): the driver never holds its rows.
        rows = FileInput(str(data), source.kind, ColumnMap(column_map), budget, tuple(names))
    try:
        with make_progress(source.total, enabled=show_progress) as progress, _chunks(
            engine, rows, metrics, named, options, skip=done, progress=progress,
            ray_address=ray_address, ray_actors=ray_actors, total=source.total, session=session, workers=workers,
        ) as chunks:
            for chunk in chunks:
                if writer is not None:
                    _write(writer, chunk, output)
                if on_rows is not None:
                    on_rows(chunk)
                add_to_summary(summary, chunk)
        if writer is not None:
            _write(writer, None, output)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return summary.build()


def _write(writer: Any, chunk: list[ScoredRow] | None, output: str | os.PathLike[str] | None) -> None:
    """Write a chunk (``None``: close the writer, the file complete)."""
    try:
        if chunk is None:
            writer.close()
        else:
            writer.write(chunk)
    except OSError as exc:  # a full disk, /dev/full, a vanished mount: one line, not a traceback
        raise OSError(exc.errno, f"cannot write {output or 'stdout'}: {exc.strerror or exc}") from exc


def evaluate(
    data: Any = None,
    metrics: str | Sequence[str | Metric] | None = None,
    column_map: Mapping[str, ColumnSource] | None = None,
    *,
    dataset: Any = None,
    model: Any = None,
    device: str | None = None,
    batch_size: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
    cache: str | os.PathLike[str] | JudgementCache | None = None,
    show_progress: bool = True,
    output: str | os.PathLike[str] | None = None,
    resume: bool = False,
    thresholds: Mapping[str, float] | None = None,
    engine: str = "local",
    ray_address: str | None = None,
    ray_actors: int | None = None,
    decomposer: Any = None,
    dtype: str | None = None,
    max_units: int | None | Literal["default"] = "default",
    candidates: Candidates = DEFAULT_SELECTOR,
    locate: Locate = DEFAULT_LOCATE,
    screen: bool = True,
    contrasts: bool = True,
    exhaustive: bool = False,
    score_declined: bool = False,
    relevance_model: Any = None,
    max_row_chars: int | None = DEFAULT_MAX_ROW_CHARS,
    max_contexts: int | None = DEFAULT_MAX_CONTEXTS,
    max_row_pairs: int | None = DEFAULT_MAX_ROW_PAIRS,
    session: JudgeSession | None = None,
    workers: int | None = 1,
    chunk_size: int | None = None,
    precision: str | None = None,
) -> EvaluationResult:
    """Score every row of ``data`` with every metric.

    Args:
        data: a list of dicts, a pandas DataFrame, a Hugging Face ``datasets.Dataset``, a
            RAGAS ``EvaluationDataset`` or list of ``SingleTurnSample`` (read by field name;
            ragas is not imported), or a path to a JSON Lines, CSV or Parquet file.
        metrics: metric names (ours or RAGAS aliases; a comma-separated string works) and/or
            `Metric` objects; a RAGAS metric object is scored by the localeval metric for the
            same thing (`localeval.compat.ragas_metrics`, with a one-line notice).
        dataset: RAGAS' name for ``data`` (``evaluate(dataset=df, metrics=[...])``); give one.
        column_map: target field -> column name, dotted path into a dict column, or
            ``callable(row)`` (see `localeval.runner.columns`).
        model, device: the judge for metrics given by name (default: the shipped judge, on
            CUDA when present); any folder `localeval.judge.formats` reads (NLI, MiniCheck,
            HHEM-2.1-open, AlignScore), or ``"FORMAT:PATH"``.
        relevance_model: a separate relevance judge (a cross-encoder reranker folder...) for
            the metrics that judge relevance; ``None``: the judge's own relevance head.
        batch_size: judge pairs per forward pass; ``None``: 32 on CPU, 128 on CUDA.
        block_size: rows scored together, a block (memory grows with it; batches fill better).
        cache: SQLite file (or `JudgementCache`) of judge verdicts, reused across runs.
        show_progress: progress on stderr (a bar on a terminal, plain lines otherwise).
        output: also stream the scored rows to this file as they finish (``.parquet``:
            Parquet, ``.csv``: CSV, otherwise JSON Lines).
        resume: keep the rows ``output`` already holds and score only the others.
        thresholds: replace the judge's stored thresholds (``{"entailment": 0.7,
            "relevance": 0.6}``) for the metrics given by name.
        engine: ``"local"`` (this process) or ``"ray"`` (a pool of Ray actors, one per GPU or
            CPU; metrics by name only; see `localeval.runner.ray_engine`).
        ray_address: the Ray cluster to join (``"auto"``); ``None`` starts a local Ray
            instance (unless Ray is already initialised, which is then used as it is).
        ray_actors: how many scoring actors (default: one per GPU, else one per CPU).
        decomposer: for metrics given by name that split claims or questions: ``None`` or
            ``"rule"`` (the rules), a local instruction model (directory or ``.gguf`` file), or
            a `Decomposer` object (see `localeval.llm`).
        dtype: the judge's number format: ``"auto"`` (fp32 on CPU, fp16 on CUDA),
            ``"fp32"``, ``"bf16"`` (2-3x faster on CPUs with native bfloat16; probabilities
            within ~0.02 of fp32) or ``"fp16"`` (CUDA). See `localeval.judge.dtypes`.
        chunk_size, precision: the old names of ``block_size`` and ``dtype`` (README,
            "Changelog"): still taken, with a DeprecationWarning.
        max_units: for metrics given by name that attribute claims: judge each claim against
            at most this many units of the contexts (those sharing most of its words);
            ``None``: every unit; ``"default"``: the metrics' default (6).
        candidates: how those units are chosen: ``"overlap"`` (most of the claim's words),
            ``"bm25"``, ``"embedding"`` (MiniLM cosine) or ``"hybrid"`` (an overlap shortlist
            re-ranked by cosine); see `localeval.evidence.candidates`.
        locate: how a claim's evidence is narrowed to one sentence: ``"words"`` (no judge
            call) or ``"judge"`` (each sentence judged).
        screen: context relevance decides sentences sharing no content word with the
            question without the judge; ``False`` judges every sentence.
        contrasts: for metrics given by name that attribute claims: a unit that states another
            number or unit, the opposite direction or state, or negates what the claim affirms
            cannot support it (`localeval.text.contrast_rules`); ``False``: the judge alone.
        exhaustive: for metrics given by name that attribute claims: judge every chosen unit
            of a claim even after its closest unit accepts it, so each claim reports its
            highest probability (verdicts are the same; more judge pairs).
        score_declined: an answer that declines to answer ("I'm sorry, the documents do not
            say.", `localeval.text.declined`) is unscored by the metrics that read the
            response, with the reason "the answer declines to answer" (counted in the
            summary); ``True`` scores it as any answer.

        max_row_chars, max_contexts, max_row_pairs: per-row budgets (characters, contexts,
            judge pairs one metric would ask for, estimated before scoring); a row over one is
            unscored with the reason (never truncated); ``None`` or 0: no limit (see
            `localeval.runner.budget`).
        session: a `localeval.judge.session.JudgeSession` to score in (local engine only),
            for a caller that reads what the run did: its public ``counters`` (pairs asked,
            read from the cache, judged; forward passes; tokens) and ``timings`` (seconds per
            stage) are the run's, and stay readable after it. Its verdict cache (memory and
            file) and memos serve the run; the session stays open (close it, or use ``with``).
            The run's options are the session's (``JudgeSession(RunOptions(model=...,
            cache=...))``): the keywords that make them (model, device, batch_size,
            block_size, cache, thresholds, decomposer, dtype, max_units, candidates,
            locate, screen, contrasts, exhaustive) are left unset.
            Counters add up over the runs one session serves (subtract two ``snapshot()``).
        workers: processes that do the text side (splitting, parsing, windows, contrasts) of
            the local engine, chunk by chunk, while this process judges each worker's pairs
            (`localeval.runner.workers`; the same scores as one process); ``None``:
            the cores minus what the judge needs (one on a CPU judge).

    The keywords that change how rows are scored make one `localeval.options.RunOptions`
    (`run_options`), the object the CLI, the config file and the Ray engine use too; the
    judge stays a pure predictor: everything a run learns lives in its session.

    Returns:
        an `EvaluationResult` holding every row, scored or with the reason it is not.
    """
    data, metrics = _data_and_metrics(data, dataset, metrics)
    rows: list[RowResult] = []

    def keep(chunk: list[ScoredRow]) -> None:
        rows.extend(RowResult(line=r.line, data=r.data, error=r.error, results=res, warnings=r.warnings) for r, res in chunk)

    def keep_old(obj: dict[str, Any], named: list[tuple[str, Metric]]) -> None:
        rows.append(_from_record(obj, named))

    options = _options_of(evaluate, option_keywords(locals()), session)
    summary = _run(
        data, metrics, column_map, options,
        show_progress=show_progress, output=output, resume=resume, on_rows=keep, on_old=keep_old, engine=engine,
        ray_address=ray_address, ray_actors=ray_actors, max_row_chars=max_row_chars, max_contexts=max_contexts,
        max_row_pairs=max_row_pairs,
        session=session, workers=workers,
    )
    rows.sort(key=lambda r: r.line)
    return EvaluationResult(rows, [m.metric for m in summary.metrics], summary)


def _data_and_metrics(data: Any, dataset: Any, metrics: Any) -> tuple[Any, Any]:
    """``data`` or RAGAS' ``dataset=`` (one of them), and the metrics, which are required."""
    if data is not None and dataset is not None:
        raise TypeError("give the rows once: data or dataset=, not both")
    data = dataset if data is None else data
    if data is None:
        raise TypeError("evaluate() needs the rows: evaluate(rows, metrics) or evaluate(dataset=rows, metrics=[...])")
    if metrics is None:
        raise TypeError("evaluate() needs metrics: a name, a list of names or Metric objects")
    return data, metrics


async def aevaluate(data: Any = None, metrics: str | Sequence[str | Metric] | None = None,
                    column_map: Mapping[str, ColumnSource] | None = None, **options: Any) -> EvaluationResult:
    """`evaluate` for async code: the run goes to a worker thread, the event loop stays free
    (same arguments, same result). Two runs awaited together share the judge and take turns
    on the CPU; they do not score faster than one after the other."""
    import asyncio

    return await asyncio.to_thread(evaluate, data, metrics, column_map, **options)  # dataset= goes through options


def score_dataset(
    data: Any,
    metrics: str | Sequence[str | Metric],
    output: str | os.PathLike[str] | None,
    column_map: Mapping[str, ColumnSource] | None = None,
    *,
    model: Any = None,
    device: str | None = None,
    batch_size: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
    cache: str | os.PathLike[str] | JudgementCache | None = None,
    show_progress: bool = True,
    resume: bool = False,
    thresholds: Mapping[str, float] | None = None,
    engine: str = "local",
    ray_address: str | None = None,
    ray_actors: int | None = None,
    decomposer: Any = None,
    dtype: str | None = None,
    max_units: int | None | Literal["default"] = "default",
    candidates: Candidates = DEFAULT_SELECTOR,
    locate: Locate = DEFAULT_LOCATE,
    screen: bool = True,
    contrasts: bool = True,
    exhaustive: bool = False,
    score_declined: bool = False,
    relevance_model: Any = None,
    max_row_chars: int | None = DEFAULT_MAX_ROW_CHARS,
    max_contexts: int | None = DEFAULT_MAX_CONTEXTS,
    max_row_pairs: int | None = DEFAULT_MAX_ROW_PAIRS,
    options: RunOptions | None = None,
    session: JudgeSession | None = None,
    workers: int | None = 1,
    chunk_size: int | None = None,
    precision: str | None = None,
) -> RunSummary:
    """Like `evaluate`, but rows only go to ``output`` (``None``: stdout) and are not kept in
    memory: what the ``localeval score`` command runs, for datasets of any size.
    ``options``: a ready `RunOptions` (the CLI's), in place of the option keywords;
    ``session``: as `evaluate`'s (its options are the run's)."""
    keywords = option_keywords(locals())
    if options is None:
        options = _options_of(score_dataset, keywords, session)
    elif given := given_options(score_dataset, keywords):
        raise ValueError(f"{', '.join(given)} given beside options=: put them in the RunOptions, or leave options unset")
    elif session is not None and options != session.options:
        raise ValueError("options= differs from the options the session was made with; give one of them")
    return _run(
        data, metrics, column_map, options,
        show_progress=show_progress, output=output, resume=resume, on_rows=None, on_old=None, engine=engine,
        ray_address=ray_address, ray_actors=ray_actors, max_row_chars=max_row_chars, max_contexts=max_contexts,
        max_row_pairs=max_row_pairs,
        session=session, workers=workers,
    )
