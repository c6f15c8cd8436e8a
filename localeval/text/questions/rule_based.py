"""`RuleBasedDecomposer`: sentences and needs (rule 1), then the per-sentence rules of the
mixins (the rules are described in `localeval.text.questions`)."""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

from localeval.text.entities import load_nlp
from localeval.text.questions.clauses import ClauseRules
from localeval.text.questions.comparisons import ComparisonRules
from localeval.text.questions.nouns import NounPhraseRules
from localeval.text.questions.vocab import (
    AUX_WORDS,
    REQUEST_VERBS,
    WH_WORDS,
    _AS_WELL_AS,
)
from localeval.text.sentences import split_sentences

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc


class RuleBasedDecomposer(ComparisonRules, ClauseRules, NounPhraseRules):
    """Deterministic decomposition of a question (the rules: `localeval.text.questions`).

    Args:
        nlp: a loaded spaCy pipeline, a pipeline name, or ``None`` for
            ``$LOCALEVAL_SPACY_MODEL`` / the default English pipeline (loaded on first use,
            once per process).
        split_objects: split coordinated noun phrases ("France and Germany").
        resolve_pronouns: make later clauses self-contained ("How does it work?" -> "How does
            RAG work?") when the first clause names the topic unambiguously.
    """

    def __init__(
        self,
        nlp: Language | str | None = None,
        *,
        split_objects: bool = True,
        resolve_pronouns: bool = True,
    ) -> None:
        self._nlp_arg = nlp
        self._nlp: Language | None = None if nlp is None or isinstance(nlp, str) else nlp
        self.split_objects = split_objects
        self.resolve_pronouns = resolve_pronouns
        # spaCy pipelines are not documented as thread-safe; `ascore` runs rows in threads.
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RuleBasedDecomposer(split_objects={self.split_objects}, resolve_pronouns={self.resolve_pronouns})"

    name = "rule"

    # ------------------------------------------------------------------ public
    def claims(self, text: str) -> list[str]:
        """The claims of ``text`` (`localeval.text.split_claims`, coordinated clauses split)."""
        from localeval.text.claims import split_claims

        return [span.text for span in split_claims(text)]

    def sub_questions(self, question: str) -> list[str]:
        """The `Decomposer` name of `decompose`."""
        return self.decompose(question)

    def decompose(self, question: str) -> list[str]:
        """The sub-questions of ``question``, in order, without duplicates."""
        text = " ".join(question.split())
        if not any(ch.isalnum() for ch in text):
            return []
        out: list[str] = []
        for before, sentence, after in self._needs(text):
            for sub in self._split_sentence(sentence):
                if any(ch.isalnum() for ch in sub):
                    out.append(" ".join(p for p in (before, sub, after) if p))
        unique: dict[str, str] = {}
        for sub in out:
            unique.setdefault(sub.lower(), sub)  # first spelling wins, order is kept
        return list(unique.values())

    # ------------------------------------------------------------------ spaCy
    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            self._nlp = load_nlp(self._nlp_arg if isinstance(self._nlp_arg, str) else None)
        return self._nlp

    def _parse(self, text: str) -> Doc:
        with self._lock:
            # The lemmatizer is the only component none of the rules reads.
            return self.nlp(text, disable=["lemmatizer"])

    # ------------------------------------------------------------------ 1. sentences
    def _needs(self, text: str) -> list[tuple[str, str, str]]:
        """(background before, need sentence, follow-up after) for each need."""
        needs: list[list[str]] = []  # [before, sentence, after]
        pending: list[str] = []
        for sentence in self._sentences(text):
            fragment = bool(needs) and not pending and self._is_fragment(sentence)
            if fragment:  # "If so, why?", "Chile or Argentina?": a follow-up of the last need
                needs[-1][2] = f"{needs[-1][2]} {sentence}".strip()
            elif self._is_need(sentence):
                needs.append([" ".join(pending), sentence, ""])
                pending = []
            else:
                pending.append(sentence)
        if not needs:
            return [("", text, "")]
        if pending:  # trailing background belongs to the last need
            needs[-1][2] = f"{needs[-1][2]} {' '.join(pending)}".strip()
        return [(b, s, a) for b, s, a in needs]

    @staticmethod
    def _sentences(text: str) -> list[str]:
        """Sentences, re-joined where the splitter cut inside a quoted title (the "Who? Who?"
        ministry), after an initial ("B.B. King"), before a lowercase continuation ("Is It Just
        Me? was a single ...") or before a stray "?" ("recording??")."""
        merged: list[tuple[int, int]] = []
        for span in split_sentences(text):
            if merged:
                previous = text[merged[-1][0] : merged[-1][1]]
                open_quote = previous.count('"') % 2 == 1 or previous.count("\u201c") > previous.count("\u201d")
                continues = span.text[:1].islower() and previous[:1].isupper()
                initial = re.search(r"(?:^|\s)(?:[A-Z]\.)+$", previous) is not None  # "B.B. King"
                if open_quote or continues or initial or not any(ch.isalnum() for ch in span.text):
                    merged[-1] = (merged[-1][0], span.end)
                    continue
            merged.append((span.start, span.end))
        return [text[a:b] for a, b in merged] or [text]

    def _is_fragment(self, sentence: str) -> bool:
        """No verb at all (needs a tagger; without one nothing is a fragment)."""
        doc = self._parse(sentence)
        return doc.has_annotation("POS") and not any(t.pos_ in {"VERB", "AUX"} for t in doc)

    @staticmethod
    def _is_need(sentence: str) -> bool:
        if sentence.rstrip().endswith("?"):
            return True
        first = re.match(r"\W*([A-Za-z]+)", sentence)  # "What's" -> "What"
        return first is not None and first.group(1).lower() in WH_WORDS | AUX_WORDS | REQUEST_VERBS

    # ------------------------------------------------------------------ per sentence
    def _split_sentence(self, sentence: str) -> list[str]:
        term = sentence[len(sentence.rstrip("?.!")) :]
        core = sentence[: len(sentence) - len(term)].strip()
        upper = core[:1].isupper()
        first_word = re.match(r"[A-Za-z]*", core).group(0).lower()  # type: ignore[union-attr]  # always matches
        is_question = term.startswith("?") or first_word in WH_WORDS | AUX_WORDS

        compared = self._comparison(core, term, is_question)
        if compared:
            return compared

        # "as well as" is an "and" for every rule below; an unsplit sentence keeps its words.
        normal = _AS_WELL_AS.sub(" and ", core)
        parts: list[str] = []
        for clause in self._split_clauses(normal, term):
            for stacked in self._unstack(clause):
                parts.extend(self._split_nouns(stacked, term, depth=2) if self.split_objects else [stacked])
        if len(parts) <= 1:
            return [sentence]
        return [self._finish(p, term, upper) for p in parts]

    @staticmethod
    def _finish(part: str, term: str, upper: bool) -> str:
        part = part.strip().rstrip(",;:").strip()
        if upper:
            part = part[:1].upper() + part[1:]
        return part + term
