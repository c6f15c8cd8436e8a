"""The rag_evals ``ContextRecall`` interface, answered by localeval's ChunkRecall.

    from localeval.compat.rag_evals import ContextRecall
    result = await ContextRecall.agrade(question=q, answer=a, context=[c1, c2], client=None)
    result.score, result.missing_information, result.evaluated_chunks

``client`` is accepted and ignored (no LLM is called); the result has rag_evals' shape:
``evaluated_chunks`` of ``ChunkRecallEvaluation(id_chunk, is_relevant, is_included,
missing_info)``, and ``score`` / ``missing_information`` as properties.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from localeval.metrics.chunk_recall import ChunkRecall as _ChunkRecall
from localeval.metrics.chunk_recall import ChunkRecallResult as _Result

__all__ = ["ChunkRecallEvaluation", "ContextRecall", "ContextRecallResult"]


class ChunkRecallEvaluation(BaseModel):
    """rag_evals' per-chunk verdict, under its field names (localeval's results call the
    chunk's position ``context_index``)."""

    id_chunk: int
    is_relevant: bool
    is_included: bool
    missing_info: str | None = None


class ContextRecallResult(BaseModel):
    evaluated_chunks: list[ChunkRecallEvaluation]

    @property
    def score(self) -> float:
        relevant = [c for c in self.evaluated_chunks if c.is_relevant]
        if not relevant:
            return 1.0  # rag_evals' convention: nothing relevant, nothing missed
        return sum(c.is_included for c in relevant) / len(relevant)

    @property
    def missing_information(self) -> list[dict]:
        """rag_evals' ``{chunk_id, missing_info}`` for every relevant chunk left out."""
        return [
            {"chunk_id": c.id_chunk, "missing_info": c.missing_info}
            for c in self.evaluated_chunks
            if c.is_relevant and not c.is_included and c.missing_info
        ]


def _convert(result: _Result) -> ContextRecallResult:
    return ContextRecallResult(
        evaluated_chunks=[
            ChunkRecallEvaluation(
                id_chunk=c.context_index, is_relevant=c.is_relevant, is_included=c.is_included, missing_info=c.missing_info
            )
            for c in result.evaluated_chunks
        ]
    )


class ContextRecall:
    """rag_evals-style entry points (class methods, as in rag_evals)."""

    @staticmethod
    def grade(*, question: str, answer: str, context: list[str], client: Any = None, **options: Any) -> ContextRecallResult:
        metric = _ChunkRecall(**options)
        result = metric.score({"user_input": question, "response": answer, "retrieved_contexts": list(context)})
        assert isinstance(result, _Result)
        return _convert(result)

    @staticmethod
    async def agrade(*, question: str, answer: str, context: list[str], client: Any = None, **options: Any) -> ContextRecallResult:
        return await asyncio.to_thread(
            ContextRecall.grade, question=question, answer=answer, context=context, client=client, **options
        )
