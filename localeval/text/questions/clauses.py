"""Rules 3 and 4: stacked wh-words ("Where and when ...") and coordinated clauses ("What is X
and how does it work?"), with pronoun resolution."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from localeval.text.questions.vocab import (
    AUX_WORDS,
    _NOUNISH,
    _PLURAL_AUX,
    _SINGULAR_AUX,
    _WH,
    _WH_STACK,
    _is_wh,
    _text,
)

if TYPE_CHECKING:
    from spacy.tokens import Token


class ClauseRules:
    """Mixin of `RuleBasedDecomposer` (uses its ``_parse`` and ``resolve_pronouns``)."""

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
