"""Running the judge (and the word-overlap floor) over benchmark tasks.

Scoring is split from metric computation: `TaskScores` keeps the raw scores, so the
threshold can be chosen on development sets *after* everything was scored, and then every
set is reported at that one threshold and at its own best (oracle) threshold.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from benchmarks.lib.metrics import accuracy, auroc, balanced_accuracy, best_threshold
from benchmarks.lib.overlap import overlap_score
from benchmarks.lib.readers import AttributionTask, PairTask
from localeval.judge.nli import NLIJudge

__all__ = ["TaskScores", "score_attribution_task", "score_pair_task", "summarize"]


@dataclass
class TaskScores:
    name: str
    section: str
    kind: str
    """nli3 | binary | relevance | attribution"""
    source: str
    note: str
    n_total: int
    labels: np.ndarray
    """Binary gold: 1 = entailed / supported / relevant."""
    model: np.ndarray
    overlap: np.ndarray
    original_labels: list[str] = field(default_factory=list)
    accuracy_3way: float | None = None
    extra: dict = field(default_factory=dict)
    seconds: float = 0.0
    claims: list[list[tuple[float, float]]] | None = None
    """Attribution sets: (model, overlap) of each claim of each item, before the min, so a
    different combination of the two can be studied offline (benchmarks/studies/hybrid.py)."""

    @property
    def threshold_kind(self) -> str:
        return "relevance" if self.kind == "relevance" else "entailment"


def score_pair_task(judge: NLIJudge, task: PairTask, batch_size: int) -> TaskScores:
    start = time.perf_counter()
    too_long = _too_long(judge, task.pairs)
    extra: dict = {"pairs_over_max_length": int(too_long.sum())}
    acc3 = None
    if task.kind == "relevance":
        model = judge.relevance_probability(task.pairs, batch_size=batch_size)
        labels = np.asarray(task.labels, dtype=int)
    else:
        probs = judge.predict(task.pairs, task="nli", batch_size=batch_size)
        model = probs[:, judge.layout.entailment].astype(np.float64)
        if too_long.any():
            # The metrics never truncate evidence: they window it. Over-long pairs get their
            # P(entailment) the same way (best window); 3-way argmax stays on the cut pair.
            from localeval.evidence.attribution import attribute

            index = np.flatnonzero(too_long)
            groups = [([task.pairs[i][1]], [task.pairs[i][0]]) for i in index]
            windowed = attribute(judge, groups, locate_sentence=False, batch_size=batch_size)
            model[index] = [row[0].probability for row in windowed]
        if task.kind == "nli3":
            labels = np.asarray([lab == "entailment" for lab in task.labels], dtype=int)
            layout = judge.layout
            if len(layout.nli_labels) == 3 and layout.contradiction is not None:
                # Column roles come from the judge's own label layout, whatever its label order.
                names = ["neutral"] * 3
                names[layout.entailment], names[layout.contradiction] = "entailment", "contradiction"
                predicted = [names[i] for i in probs.argmax(axis=1)]
                acc3 = accuracy(task.labels, predicted)
        else:
            labels = np.asarray(task.labels, dtype=int)
    overlap = np.asarray([overlap_score(claim, evidence) for evidence, claim in task.pairs])
    return TaskScores(
        name=task.name, section=task.section, kind=task.kind, source=task.source, note=task.note,
        n_total=task.n_total, labels=labels, model=np.asarray(model, dtype=np.float64),
        overlap=overlap, original_labels=list(task.original_labels), accuracy_3way=acc3,
        extra=extra, seconds=time.perf_counter() - start,
    )


def _too_long(judge: NLIJudge, pairs: list[tuple[str, str]]) -> np.ndarray:
    """Which pairs do not fit the judge's input ([CLS] premise [SEP] claim [SEP])."""
    if not pairs:
        return np.zeros(0, dtype=bool)
    premise = judge.count_tokens_batch([p for p, _ in pairs])
    hypothesis = judge.count_tokens_batch([h for _, h in pairs])
    return np.asarray([a + b + 3 > judge.max_length for a, b in zip(premise, hypothesis)], dtype=bool)


