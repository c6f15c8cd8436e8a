"""Numbers in text, in one canonical form, so that lexical checks compare values, not spellings.

"$3,000", "3000 dollars" and "three thousand dollars" all hold the number ``3000``; "25%"
and "25 percent" hold ``25``; "eight" is ``8`` and "eighteen" ``18``. Used by the lexical
signals of a claim's verdict (`localeval.evidence.verdict`): a number the claim states and
the evidence does not is a strong sign the claim is not supported, whatever its format.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from localeval.text.memo import remembered

__all__ = ["NUMBER_WORDS", "ORDINAL_LEADS", "ORDINAL_WORDS", "SPELLED_NUMBERS", "TENS_WORDS", "Ordinal", "numbers_in", "ordinals"]

_UNITS = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
TENS_WORDS: dict[str, int] = {
    w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
ORDINAL_WORDS: dict[str, int] = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth".split())} | {
    w: 10 * (i + 2) for i, w in enumerate("twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth "
                                          "ninetieth".split())}
"""Ordinal words and their numbers; a compound ("forty-fifth") joins a tens word to one of 1-9."""
# The ordinal that ends a compound ordinal ("twenty-first", "forty-fifth"): the whole is its
# number, as "21st" is, not its tens word's ("the forty-fifth president" read 40 and was called
# missing beside "the 45th president"). "second" only after a word that takes an ordinal ("the
# thirty-second president", "its twenty-second year"): "a twenty-second delay" is 20 seconds.
_ORDINAL_UNITS = {w: v for w, v in ORDINAL_WORDS.items() if v < 10}
ORDINAL_LEADS = frozenset("the its his her their our my your whose".split())
"""Words before a number that make "...-second" an ordinal, not a count of seconds (a
possessive "'s" too)."""
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000,
           "trillion": 1_000_000_000_000, "k": 1_000, "bn": 1_000_000_000}  # not "m": metres
NUMBER_WORDS: frozenset[str] = frozenset(_UNITS) | frozenset(TENS_WORDS) | frozenset(_SCALES)
"""The words `numbers_in` reads as (part of) a number."""
# A comma belongs to a number only between digits, so that "in 2022, while" reads 2022.
# Digits glued to a word or code before them ("ED2", "LNW-80", "COVID-19") are part of a name.
_TOKEN = re.compile(r"(?<![A-Za-z])\d+(?:,\d+)*(?:\.\d+)?|[a-z]+", re.IGNORECASE)
_CODE = re.compile(r"(?<![\w-])[A-Za-z]+-\d[\w-]*")
# "2018-19" states both years; "30 April 1777 – 23 February 1855" does not (a day and a
# month follow the dash), nor does "1999 - 20 people" (a range ends after it starts).
# Month names are capitalised, so that "2018-19 may rise" stays a range.
_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
_YEARS = re.compile(rf"\b(1\d|20)(\d\d)\s*[-–]\s*(\d\d)(?!\d)(?!(?:st|nd|rd|th)?\s+(?:{_MONTHS}))")
# "[10]": a citation marker, not a number the text states.
_CITATION = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")
# "$2.6m", "€3 bn": after a currency sign, "m" is million (elsewhere it is metres).
_MONEY_SCALE = re.compile(r"([$€£]\s?\d+(?:\.\d+)?)\s?m\b")
# "50, 000": a thousands group spaced out by a tokenizer.
_SPACED_GROUP = re.compile(r"(?<=\d), (?=\d{3}(?!\d))")
# Clock times ("14:00", "2 p.m.", "9.30 am") are one value each, "14:00", read before any number.
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})(?!\d)(?:\s*([ap])\.?m\b\.?)?", re.IGNORECASE)
_MERIDIEM = re.compile(r"\b(\d{1,2})(?:\.(\d{2}))?\s*([ap])\.?m\b\.?", re.IGNORECASE)
_DECADE = re.compile(r"\b(\d{3}0)'?s\b")
# A year-like, ordinal-suffixed or plain number: commas are thousands separators only when
# every group after the first has three digits ("1,200" but not "1,2").
_GROUPED = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def _value(token: str) -> float | None:
    if token[0].isdigit():
        if "," in token and not _GROUPED.match(token):
            return None
        try:
            return float(token.replace(",", ""))
        except ValueError:
            return None
    word = token.lower()
    if word in _UNITS:
        return float(_UNITS[word])
    if word in TENS_WORDS:
        return float(TENS_WORDS[word])
    return None


def _canonical(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _times_and_decades(text: str) -> tuple[str, set[str]]:
    """Clock times as "H:MM" (24 hours) and decades as "1920s"; the text without them."""
    found: set[str] = set()

    def clock(match: re.Match) -> str:
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        meridiem = (match.group(3) or "").lower()
        if meridiem == "p" and hour < 12:
            hour += 12
        elif meridiem == "a" and hour == 12:
            hour = 0
        if hour < 24 and minute < 60:
            found.add(f"{hour}:{minute:02d}")
        return " "

    def decade(match: re.Match) -> str:
        found.add(match.group(1) + "s")
        return " "

    def years(match: re.Match) -> str:
        if int(match.group(3)) <= int(match.group(2)):
            return match.group(0)
        found.add(match.group(1) + match.group(2))
        found.add(match.group(1) + match.group(3))
        return " "

    text = _MONEY_SCALE.sub(r"\1 million", _SPACED_GROUP.sub(",", _CITATION.sub(" ", text)))
    text = _YEARS.sub(years, text)
    text = _CLOCK.sub(clock, text)
    text = _MERIDIEM.sub(clock, text)
    return _CODE.sub(" ", _DECADE.sub(decade, text)), found


def _tens(value: float) -> bool:
    """A bare tens number ("twenty") that a unit or an ordinal word after it may complete."""
    return 20 <= value < 100 and value % 10 == 0


@remembered
def numbers_in(text: str) -> frozenset[str]:
    """Canonical numbers stated in ``text`` ("3,000" / "three thousand" -> ``"3000"``).

    A number word joined to a tens word ("twenty-five") is one number, and so is an ordinal
    joined to one ("twenty-first" -> ``"21"``, as "21st"; an ordinal alone, "nineteenth", states
    no number); a scale word after a number multiplies it ("2.5 million" -> ``"2500000"``).
    "one" alone is left out: it is far more often a pronoun ("the one that ...") than a count.
    """
    current: float | None = None  # the number being read
    spelled = True  # read from words only (so "one" alone can be skipped)
    lead = previous = ""  # the word before the number being read, and the last token

    def close() -> None:
        if current is not None and not (spelled and current == 1):
            found.add(_canonical(current))

    text, found = _times_and_decades(text)
    for token in _TOKEN.findall(text.replace("-", " ")):
        lowered = token.lower()
        value = _value(token)
        if value is not None:
            # Only a tens word: "40 five-star hotels" are forty.
            if current is not None and spelled and lowered in _UNITS and _tens(current):
                current += value  # "twenty five"
            else:
                close()
                current, spelled, lead = value, not token[0].isdigit(), previous
        elif (current is not None and spelled and lowered in _ORDINAL_UNITS and _tens(current)
              and (lowered != "second" or lead in ORDINAL_LEADS or lead == "s")):  # "s": "Ohio's"
            current += _ORDINAL_UNITS[lowered]  # "twenty-first": complete, nothing multiplies it
            close()
            current = None
        elif current is not None and lowered in _SCALES:
            current *= _SCALES[lowered]
            spelled = False
        else:
            close()
            current = None
        previous = lowered
    close()
    return frozenset(found)


_ORDINAL = re.compile(
    r"(?<![\w.,:-])(?:(?P<digits>\d{1,3})(?:st|nd|rd|th)"
    rf"|(?:(?P<tens>{'|'.join(TENS_WORDS)})[\s-])?(?P<word>{'|'.join(sorted(ORDINAL_WORDS, key=len, reverse=True))}))"
    r"(?!\w)",  # "the 21st-century", "fifth-largest"
    re.IGNORECASE,
)
SPELLED_NUMBERS = "|".join(sorted((w for w in NUMBER_WORDS if len(w) > 2), key=len, reverse=True))
"""A regular expression's alternation of the number words (longest first; not "k", "bn")."""
# "one second", "30 second": the unit of time, not the ordinal.
_COUNT_BEFORE = re.compile(rf"(?:\d|\b(?:{SPELLED_NUMBERS}))\s*$", re.IGNORECASE)
_LAST_WORD = re.compile(r"([\w']+)\W*$")


