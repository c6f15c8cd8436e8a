"""FRANK validation split: summaries of CNN/DM and XSum articles with a human factuality score.

`Faithfulness` (summary vs its article) is compared with the human ``Factuality`` (share of
the summary's sentences without a factual error, averaged over annotators) by Pearson and
Spearman, and as a binary task (factual = every sentence judged error-free, ``Factuality ==
1``) by balanced accuracy and AUROC. The baseline metrics' outputs shipped with FRANK
(``baseline_factuality_metrics_outputs.json``: FactCC, QAGS, FEQA, BERTScore, ...) are
correlated on the same sampled summaries in the same way, so they sit beside ours.

The FRANK paper reports *partial* correlations (controlling for the summarisation system);
here every column, ours and the baselines', is a plain Pearson / Spearman over the same rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from benchmarks.lib.readers import stratified_sample
from benchmarks.agreement.attribution import BinarySet, score_binary_set
from benchmarks.agreement.scoring import Harness, pearson, spearman

__all__ = ["BASELINES", "load_frank", "score_frank", "baseline_correlations"]

BASELINES = ("FactCC", "QAGS", "FEQA", "Dep Entail", "BertScore P Art", "Rouge L")


def load_frank(data: Path, cap: int | None) -> tuple[list[dict], int]:
    rows = []
    with (data / "frank" / "frank_joined.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r["split"] != "test":  # the development side only ("valid")
                rows.append(r)
    labels = [int(r["Factuality"] >= 1.0) for r in rows]
    keep = stratified_sample(labels, cap)
    return [rows[i] for i in keep], len(rows)


def score_frank(harness: Harness, data: Path, cap: int | None) -> tuple[BinarySet, list[dict]]:
    rows, n_total = load_frank(data, cap)
    samples = [{"response": r["summary"], "retrieved_contexts": [r["article"]]} for r in rows]
    labels = [int(r["Factuality"] >= 1.0) for r in rows]
    scored = score_binary_set(
        harness, "frank/valid", "frank", "faithfulness", samples, labels,
        [str(round(r["Factuality"], 3)) for r in rows], n_total, "response",
    )
    return scored, rows


def baseline_correlations(data: Path, rows: list[dict]) -> dict[str, dict]:
    """Pearson / Spearman of each shipped baseline metric with Factuality, on ``rows``."""
    outputs = json.loads((data / "frank" / "baseline_factuality_metrics_outputs.json").read_text(encoding="utf-8"))
    by_key = {(o["hash"], o["model_name"]): o for o in outputs}
    gold = [r["Factuality"] for r in rows]
    out = {}
    for name in BASELINES:
        pairs = [(by_key[(r["hash"], r["model_name"])].get(name), g) for r, g in zip(rows, gold)
                 if (r["hash"], r["model_name"]) in by_key]
        pairs = [(float(x), g) for x, g in pairs if x is not None and np.isfinite(float(x))]
        if len(pairs) < 3:
            continue
        xs, gs = zip(*pairs)
        out[name] = {"n": len(pairs), "pearson": _r(pearson(xs, gs)), "spearman": _r(spearman(xs, gs))}
    return out


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)
