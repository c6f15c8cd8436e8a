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

from typing import Protocol, runtime_checkable

from localeval.text.questions.rule_based import RuleBasedDecomposer

__all__ = ["QuestionDecomposer", "RuleBasedDecomposer"]


@runtime_checkable
class QuestionDecomposer(Protocol):
    """Anything that turns a question into its sub-questions.

    Contract: deterministic for a given question; ``[]`` for an empty question; a question
    that asks one thing is its own single sub-question.
    """

    def decompose(self, question: str) -> list[str]: ...
