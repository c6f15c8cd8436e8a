"""RAGBench (validation, 7 subsets; labels by GPT-4) mapped onto localeval's metrics.

| RAGBench label | localeval metric | how compared |
|---|---|---|
| ``relevance_score`` (relevant sentences / sentences) | `ContextRelevance(level="sentence")` | RMSE, Pearson; relevant sentence keys: precision / recall / F1 |
| ``completeness_score`` (relevant and utilized / relevant sentences) | `TraceCompleteness` | RMSE, Pearson (rows both label) |
| ``utilization_score`` (utilized sentences / sentences) | `TraceUtilization` | RMSE, Pearson |
| ``adherence_score`` (bool) | `Faithfulness` | AUROC of its lowest claim probability; balanced accuracy of "every claim supported" |

Each document becomes one retrieved context: its RAGBench sentences joined by spaces, with the
character span of every sentence key kept, so localeval's own sentences (cut by its splitter)
can be matched back to the keys by overlap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.lib.overlap import content_words, overlap_score
from benchmarks.lib.readers import stratified_sample

__all__ = ["SUBSETS", "RagbenchRow", "load_ragbench", "sentence_prf", "key_spans"]

SUBSETS = ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco")


@dataclass
class RagbenchRow:
    subset: str
    id: str
    question: str
    response: str
    contexts: list[str]
    keys: list[list[tuple[str, int, int]]]
    """Per context: (sentence key, start, end) in the joined text."""
    relevant_keys: set[str]
    utilized_keys: set[str]
    relevance: float
    utilization: float
    completeness: float
    adherence: int
    peers: dict[str, float] = field(default_factory=dict)
    """Baseline judges' outputs shipped with the data (NaN-free; absent when not given)."""

    def sample(self) -> dict:
        return {"user_input": self.question, "response": self.response, "retrieved_contexts": self.contexts}


PEER_COLUMNS = ("gpt3_context_relevance", "gpt35_utilization", "gpt3_adherence",
                "ragas_context_relevance", "ragas_faithfulness", "trulens_context_relevance", "trulens_groundedness")


def _row(subset: str, r) -> RagbenchRow:
    contexts, keys = [], []
    for doc in r.documents_sentences:
        text, spans = "", []
        for key, sentence in doc:
            sentence = str(sentence).strip()
            if not sentence:
                continue
            start = len(text) + (1 if text else 0)
            text = f"{text} {sentence}" if text else sentence
            spans.append((str(key), start, len(text)))
        contexts.append(text)
        keys.append(spans)
    peers = {c: float(getattr(r, c)) for c in PEER_COLUMNS if pd.notna(getattr(r, c, None))}
    return RagbenchRow(
        subset=subset, id=str(r.id), question=str(r.question), response=str(r.response),
        contexts=contexts, keys=keys,
        relevant_keys={str(k) for k in r.all_relevant_sentence_keys},
        utilized_keys={str(k) for k in r.all_utilized_sentence_keys},
        relevance=float(r.relevance_score), utilization=float(r.utilization_score),
        completeness=float(r.completeness_score) if pd.notna(r.completeness_score) else float("nan"),
        adherence=int(bool(r.adherence_score)), peers=peers,
    )


def load_ragbench(data: Path, caps: dict[str, int | None]) -> dict[str, tuple[list[RagbenchRow], int]]:
    """Per subset of ``caps``: a sample of validation rows (stratified by adherence, fixed
    seed; ``None`` = all) and the size of the split."""
    out = {}
    for subset, cap in caps.items():
        df = pd.read_parquet(data / "ragbench" / subset / "validation-00000-of-00001.parquet")
        rows = [_row(subset, r) for r in df.itertuples(index=False)]
        keep = stratified_sample([r.adherence for r in rows], cap)
        out[subset] = ([rows[i] for i in keep], len(rows))
    return out


def key_spans(row: RagbenchRow, context_index: int, start: int, end: int) -> set[str]:
    """The RAGBench keys whose sentence overlaps the span [start, end) of a context."""
    return {k for k, a, b in row.keys[context_index] if a < end and start < b}


def sentence_prf(rows: list[RagbenchRow], results: list, threshold: float) -> dict:
    """Micro precision / recall / F1 of the relevant sentence keys localeval finds."""
    tp = fp = fn = 0
    for row, res in zip(rows, results):
        found: set[str] = set()
        for s in res.sentences:
            if s.probability >= threshold:
                found |= key_spans(row, s.context_index, s.start, s.end)
        every = {k for spans in row.keys for k, _, _ in spans}
        gold = row.relevant_keys & every
        tp += len(found & gold)
        fp += len(found - gold)
        fn += len(gold - found)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def overlap_sentence_probs(row: RagbenchRow) -> list[float]:
    """Word-overlap floor for relevance: per RAGBench sentence, the share of the question's
    content words it holds (thresholded like the judge's probabilities)."""
    out = []
    for ctx, spans in zip(row.contexts, row.keys):
        for _, a, b in spans:
            out.append(overlap_score(row.question, ctx[a:b]))
    return out


def overlap_utilization_probs(row: RagbenchRow) -> list[float]:
    """Word-overlap floor for utilization: per sentence, the share of its content words the
    response repeats."""
    words = content_words(row.response)
    out = []
    for ctx, spans in zip(row.contexts, row.keys):
        for _, a, b in spans:
            mine = content_words(ctx[a:b])
            out.append(len(mine & words) / len(mine) if mine else 0.0)
    return out


def gold_arrays(rows: list[RagbenchRow], attr: str) -> np.ndarray:
    return np.array([getattr(r, attr) for r in rows], float)
