"""`LLMDecomposer`: claims and sub-questions from a local instruction model, validated.

For each text the model is prompted with a few-shot template (`localeval.llm.prompts`),
decoded greedily, and its lines are checked (`localeval.llm.validate`): items that fail are
dropped and listed with their reason; a claim with words the source lacks survives only if
the judge finds it entailed by the source. When nothing usable is left, or the kept items
cover too little of the source, or generation itself fails, that text gets the rule-based
decomposition instead, and the reason is recorded: a row is never lost, and never scored on
an unchecked model output.

Decompositions are cached under the decomposer's identity (model file hash, prompts,
generation and validation settings, the judge's identity) and the text, in memory and, during
a run with ``cache=``, in the same SQLite file as the judge's verdicts.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from localeval.llm.generator import Generator, TransformersGenerator
from localeval.llm.prompts import CLAIMS_PROMPT, QUESTIONS_PROMPT, check_template, render
from localeval.llm.validate import check_claim, check_sub_question, content_words, coverage, parse_items
from localeval.text.decomposition import CachingDecomposer, Decomposition, Kind, Rejected
from localeval.text.questions import RuleBasedDecomposer

if TYPE_CHECKING:
    from localeval.judge.session import JudgeSession

__all__ = ["LLMDecomposer"]

_VERSION = "1"  # bump when parsing or validation changes what a cached entry would hold


class LLMDecomposer(CachingDecomposer):
    """A `Decomposer` backed by a local instruction model, with the rules as fallback.

    Args:
        model: a model directory (safetensors), a ``.gguf`` file, or a loaded `Generator`.
        claims_prompt, questions_prompt: few-shot templates with a ``{text}`` placeholder.
        judge: the NLI judge that checks claims with words the source lacks (name, path or
            `NLIJudge`; ``None`` = the default judge, loaded only when needed).
        device, max_new_tokens, batch_size: generation options (see `TransformersGenerator`).
        min_coverage: share of the source's content words the kept items must contain.
        fallback: the decomposer used when the model's output is unusable (default rules).
        cache: a `JudgementCache` for decompositions outside a run (during a run, the run's
            session's cache is used: `CachingDecomposer`).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | Generator,
        *,
        claims_prompt: str = CLAIMS_PROMPT,
        questions_prompt: str = QUESTIONS_PROMPT,
        judge=None,
        device: str | None = None,
        max_new_tokens: int = 128,
        batch_size: int = 8,
        min_coverage: float = 0.5,
        fallback: RuleBasedDecomposer | None = None,
        cache=None,
    ) -> None:
        if not 0.0 <= min_coverage <= 1.0:
            raise ValueError(f"min_coverage must be in [0, 1], got {min_coverage}")
        self.prompts: dict[str, str] = {
            "claims": check_template(claims_prompt, "claims"),
            "sub_questions": check_template(questions_prompt, "questions"),
        }
        if isinstance(model, Generator):
            self.generator: Generator = model
            label = getattr(model, "name", type(model).__name__)
        else:
            self.generator = TransformersGenerator(model, device=device, max_new_tokens=max_new_tokens, batch_size=batch_size)
            label = Path(model).name
        self.name = f"llm:{label}"
        self.min_coverage = min_coverage
        self.fallback = fallback or RuleBasedDecomposer()
        self.cache = cache
        self._judge_arg = judge
        self._judge = None
        self._identity: str | None = None
        # Without a cache from the caller, a memory-only one (bounded LRU) so that the same text
        # is never generated twice in a process.
        from localeval.judge.cache import JudgementCache

        self._own_cache = JudgementCache(None, memory_size=20_000)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LLMDecomposer({self.name!r})"

    # ------------------------------------------------------------------ Decomposer
    def claims(self, text: str) -> list[str]:
        return self.decompose_batch([text], "claims")[0].items

    def sub_questions(self, question: str) -> list[str]:
        return self.decompose_batch([question], "sub_questions")[0].items

    def decompose(self, question: str) -> list[str]:  # the older QuestionDecomposer name
        return self.sub_questions(question)

    # ------------------------------------------------------------------ identity, judge
    @property
    def judge(self):
        if self._judge is None:
            from localeval.judge import get_judge

            self._judge = get_judge(self._judge_arg)
        return self._judge

    @property
    def identity(self) -> str:
        """Changes whenever a decomposition could change: model, prompts, settings, judge."""
        if self._identity is None:
            parts = [
                _VERSION, self.generator.identity, self.prompts["claims"], self.prompts["sub_questions"],
                f"min_coverage={self.min_coverage}", repr(self.fallback), self.judge.identity,
            ]
            self._identity = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]
        return self._identity

    # ------------------------------------------------------------------ batch
    def decompose_batch(self, texts: Sequence[str], kind: Kind, *,
                        session: JudgeSession | None = None) -> list[Decomposition]:
        """One `Decomposition` per text: the model's checked items, or the rules' with a reason.
        With the run's ``session``, decompositions are kept in its cache and claims checked
        through it (its verdicts, its entailment threshold)."""
        if kind not in self.prompts:
            raise ValueError(f"kind must be 'claims' or 'sub_questions', got {kind!r}")
        store = session.cache if session is not None else self._store()
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t.strip()))
            known = self._read_cache(store, kind, todo) if todo else {}
            fresh = [t for t in todo if t not in known]
            if fresh:
                made = dict(zip(fresh, self._decompose_fresh(fresh, kind, session)))
                self._write_cache(store, kind, made)
                known.update(made)
            # nothing to decompose in a blank text: no model call, no fallback
            return [known[t].model_copy(deep=True) if t.strip() else Decomposition(items=[], decomposer=self.name) for t in texts]

    def _decompose_fresh(self, texts: list[str], kind: Kind, session: JudgeSession | None) -> list[Decomposition]:
        try:
            outputs = self.generator.generate([render(self.prompts[kind], t) for t in texts])
            if len(outputs) != len(texts):
                raise RuntimeError(f"the generator returned {len(outputs)} outputs for {len(texts)} prompts")
        except Exception as exc:  # noqa: BLE001 - a failing model costs its texts the model, not the run
            why = f"generation failed: {type(exc).__name__}: {exc}"
            return [self._fall_back(t, kind, why, []) for t in texts]
        if kind == "claims":
            return self._check_claims(texts, outputs, session)
        return [self._check_questions(t, o) for t, o in zip(texts, outputs)]

    def _fall_back(self, text: str, kind: Kind, reason: str, rejected: list[Rejected]) -> Decomposition:
        items = self.fallback.claims(text) if kind == "claims" else self.fallback.sub_questions(text)
        return Decomposition(items=items, decomposer="rule", fallback_reason=reason, rejected=rejected)

    def _finish(self, text: str, kind: Kind, kept: list[str], rejected: list[Rejected], source_words: set[str]) -> Decomposition:
        if not kept:
            why = "the model's output has no usable line" if not rejected else "every item of the model's output was rejected"
            return self._fall_back(text, kind, why, rejected)
        share = coverage(source_words, kept)
        if share < self.min_coverage:
            why = f"the model's items cover {share:.0%} of the text's content words (minimum {self.min_coverage:.0%})"
            return self._fall_back(text, kind, why, rejected)
        return Decomposition(items=kept, decomposer=self.name, rejected=rejected)

    def _check_questions(self, question: str, output: str) -> Decomposition:
        words = content_words(question)
        kept, rejected = [], []
        for item in parse_items(output):
            problem = check_sub_question(item, words)
            (rejected.append(problem) if problem else kept.append(item))
        return self._finish(question, "sub_questions", kept, rejected, words)

    def _check_claims(self, texts: list[str], outputs: list[str], session: JudgeSession | None) -> list[Decomposition]:
        plans = []  # per text: (source words, [(claim, missing words)], rejected)
        to_entail: list[tuple[int, str]] = []
        for i, (text, output) in enumerate(zip(texts, outputs)):
            words = content_words(text)
            candidates, rejected = [], []
            for item in parse_items(output):
                problem, missing = check_claim(item, words)
                if problem:
                    rejected.append(problem)
                else:
                    candidates.append((item, missing))
                    if missing:
                        to_entail.append((i, item))
            plans.append((words, candidates, rejected))
        entailed = self._entailment(texts, to_entail, session)
        # The run's own entailment threshold when it gave one, else the judge's stored one.
        given = session.options.thresholds if session is not None else {}
        threshold = given.get("entailment", self.judge.thresholds["entailment"])
        out = []
        for i, (text, (words, candidates, rejected)) in enumerate(zip(texts, plans)):
            kept = []
            for item, missing in candidates:
                p = entailed.get((i, item))
                if missing and (p is None or p < threshold):
                    rejected.append(Rejected(
                        text=item,
                        reason=f"words not in the text ({', '.join(sorted(missing))}) and not entailed by it (p={p or 0.0:.2f})",
                    ))
                else:
                    kept.append(item)
            out.append(self._finish(text, "claims", kept, rejected, words))
        return out

    def _entailment(self, texts: list[str], items: list[tuple[int, str]],
                    session: JudgeSession | None) -> dict[tuple[int, str], float]:
        """P(source entails claim) for claims with new words, best over the source's windows."""
        if not items:
            return {}
        from localeval.evidence.attribution import attribute
        from localeval.judge.batching import judge_by_key

        by_text: dict[int, list[str]] = {}
        for i, claim in items:
            by_text.setdefault(i, []).append(claim)
        supports = judge_by_key(lambda batch: attribute(self.judge, batch, session=session),
                                {i: (claims, [texts[i]]) for i, claims in by_text.items()})
        return {(i, c): s.probability for i, claims in by_text.items() for c, s in zip(claims, supports[i])}

    # ------------------------------------------------------------------ cache
    def _store(self):
        return self.cache if self.cache is not None else self._own_cache

    def _read_cache(self, store, kind: str, texts: list[str]) -> dict[str, Decomposition]:
        found = store.get_records(self.identity, kind, texts)
        return {t: Decomposition.model_validate(json.loads(v)) for t, v in zip(texts, found) if v is not None}

    def _write_cache(self, store, kind: str, made: dict[str, Decomposition]) -> None:
        if made:
            store.put_records(self.identity, kind, {t: d.model_dump_json() for t, d in made.items()})