def score_attribution_task(
    judge: NLIJudge, task: AttributionTask, batch_size: int, granularity: str = "both",
    unit_sentences: int | None = None, max_units: int | None = None,
) -> TaskScores:
    """Each item's claims through `attribute`; item score = min over its claims (and mean, kept)."""
    from localeval.evidence.attribution import attribute

    start = time.perf_counter()
    groups = [(item.claims, item.contexts) for item in task.items]
    # locate_sentence=False: only the probability is scored here, not the evidence span.
    options: dict = {} if unit_sentences is None else {"unit_sentences": unit_sentences}
    if max_units is not None:  # 0: every unit; not given: the metrics' default
        options["max_units"] = max_units or None
    supports = attribute(judge, groups, granularity=granularity, locate_sentence=False,
                         batch_size=batch_size, **options)
    per_claim = [[s.probability for s in row] for row in supports]
    overlap_claims = [[overlap_score(c, item.contexts) for c in item.claims] for item in task.items]
    model = np.asarray([min(p) for p in per_claim])
    model_mean = np.asarray([float(np.mean(p)) for p in per_claim])
    # The floor reads every context of the item as one bag of words, claim by claim.
    overlap = np.asarray([min(o) for o in overlap_claims])
    labels = np.asarray(task.labels, dtype=int)
    extra = {
        "claims": int(sum(len(item.claims) for item in task.items)),
        "aggregate": "min over the item's claims (sentences)",
        "mean_aggregate": {
            "auroc": auroc(labels, model_mean),
            "balanced_accuracy_oracle": best_threshold(labels, model_mean)[1],
        },
    }
    return TaskScores(
        name=task.name, section=task.section, kind="attribution", source=task.source,
        note=task.note, n_total=task.n_total, labels=labels, model=model, overlap=overlap,
        original_labels=[item.original_label for item in task.items], extra=extra,
        seconds=time.perf_counter() - start,
        claims=[list(zip(p, o)) for p, o in zip(per_claim, overlap_claims)],
    )


def summarize(scores: TaskScores, thresholds: dict[str, float], overlap_threshold: float) -> dict:
    """The reported figures of one set at the given thresholds, plus its oracle thresholds."""
    y = scores.labels
    t = thresholds[scores.threshold_kind]
    model_oracle_t, model_oracle = best_threshold(y, scores.model)
    row = {
        "set": scores.name,
        "section": scores.section,
        "kind": scores.kind,
        "source": scores.source,
        "label_mapping": scores.note,
        "n_total": scores.n_total,
        "n": int(len(y)),
        "n_positive": int(y.sum()),
        "seconds": round(scores.seconds, 1),
        "model": {
            "accuracy_3way": scores.accuracy_3way,
            "threshold": t,
            "accuracy_binary": accuracy(y, scores.model >= t),
            "balanced_accuracy": balanced_accuracy(y, scores.model, t),
            "balanced_accuracy_oracle": model_oracle,
            "oracle_threshold": model_oracle_t,
            "auroc": auroc(y, scores.model),
        },
        "mean_score_by_label": _means_by_label(scores.original_labels, scores.model),
        **scores.extra,
    }
    overlap_oracle_t, overlap_oracle = best_threshold(y, scores.overlap)
    # The floor's stored threshold was chosen on entailment dev sets; on relevance sets only
    # its threshold-free figures (AUROC, oracle) are meaningful.
    at_stored = scores.kind != "relevance"
    row["overlap"] = {
        "threshold": overlap_threshold if at_stored else None,
        "balanced_accuracy": balanced_accuracy(y, scores.overlap, overlap_threshold) if at_stored else None,
        "balanced_accuracy_oracle": overlap_oracle,
        "oracle_threshold": overlap_oracle_t,
        "auroc": auroc(y, scores.overlap),
    }
    return row


def _means_by_label(original: list[str], values: np.ndarray) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for label, value in zip(original, values):
        groups[str(label)].append(float(value))
    return {label: round(float(np.mean(v)), 4) for label, v in sorted(groups.items())}
