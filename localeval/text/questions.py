"""Question decomposition: the sub-questions (information needs) a question asks.

`QuestionDecomposer` is the older, question-only interface: ``decompose(question) ->
list[str]``; any object with that method still plugs into `QuestionRecall`. The full
interface is `localeval.text.decomposition.Decomposer` (claims and sub-questions), which
`RuleBasedDecomposer` implements too. `RuleBasedDecomposer` is the deterministic default:
the same question always gives the same sub-questions, with no model but spaCy's small English pipeline.

Rules of `RuleBasedDecomposer`, applied in this order (each is conservative: when a rule is not
sure, the question stays whole):

1. **Sentences.** The question is split into sentences (re-joined where the splitter cut
   inside a quoted title, after an initial, or before a lowercase continuation). Questions
   (ending in ``?`` or starting with a wh-word, an auxiliary or a request verb such as
   "explain", "list", "compare") are information needs. A sentence without a verb right after
   a need is its follow-up ("... during driving? If so, why?" stays one). Other sentences are
   background, kept verbatim in front of the next need (or after the last one): "I live in
   Berlin. What is the rent like?" stays whole. Text without any need is one need as it
   stands ("capital of france").
2. **Comparisons.** "difference(s) between X and Y", "compare X and/with/to Y", "how does X
   differ from Y", "how do X and Y differ", and a sentence opening with "X vs Y" -> "What is
   X?", "What is Y?" (``are`` for plurals) and the comparison itself: the sentence as written
   when it is a question, else "How do X and Y differ ...?" (a variant of "how do they
   differ" that names X and Y, so it can be judged on its own). A comparison is not split
   further. "vs" inside a sentence is left alone ("graft versus host disease").
3. **Stacked wh-words.** "Where and when was X built?" -> "Where was X built?", "When was X
   built?".
4. **Coordinated clauses.** "What is X and how does it work?" -> two questions, split at
   "and"/"but"/";" when the next clause starts with a wh-word, or with an auxiliary and a
   pronoun or name ("... and can I use it commercially?"). A bare wh-tail borrows the first
   clause's body ("When was X built and by whom?" -> "By whom was X built?"), unless the
   wh-word was that clause's subject. Under a request ("Explain what X is and how it
   works.") the request is repeated ("Explain how it works."). With ``resolve_pronouns`` a
   single "it" (or "they"/"them") in a later clause is replaced by the topic of a first
   clause "wh + be/aux + noun phrase" or "wh-subject + verb + noun phrase": "How does RAG
   work?", "When was the Eiffel Tower built?", "When was Jaws released?". Without such an
   antecedent the pronoun stays.
5. **Coordinated noun phrases** (``split_objects``), in wh-questions and requests only, for
   objects, prepositional objects, and the subject of a plural "are"/"were": "What are the
   capitals of France and Germany?" -> "... of France?", "... of Germany?"; "What are the
   causes and effects of X?" -> causes of X / effects of X (modifiers on either side are
   shared: "increased SARS-CoV morbidity and mortality"). Not split: "or" (an alternative
   asks for one answer); yes/no questions ("wash it with soap and water?"); lists inside a
   description (a relative or other subordinate clause, or more than two prepositions away
   from the main verb: "a film starring X and Y"); a named entity containing the "and"
   ("Bosnia and Herzegovina"), a capitalised "The" inside ("Fitz and The Tantrums"), case
   names ("X and Y v. Z"), fixed pairs ("research and development"); a later conjunct with a
   possessive pronoun ("clematis and its berries"); subjects of other verbs ("What did Lennon
   and McCartney write?") and of a singular copula ("this dancer, actress and writer was");
   collective questions (between, common, together, both, related, same, differ, ...).
   "as well as" counts as "and".

A question no rule splits is returned as written (whitespace collapsed). Empty input, or input
without a letter or digit -> ``[]``. Sub-questions are de-duplicated, in order of appearance.
Derived sub-questions keep the question's final punctuation and start with a capital letter
when the question does. Clause and noun-phrase rules need a spaCy pipeline with a tagger and a
parser (``$LOCALEVAL_SPACY_MODEL`` or the default English one); a pipeline without them
disables those rules rather than guessing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from localeval.text.entities import load_nlp
from localeval.text.sentences import split_sentences

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

__all__ = ["QuestionDecomposer", "RuleBasedDecomposer"]

WH_WORDS = frozenset({"what", "who", "whom", "whose", "which", "when", "where", "why", "how"})
AUX_WORDS = frozenset({
    "is", "are", "was", "were", "am", "be", "'s", "do", "does", "did", "can", "could", "should",
    "would", "will", "shall", "may", "might", "must", "has", "have", "had",
})
REQUEST_VERBS = frozenset({
    "explain", "describe", "list", "name", "tell", "give", "compare", "contrast", "define",
    "summarize", "summarise", "show", "provide", "outline", "identify", "find", "state", "discuss",
})
_SINGULAR_AUX = frozenset({"is", "was", "does", "has", "'s"})
_PLURAL_AUX = frozenset({"are", "were", "do", "have"})
_NOUNISH = frozenset({"NOUN", "PROPN"})
_OBJECT_DEPS = frozenset({"dobj", "pobj", "appos"})
# Words that make "X and Y" one joint thing: splitting would change the question. ("each
# other" is checked as a pair.)
_COLLECTIVE = frozenset({
    "between", "common", "together", "both", "relationship", "relationships", "relation",
    "relations", "related", "relate", "differ", "differs", "different", "difference",
    "differences", "similar", "similarity", "similarities", "same", "compare", "compared",
    "comparison", "versus", "vs", "vs.", "v.", "combined", "combine", "total", "sum", "ratio",
    "correlation", "interact", "interaction", "interactions", "distance", "mix", "merge",
    "jointly",
})
# Fixed "X and Y" pairs that name one thing.
_FIXED_PAIRS = frozenset(
    {
        ("research", "development"), ("rock", "roll"), ("trial", "error"), ("salt", "pepper"),
        ("bread", "butter"), ("black", "white"), ("law", "order"), ("arts", "crafts"),
        ("bed", "breakfast"), ("fish", "chips"), ("q", "a"), ("r", "d"), ("m", "a"),
        ("mergers", "acquisitions"), ("profit", "loss"), ("supply", "demand"),
    }
)

_WH = r"(?:what|who|whom|whose|which|when|where|why|how)"
_WH_STACK = re.compile(rf"^({_WH}(?:\s*,\s*(?:(?:and|or)\s+)?{_WH}|\s+(?:and|or)\s+{_WH})+)\s+(\S.*)$", re.IGNORECASE)
_AS_WELL_AS = re.compile(r"\s*,?\s+as well as\s+", re.IGNORECASE)
_TAIL = (
    r"(?=\s*(?:[?.!;,:]|$)|\s+(?:in terms of|with respect to|with regard to|regarding|"
    r"when it comes to|for|in|on|at|as|when|if)\b)"
)
_PART = r"[^,;:?!]+?"
_COMPARISONS = (
    re.compile(rf"\b(?:differences?|distinctions?|contrast)\s+between\s+(?P<x>{_PART})\s+and\s+(?P<y>{_PART}){_TAIL}", re.IGNORECASE),
    re.compile(rf"\b(?:compare|comparing|contrast|contrasting)\s+(?P<x>{_PART})\s+(?:and|with|to|against|vs\.?|versus)\s+(?P<y>{_PART}){_TAIL}", re.IGNORECASE),
    re.compile(rf"\bhow\s+(?:does|do|did|is|are|was|were)\s+(?P<x>{_PART})\s+(?:differ|different)\s+from\s+(?P<y>{_PART}){_TAIL}", re.IGNORECASE),
    re.compile(rf"\bhow\s+(?:do|did|are|were)\s+(?P<x>{_PART})\s+and\s+(?P<y>{_PART})\s+(?:differ|different|compare)\b", re.IGNORECASE),
)


@runtime_checkable
class QuestionDecomposer(Protocol):
    """Anything that turns a question into its sub-questions.

    Contract: deterministic for a given question; ``[]`` for an empty question; a question
    that asks one thing is its own single sub-question.
    """

    def decompose(self, question: str) -> list[str]: ...


def _is_wh(token: Token) -> bool:
    return token.lower_ in WH_WORDS


def _content_word(token: Token) -> bool:
    return not (token.is_stop or token.is_punct or token.is_space) and any(ch.isalnum() for ch in token.text)


_CLAUSE_DEPS = frozenset({"relcl", "acl", "advcl", "ccomp", "xcomp", "pcomp", "csubj", "csubjpass"})


def _near_the_question(token: Token) -> bool:
    """True when ``token`` belongs to what the question asks about: no clause boundary and
    at most two prepositions between it and the main verb. A list inside a description is
    not: "the designer of the attraction with variants in California, France and Tokyo",
    "a film starring Nicolas Cage and Tea Leoni" ask one question each."""
    prepositions = 0
    while token.dep_ != "ROOT" and token.head is not token:
        if token.dep_ in _CLAUSE_DEPS:
            return False
        prepositions += token.dep_ == "prep"
        token = token.head
    return prepositions <= 2


def _singular(token: Token) -> bool:
    """A singular noun; a name by its spelling, since taggers guess names' number ("Romeo"
    comes out NNPS, "the Andes" NNP)."""
    if token.pos_ == "PROPN":
        return not token.lower_.endswith("s")
    return token.tag_ == "NN"


def _text(tokens: Sequence[Token], replace: dict[int, str] | None = None) -> str:
    """The original text of consecutive tokens, optionally with some tokens replaced."""
    replace = replace or {}
    return "".join(replace.get(t.i, t.text) + t.whitespace_ for t in tokens).strip()


class RuleBasedDecomposer:
    """Deterministic decomposition of a question (the rules are in the module docstring).

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

    # ------------------------------------------------------------------ 2. comparisons
    def _comparison(self, core: str, term: str, is_question: bool) -> list[str] | None:
        found = next((m for m in (p.search(core) for p in _COMPARISONS) if m), None)
        if found:
            x, y, rest = found.group("x").strip(), found.group("y").strip(), core[found.end():]
        else:
            x_y = self._versus(core)
            if x_y is None:
                return None
            x, y, rest = *x_y, ""
        if not x or not y or x.lower() == y.lower():
            return None
        comparison = core + term if is_question else f"How do {x} and {y} differ{rest.rstrip()}?"
        return [f"What {self._be(x)} {x}?", f"What {self._be(y)} {y}?", comparison]

    def _versus(self, core: str) -> tuple[str, str] | None:
        """X and Y of a sentence opening with "X vs Y" (or "versus"): the noun chunks (else
        single content words) that touch it."""
        if not re.search(r"\b(?:vs\.?|versus)\s", core, re.IGNORECASE):
            return None
        doc = self._parse(core)
        if not doc.has_annotation("DEP"):
            return None
        for token in doc:
            if token.lower_ not in {"vs", "vs.", "versus"}:
                continue
            chunks = list(doc.noun_chunks)
            left = next((c for c in chunks if c.end == token.i), None)
            right = next((c for c in chunks if c.start == token.i + 1), None)
            # Without a noun chunk, one content word will do: taggers often miss product
            # names ("PostgreSQL" comes out as an adverb).
            if left is None and token.i > 0 and _content_word(doc[token.i - 1]):
                left = doc[token.i - 1 : token.i]
            if right is None and token.i + 1 < len(doc) and _content_word(doc[token.i + 1]):
                right = doc[token.i + 1 : token.i + 2]
            # Only "X vs Y ..." opening the sentence: inside one, "vs" is as often part of a
            # name ("graft versus host disease") as a comparison.
            if left is None or right is None or any(t.is_alpha for t in doc[: left.start]):
                return None
            return left.text, right.text
        return None

    def _be(self, phrase: str) -> str:
        """"are" for a plural noun phrase, else "is"."""
        doc = self._parse(phrase)
        nouns = [t for t in doc if t.pos_ in _NOUNISH]
        plural = " and " in f" {phrase.lower()} " or bool(nouns and nouns[-1].tag_ in {"NNS", "NNPS"})
        return "are" if plural else "is"

    # ------------------------------------------------------------------ 3. stacked wh-words
    @staticmethod
    def _unstack(clause: str) -> list[str]:
        match = _WH_STACK.match(clause)
        if not match:
            return [clause]
        words = re.findall(_WH, match.group(1), re.IGNORECASE)
        return [f"{w} {match.group(2)}" for w in words]

    # ------------------------------------------------------------------ 4. clauses
    def _split_clauses(self, core: str, term: str) -> list[str]:
        doc = self._parse(core + term)  # parsed with its "?": the tagger expects it
        tokens = [t for t in doc if t.idx < len(core)]
        if not tokens or not doc.has_annotation("POS"):
            return [core]
        n = len(tokens)
        first_wh = next((i for i, t in enumerate(tokens) if _is_wh(t)), None)
        # A request around embedded questions: "Explain what X is and how it works."
        prefix_end = first_wh if first_wh and any(t.pos_ == "VERB" for t in tokens[:first_wh]) else 0
        prefix = _text(tokens[:prefix_end])

        bounds: list[tuple[int, int, str]] = []  # (split token, start of right part, kind)
        for i in range(prefix_end + 1, n - 1):
            if not (tokens[i].lower_ in {"and", "but"} or tokens[i].text == ";"):
                continue
            j = i + 1
            while j < n and tokens[j].lower_ in {"also", "then", "so"}:
                j += 1
            if j >= n:
                continue
            if _is_wh(tokens[j]) or (tokens[j].pos_ == "ADP" and j + 1 < n and _is_wh(tokens[j + 1])):
                bounds.append((i, j, "wh"))
            elif (
                tokens[j].lower_ in AUX_WORDS
                and j + 1 < n
                and tokens[j + 1].pos_ in {"PRON", "PROPN"}  # "and is it ...", not "and is the ..."
                and not _is_wh(tokens[j + 1])
            ):
                bounds.append((i, j, "aux"))

        segments: list[tuple[list[Token], str]] = []  # (tokens, how the right part is used)
        start, kind_of_start = 0, "first"
        for k, (i, j, kind) in enumerate(bounds):
            end = bounds[k + 1][0] if k + 1 < len(bounds) else n
            left, right = tokens[start:i], tokens[j:end]
            use = self._clause_use(left, right, kind, bool(prefix))
            if use is None:
                continue
            segments.append((left, kind_of_start))
            start, kind_of_start = j, use
        segments.append((tokens[start:], kind_of_start))
        if len(segments) == 1:
            return [core]

        first = segments[0][0]
        topic = self._antecedent(first[prefix_end:]) if self.resolve_pronouns else None
        clauses: list[str] = []
        for index, (part, use) in enumerate(segments):
            if use == "graft":
                clauses.append(f"{_text(part)} {self._body(segments[index - 1][0])}")
                continue
            text = self._resolve(part, topic) if index and topic else _text(part)
            clauses.append(f"{prefix} {text}" if use == "prefixed" else text)
        return clauses

    def _clause_use(self, left: list[Token], right: list[Token], kind: str, prefixed: bool) -> str | None:
        """How ``right`` becomes a question of its own, or None when the split is unsafe."""
        if not any(t.pos_ in {"VERB", "AUX"} for t in left):
            return None  # "Where and when ...": a stacked wh-word, not a clause
        if kind == "aux":
            return "plain"
        if any(t.pos_ in {"VERB", "AUX"} for t in right):
            return "prefixed" if prefixed else "plain"
        if not prefixed and self._bare_tail(right) and self._body(left):
            return "graft"  # "... and by whom?"
        return None

    @staticmethod
    def _bare_tail(right: Sequence[Token]) -> bool:
        """A wh-phrase without a verb that can take the first clause's body: "why", "by whom",
        "how often", "in which year" (but not "which river": that needs its own verb)."""
        k = 1 if right and right[0].pos_ == "ADP" else 0
        if k >= len(right) or not _is_wh(right[k]):
            return False
        rest = right[k + 1 :]
        if right[k].lower_ in {"when", "where", "why", "how", "whom"}:
            return all(t.pos_ in {"ADJ", "ADV"} for t in rest)
        # "in which year", "at what time": only behind a preposition
        return k == 1 and right[k].lower_ in {"which", "what"} and all(t.pos_ in {"NOUN", "ADJ"} for t in rest)

    @staticmethod
    def _wh_phrase_end(tokens: Sequence[Token]) -> int | None:
        """Index of the auxiliary that follows a leading wh-phrase ("In which year was ...")."""
        k = 1 if tokens and tokens[0].pos_ == "ADP" else 0
        if k >= len(tokens) or not _is_wh(tokens[k]):
            return None
        k += 1
        while k < len(tokens) and tokens[k].lower_ not in AUX_WORDS and tokens[k].pos_ in {"ADJ", "ADV", "NOUN", "DET"}:
            k += 1
        return k if k < len(tokens) and tokens[k].lower_ in AUX_WORDS else None

    def _body(self, left: Sequence[Token]) -> str:
        """"was X built" of "When was X built": what a bare wh-tail is attached to."""
        k = self._wh_phrase_end(left)
        if k is None or k + 1 >= len(left) or left[k + 1].pos_ in {"VERB", "AUX"}:
            return ""  # "What would happen ...": the wh-word is the subject, nothing to borrow
        return _text(left[k:])

    def _antecedent(self, first: Sequence[Token]) -> tuple[str, bool | None] | None:
        """(noun phrase, plural) that a first clause is about, for two shapes only:
        "wh + aux + NP [+ participle]" ("Where is X", "When was X built") and
        "wh-subject + verb + NP" ("Who directed X"). Anything else: None (no resolution).
        ``plural`` is None when unknown: a proper name's tag says little ("Jaws" is NNPS)."""
        k = self._wh_phrase_end(first)
        if k is not None:
            aux, phrase = first[k], list(first[k + 1 :])
            if phrase and phrase[-1].pos_ == "VERB" and phrase[-1].tag_ in {"VBN", "VB", "VBG"}:
                phrase = phrase[:-1]  # "When was the Eiffel Tower built"
        elif len(first) > 2 and _is_wh(first[0]) and first[0].dep_ == "nsubj" and first[1].pos_ == "VERB":
            aux, phrase = None, list(first[2:])
        else:
            return None
        if (
            not phrase
            or phrase[0].pos_ == "PRON"
            or any(t.pos_ in {"VERB", "AUX"} or _is_wh(t) for t in phrase)
            or not any(t.pos_ in _NOUNISH for t in phrase)
        ):
            return None
        if aux is not None and aux.lower_ in _SINGULAR_AUX:
            plural = False
        elif aux is not None and aux.lower_ in _PLURAL_AUX:
            plural = True
        else:  # the phrase's own head noun decides ("the capital of France" is singular)
            inside = {t.i for t in phrase}
            heads = [t for t in phrase if t.pos_ in _NOUNISH and t.head.i not in inside]
            if heads and heads[0].pos_ == "PROPN":
                plural = None
            else:
                plural = bool(heads) and heads[0].tag_ in {"NNS", "NNPS"}
        return _text(phrase), plural

    @staticmethod
    def _resolve(part: Sequence[Token], topic: tuple[str, bool | None]) -> str:
        """Replace the one "it" ("they"/"them" for a plural topic, any of the three when the
        number is unknown) of ``part`` by the topic; with none or several, change nothing."""
        phrase, plural = topic
        forms = {"it", "they", "them"} if plural is None else {"they", "them"} if plural else {"it"}
        found = [t for t in part if t.lower_ in forms and t.tag_ == "PRP"]
        if len(found) != 1:
            return _text(part)
        return _text(part, {found[0].i: phrase})

    # ------------------------------------------------------------------ 5. noun phrases
    def _split_nouns(self, clause: str, term: str, depth: int) -> list[str]:
        doc = self._parse(clause + (term or "?"))
        if depth <= 0 or not doc.has_annotation("DEP"):
            return [clause]
        words = {t.lower_ for t in doc}
        if words & _COLLECTIVE or {"each", "other"} <= words:
            return [clause]
        if not (words & WH_WORDS or doc[0].lower_ in REQUEST_VERBS):
            # Only what a wh-question or a request asks about is distributed: in a yes/no
            # question "X and Y" is usually one condition ("wash it with soap and water?").
            return [clause]
        for head in doc:
            conjuncts = self._coordination(doc, head)
            if not conjuncts:
                continue
            variants = self._distribute(doc, conjuncts, len(clause))
            if variants:
                return [v for variant in variants for v in self._split_nouns(variant, term, depth - 1)]
        return [clause]

    @staticmethod
    def _coordination(doc: Doc, head: Token) -> list[Token] | None:
        """The conjuncts of a safely distributable "X, Y and Z" headed by ``head``."""
        if head.dep_ == "conj" or head.pos_ not in _NOUNISH or not head.conjuncts:
            return None
        if head.dep_ in {"nsubj", "attr"}:
            # The subject (or predicate) of a copula is split only under a plural verb: "What
            # are the causes and effects ...", but "this dancer, actress and writer was ..."
            # and "who is a physicist and an adviser" name one person.
            if head.head.lower_ not in {"are", "were"}:
                return None
        elif head.dep_ not in _OBJECT_DEPS:
            return None
        conjuncts = sorted([head, *head.conjuncts], key=lambda t: t.i)
        if any(c.pos_ not in _NOUNISH for c in conjuncts):
            return None
        if not _near_the_question(head):
            return None
        if any(t.dep_ == "poss" and t.pos_ == "PRON" for c in conjuncts[1:] for t in c.lefts):
            return None  # "clematis and its berries": "its" would lose what it points to
        ccs = [t for c in conjuncts for t in c.children if t.dep_ == "cc"]
        if not ccs or any(t.lower_ != "and" for t in ccs):
            return None
        if any((a.lower_, b.lower_) in _FIXED_PAIRS or a.lower_ == b.lower_ for a, b in pairwise(conjuncts)):
            return None
        for ent in doc.ents:  # "Bosnia and Herzegovina" is one place
            if any(ent.start <= t.i < ent.end for t in ccs) or sum(ent.start <= c.i < ent.end for c in conjuncts) > 1:
                return None
        return conjuncts

    @staticmethod
    def _distribute(doc: Doc, conjuncts: list[Token], clause_chars: int) -> list[str]:
        """One clause per conjunct.

        Modifiers to the right of the coordination are shared ("the causes and effects of X",
        "the pros and cons of X", however the parser attached them) unless a conjunct before
        the last has its own ("the benefits of X and the risks of Y").
        """
        nexts = [c.i for c in conjuncts[1:]]

        def own_end(token: Token, limit: int) -> int:
            kids = [c for c in token.rights if c.dep_ not in {"cc", "conj", "punct"} and c.i < limit]
            return max((c.right_edge.i for c in kids), default=token.i)

        ends = [own_end(c, limit) for c, limit in zip(conjuncts, nexts)]
        last = conjuncts[-1]
        ends.append(last.right_edge.i if any(e > c.i for e, c in zip(ends, conjuncts)) else last.i)
        spans = [doc[c.left_edge.i : e + 1] for c, e in zip(conjuncts, ends)]
        if any(_is_wh(t) or t.pos_ == "SYM" or (t.is_punct and t.text not in {",", "-", "'"}) for span in spans for t in span):
            # "the capital of France and which river", "CC1 ~ CC4 / Text1": not a plain list
            return []
        if any(t.is_title and t.is_stop for span in spans[1:] for t in span if t.i > 0):
            return []  # "Fitz and The Tantrums": a capitalised "The" inside marks a name
        # Left modifiers of the first conjunct ("the", "increased SARS-CoV") are shared by
        # later conjuncts that have none of their own: "the GDP and population".
        first = conjuncts[0]
        shared = _text([t for t in spans[0] if t.i < first.i]) if first.i > spans[0].start else ""
        start, end = spans[0].start_char, spans[-1].end_char
        head = conjuncts[0]
        verb = head.head if head.dep_ == "nsubj" else None
        variants = []
        for conjunct, span in zip(conjuncts, spans):
            phrase = span.text
            if shared and conjunct is not first and not list(conjunct.lefts):
                phrase = f"{shared} {phrase}"
            text = doc.text[:start] + phrase + doc.text[end:clause_chars]
            if verb is not None and verb.lower_ in {"are", "were"} and _singular(conjunct):
                # "What are the GDP and population of X?" -> "What is the GDP of X?"
                singular = {"are": "is", "were": "was"}[verb.lower_]
                singular = singular.capitalize() if verb.text[0].isupper() else singular
                shift = 0 if verb.idx < start else len(phrase) - (end - start)
                text = text[: verb.idx + shift] + singular + text[verb.idx + shift + len(verb.text) :]
            variants.append(text)
        return variants
