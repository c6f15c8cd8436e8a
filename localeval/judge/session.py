"""`JudgeSession`: everything one run keeps while it asks judges for verdicts.

Design. A judge (`NLIJudge`) is a pure predictor, like sentence-transformers' ``CrossEncoder``:
weights, tokenizer, label layout, device, input length, the thresholds stored with it, and
``predict``. It holds no run state, so one loaded judge can serve several runs, threads and
metrics at once. What a run learns and remembers belongs to one object the runner creates
and passes down (``Metric.score_many(samples, session=...)``):

* the run's options (`localeval.options.RunOptions`, frozen);
* the verdict cache (`JudgementCache`: an in-memory LRU, emptied per chunk by the runner,
  in front of the optional SQLite file that carries verdicts across runs);
* memos of derived text: token counts per judge (a bounded LRU) and, in the session's
  `memory` (`localeval.judge.memory.SessionMemory`), emptied per chunk by the runner, the
  units a context is cut into, sentence splits (a `SplitMemo`) and the text
  functions' results (a `localeval.text.memo.TextMemo`: tokens, parses, numbers, word sets),
  the last two active while the session's metrics score;
* stored text analyses (`localeval.text.analyses.TextAnalyses`): with a cache file, sentence
  splits, claims, a context's units and detected languages are read from the file for a
  whole chunk at once
  (`prefetch`) and new ones written once per chunk (`flush`), so a re-run in a new process
  splits and plans almost nothing; without a file nothing is stored;
* public counters (`Counters`): pairs asked for, distinct, read from the cache, sent to the
  model, forward passes -- what benchmarks and tests read instead of patching a judge -- and
  public timers (`Timings`): seconds per stage (read, split, parse, plan, judge, metric, write);
* per judge, the scoring state (`ScoringState`): the CUDA out-of-memory batch cap, the
  truncation warning given once, and the CPU copy scoring goes on with when a single pair
  does not fit on the GPU. The copy is the session's own, so a shared judge never moves.

Metrics ask for verdicts through one pair-batching helper, `PairBatch` (``session.batch(judge)``:
``add(key, pairs, task)`` for every row, one ``run()``, then ``get(key)``), which sends all the
pairs of a task to the judge in one call (identical pairs once, cached ones not at all), and
size premises with one token-budget function (`JudgeSession.premise_budget`) over one
memoised token counter. A caller without a session (``metric.score(row)``) gets a
short-lived one (`session_scope`), so one-row use keeps working unchanged.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from localeval.judge.cache import JudgementCache, open_cache
from localeval.judge.memory import SessionMemory
from localeval.options import RunOptions
from localeval.text.analyses import TextAnalyses
from localeval.text.memo import TextMemo
from localeval.text.sentences import SplitMemo

if TYPE_CHECKING:  # the judge module imports torch: only loaded when a judge is asked
    from localeval.judge.nli import NLIJudge, Pair, ScoringState, Task

__all__ = ["STAGES", "Counters", "JudgeSession", "PairBatch", "Timings", "session_scope"]

T = TypeVar("T")

_TOKEN_MEMO_SIZE = 65536


STAGES = ("read", "split", "parse", "plan", "judge", "metric", "write")
"""The stages `Timings` reports: reading rows, sentence splitting, spaCy parsing, building
units and pairs, the judge's model calls, the metrics' own work, writing results."""


class Timings:
    """Seconds spent per stage, exclusive: time inside a nested stage (sentence splitting
    while units are built) counts for the inner stage only. ``metric`` is what the runner
    times around the metrics less the stages timed inside them.

    ``with timings.stage("plan"): ...`` times a block; ``seconds`` holds the totals (plain
    floats: read them, subtract two `snapshot`s to measure a stretch)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self._local = threading.local()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        stack: list[list] = self._local.__dict__.setdefault("stack", [])
        now = time.perf_counter()
        if stack:  # pause the enclosing stage
            outer = stack[-1]
            self.seconds[outer[0]] = self.seconds.get(outer[0], 0.0) + now - outer[1]
        stack.append([name, now])
        try:
            yield
        finally:
            now = time.perf_counter()
            inner = stack.pop()
            self.seconds[name] = self.seconds.get(name, 0.0) + now - inner[1]
            if stack:
                stack[-1][1] = now  # the enclosing stage resumes

    def snapshot(self) -> dict[str, float]:
        return dict(self.seconds)


