"""Ablation pairs from RAGBench hotpotqa / covidqa: does a metric notice the evidence is gone?

For a row whose response GPT-4 found supported (``adherence_score``) and that has relevant
sentence keys, the *ablated* row drops every retrieved document holding a relevant sentence
(rows where nothing would be left are skipped: an empty retrieval is an edge case, not a
test). The response stands in as the reference for `ContextRecall` (it is what the full
context supports). A metric should score the full row above the ablated one:

    pairwise accuracy = (pairs with full > ablated + 0.5 * ties) / pairs

Ties are shown separately: a tie at 1.0 means the metric did not see the evidence go.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchmarks.lib.overlap import overlap_score
from benchmarks.agreement.attribution import claim_probabilities
from benchmarks.agreement.ragbench import RagbenchRow
from benchmarks.agreement.scoring import Harness

__all__ = ["ABLATION_METRICS", "AblationSet", "ablation_pairs", "pairwise", "score_ablation"]

ABLATION_METRICS = ("context_recall", "chunk_recall", "question_recall")
TARGET = {"context_recall": "reference", "chunk_recall": "response", "question_recall": "user_input"}


@dataclass
class AblationSet:
    subset: str
    n: int
    full: dict[str, list[float]]
    ablated: dict[str, list[float]]
    cr_probs: tuple[list[list[float]], list[list[float]]]
    """Context recall's claim probabilities (full, ablated): its score at any threshold."""
    overlap: dict[str, tuple[list[float], list[float]]]


def ablation_pairs(rows: list[RagbenchRow]) -> list[tuple[dict, dict]]:
    pairs = []
    for row in rows:
        if not row.adherence or not row.relevant_keys:
            continue
        keep = [c for c, spans in zip(row.contexts, row.keys) if not {k for k, _, _ in spans} & row.relevant_keys]
        if not keep or len(keep) == len(row.contexts):
            continue
        full = {**row.sample(), "reference": row.response}
        pairs.append((full, {**full, "retrieved_contexts": keep}))
    return pairs


def pairwise(full: list[float], ablated: list[float]) -> dict:
    f, a = np.asarray(full, float), np.asarray(ablated, float)
    if not f.size:
        return {"n": 0, "accuracy": None, "above": None, "ties": None}
    above, ties = float(np.mean(f > a)), float(np.mean(f == a))
    return {"n": int(f.size), "accuracy": round(above + 0.5 * ties, 4), "above": round(above, 4), "ties": round(ties, 4)}


def _scores(results) -> list[float]:
    # None (no claim / no sub-question) cannot rank: it counts as 0, and such pairs are rare.
    return [r.score if r.score is not None else 0.0 for r in results]


def score_ablation(harness: Harness, subset: str, rows: list[RagbenchRow]) -> AblationSet:
    pairs = ablation_pairs(rows)
    fulls, ablateds = [p[0] for p in pairs], [p[1] for p in pairs]
    full = harness.score(fulls, ABLATION_METRICS) if pairs else {m: [] for m in ABLATION_METRICS}
    abl = harness.score(ablateds, ABLATION_METRICS) if pairs else {m: [] for m in ABLATION_METRICS}
    overlap = {
        m: ([overlap_score(r[TARGET[m]], r["retrieved_contexts"]) for r in fulls],
            [overlap_score(r[TARGET[m]], r["retrieved_contexts"]) for r in ablateds])
        for m in ABLATION_METRICS
    }
    return AblationSet(
        subset=subset, n=len(pairs),
        full={m: _scores(full[m]) for m in ABLATION_METRICS},
        ablated={m: _scores(abl[m]) for m in ABLATION_METRICS},
        cr_probs=([claim_probabilities(r) for r in full["context_recall"]],
                  [claim_probabilities(r) for r in abl["context_recall"]]),
        overlap=overlap,
    )
