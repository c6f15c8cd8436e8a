"""Claim-attribution sets scored through `Faithfulness` / `ContextRecall`.

WiCE dev (claim vs the whole cited article: context recall and faithfulness judge exactly
this), SummaC validation subsets and BEGIN dev (a summary or dialogue response vs its
document: faithfulness). Items come from `benchmarks.lib.readers` (same parsing, label mapping
and seeded class-balanced sampling as the judge benchmark); their sentences are joined back
into one response, which the metric splits into claims itself, as it would for a user.

Per item the harness keeps every claim's probability (0 where no context gave evidence), so
the metric's verdict "every claim supported" (``min >= t``) and its score (share of claims
``>= t``) can be recomputed at any threshold without judging again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.lib import readers
from benchmarks.lib.overlap import overlap_score
from benchmarks.agreement.scoring import Harness

__all__ = ["BinarySet", "claim_probabilities", "load_attribution_sets", "score_binary_set"]


@dataclass
class BinarySet:
    """One labelled set scored by one metric: what every binary figure is computed from."""

    name: str
    family: str
    metric: str
    labels: np.ndarray
    claim_probs: list[list[float]]
    overlap: np.ndarray
    """Word-overlap floor: lowest share of a claim's content words found in the contexts."""
    n_total: int
    original_labels: list[str]
    unscored: int = 0
    """Items the metric returned no score for (kept, counted here, scored 0 = not supported)."""

    @property
    def stat(self) -> np.ndarray:
        return np.array([min(p) if p else 0.0 for p in self.claim_probs])

    def share(self, t: float) -> np.ndarray:
        return np.array([float(np.mean(np.asarray(p) >= t)) if p else 0.0 for p in self.claim_probs])


def claim_probabilities(result) -> list[float]:
    # A claim with no evidence (nothing retrieved) is never attributed, whatever the threshold.
    return [c.probability if c.evidence is not None else 0.0 for c in result.claims]


def score_binary_set(
    harness: Harness, name: str, family: str, metric: str, rows: list[dict], labels: list[int],
    original: list[str], n_total: int, claims_from: str,
) -> BinarySet:
    results = harness.score(rows, [metric])[metric]
    probs, overlap, unscored = [], [], 0
    for row, res in zip(rows, results):
        if res.score is None:
            unscored += 1
        probs.append(claim_probabilities(res))
        claims = [c.text for c in res.claims] or [row[claims_from]]
        overlap.append(min(overlap_score(c, row["retrieved_contexts"]) for c in claims))
    return BinarySet(name, family, metric, np.asarray(labels, int), probs, np.asarray(overlap), n_total, original, unscored)


def load_attribution_sets(data: Path, caps: dict[str, int | None]) -> list[tuple[str, str, readers.AttributionTask]]:
    """(family, set name, task) of WiCE dev (whole article), SummaC's four subsets, BEGIN dev,
    AttributionBench dev, each cut to ``caps[name]`` items (class-balanced, seeded) when it is larger."""
    from localeval.text import split_sentences

    out = [("wice", "wice/dev-article", readers.read_wice_article(data.parent, None))]
    for subset in readers.SUMMAC_SUBSETS:
        out.append(("summac", f"summac/{subset}", readers.read_summac(data.parent, subset, None, split_sentences)))
    out.append(("begin", "begin/dev", readers.read_begin(data.parent, None, split_sentences)))
    out.append(("attributionbench", "attributionbench/dev", _attributionbench(data)))
    for _, name, task in out:
        cap = caps.get(name)
        if cap is not None and len(task.items) > cap:
            keep = readers.stratified_sample(task.labels, cap, balanced=True)
            task.items = [task.items[i] for i in keep]
    return out


def _attributionbench(data: Path) -> readers.AttributionTask:
    """AttributionBench dev: each claim of a generative-search answer against the references it
    cites (the original label kept as its source dataset, for the per-source figures)."""
    items = readers.read_attributionbench(data / readers.ATTRIBUTIONBENCH_FILE)
    return readers.AttributionTask(
        name="attributionbench/dev", section="meta_eval",
        items=[readers.AttributionItem([it["text"]], it["contexts"], it["label"], it["set"]) for it in items],
        n_total=len(items), source=readers.ATTRIBUTIONBENCH_FILE)


def score_attribution_sets(harness: Harness, data: Path, caps: dict[str, int | None],
                           metrics: tuple[str, ...] = ("faithfulness", "context_recall")) -> list[BinarySet]:
    """WiCE through faithfulness and context recall; SummaC, BEGIN and AttributionBench through
    faithfulness (of those, the ``metrics`` named)."""
    sets = []
    for family, name, task in load_attribution_sets(data, caps):
        labels = [it.label for it in task.items]
        original = [it.original_label for it in task.items]
        for metric in ("faithfulness", "context_recall") if family == "wice" else ("faithfulness",):
            if metric not in metrics:
                continue
            field = "response" if metric == "faithfulness" else "reference"
            rows = [{field: " ".join(it.claims), "retrieved_contexts": it.contexts} for it in task.items]
            sets.append(score_binary_set(harness, name, family, metric, rows, labels, original, task.n_total, field))
    return sets
