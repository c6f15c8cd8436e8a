"""The Ray engine: the same chunks, scored by a pool of Ray actors that each load the judge once.

Pipeline (Ray Data):

* **read**: for a file input, a Ray Data read task (`_ChunkSource`) reads the file on the
  driver's node, in a worker process, with localeval's own readers (`sources.file_rows`), so
  rows, line numbers, input order and the reasons of unreadable or invalid rows are exactly
  those of the local engine. Ray's ``read_json`` / ``read_csv`` / ``read_parquet`` are not used:
  they drop or refuse a bad line instead of keeping it as an unscored row with its reason,
  and they do not keep line numbers. The task cuts the same chunks as the local engine
  (``chunk_size`` rows on absolute positions, so a resumed run cuts them the same way), drops
  the rows a resumed run already holds, and streams one block per chunk (the rows pickled);
  Ray Data's backpressure keeps it only a few chunks ahead of the scorers. Rows given in
  memory (lists, DataFrames) are already in the driver: their chunks are put in the object
  store as they are cut.
* **score**: ``map_batches`` with an actor pool (`_Scorer`: builds the metrics and loads the
  judge in its constructor, then scores one chunk per call with the local engine's
  `score_chunk`, its verdict memo emptied per chunk).
* **write**: results stream back in input order (``preserve_order``), one chunk at a time, to
  the caller, which writes them (JSON Lines, CSV or Parquet) and summarises them. The driver
  holds one chunk and a few counters, whatever the size of the input
  (``benchmarks/ray_memory.py``). A chunk out of order, or fewer rows back than were read,
  ends the run with an error, never with a shorter file.

Because every chunk is scored by the same code on the same rows, scores equal the local
engine's (on CPU, bit for bit). Actors: one per GPU, each with ``num_gpus=1``, when the
cluster has GPUs (and ``device`` is not ``cpu``); otherwise one CPU actor per CPU, each on one
torch thread (fewer actors, when asked for, share the CPUs out as threads). A failing row keeps the local guarantees (its reason, never dropped); an actor
that dies is restarted and its chunk retried by Ray; a chunk that still does not come back
ends the run with an error, never with fewer rows.

Ray is optional (``pip install "localeval[ray]"``). Without ``ray_address`` a local Ray
instance is started for the run (usage statistics off, no dashboard); ``ray_address="auto"``
joins the cluster of the node the driver runs on, whose nodes must have localeval and the
judge installed (the shipped judge is part of the package); the input file is read on the
driver's node, so it need not be on the others.
"""

from __future__ import annotations

import logging
import os
import pickle
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from localeval.options import RunOptions
from localeval.runner.budget import RowBudget, within_budget
from localeval.runner.columns import ColumnMap
from localeval.runner.output import warn_reserved
from localeval.runner.progress import Progress
from localeval.runner.rows import Row
from localeval.runner.run import ScoredRow, iter_chunks

__all__ = ["FileInput", "quiet_backend", "ray_chunks"]


@dataclass(frozen=True)
class FileInput:
    """An input file for Ray Data to read (instead of rows the driver has read)."""

    path: str
    kind: str
    """``jsonl``, ``csv`` or ``parquet`` (`localeval.runner.sources.file_format`)."""
    columns: ColumnMap
    budget: RowBudget
    names: tuple[str, ...]
    """The output's metric columns (an input column of the same name is warned about)."""


def _import_ray():
    try:
        import ray
        import ray.data  # noqa: F401 - the Data library is a separate extra of ray
    except ImportError as exc:
        raise ImportError('engine "ray" needs Ray Data: pip install "localeval[ray]"') from exc
    return ray


def _chunk_items(rows: Iterable[Row], chunk_size: int, skip: frozenset[int]) -> Iterator[dict[str, Any]]:
    """One item per chunk: its position, how many rows it cut, how many of them a resumed run
    already holds, and the others pickled. A last item (``last``) says how many rows were read,
    so the driver can tell that every row came back."""
    position = read = 0
    for position, chunk in enumerate(iter_chunks(rows, chunk_size)):
        todo = [r for r in chunk if r.line not in skip]
        read += len(chunk)
        yield {"position": position, "rows": len(chunk), "skipped": len(chunk) - len(todo),
               "chunk": pickle.dumps(todo, protocol=pickle.HIGHEST_PROTOCOL), "last": False, "warnings": []}
    yield {"position": position + (read > 0), "rows": read, "skipped": 0, "chunk": b"", "last": True, "warnings": []}


def _block(item: dict[str, Any]):
    import pyarrow as pa

    return pa.table({k: [v] for k, v in item.items()}, schema=_schema())