class Ordinal(NamedTuple):
    """An ordinal of a text, where ``text[start:end]`` writes it, and its number."""

    start: int
    end: int
    value: int


@remembered
def ordinals(text: str) -> tuple[Ordinal, ...]:
    """The ordinals of ``text``, in digits ("44th") or words ("forty-fourth", "third"), with
    their numbers. `numbers_in` reads a compound ordinal and one in digits as numbers, an
    ordinal word alone as none ("first" is as often an adverb); this reader gives every one,
    for comparing ordinals with ordinals."""
    out = []
    for m in _ORDINAL.finditer(text):
        if m["digits"]:
            out.append(Ordinal(m.start(), m.end(), int(m["digits"])))
            continue
        word, before = m["word"].lower(), text[:m.start()]
        value = ORDINAL_WORDS[word]
        tens = TENS_WORDS[m["tens"].lower()] if m["tens"] else 0
        if tens and value > 9:  # "twenty tenth": no compound; the ordinal alone
            out.append(Ordinal(m.start("word"), m.end(), value))
        elif word != "second" or (not tens and not _COUNT_BEFORE.search(before)) or (tens and _leads(before)):
            out.append(Ordinal(m.start(), m.end(), tens + value))  # not "a thirty-second advert"
    return tuple(out)


def _leads(before: str) -> bool:
    """Does the word before a "...-second" make it an ordinal (`ORDINAL_LEADS`, a possessive)?"""
    last = _LAST_WORD.search(before)
    return last is not None and (last[1].lower() in ORDINAL_LEADS or last[1].lower().endswith("'s"))
