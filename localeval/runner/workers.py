"""``--workers N``: the text side of a run in N processes, the judge in this one.

Why. Per row, a run spends tens of milliseconds on text (sentence splitting, parsing, windows,
contrast analyses, claim hygiene) in the process that also runs the judge, so a GPU waits
while Python cuts text (benchmarks/results/bulk_speed*.md). Here the caller's process is the
judge process and N forked workers do the text:

* **Chunks.** The rows are cut into the same chunks as the one-process loop
  (`localeval.runner.run.iter_chunks`, absolute positions) and each chunk goes whole to one
  idle worker, which scores it with the same `score_chunk` in a `JudgeSession` of its own,
  emptied per chunk: a chunk's text work, its verdict-cache reads and its stored results are
  those of one worker. At most ``2 N`` chunks are out at once, so memory stays flat.
* **One judge.** A worker's session judges no pair itself (`JudgeSession.remote`): the pairs
  its cache lacks (a whole chunk's, per metric and task: thousands of pairs, full batches)
  go to this process, which judges the requests one after the other while the other
  workers cut text, and answers each worker its own rows. Each request is judged alone, in
  the batches one process makes for it, because a verdict's last bits depend on its batch
  neighbours (in bf16 by up to 0.015): so scores equal one process's bit for bit, in every
  number format.
* **Order.** Chunks come back in input order (finished ones wait for the ones before them);
  a worker that dies ends the run with an error, never with fewer rows.

Counters and stage timers of the workers are added to the caller's session after each chunk
(stage seconds are then summed over processes; ``judge`` is this process's own time).

Workers are forked (POSIX), so the loaded metrics and judges are shared with them, never
loaded again; where ``fork`` is not available a run goes on with one process and a warning.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import traceback
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from localeval.judge.session import JudgeSession
from localeval.metrics.base import Metric
from localeval.runner.heap import release_freed_memory
from localeval.runner.progress import Progress
from localeval.runner.rows import Row
from localeval.runner.run import ScoredRow, iter_chunks, judges_of, progress_of_judge, run_chunks, score_chunk

__all__ = ["default_workers", "judge_request", "worker_chunks"]

_IN_FLIGHT_PER_WORKER = 2
"""Chunks a worker may have out (scoring or finished, waiting for an earlier chunk)."""
_POLL_S = 1.0
"""How often the judge process checks that its workers are alive while it waits."""
_WORKER_COUNTERS = ("pairs_requested", "pairs_unique", "cache_hits", "calls")
"""Counters a worker's session keeps; the judge's own (pairs judged, batches, tokens) are
this process's."""