def _schema():
    """The columns of a chunk block (built on use: pyarrow is imported only by this engine)."""
    import pyarrow as pa

    return pa.schema([("position", pa.int64()), ("rows", pa.int64()), ("skipped", pa.int64()),
                      ("chunk", pa.binary()), ("last", pa.bool_()), ("warnings", pa.list_(pa.string()))])


def _read_file(spec: FileInput, chunk_size: int, skip: frozenset[int]) -> Iterator[Any]:
    """The read task's body (on a worker): the local readers, the row budget and the column
    checks, the chunks. The readers' warnings (a column under two names, an input column named
    like an output one) travel with the chunk, for the driver to give them to the user."""
    from localeval.runner.sources import file_rows

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # each distinct warning once, as in one process
        rows = warn_reserved(within_budget(file_rows(spec.path, spec.kind, spec.columns), spec.budget), spec.names)
        for item in _chunk_items(rows, chunk_size, skip):
            item["warnings"] = [str(w.message) for w in caught]
            caught.clear()
            yield _block(item)


def _chunk_source(spec: FileInput, chunk_size: int, skip: frozenset[int]):
    """A Ray Data datasource of one read task: the file is read in order, in one pass, on a
    worker (the order and the absolute chunk positions need one reader; scoring, not
    reading, is what the actors share out)."""
    from ray.data import Datasource, ReadTask
    from ray.data.block import BlockMetadata

    class _ChunkSource(Datasource):
        def estimate_inmemory_data_size(self) -> int | None:
            return os.path.getsize(spec.path)

        def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None,
                           data_context: Any = None) -> list[ReadTask]:
            meta = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None, input_files=(spec.path,))
            return [ReadTask(lambda: _read_file(spec, chunk_size, skip), meta, schema=_schema())]

        def get_name(self) -> str:
            return "LocalevalChunks"

    return _ChunkSource()


class _Scorer:
    """A Ray Data actor: metrics and judge built once, then one chunk per call.

    With a ``judge`` actor (``workers`` > 1), the actor does the text side only: every pair
    its session does not hold is judged by that one actor, request by request
    (`localeval.runner.workers.judge_request`), as the local ``--workers`` do. With
    ``max_row_pairs``, a row whose metrics would ask the judge for more pairs is unscored with
    the reason, as the local reader does (the read task has no metrics to estimate with)."""

    def __init__(self, metrics: list[str], options: RunOptions, threads: int | None, judge: Any = None,
                 max_row_pairs: int | None = None) -> None:
        import torch

        from localeval.judge.session import JudgeSession
        from localeval.runner.run import judges_of, resolve_metrics

        if threads:
            torch.set_num_threads(threads)
        self.named = resolve_metrics(metrics, options)
        # The actor's session, for its lifetime: a verdict memo in front of the shared SQLite
        # file when given (WAL mode lets several processes use it).
        self.session = JudgeSession(options)
        self.budget = None if max_row_pairs is None else RowBudget(max_row_chars=None, max_contexts=None,
                                                                   max_row_pairs=max_row_pairs)
        if judge is not None:
            import ray

            index = {id(j): i for i, j in enumerate(judges_of(self.named))}

            def remote(j: Any, pairs: list, task: str, batch_size: int) -> Any:
                # Tokenized in this text actor, as a local worker does: the judge actor pads
                # and runs the model only.
                return ray.get(judge.score.remote(index[id(j)], pairs, task, batch_size, j.encode(pairs, task)))

            self.session.remote = remote

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        from localeval.runner.run import score_chunk

        scored = np.empty(len(batch["chunk"]), dtype=object)
        for i, chunk in enumerate(batch["chunk"]):
            rows = _load_chunk(chunk)
            if self.budget is not None:
                rows = list(within_budget(rows, self.budget, self.named))
            if rows:
                self.session.clear_memory()  # as the local engine does: each chunk on its own
            scored[i] = pickle.dumps(score_chunk(rows, self.named, self.session) if rows else [],
                                     protocol=pickle.HIGHEST_PROTOCOL)
        return {**{k: batch[k] for k in ("position", "rows", "skipped", "last", "warnings")}, "scored": scored}


class _Judge:
    """The one judging actor of a run with ``workers`` > 1: loads the judges once and answers
    each text actor's request alone (a Ray actor runs one call at a time), in the batches one
    process would make, so scores equal one process's bit for bit."""

    def __init__(self, metrics: list[str], options: RunOptions, threads: int | None) -> None:
        import torch

        from localeval.judge.session import JudgeSession
        from localeval.runner.run import judges_of, resolve_metrics

        if threads:
            torch.set_num_threads(threads)
        self.judges = judges_of(resolve_metrics(metrics, options))
        from localeval.judge.cache import JudgementCache

        # Memory only: the text actors read and write the verdict cache; this actor only judges.
        self.session = JudgeSession(options, cache=JudgementCache(None))

    def score(self, judge_index: int, pairs: list, task: str, batch_size: int, encoded: list | None = None) -> Any:
        from localeval.runner.workers import judge_request

        return judge_request(self.session, self.judges[judge_index], pairs, task, batch_size, encoded)


