"""The Ray engine: the same chunks, scored by a pool of Ray actors that each load the judge once.

Pipeline (Ray Data): the driver reads the input with localeval's own readers (so rows, line
numbers and the reasons of unreadable rows are exactly those of the local engine) and cuts
the same chunks (``chunk_size`` rows, on absolute positions), each put in Ray's object store
as it is read -> ``ray.data.from_items``, one item (a reference) per chunk -> ``map_batches`` with an actor pool (`_Scorer`: builds the metrics and loads
the judge in its constructor, then scores one chunk per call with the local engine's
`score_chunk`, its verdict memo emptied per chunk) -> results streamed back in input order,
where the caller writes them (JSON Lines, CSV or Parquet) and summarises them.

Because every chunk is scored by the same code on the same rows, scores equal the local
engine's (on CPU, bit for bit). Actors: one per GPU, each with ``num_gpus=1``, when the
cluster has GPUs (and ``device`` is not ``cpu``); otherwise one CPU actor per CPU, each on one
torch thread (fewer actors, when asked for, share the CPUs out as threads). A failing row keeps the local guarantees (its reason, never dropped); an actor
that dies is restarted and its chunk retried by Ray; a chunk that still does not come back
ends the run with an error, never with fewer rows.

Ray is optional (``pip install "localeval[ray]"``). Without ``ray_address`` a local Ray
instance is started for the run (usage statistics off, no dashboard); ``ray_address="auto"``
joins the cluster of the node the driver runs on, whose nodes must have localeval and the
judge installed (the shipped judge is part of the package).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from localeval.options import RunOptions
from localeval.runner.progress import Progress
from localeval.runner.rows import Row
from localeval.runner.run import ScoredRow, iter_chunks

__all__ = ["ray_chunks"]


def _import_ray():
    try:
        import ray
        import ray.data  # noqa: F401 - the Data library is a separate extra of ray
    except ImportError as exc:
        raise ImportError('engine "ray" needs Ray Data: pip install "localeval[ray]"') from exc
    return ray


class _Scorer:
    """A Ray Data actor: metrics and judge built once, then one chunk per call."""

    def __init__(self, metrics: list[str], options: RunOptions, threads: int | None) -> None:
        import torch

        from localeval.backends.session import JudgeSession
        from localeval.runner.run import resolve_metrics

        if threads:
            torch.set_num_threads(threads)
        self.named = resolve_metrics(metrics, options)
        # The actor's session, for its lifetime: a verdict memo in front of the shared SQLite
        # file when given (WAL mode lets several processes use it).
        self.session = JudgeSession(options)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        from localeval.runner.run import score_chunk

        import ray

        scored = np.empty(len(batch["chunk"]), dtype=object)
        for i, rows in enumerate(ray.get(list(batch["chunk"]))):
            self.session.clear_memory()  # as the local engine does: each chunk on its own
            scored[i] = score_chunk(list(rows), self.named, self.session)
        return {"position": batch["position"], "scored": scored}


def _connect(ray: Any, address: str | None) -> None:
    if ray.is_initialized():
        return
    if address is None:
        # A local instance for this run: no usage statistics, no dashboard, Ray's own log
        # lines kept in its session folder rather than on our stderr.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
    else:
        ray.init(address=address, log_to_driver=False, configure_logging=False)


def ray_chunks(
    rows: Iterable[Row],
    metrics: Sequence[Any],
    options: RunOptions,
    *,
    skip: set[int] | None = None,
    progress: Progress | None = None,
    address: str | None = None,
    actors: int | None = None,
) -> Iterator[list[ScoredRow]]:
    """Scored chunks in input order, as `localeval.runner.run.run_chunks` yields them; each
    actor builds its metrics and its `JudgeSession` from ``options``."""
    model, cache, decomposer, device = options.model, options.cache, options.decomposer, options.device
    chunk_size = options.chunk_size
    if any(not isinstance(m, str) for m in metrics):
        raise TypeError('engine "ray" takes metric names: each actor builds its own metrics and loads its judge once')
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise TypeError('engine "ray" takes the judge as a name or a folder, not a loaded judge')
    if cache is not None and not isinstance(cache, (str, os.PathLike)):
        raise TypeError('engine "ray" takes the verdict cache as a file path')
    if decomposer is not None and not isinstance(decomposer, (str, os.PathLike)):
        raise TypeError('engine "ray" takes the decomposer as "rule" or a model path: each actor loads its own')
    ray = _import_ray()
    _connect(ray, address)

    # Each chunk goes to Ray's object store as it is read (spilled to disk when the store is
    # full); the driver keeps only references and line numbers.
    sent: list[list[int]] = []
    items: list[dict[str, Any]] = []
    for chunk in iter_chunks(rows, chunk_size):
        if progress is not None and skip:
            progress.advance(sum(r.line in skip for r in chunk))
        todo = [r for r in chunk if not skip or r.line not in skip]
        if todo:
            items.append({"position": len(sent), "chunk": ray.put(todo)})
            sent.append([r.line for r in todo])
    if not items:
        return
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    resources = ray.cluster_resources()
    gpus = int(resources.get("GPU", 0)) if device != "cpu" else 0
    if gpus:
        pool, per_actor, threads = min(actors or gpus, len(items)), {"num_gpus": 1}, None
        if device is not None and device.startswith("cuda"):
            options = options.model_copy(update={"device": "cuda"})  # each actor sees only its own GPU, as cuda:0
    else:
        cpus = max(1, int(resources.get("CPU", 1)))
        pool = min(actors or cpus, len(items))
        threads = max(1, cpus // pool)  # fewer actors than CPUs: each gets more torch threads
        per_actor = {"num_cpus": threads}

    # Rows are Python objects, not Arrow values: Ray Data keeps them pickled, and says so
    # once per block at WARNING; that is the intended path, so its note is kept quiet.
    logging.getLogger("ray.data._internal.tensor_extensions.arrow").setLevel(logging.ERROR)
    dataset = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
        _Scorer,
        fn_constructor_kwargs={"metrics": list(metrics), "options": options, "threads": threads},
        batch_size=1,
        # Ray Data restarts a dead actor and retries its chunk (max_restarts=-1 by default).
        compute=ray.data.ActorPoolStrategy(size=pool),
        **per_actor,
    )
    expected = 0
    for out in dataset.iter_rows():
        position = int(out["position"])
        scored = list(out["scored"])
        if position != expected or [r.line for r, _ in scored] != sent[position]:
            raise RuntimeError(f"the Ray engine returned chunk {position} where chunk {expected} was due; no row is written out of order")
        expected += 1
        if progress is not None:
            progress.advance(len(scored))
        yield scored
    if expected != len(sent):
        raise RuntimeError(f"the Ray engine returned {expected} of {len(sent)} chunks")