def available_cores() -> int:
    """CPU cores this process may run on (its affinity where the system says it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_workers(device_type: str) -> int:
    """Workers when none are asked for: the cores minus what the judge needs. On a GPU the
    judge process needs one core to feed it; on the CPU the judge's matrix products already
    use every core (torch's threads), so a second process only competes with it: one."""
    if device_type == "cuda":
        return max(1, available_cores() - 1)
    return 1


def warn_if_idle(workers: int, rows: int | None, block_size: int) -> None:
    """Warn when a run of known size has fewer blocks than workers: a worker scores a block at
    a time, so 300 rows in blocks of 256 keep two of 15 workers busy. The block size is not
    changed here: it decides which pairs are batched together, and with it the last bits of a
    bf16 or fp16 verdict."""
    if rows is None or rows <= 0:
        return
    blocks = -(-rows // block_size)
    if blocks < workers:
        warnings.warn(
            f"{workers} workers but {rows} rows make {blocks} block(s) of {block_size}: at most {blocks} "
            f"worker(s) will be busy; block_size={-(-rows // workers)} or less gives each worker a block",
            RuntimeWarning, stacklevel=3)


def can_fork() -> bool:
    return "fork" in mp.get_all_start_methods()


def worker_chunks(
    rows: Iterable[Row],
    metrics: Sequence[tuple[str, Metric]],
    *,
    session: JudgeSession,
    workers: int,
    chunk_size: int,
    skip: set[int] | None = None,
    progress: Progress | None = None,
) -> Iterator[list[ScoredRow]]:
    """Scored chunks in input order, as `run_chunks` yields them, the text side of each chunk
    scored in one of ``workers`` processes and every judge call in this one."""
    if workers <= 1 or not can_fork():
        if workers > 1:
            warnings.warn("workers need the 'fork' start method (POSIX); scoring in one process", RuntimeWarning,
                          stacklevel=2)
        yield from run_chunks(rows, metrics, session=session, chunk_size=chunk_size, skip=skip, progress=progress)
        return
    pool = _Pool(metrics, session, workers)
    try:
        with progress_of_judge(session, progress):
            yield from pool.run(iter_chunks(rows, chunk_size), skip or set(), progress)
    finally:
        pool.close()


def judge_request(session: JudgeSession, judge: Any, flat: list, task: Any, batch_size: int,
                  encoded: list | None = None) -> np.ndarray:
    """One worker's request, judged alone in the judge process (``flat``: the pairs its cache
    lacks, possibly repeated): probabilities in request order, the judge's counters kept in
    ``session``. The local workers and the Ray engine's judge actor both answer with this.
    ``encoded``: the pairs' token ids (``judge.encode``), when the worker tokenized them;
    ``flat`` is then scored as it is (the session asks for distinct pairs already)."""
    from localeval.judge.nli import distinct_pairs

    distinct, index = (flat, None) if encoded is not None else distinct_pairs(flat)
    state = session.state(judge)
    counters = session.counters
    before = (state.batches, state.tokens, state.tokens_squared)
    with session.timings.stage("judge"):
        probs = judge.score_distinct(distinct, task, batch_size=batch_size, state=state, encoded=encoded)
    counters.batches += state.batches - before[0]
    counters.tokens_judged += state.tokens - before[1]
    counters.tokens_judged_squared += state.tokens_squared - before[2]
    counters.pairs_judged += len(distinct)
    return probs if index is None else probs[index]


class _Pool:
    """The judge process's side: the workers, their queues, the chunks out and back."""

    def __init__(self, metrics: Sequence[tuple[str, Metric]], session: JudgeSession, workers: int) -> None:
        self.session = session
        self.judges = judges_of(metrics)
        ctx = mp.get_context("fork")
        self.inbox: Any = ctx.Queue()
        self.tasks: list[Any] = [ctx.Queue() for _ in range(workers)]
        self.answers: list[Any] = [ctx.Queue() for _ in range(workers)]
        cache = session.cache.path if session.cache.persistent else None
        self.procs = [
            ctx.Process(target=_worker_main, daemon=True, name=f"localeval-worker-{w}",
                        args=(w, list(metrics), session.options, cache, self.judges, self.tasks[w], self.answers[w],
                              self.inbox))
            for w in range(workers)
        ]
        for proc in self.procs:
            proc.start()

    def run(self, chunks: Iterator[list[Row]], skip: set[int], progress: Progress | None) -> Iterator[list[ScoredRow]]:
        timings = self.session.timings
        idle = list(range(len(self.procs)))[::-1]
        busy: dict[int, int] = {}  # worker -> chunk sequence number
        finished: dict[int, list[ScoredRow]] = {}
        sent = returned = 0
        exhausted = False
        while True:
            while idle and not exhausted and sent - returned < _IN_FLIGHT_PER_WORKER * len(self.procs):
                with timings.stage("read"):
                    chunk = next(chunks, None)
                if chunk is None:
                    exhausted = True
                    break
                if progress is not None and skip:
                    progress.advance(sum(r.line in skip for r in chunk))
                todo = [r for r in chunk if r.line not in skip]
                if todo:
                    worker = idle.pop()
                    self.tasks[worker].put((sent, todo))
                    busy[worker] = sent
                    sent += 1
            if returned in finished:
                scored = finished.pop(returned)
                returned += 1
                with timings.stage("write"):
                    yield scored
                continue
            if exhausted and not busy:
                return
            for worker, seq, scored in self._wait(busy, progress):
                finished[seq] = scored
                idle.append(worker)

    def _wait(self, busy: dict[int, int], progress: Progress | None) -> list[tuple[int, int, list[ScoredRow]]]:
        """Handle the messages waiting now (at least one): judge the pairs asked for, all
        workers' requests together; return the chunks finished."""
        messages = [self._next_message(busy)]
        while True:
            try:
                messages.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        requests = [m[1:] for m in messages if m[0] == "judge"]
        if requests:
            self._judge(requests)
        done = []
        for message in messages:
            kind = message[0]
            if kind == "done":
                _, worker, seq, scored, counters, seconds = message
                self._add(counters, seconds)
                busy.pop(worker, None)
                if progress is not None:
                    progress.advance(len(scored))
                done.append((worker, seq, scored))
            elif kind == "failed":
                raise RuntimeError(f"worker {message[1]} failed on a chunk:\n{message[2]}")
        return done

    def _next_message(self, busy: dict[int, int]) -> tuple:
        while True:
            try:
                return self.inbox.get(timeout=_POLL_S)
            except queue.Empty:
                dead = [w for w in busy if not self.procs[w].is_alive()]
                if dead:
                    raise RuntimeError(f"worker {dead[0]} died (exit code {self.procs[dead[0]].exitcode}) "
                                       "while scoring a chunk; no rows of it were written") from None

    def _judge(self, requests: list[tuple]) -> None:
        """Judge each request alone, one after the other, in the batches one process would
        make for it (the same pairs in the same order): a verdict's last bits depend on its
        batch neighbours (bf16 moved by up to 0.015 when short pairs were batched together,
        tests/test_judge_batches.py), so batching across workers would change scores."""
        for worker, judge_index, pairs, task, batch_size, encoded in requests:
            try:
                probs = self._score(judge_index, pairs, task, batch_size, encoded)
            except Exception:  # noqa: BLE001 - the worker raises it, and its chunk's rows fall back one by one
                self.answers[worker].put(("error", traceback.format_exc()))
                continue
            self.answers[worker].put(("ok", probs))

    def _score(self, judge_index: int, flat: list, task: Any, batch_size: int, encoded: list) -> np.ndarray:
        return judge_request(self.session, self.judges[judge_index], flat, task, batch_size, encoded)

    def _add(self, counters: dict[str, int], seconds: dict[str, float]) -> None:
        for name in _WORKER_COUNTERS:
            setattr(self.session.counters, name, getattr(self.session.counters, name) + counters[name])
        for stage, value in seconds.items():
            if stage != "judge":  # a worker's "judge" is its wait for this process
                self.session.timings.seconds[stage] = self.session.timings.seconds.get(stage, 0.0) + value

    def close(self) -> None:
        for tasks in self.tasks:
            tasks.put(None)
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        for q in (self.inbox, *self.tasks, *self.answers):
            q.close()
            q.cancel_join_thread()


def _worker_main(worker: int, metrics: list[tuple[str, Metric]], options: Any, cache: Any, judges: list,
                 tasks: Any, answers: Any, inbox: Any) -> None:
    """A worker: score the chunks it is sent, the judge's pairs asked of the judge process."""
    # The tokenizers' thread pool may have run before the fork; in a worker it would
    # deadlock, and each worker is one core's worth of work anyway.
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    try:
        import torch

        torch.set_num_threads(1)  # embedding models and the like: the cores are the judge's and the other workers'
    except ImportError:
        pass
    index = {id(judge): i for i, judge in enumerate(judges)}

    def remote(judge: Any, pairs: list, task: str, batch_size: int) -> np.ndarray:
        # Tokenized here, in parallel across workers: in the judge process, tokenizing was most
        # of its time on a GPU and capped the run (benchmarks/results/gpu_session).
        inbox.put(("judge", worker, index[id(judge)], pairs, task, batch_size, judge.encode(pairs, task)))
        kind, payload = answers.get()
        if kind == "error":
            raise RuntimeError(f"the judge process failed:\n{payload}")
        return payload

    from localeval.judge.cache import JudgementCache

    # The cache file is opened anew: a SQLite connection must not cross a fork (nor may the
    # options' cache object, hence a memory-only one given explicitly without a file).
    with JudgeSession(options, cache=cache if cache is not None else JudgementCache(None)) as session:
        session.remote = remote
        while (item := tasks.get()) is not None:
            seq, chunk = item
            counters, seconds = session.counters.snapshot(), session.timings.snapshot()
            session.clear_memory()
            release_freed_memory()
            try:
                scored = score_chunk(chunk, metrics, session)
            except BaseException:  # noqa: BLE001 - reported to the judge process, which ends the run
                inbox.put(("failed", worker, traceback.format_exc()))
                continue
            now_c, now_s = session.counters.snapshot(), session.timings.snapshot()
            inbox.put(("done", worker, seq, scored, {k: now_c[k] - counters[k] for k in _WORKER_COUNTERS},
                       {k: now_s[k] - seconds.get(k, 0.0) for k in now_s}))