def _load_chunk(chunk: Any) -> list[Row]:
    """A chunk's rows: pickled by the read task, or in the object store (rows given in memory)."""
    if not isinstance(chunk, (bytes, bytearray, memoryview)):
        import ray

        chunk = ray.get(chunk)
    return pickle.loads(chunk) if len(chunk) else []


def _on_this_node(ray: Any) -> dict[str, Any]:
    """Read-task options that keep it on the driver's node: a node label where Ray Data takes
    one (Ray >= 2.5x), else the scheduling strategy it took before."""
    import inspect

    node = ray.get_runtime_context().get_node_id()
    if "label_selector" in inspect.signature(ray.data.read_datasource).parameters:
        return {"label_selector": {"ray.io/node-id": node}}
    strategy = ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy(node_id=node, soft=False)
    return {"ray_remote_args": {"scheduling_strategy": strategy}}


def quiet_backend() -> None:
    """Keep Ray's C++ core's E-level lines (core_worker) and its INFO lines off stderr, unless
    the environment says otherwise. Set before ``ray.init``, so the driver, the raylet and the
    workers it starts inherit them (a Ray instance the caller started keeps its own)."""
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    os.environ.setdefault("RAY_LOG_TO_STDERR", "0")


def _connect(ray: Any, address: str | None) -> None:
    import logging

    from localeval.quiet import verbose

    loud = verbose()
    if not loud:  # Ray Data's INFO lines (execution plans, progress) on our stderr: not without -v
        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.ERROR)
    if ray.is_initialized():
        return
    if not loud:
        quiet_backend()
    kwargs = {"log_to_driver": loud, "configure_logging": loud,
              "logging_level": logging.INFO if loud else logging.ERROR}
    if address is None:
        # A local instance for this run: no usage statistics, no dashboard, Ray's own log
        # lines kept in its session folder rather than on our stderr.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(include_dashboard=False, **kwargs)
    else:
        ray.init(address=address, **kwargs)


