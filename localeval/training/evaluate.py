"""Held-out evaluation and threshold choice.

Thresholds are picked on the pooled held-out split to maximise balanced accuracy of the two
binary decisions the metrics make: entailed vs not (on P(entailment) within the NLI head) and
relevant vs not (on P(relevant) within the relevance head).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from .examples import NLI3, REL, Example
from .model import task_probs
from .train import bucketed_batches, collate, encode

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@torch.no_grad()
def predict(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    max_length: int,
    device: torch.device,
    batch_size: int = 64,
) -> tuple[np.ndarray, np.ndarray]:
    """NLI probabilities [n, 3] and relevance probabilities [n, 2] for every example."""
    data = encode(tokenizer, examples, max_length)
    nli = np.zeros((len(examples), 3), dtype=np.float32)
    rel = np.zeros((len(examples), 2), dtype=np.float32)
    model.eval()
    for idx in bucketed_batches([len(x) for x in data.input_ids], batch_size, rng=None):
        batch = collate(data, idx, tokenizer.pad_token_id or 0, device)
        batch.pop("labels"), batch.pop("tasks")
        with torch.autocast(
            device_type="cuda", dtype=torch.float16, enabled=device.type == "cuda"
        ):
            logits = model(**batch).logits
        p_nli, p_rel = task_probs(logits)
        nli[idx] = p_nli.cpu().numpy()
        rel[idx] = p_rel.cpu().numpy()
    return nli, rel


def balanced_accuracy(
    scores: np.ndarray, positive: np.ndarray, threshold: float
) -> float:
    pred = scores >= threshold
    pos, neg = positive.sum(), (~positive).sum()
    tpr = (pred & positive).sum() / pos if pos else 0.0
    tnr = (~pred & ~positive).sum() / neg if neg else 0.0
    return float((tpr + tnr) / 2) if pos and neg else float(tpr if pos else tnr)


def best_threshold(scores: np.ndarray, positive: np.ndarray) -> float:
    """Threshold with the highest balanced accuracy (midpoints between sorted scores)."""
    if len(scores) == 0 or positive.all() or not positive.any():
        return 0.5
    cands = np.unique(np.quantile(scores, np.linspace(0.005, 0.995, 199)))
    best = max(cands, key=lambda t: balanced_accuracy(scores, positive, float(t)))
    return float(round(best, 4))


def evaluate(examples: Sequence[Example], nli: np.ndarray, rel: np.ndarray) -> dict:
    """Per-source accuracy (3-way where the source has it, binary everywhere) plus thresholds."""
    labels = np.array([e.label for e in examples])
    tasks = np.array([e.task for e in examples])
    sources = np.array([e.source for e in examples])
    is_nli = tasks != REL
    p_ent = nli[:, 0]
    p_rel = rel[:, 0]
    t_ent = best_threshold(p_ent[is_nli], labels[is_nli] == 0)
    t_rel = best_threshold(p_rel[~is_nli], labels[~is_nli] == 0)

    per_source: dict[str, dict] = {}
    for src in sorted(set(sources.tolist())):
        m = sources == src
        lab, task = labels[m], tasks[m][0]
        row: dict[str, float | int | str] = {"n": int(m.sum()), "task": str(task)}
        if task == REL:
            row["accuracy"] = float(((p_rel[m] >= 0.5) == (lab == 0)).mean())
            row["balanced_accuracy_at_threshold"] = balanced_accuracy(
                p_rel[m], lab == 0, t_rel
            )
        else:
            three = m & (tasks == NLI3)
            if three.any():
                row["accuracy_3way"] = float(
                    (nli[three].argmax(1) == labels[three]).mean()
                )
                row["n_3way"] = int(three.sum())
            binary_pred = nli[m].argmax(1) == 0
            row["accuracy_binary_argmax"] = float((binary_pred == (lab == 0)).mean())
            row["balanced_accuracy_at_threshold"] = balanced_accuracy(
                p_ent[m], lab == 0, t_ent
            )
            kinds = sorted(
                set(tasks[m].tolist()), reverse=True
            )  # e.g. synthetic mixes nli3 and nli2
            row["task"] = "+".join(kinds)
        per_source[src] = {
            k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()
        }
    return {
        "thresholds": {"entailment": t_ent, "relevance": t_rel},
        "pooled": {
            "nli_balanced_accuracy": round(
                balanced_accuracy(p_ent[is_nli], labels[is_nli] == 0, t_ent), 4
            ),
            "relevance_balanced_accuracy": round(
                balanced_accuracy(p_rel[~is_nli], labels[~is_nli] == 0, t_rel), 4
            ),
            "n_nli": int(is_nli.sum()),
            "n_relevance": int((~is_nli).sum()),
        },
        "per_source": per_source,
    }
