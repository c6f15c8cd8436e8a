"""`NLIJudge`: any local Hugging Face sequence-classification NLI model as a scorer of pairs.

It feels like sentence-transformers' ``CrossEncoder``: build it once, call
``predict(pairs, batch_size=..., show_progress_bar=...)``. What it adds for evaluation work:

* label order comes from the model's ``config.json`` (`labels.read_label_layout`), so 2-way
  and 3-way heads, and localeval's own two-head judge, all work;
* identical pairs are scored once; pairs are sorted by length and padded per batch, which
  on real RAG data (short claims, long windows) is several times faster than fixed padding;
  they are encoded 2048 at a time, so memory does not grow with the number of pairs;
* CUDA in fp16 when present, CPU in fp32 otherwise, always under ``torch.inference_mode``;
  on CUDA out-of-memory the batch is halved and retried, and at one pair per batch the
  scoring continues on a CPU copy of the judge rather than fail a long run;
* safetensors only (an AlignScore checkpoint: tensors only), never ``trust_remote_code``,
  never a download;
* the model itself is read through its format (`localeval.judge.formats`: NLI, MiniCheck,
  MiniCheck-Flan-T5, HHEM-2.1-open, AlignScore, cross-encoder rerankers), which says how a pair
  is written as the model's input and how its output becomes probabilities; a format is found
  from what the folder holds or named before the path (``"minicheck:/models/x"``).

Like ``CrossEncoder``, a judge holds no run state: the verdict cache, the memos, the counters,
the out-of-memory batch cap and the CPU fallback of a run belong to its
`localeval.judge.session.JudgeSession`, so one loaded judge can serve several runs (and
threads) without one run's fallback or cache leaking into another's. ``predict`` called
directly scores with a fresh, call-long `ScoringState`.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import torch
from tqdm.auto import tqdm

from localeval.judge.cache import JudgementCache, model_identity, open_cache
from localeval.judge.formats import JudgeFormat, Packed, detect_format, split_format
from localeval.judge.dtypes import resolve_dtype
from localeval.judge.labels import LabelLayout
from localeval.judge.registry import resolve_model, stored_thresholds
from localeval.judge.spans import SpanCounter, span_counter, word_local

if TYPE_CHECKING:
    from localeval.evidence.verdict import ClaimVerdict

__all__ = ["JudgePair", "NLIJudge", "Pair", "ScoringState", "Task", "distinct_pairs"]

logger = logging.getLogger(__name__)

Pair = tuple[str, str]
"""(premise, hypothesis) for NLI; (passage, question) for relevance: evidence always first."""

Task = Literal["nli", "relevance"]

ENCODE_SLICE = 2048
"""Pairs tokenized and scored together (see `NLIJudge.score_distinct`)."""


@dataclass
class ScoringState:
    """What a scoring loop learns and keeps between calls to one judge.

    A `JudgeSession` keeps one per judge for the whole run; ``NLIJudge.predict`` called
    directly uses a fresh one per call. Nothing here lives on the (shared) judge."""

    batch_cap: int | None = None
    """Largest batch that fitted after a CUDA out-of-memory error (``None``: no cap)."""
    truncation_warned: bool = False
    fallback: NLIJudge | None = None
    """The CPU copy scoring goes on with after a single pair did not fit on the GPU."""
    batches: int = 0
    """Forward passes run."""
    tokens: int = 0
    """Tokens of the pairs scored (after truncation, without padding)."""
    tokens_squared: int = 0
    """Sum of each scored pair's token count squared: with ``tokens``, the model's work
    (attention grows with the square of a pair's length; benchmarks/lib/flops.py)."""
    on_batch: Callable[[int], None] | None = None
    """Told the pairs of each forward pass as it finishes (a run's progress display)."""


def distinct_pairs(pairs: Sequence[Pair]) -> tuple[list[Pair], np.ndarray]:
    """The distinct pairs in first-seen order, and each pair's position among them (identical
    pairs are scored once). Raises TypeError for a pair that is not two strings."""
    unique: dict[Pair, int] = {}
    index = np.empty(len(pairs), dtype=np.int64)
    for i, (premise, hypothesis) in enumerate(pairs):
        if not isinstance(premise, str) or not isinstance(hypothesis, str):
            raise TypeError(f"pair {i} is not a (str, str) tuple: {(premise, hypothesis)!r}")
        index[i] = unique.setdefault((premise, hypothesis), len(unique))
    return list(unique), index


class _MoveToCPU(Exception):
    """Raised inside the scoring loop when one pair alone does not fit on the GPU."""


def _is_out_of_memory(exc: BaseException) -> bool:
    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def _judge_dtype(precision: str, device: torch.device, fmt: JudgeFormat) -> torch.dtype:
    """The precision's dtype, but bf16 where "auto" would give fp16 to a T5 (its activations
    overflow fp16: MiniCheck-Flan-T5 and HHEM are T5s)."""
    if precision == "auto" and device.type == "cuda" and fmt.avoid_fp16:
        return torch.bfloat16
    return resolve_dtype(precision, device)


def _pick_device(device: str | None) -> torch.device:
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        chosen = torch.device(device)
    except (RuntimeError, TypeError) as exc:  # "gpu", "cuda:x": one line, not a traceback
        raise ValueError(f"device {device!r} is not a torch device (cpu, cuda, cuda:1 ...): {exc}") from None
    if chosen.type == "cuda":
        # Asked for CUDA on a CPU-only torch (or past the last GPU): a usage error, said in
        # one line before any weights load, not torch's traceback from deep in the model.
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
            raise ValueError(f"no CUDA device is available (torch {torch.__version__} is {build}); use --device cpu")
        if chosen.index is not None and chosen.index >= count:
            raise ValueError(f"no CUDA device {chosen.index}: this machine has {count} (cuda:0 to cuda:{count - 1})")
    return chosen


def _plain_counter(tokenizer):
    """A private copy of a fast tokenizer's Rust backend, without truncation or padding, for
    counting tokens; ``None`` for a slow tokenizer.

    Windowing counts tokens tens of thousands of times per run, and the transformers wrapper
    costs several times the tokenizing itself per call. A copy, because the wrapper leaves
    its own backend truncated to the judge's input after scoring."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    from tokenizers import Tokenizer

    counter = Tokenizer.from_str(backend.to_str())
    counter.no_truncation()
    counter.no_padding()
    return counter


def to_device(features: dict[str, torch.Tensor], device: torch.device, *, pinned: bool = False
              ) -> dict[str, torch.Tensor]:
    """A padded batch's tensors on ``device``. ``pinned`` (CUDA only): copied from page-locked
    memory without blocking; PyTorch keeps that memory until the copy has run."""
    if pinned and device.type == "cuda":
        return {k: v.pin_memory().to(device, non_blocking=True) for k, v in features.items()}
    return {k: v.to(device) for k, v in features.items()}


class NLIJudge:
    """A local cross-encoder that scores (premise, hypothesis) pairs.

    Args:
        model: a judge name from the registry, a path to a local model directory, or ``None``
            for localeval's default judge; ``"FORMAT:PATH"`` names the folder's format
            (`localeval.judge.formats.FORMATS`) instead of detecting it.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; ``None``/``"auto"`` picks CUDA if present.
        batch_size: default number of pairs per forward pass.
        max_length: input length in tokens; defaults to the length the judge was trained with
            (``config.json`` ``localeval.max_length``), else the tokenizer's limit capped at 512.
        cache: deprecated: give the cache to the run (``evaluate(..., cache=)``, a
            `JudgeSession`); here it still serves direct ``predict`` calls.
        precision: ``"auto"`` (fp32 on CPU, fp16 on CUDA), ``"fp32"``, ``"bf16"`` (2-3x as
            fast on CPUs with native bfloat16; probabilities within ~0.02 of fp32) or ``"fp16"`` (CUDA);
            see `localeval.judge.dtypes`.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        device: str | None = None,
        batch_size: int = 32,
        max_length: int | None = None,
        cache: str | os.PathLike[str] | JudgementCache | None = None,
        precision: str | None = None,
    ) -> None:
        named, model = split_format(model)
        self.path: Path = resolve_model(model)
        self.format: JudgeFormat
        self.format, info = detect_format(self.path, named)
        self.config: dict = info.config
        self.layout: LabelLayout = self.format.layout(info)
        self.device = _pick_device(device)
        self.batch_size = batch_size
        self.precision = (precision or "auto").lower()
        dtype = _judge_dtype(self.precision, self.device, self.format)

        from localeval.quiet import quiet_loading

        with quiet_loading():  # no "Loading weights" bar unless -v / LOCALEVAL_VERBOSE
            loaded = self.format.load(info, dtype)
        self.tokenizer = loaded.tokenizer
        self._counter = _plain_counter(self.tokenizer)
        # Asked once: reading a tokenizer's definition costs more than thousands of counts.
        self._word_local = self._counter is not None and word_local(self._counter)
        self.model = loaded.model.to(self.device)
        self.model.eval()
        # Batches go to a GPU from page-locked memory, without waiting: from ordinary memory
        # the copy blocks this thread until the GPU has finished the batches queued before it,
        # so padding the next batch never overlapped the model (benchmarks/studies/judge_gpu.py
        # measures both ways). The same numbers either way.
        self.pinned = self.device.type == "cuda"
        from localeval.judge.kernels import pack_bf16_linears

        # bf16 on the CPU: linear layers on oneDNN's packed weights, same bits (kernels.py says why).
        self.packed_linears: int = pack_bf16_linears(self.model) if dtype == torch.bfloat16 and self.device.type == "cpu" else 0

        extra = self.config.get("localeval", {})
        self.max_length: int = int(max_length or extra.get("max_length") or self.format.default_max_length(self.tokenizer))
        self.thresholds: dict[str, float] = stored_thresholds(self.config)
        """The thresholds stored with the judge; a user's own go in the run's `RunOptions`."""
        # The verdict rule is evidence-layer code; read here, on load, so a damaged verdict
        # block fails when the judge loads, as before (an allowed lazy import, test_layering).
        from localeval.evidence.verdict import verdict_from_config

        self.verdict: ClaimVerdict | None = verdict_from_config(self.config)
        """A learned claim verdict stored with the judge (``localeval.verdict`` in config.json,
        written by ``benchmarks/verdict.py --write`` only when it wins), or ``None``: the claim
        metrics then decide on the judge's highest P(entailment)."""
        # Languages the judge was trained on ("languages" in config.json's localeval table; a
        # multilingual judge lists its own): rows in others are marked with a warning.
        self.languages: tuple[str, ...] = tuple(extra.get("languages") or ("en",))
        self._identity: str | None = None
        self._legacy_cache: JudgementCache | None = None
        if cache is not None:
            warnings.warn(
                "NLIJudge(cache=...) is deprecated: a verdict cache belongs to a run; pass it to "
                "evaluate(..., cache=...) or localeval.judge.session.JudgeSession(cache=...)",
                DeprecationWarning,
                stacklevel=2,
            )
            self._legacy_cache = open_cache(cache)

    def cpu_copy(self) -> NLIJudge:
        """The same judge loaded again on the CPU in fp32 (a session's out-of-memory
        fallback): read from disk, so nothing more is allocated on a GPU that is full, and
        this judge, which other runs may share, is left as it is."""
        return NLIJudge(f"{self.format.name}:{self.path}", device="cpu", batch_size=self.batch_size,
                        max_length=self.max_length, precision="fp32")

    # ------------------------------------------------------------------ info
    @property
    def name(self) -> str:
        return self.path.name

    @property
    def has_relevance_head(self) -> bool:
        return self.layout.relevance is not None

    @property
    def has_nli_head(self) -> bool:
        """False for a relevance-only judge (a reranker)."""
        return bool(self.layout.nli)

    @property
    def pair_overhead(self) -> int:
        """Tokens of an input that are neither premise nor hypothesis (special tokens, a
        format's prompt words): kept out of a premise's token budget."""
        return self.format.overhead(self.tokenizer)

    def for_task(self, task: Task) -> NLIJudge:
        """The judge that answers ``task``: itself (`JudgePair` routes relevance elsewhere)."""
        return self

    def __repr__(self) -> str:
        return f"NLIJudge({self.name!r}, device={self.device.type}, max_length={self.max_length})"

    @property
    def dtype(self) -> torch.dtype:
        return next(self.model.parameters()).dtype

    @property
    def identity(self) -> str:
        """Hash of weights, config, input length and dtype: the cache key of this judge."""
        if self._identity is None:
            self._identity = model_identity(
                self.path, max_length=self.max_length, dtype=str(self.dtype).removeprefix("torch."),
                judge_format=self.format.name,
            )
        return self._identity

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes inside a pair, without special tokens."""
        if self._counter is not None:
            return len(self._counter.encode(text, add_special_tokens=False).ids)
        # verbose=False: counting a text longer than the model's input is the point here (to
        # window it), not a mistake to warn about.
        return len(self.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    def span_counter(self, text: str, count: Callable[[str], int] | None = None) -> SpanCounter:
        """Tokens of ``text[a:b]`` (as `count_tokens` counts them) for many spans of one text:
        read from one encoding of ``text`` when the tokenizer is word-local and the span's ends
        sit at whitespace (`localeval.judge.spans`), else ``count`` (default `count_tokens`) of
        the span's text."""
        count = count or self.count_tokens
        if not self._word_local:
            return lambda a, b: count(text[a:b])
        return span_counter(self._counter, text, count)

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        if self._counter is not None:
            return [len(e.ids) for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]
        encoded = self.tokenizer(list(texts), add_special_tokens=False, verbose=False)["input_ids"]
        return [len(ids) for ids in encoded]

    # ------------------------------------------------------------------ scoring
    def predict(
        self,
        pairs: Sequence[Pair],
        *,
        task: Task = "nli",
        batch_size: int | None = None,
        show_progress_bar: bool = False,
    ) -> np.ndarray:
        """Class probabilities for each pair: shape ``(len(pairs), n_task_labels)``.

        For ``task="nli"`` the columns follow ``self.layout.nli_labels``; for
        ``task="relevance"`` they follow the relevance head. Pairs that exceed
        ``max_length`` are truncated from the premise with a warning: callers that must not
        truncate (the metrics) window their contexts first (`localeval.text.make_windows`).
        """
        columns = self._task_columns(task)
        if len(pairs) == 0:
            return np.zeros((0, len(columns)), dtype=np.float32)
        distinct, index = distinct_pairs(pairs)
        size = batch_size or self.batch_size
        state = ScoringState()
        if self._legacy_cache is None:
            probs = self.score_distinct(distinct, task, batch_size=size, state=state,
                                        show_progress_bar=show_progress_bar)
        else:
            probs = self._legacy_cache.lookup_or_score(
                self.identity,
                task,
                distinct,
                lambda missing: self.score_distinct(missing, task, batch_size=size, state=state,
                                                    show_progress_bar=show_progress_bar),
                width=len(columns),
            )
        return probs[index]

    def score_distinct(
        self,
        pairs: list[Pair],
        task: Task,
        *,
        batch_size: int,
        state: ScoringState,
        show_progress_bar: bool = False,
        encoded: list[Packed] | None = None,
    ) -> np.ndarray:
        """Probabilities of distinct, validated pairs, in order: the model itself, no cache.

        ``state`` carries what the loop learns across calls (batch cap, CPU fallback); it is
        the caller's (`JudgeSession` keeps one per judge), never the judge's. After a single
        pair does not fit on the GPU, this call and every later one with ``state`` go to a CPU
        copy (`cpu_copy`); this judge is not changed. ``encoded``: the pairs' token ids as
        `encode` makes them, when the caller tokenized them (a worker process)."""
        if state.fallback is not None and state.fallback is not self:
            return state.fallback.score_distinct(pairs, task, batch_size=batch_size, state=state,
                                                 show_progress_bar=show_progress_bar, encoded=encoded)
        columns = self._task_columns(task)
        try:
            return self._score_unique(pairs, columns, batch_size, show_progress_bar, state, encoded)
        except _MoveToCPU:
            warnings.warn(
                f"judge {self.name!r} ran out of memory on {self.device} with one pair per batch; "
                "continuing on the CPU",
                RuntimeWarning,
                stacklevel=3,
            )
            state.fallback = self.cpu_copy()
            state.batch_cap = None
            return state.fallback.score_distinct(pairs, task, batch_size=batch_size, state=state,
                                                 show_progress_bar=show_progress_bar, encoded=encoded)

    def encode(self, pairs: list[Pair], task: Task = "nli") -> list[Packed]:
        """Token ids of ``pairs`` as `score_distinct` reads them, a slice of `ENCODE_SLICE`
        pairs per `Packed` (``task``: which judge of a pair of judges reads them)."""
        return [Packed.of(self.format.encode(self.tokenizer, pairs[start : start + ENCODE_SLICE], self.max_length))
                for start in range(0, len(pairs), ENCODE_SLICE)]

    def entailment_probability(self, pairs: Sequence[Pair], **kwargs) -> np.ndarray:
        """P(entailment) for each (premise, hypothesis) pair."""
        return self.predict(pairs, task="nli", **kwargs)[:, self.layout.entailment]

    def relevance_probability(self, pairs: Sequence[Pair], **kwargs) -> np.ndarray:
        """P(relevant) for each (passage, question) pair; needs a judge with a relevance head."""
        return self.predict(pairs, task="relevance", **kwargs)[:, self.layout.relevant]

    def _task_columns(self, task: Task) -> list[int]:
        if task == "nli":
            if not self.layout.nli:
                raise ValueError(
                    f"judge {self.name!r} ({self.format.name}) is a relevance judge only; use it as "
                    "relevance_model= / --relevance-model beside an attribution judge"
                )
            return self.layout.nli
        if task == "relevance":
            if self.layout.relevance is None:
                raise ValueError(
                    f"judge {self.name!r} has no relevance head; use localeval's default judge "
                    "or pass a relevance-capable model"
                )
            return self.layout.relevance
        raise ValueError(f"unknown task {task!r}; expected 'nli' or 'relevance'")

    def _score_unique(
        self, pairs: list[Pair], columns: list[int], batch_size: int, show_progress_bar: bool,
        state: ScoringState, encoded: list[Packed] | None = None,
    ) -> np.ndarray:
        out = np.empty((len(pairs), len(columns)), dtype=np.float32)
        with torch.inference_mode(), tqdm(
            total=len(pairs), disable=not show_progress_bar, desc="judging", unit="pair"
        ) as bar:
            # Encoded a slice at a time: the encodings of all pairs of a call, held at once,
            # grew with the call (a long context makes tens of thousands of pairs; one 40k-word
            # row on a 64-token judge peaked 219 MB above its start, 47 MB in slices). A slice
            # bounds that memory and is still large enough for sorting by length to pad well.
            for n, start in enumerate(range(0, len(pairs), ENCODE_SLICE)):
                piece = pairs[start : start + ENCODE_SLICE]
                # A pair format trims the longer text first: the premise in practice, and a
                # claim that alone nearly fills the input no longer makes the tokenizer raise.
                packed = encoded[n] if encoded is not None else self.encode(piece)[0]
                out[start : start + len(piece)] = self._score_slice(piece, packed, columns, batch_size, bar, state)
        return out

    def _score_slice(
        self, pairs: list[Pair], packed: Packed, columns: list[int], batch_size: int, bar: tqdm,
        state: ScoringState,
    ) -> np.ndarray:
        lengths_of = packed.lengths()
        if not state.truncation_warned and max(lengths_of, default=0) >= self.max_length:
            state.truncation_warned = self._warn_if_truncated(pairs)
        # Longest first: the first batch allocates the most memory, so an OOM shows at once.
        order = sorted(range(len(pairs)), key=lambda i: -lengths_of[i])
        out = np.empty((len(pairs), len(columns)), dtype=np.float32)
        # Each batch's probabilities stay on the judge's device until the slice is done: read
        # back one by one, every batch waited for the GPU, which then waited for the next
        # batch to be padded; queued, the two overlap. (The same numbers either way.)
        pending: list[tuple[list[int], torch.Tensor]] = []
        size = min(batch_size, state.batch_cap or batch_size)
        done = 0
        while done < len(order):
            batch_ids = order[done : done + size]
            try:
                pending.append((batch_ids, self._forward(packed, batch_ids, columns)))
            except Exception as exc:  # noqa: BLE001 - only out-of-memory is handled
                if not _is_out_of_memory(exc):
                    raise
                size = self._back_off(size, exc, state)
                continue
            state.batches += 1
            lengths = [lengths_of[i] for i in batch_ids]
            state.tokens += sum(lengths)
            state.tokens_squared += sum(n * n for n in lengths)
            done += len(batch_ids)
            bar.update(len(batch_ids))
            if state.on_batch is not None:
                state.on_batch(len(batch_ids))
        for batch_ids, probs in pending:
            out[batch_ids] = probs.cpu().numpy()
        return out

    def _forward(self, packed: Packed, batch_ids: list[int], columns: list[int]) -> torch.Tensor:
        """Probabilities over ``columns`` for one padded batch of encoded pairs, float32, on
        the judge's device."""
        features = to_device(self.pad_batch(packed, batch_ids), self.device, pinned=self.pinned)
        logits = self.format.logits(self.model, features)
        return self.format.probabilities(logits, columns).float()

    def pad_batch(self, packed: Packed, batch_ids: list[int]) -> dict[str, torch.Tensor]:
        """One batch as tensors padded to its longest pair, the same tensors the tokenizer's
        ``pad`` makes, written straight into one array per input: ``pad`` checks and copies
        every pair's lists in Python, a cost paid again for every batch of a run."""
        fill = {"input_ids": self.tokenizer.pad_token_id, "attention_mask": 0,
                "token_type_ids": getattr(self.tokenizer, "pad_token_type_id", 0)}
        if fill["input_ids"] is None or any(key not in fill for key in packed.columns):
            # No pad token, or an input this code does not know: the tokenizer's own padding.
            return self.tokenizer.pad({k: [packed.row(k, i).tolist() for i in batch_ids] for k in packed.columns},
                                      return_tensors="pt")
        starts, ends = packed.offsets[batch_ids], packed.offsets[np.asarray(batch_ids) + 1]
        width = int((ends - starts).max())
        left = self.tokenizer.padding_side == "left"
        features = {}
        for key, column in packed.columns.items():
            array = np.full((len(batch_ids), width), fill[key], dtype=np.int64)
            for row, (a, b) in enumerate(zip(starts.tolist(), ends.tolist())):
                if left:
                    array[row, width - (b - a):] = column[a:b]
                else:
                    array[row, : b - a] = column[a:b]
            features[key] = torch.from_numpy(array)
        return features

    def _back_off(self, size: int, exc: BaseException, state: ScoringState) -> int:
        """After an out-of-memory error: the next batch size to try (or move to the CPU).

        Halving keeps a long run going on a busy or small GPU; the smaller size is kept in
        ``state`` for the run's later calls so it does not run out of memory on every call.
        Only when a single pair does not fit does scoring go on on a CPU copy (fp32, slower,
        same verdicts up to fp16 rounding; see `score_distinct`)."""
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        if size > 1:
            state.batch_cap = size // 2
            logger.warning("out of memory at batch size %d; retrying with %d", size, size // 2)
            return size // 2
        if self.device.type == "cpu":
            raise exc
        raise _MoveToCPU from exc

    def _warn_if_truncated(self, pairs: list[Pair]) -> bool:
        """Warn when pairs exceed the input; whether it warned (once per state, so a run
        warns once)."""
        n = sum(length > self.max_length for length in self.format.full_lengths(self.tokenizer, pairs))
        if n:
            warnings.warn(
                f"{n} pair(s) exceed the judge's {self.max_length} tokens and were truncated; "
                "window long premises first (localeval.text.make_windows)",
                stacklevel=5,
            )
            return True
        return False


class JudgePair(NLIJudge):
    """An attribution judge and a separate relevance judge (``relevance_model=``), used by the
    metrics as one judge: claims go to ``attribution``, (passage, question) pairs to
    ``relevance`` (`for_task`), each with its own input length, windows, scoring state and
    verdict-cache identity. Everything else (device, verdict, languages, token counts of
    claims) is the attribution judge's. Nothing is loaded here."""

    def __init__(self, attribution: NLIJudge, relevance: NLIJudge) -> None:  # noqa: D107 - no load
        if not attribution.has_nli_head:
            raise ValueError(f"judge {attribution.name!r} cannot judge claims; give it as the relevance model")
        if not relevance.has_relevance_head:
            raise ValueError(
                f"relevance model {relevance.name!r} ({relevance.format.name}) has no relevance head: "
                "give a cross-encoder reranker or a judge with a 'relevance' task"
            )
        self.attribution = attribution
        self.relevance = relevance
        self.layout = attribution.layout.model_copy(
            update={"relevance": relevance.layout.relevance, "relevant": relevance.layout.relevant})
        self.thresholds = {**attribution.thresholds, "relevance": relevance.thresholds["relevance"]}
        self._identity = None
        self._legacy_cache = None

    def __getattr__(self, name: str):
        # Only reached for attributes the pair does not set itself: the attribution judge's.
        if name in ("attribution", "relevance"):
            raise AttributeError(name)
        return getattr(self.attribution, name)

    @property
    def name(self) -> str:
        return f"{self.attribution.name}+{self.relevance.name}"

    @property
    def identity(self) -> str:
        """Both judges' identities: a metric that uses relevance verdicts (its stored results)
        changes with the relevance model too."""
        if self._identity is None:
            import hashlib

            both = f"{self.attribution.identity}+{self.relevance.identity}".encode()
            self._identity = hashlib.sha256(both).hexdigest()[:32]
        return self._identity

    def __repr__(self) -> str:
        return f"JudgePair({self.attribution!r}, relevance={self.relevance!r})"

    def for_task(self, task: Task) -> NLIJudge:
        return self.relevance if task == "relevance" else self.attribution

    def cpu_copy(self) -> JudgePair:
        return JudgePair(self.attribution.cpu_copy(), self.relevance.cpu_copy())

    def _task_columns(self, task: Task) -> list[int]:
        return self.for_task(task)._task_columns(task)

    def score_distinct(self, pairs: list[Pair], task: Task, *, batch_size: int, state: ScoringState,
                       show_progress_bar: bool = False, encoded: list[Packed] | None = None) -> np.ndarray:
        return self.for_task(task).score_distinct(pairs, task, batch_size=batch_size, state=state,
                                                  show_progress_bar=show_progress_bar, encoded=encoded)

    def encode(self, pairs: list[Pair], task: Task = "nli") -> list[Packed]:
        return self.for_task(task).encode(pairs, task)