def ray_chunks(
    rows: Iterable[Row] | FileInput,
    metrics: Sequence[Any],
    options: RunOptions,
    *,
    skip: set[int] | None = None,
    progress: Progress | None = None,
    address: str | None = None,
    actors: int | None = None,
    total: int | None = None,
    workers: int | None = None,
) -> Iterator[list[ScoredRow]]:
    """Scored chunks in input order, as `localeval.runner.run.run_chunks` yields them; each
    actor builds its metrics and its `JudgeSession` from ``options``.

    ``rows`` are either rows read in the driver or a `FileInput` that Ray Data reads itself;
    ``skip`` holds the line numbers a resumed run already has; ``total`` (rows in the input,
    when known) only bounds the actor pool. ``workers`` > 1 splits the work as the local
    ``--workers`` do: that many text actors (one CPU each) and one judge actor (the GPU, or
    the CPUs' torch threads) that judges every text actor's pairs."""
    model, cache, decomposer, device = options.model, options.cache, options.decomposer, options.device
    chunk_size = options.block_size
    if any(not isinstance(m, str) for m in metrics):
        raise TypeError('engine "ray" takes metric names: each actor builds its own metrics and loads its judge once')
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise TypeError('engine "ray" takes the judge as a name or a folder, not a loaded judge')
    if options.relevance_model is not None and not isinstance(options.relevance_model, (str, os.PathLike)):
        raise TypeError('engine "ray" takes the relevance model as a name or a folder, not a loaded judge')
    if cache is not None and not isinstance(cache, (str, os.PathLike)):
        raise TypeError('engine "ray" takes the verdict cache as a file path')
    if decomposer is not None and not isinstance(decomposer, (str, os.PathLike)):
        raise TypeError('engine "ray" takes the decomposer as "rule" or a model path: each actor loads its own')
    ray = _import_ray()
    _connect(ray, address)
    done = frozenset(skip or ())
    if isinstance(rows, FileInput):
        # Read on the driver's node (where the file is known to be), in a worker process; no CPU
        # is reserved for it, so the actors can hold every CPU and the read still runs.
        dataset = ray.data.read_datasource(
            _chunk_source(rows, chunk_size, done), override_num_blocks=1, num_cpus=0, **_on_this_node(ray))
    else:
        # Rows given in memory are already in the driver: each chunk goes to the object store as
        # it is cut (spilled to disk when the store is full); the driver keeps the references.
        items = [{**item, "chunk": ray.put(item["chunk"])}
                 for item in _chunk_items(rows, chunk_size, done)]
        # A chunk reference is a Python object, not an Arrow value: Ray Data keeps it pickled and
        # says so once per block at WARNING; that is the intended path, so its note is kept quiet.
        logging.getLogger("ray.data._internal.tensor_extensions.arrow").setLevel(logging.ERROR)
        dataset = ray.data.from_items(items, override_num_blocks=len(items))
    # Settings for this run's datasets only (each copies the context it is built from), not
    # for other Ray Data work of the caller: results in input order, no progress bars, and one
    # chunk per block. Ray Data merges small blocks up to ``target_max_block_size`` (128 MiB):
    # the whole input would become one block, scored by one actor; at one byte every chunk
    # (a one-row block, never split) is its own block, shared out across the actors.
    context = dataset.context
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    context.target_max_block_size = 1
    chunks = -(-total // chunk_size) if total else None  # an upper bound on the work, for the pool size
    resources = ray.cluster_resources()
    gpus = int(resources.get("GPU", 0)) if device != "cpu" else 0
    if gpus and device is not None and device.startswith("cuda"):
        options = options.model_copy(update={"device": "cuda"})  # each actor sees only its own GPU, as cuda:0
    cpus = max(1, int(resources.get("CPU", 1)))
    # Rows read by the read task have not met the pair budget (it needs the metrics): the
    # scorers apply it; rows given in memory met it in the driver.
    pair_budget = rows.budget.max_row_pairs if isinstance(rows, FileInput) else None
    constructor = {"metrics": list(metrics), "options": options, "max_row_pairs": pair_budget}
    if workers is not None and workers > 1:
        # No CPU reserved for the judge actor: its torch threads use the CPUs the text
        # actors leave idle while they wait for it, as the local judge process does.
        # On a GPU the text actors take a share of the judge's GPU: they load the judge there,
        # never run it, so its identity (the verdict cache's key: device and dtype) is the
        # judge actor's, and its token counts are the same.
        pool = max(1, min(workers, chunks or workers))
        judge = ray.remote(num_cpus=0, num_gpus=0.5 if gpus else 0)(_Judge).remote(
            list(metrics), options, None if gpus else cpus)
        per_actor = {"num_cpus": 1, **({"num_gpus": 0.5 / pool} if gpus else {})}
        constructor.update(threads=1, judge=judge)
    elif gpus:
        pool, per_actor = min(actors or gpus, chunks or gpus), {"num_gpus": 1}
        constructor.update(threads=None)
    else:
        pool = max(1, min(actors or cpus, chunks or cpus))
        threads = max(1, cpus // pool)  # fewer actors than CPUs: each gets more torch threads
        per_actor = {"num_cpus": threads}
        constructor.update(threads=threads)
    scored_chunks = dataset.map_batches(
        _Scorer,
        fn_constructor_kwargs=constructor,
        batch_size=1,
        # Ray Data restarts a dead actor and retries its chunk (max_restarts=-1 by default).
        compute=ray.data.ActorPoolStrategy(size=pool),
        **per_actor,
    )
    yield from _in_order(scored_chunks.iter_rows(), progress)


def _in_order(results: Iterable[dict[str, Any]], progress: Progress | None) -> Iterator[list[ScoredRow]]:
    """The scored chunks as they come back, checked: consecutive positions, lines increasing,
    and as many rows back as the read task read. The read task's warnings are given here."""
    expected = seen = last_line = 0
    for out in results:
        for message in out["warnings"] if out["warnings"] is not None else ():
            warnings.warn(str(message), UserWarning, stacklevel=2)
        position = int(out["position"])
        if position != expected:
            raise RuntimeError(f"the Ray engine returned chunk {position} where chunk {expected} was due; no row is written out of order")
        expected += 1
        if out["last"]:
            if seen != int(out["rows"]):
                raise RuntimeError(f"the Ray engine returned {seen} of {int(out['rows'])} rows")
            return
        scored: list[ScoredRow] = pickle.loads(out["scored"])
        if len(scored) != int(out["rows"]) - int(out["skipped"]) or any(r.line <= last_line for r, _ in scored[:1]) or any(
                a.line >= b.line for (a, _), (b, _) in zip(scored, scored[1:])):
            raise RuntimeError(f"the Ray engine returned chunk {position} with rows missing or out of order")
        seen += int(out["rows"])
        if scored:
            last_line = scored[-1][0].line
        if progress is not None:
            progress.advance(int(out["rows"]))
        if scored:
            yield scored
    raise RuntimeError(f"the Ray engine returned {expected} chunks and then stopped, before the end of the input")