@dataclass
class Counters:
    """What a session asked its judges, cumulative over the session (plain ints: read them,
    subtract two `snapshot`s to measure a stretch)."""

    pairs_requested: int = 0
    """Pairs metrics asked about (a pair asked twice counts twice)."""
    pairs_unique: int = 0
    """Distinct pairs per judge call (what a call would judge without a cache)."""
    cache_hits: int = 0
    """Distinct pairs read from the verdict cache (memory or file)."""
    pairs_judged: int = 0
    """Pairs sent to a model."""
    batches: int = 0
    """Forward passes run."""
    calls: int = 0
    """Judge calls (one per task per `PairBatch.run`)."""
    tokens_judged: int = 0
    """Tokens of the pairs sent to a model (no padding)."""
    tokens_judged_squared: int = 0
    """Sum of the squared token count of each pair sent to a model (for FLOP counts)."""

    def snapshot(self) -> dict[str, int]:
        return asdict(self)


class JudgeSession:
    """The state of one run (see the module docstring).

    Args:
        options: the run's options; default ``RunOptions()``.
        cache: a `JudgementCache` or a SQLite path; default ``options.cache``; neither: a
            memory-only cache. A cache passed in as an object is not closed by the session.
    """

    def __init__(
        self,
        options: RunOptions | None = None,
        *,
        cache: str | os.PathLike[str] | JudgementCache | None = None,
    ) -> None:
        self.options = options or RunOptions()
        given = cache if cache is not None else self.options.cache
        opened = open_cache(given)
        self._owns_cache = opened is not None and opened is not given
        # Explicit None test: an empty cache is still a cache.
        self.cache: JudgementCache = opened if opened is not None else JudgementCache(None)
        self.counters = Counters()
        self.timings = Timings()
        # Analyses are stored only when the verdicts are: in the cache's file.
        self.memory = SessionMemory(self.cache if self.cache.persistent else None, self.timings.stage)
        """The memos of derived text and the stored analyses (`localeval.judge.memory`)."""
        self._states: dict[int, tuple[NLIJudge, ScoringState]] = {}
        self._counters: dict[str, Callable[[str], int]] = {}
        self.remote: Callable[[NLIJudge, list[Pair], Task, int], np.ndarray] | None = None
        """Where the pairs the cache lacks are judged instead of ``judge.score_distinct``: set
        in a worker process of ``--workers`` (`localeval.runner.workers`), where it sends them to
        the one judge process and waits for their probabilities."""
        self.on_judged: Callable[[int], None] | None = None
        """Told the pairs of each forward pass as it finishes: the runner's progress display."""

    def __repr__(self) -> str:
        return f"JudgeSession(cache={self.cache!r}, counters={self.counters})"

    # ------------------------------------------------------------------ lifetime
    @contextmanager
    def active(self) -> Iterator[JudgeSession]:
        """Within the block, sentence splits (`localeval.text.split_sentences`) and the text
        functions' results (`localeval.text.memo`: tokens, parses, numbers, word sets,
        languages) are remembered in this session."""
        with self.memory.active():
            yield self

    def clear_memory(self) -> None:
        """Forget the in-memory verdicts (the file keeps them) and the derived values (units,
        claims, splits, contrast reasons, languages, the text memo): the runner calls it
        per chunk, so memory stays bounded and a chunk's numbers depend on that chunk alone.
        Derived values must go too: their kinds carry parameters such as a row's token
        budget, so a memo bounded per kind still grew with every budget a long run met
        (~10 MB per 1,000 rows, benchmarks/results/memory_curve.md)."""
        self.cache.clear_memory()
        self.memory.clear()

    @property
    def remembered(self) -> int:
        """How many derived values (units, claims, contrast reasons, ...) and text functions'
        results (`text_memo`) the session holds."""
        return self.memory.remembered

    def prefetch(self, texts: Iterable[str]) -> None:
        """Read the stored analyses of ``texts`` (a chunk's texts) from the cache file in one
        query; the runner calls it per chunk, before the metrics score."""
        self.memory.prefetch(texts)

    def flush(self) -> None:
        """Write the analyses made since the last flush (one transaction per chunk)."""
        self.memory.flush()

    def close(self) -> None:
        """Write pending analyses; close the cache file if the session opened it."""
        self.flush()
        if self._owns_cache:
            self.cache.close()

    def __enter__(self) -> JudgeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ judging
    def state(self, judge: NLIJudge) -> ScoringState:
        """The session's scoring state for ``judge`` (batch cap, CPU fallback)."""
        from localeval.judge.nli import ScoringState

        found = self._states.get(id(judge))
        if found is None or found[0] is not judge:
            found = self._states[id(judge)] = (judge, ScoringState(on_batch=self._judged))
        return found[1]

    def _judged(self, pairs: int) -> None:
        if self.on_judged is not None:
            self.on_judged(pairs)

    def scorer(self, judge: NLIJudge) -> NLIJudge:
        """The judge that scores for ``judge`` in this session: itself, or its CPU copy after
        an out-of-memory fallback."""
        return self.state(judge).fallback or judge

    def predict(
        self,
        judge: NLIJudge,
        pairs: Sequence[Pair],
        *,
        task: Task = "nli",
        batch_size: int | None = None,
        show_progress_bar: bool = False,
    ) -> np.ndarray:
        """``judge.predict`` through the session: identical pairs once, cached verdicts read,
        the rest judged in one call and stored; counters updated."""
        from localeval.judge.nli import distinct_pairs

        judge = judge.for_task(task)  # a separate relevance model answers relevance (`JudgePair`)
        width = len(judge._task_columns(task))
        if len(pairs) == 0:
            return np.zeros((0, width), dtype=np.float32)
        distinct, index = distinct_pairs(pairs)
        counters = self.counters
        counters.pairs_requested += len(pairs)
        counters.pairs_unique += len(distinct)
        counters.calls += 1
        state = self.state(judge)
        found = self.cache.get_many(self.scorer(judge).identity, task, distinct, width)
        missing = [i for i, value in enumerate(found) if value is None]
        counters.cache_hits += len(distinct) - len(missing)
        if missing:
            todo = [distinct[i] for i in missing]
            before = (state.batches, state.tokens, state.tokens_squared)
            with self.timings.stage("judge"):
                if self.remote is not None:
                    fresh = self.remote(judge, todo, task, batch_size or judge.batch_size)
                else:
                    fresh = judge.score_distinct(
                        todo, task, batch_size=batch_size or judge.batch_size, state=state,
                        show_progress_bar=show_progress_bar,
                    )
            counters.batches += state.batches - before[0]
            counters.tokens_judged += state.tokens - before[1]
            counters.tokens_judged_squared += state.tokens_squared - before[2]
            counters.pairs_judged += len(todo)
            # Stored under the identity of the judge that actually scored (a CPU fallback's
            # fp32 verdicts are kept apart from fp16 ones).
            self.cache.put_many(self.scorer(judge).identity, task, todo, fresh)
            for i, row in zip(missing, fresh):
                found[i] = row
        return np.stack(found).astype(np.float32, copy=False)[index]

    def batch(self, judge: NLIJudge, *, batch_size: int | None = None, show_progress_bar: bool = False) -> PairBatch:
        """A `PairBatch` for ``judge``: add pairs under keys, run once, read by key."""
        return PairBatch(self, judge, batch_size=batch_size, show_progress_bar=show_progress_bar)

    # ------------------------------------------------------------------ tokens and memos
    def token_counter(self, judge: NLIJudge) -> Callable[[str], int]:
        """``judge.count_tokens``, remembered for the session: rows and metrics repeat claims,
        questions and sentences, and windowing counts tens of thousands of times."""
        key = f"{judge.path}\0{judge.max_length}"
        counter = self._counters.get(key)
        if counter is None:
            counter = self._counters[key] = lru_cache(maxsize=_TOKEN_MEMO_SIZE)(judge.count_tokens)
        return counter

    def span_counter(self, judge: NLIJudge, text: str) -> Callable[[int, int], int]:
        """Tokens of ``text[a:b]`` as `token_counter` counts them, for windowing ``text``: one
        encoding of the text serves every span when the judge's tokenizer allows it
        (`NLIJudge.span_counter`), each span's text is counted otherwise."""
        count = self.token_counter(judge)
        spans = getattr(judge, "span_counter", None)  # a judge-like test double may count only texts
        return spans(text, count) if spans is not None else (lambda a, b: count(text[a:b]))

    def fits(self, judge: NLIJudge, text: str, budget: int) -> bool:
        """Does ``text`` take at most ``budget`` of ``judge``'s tokens? A text with fewer
        UTF-8 bytes than the budget is not tokenised: every token of a WordPiece, BPE or
        unigram vocabulary covers at least one byte, but for one leading word-boundary piece."""
        if len(text.encode("utf-8", "surrogatepass")) < budget:
            return True
        return self.token_counter(judge)(text) <= budget

    def premise_budget(self, judge: NLIJudge, hypotheses: Sequence[str]) -> int:
        """Tokens left for the premise beside the longest of ``hypotheses`` (claims or
        questions) and the input's other tokens (`NLIJudge.pair_overhead`: [CLS] [SEP] [SEP] of
        a BERT pair, a format's prompt words). The premise always keeps a quarter of the input:
        a hypothesis longer than the rest is the one thing truncated (with the judge's warning).
        A quarter, not half: a reference sentence of a document (a long table row, a clause of
        a leaflet; 174 tokens in RAGBench's ExpertQA) is judged as a claim by factual recall,
        and with half kept for the premise it was cut. The one token budget of every metric."""
        count = self.token_counter(judge)
        longest = max((count(h) for h in hypotheses), default=0)
        overhead = getattr(judge, "pair_overhead", 3)
        return judge.max_length - min(longest, judge.max_length - judge.max_length // 4 - overhead) - overhead

    def timed(self, stage: str, build: Callable[[], T]) -> T:
        """``build()``, its seconds counted for ``stage`` in `timings`."""
        with self.timings.stage(stage):
            return build()

    # ------------------------------------------------------------------ derived text (`memory`)
    # Thin views of `SessionMemory`, kept on the session because metrics, the runner and tests
    # ask the session they were handed.
    @property
    def analyses(self) -> TextAnalyses:
        """The stored text analyses (`SessionMemory.analyses`)."""
        return self.memory.analyses

    @property
    def splits(self) -> SplitMemo:
        """The sentence-split memo (`SessionMemory.splits`)."""
        return self.memory.splits

    @property
    def text_memo(self) -> TextMemo:
        """The text functions' memo (`SessionMemory.text_memo`)."""
        return self.memory.text_memo

    def remember(self, kind: str, key: Hashable, build: Callable[[], T]) -> T:
        """`SessionMemory.remember`."""
        return self.memory.remember(kind, key, build)

    def analysis(self, kind: str, text: str, build: Callable[[], T], encode: Callable[[T], bytes | None],
                 decode: Callable[[bytes], T | None], *, stage: str = "plan") -> T:
        """`SessionMemory.analysis`."""
        return self.memory.analysis(kind, text, build, encode, decode, stage=stage)

    def detect_language(self, text: str) -> str | None:
        """`SessionMemory.detect_language`."""
        return self.memory.detect_language(text)

    def contrasts(self, triples: Sequence[tuple[str, str, str]],
                  rules: tuple[str, ...] | None = None) -> list[str | None]:
        """`SessionMemory.contrasts`."""
        return self.memory.contrasts(triples, rules)


class PairBatch:
    """Pairs gathered from many rows (and metrics' sub-steps) under keys, judged in one call
    per task, read back by key: the one flatten -> judge -> unflatten step of the metrics."""

    def __init__(self, session: JudgeSession, judge: NLIJudge, *, batch_size: int | None = None,
                 show_progress_bar: bool = False) -> None:
        self.session = session
        self.judge = judge
        self.batch_size = batch_size
        self.show_progress_bar = show_progress_bar
        self._added: dict[Hashable, tuple[Task, list[Pair]]] = {}
        self._results: dict[Hashable, np.ndarray] = {}

    def add(self, key: Hashable, pairs: Sequence[Pair], task: Task = "nli") -> PairBatch:
        """Ask about ``pairs`` (evidence first) under ``key``; returns the batch (chainable)."""
        if key in self._added:
            raise KeyError(f"key {key!r} was added to this batch already")
        if task not in ("nli", "relevance"):
            raise ValueError(f"unknown task {task!r}; expected 'nli' or 'relevance'")
        self._added[key] = (task, list(pairs))
        return self

    def __len__(self) -> int:
        return sum(len(pairs) for _, pairs in self._added.values())

    def run(self) -> PairBatch:
        """Judge every pair added since the last run: one judge call per task."""
        todo = [key for key in self._added if key not in self._results]
        for task in dict.fromkeys(self._added[key][0] for key in todo):
            keys = [key for key in todo if self._added[key][0] == task]
            flat = [pair for key in keys for pair in self._added[key][1]]
            if not flat:  # nothing to ask: no judge call (and no error from a missing head)
                for key in keys:
                    self._results[key] = np.zeros((0, len(self.judge.layout.nli)), dtype=np.float32)
                continue
            probs = self.session.predict(self.judge, flat, task=task, batch_size=self.batch_size,
                                         show_progress_bar=self.show_progress_bar)
            start = 0
            for key in keys:
                n = len(self._added[key][1])
                self._results[key] = probs[start : start + n]
                start += n
        return self

    def rows(self, key: Hashable) -> np.ndarray:
        """Every probability of the task's head for each pair of ``key``: ``(n, labels)``."""
        if key not in self._results:
            raise KeyError(f"key {key!r} has not been judged; call run() after add()")
        return self._results[key]

    def get(self, key: Hashable) -> np.ndarray:
        """P(entailment) (task ``"nli"``) or P(relevant) (``"relevance"``) of each pair of ``key``."""
        task = self._added[key][0]
        layout = self.judge.for_task(task).layout
        return self.rows(key)[:, layout.entailment if task == "nli" else layout.relevant]

    def contradiction(self, key: Hashable) -> np.ndarray:
        """P(contradiction) of each pair of an ``"nli"`` key (0 for a 2-way judge)."""
        column = self.judge.layout.contradiction
        rows = self.rows(key)
        if column is None:
            return np.zeros(len(rows), dtype=np.float32)
        return rows[:, column]


@contextmanager
def session_scope(session: JudgeSession | None, options: RunOptions | None = None) -> Iterator[JudgeSession]:
    """``session`` as it is (made active), or a short-lived one for a caller that gave none
    (closed at the end of the block)."""
    if session is not None:
        with session.active():
            yield session
        return
    with JudgeSession(options) as own, own.active():
        yield own
