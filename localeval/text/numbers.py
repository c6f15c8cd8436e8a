"""Numbers in text, in one canonical form, so that lexical checks compare values, not spellings.

"$3,000", "3000 dollars" and "three thousand dollars" all hold the number ``3000``; "25%"
and "25 percent" hold ``25``; "eight" is ``8`` and "eighteen" ``18``. Used by the lexical
signals of a claim's verdict (`localeval.evidence.verdict`): a number the claim states and
the evidence does not is a strong sign the claim is not supported, whatever its format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from localeval.text.memo import remembered

__all__ = ["BELOW_HEDGES", "HEDGES", "NUMBER_WORDS", "ORDINAL_LEADS", "ORDINAL_WORDS", "SCALE_WORDS", "SPELLED_NUMBERS",
           "TENS_WORDS", "Ordinal", "and_a_half", "approximated", "approximates", "hedged_numbers", "is_year", "number_value",
           "numbers_in", "ordinals"]

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
# An ordinal ends a compound ("twenty-first", "forty-fifth"): the whole is its number, as
# "21st" is, not its tens word's ("the forty-fifth president" read 40 and was called missing
# beside "the 45th president"). "second" only after a word that takes an ordinal ("the
# thirty-second president", "its twenty-second year"): "a twenty-second delay" is 20 seconds.
ORDINAL_LEADS = frozenset("the its his her their our my your whose".split())
"""Words before a number that make "...-second" an ordinal, not a count of seconds (a
possessive "'s" too)."""
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000,
           "trillion": 1_000_000_000_000, "k": 1_000, "bn": 1_000_000_000}  # not "m": metres
SCALE_WORDS = frozenset({"hundred", "thousand", "million", "billion", "trillion"})
"""The scale words in full, the ones "a" or "an" counts one of ("a hundred", "a million")."""
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


@remembered
def numbers_in(text: str) -> frozenset[str]:
    """Canonical numbers stated in ``text`` ("3,000" / "three thousand" -> ``"3000"``).

    Number words read as English writes them (`_spelled`): "twenty-five" is 25, "three hundred
    and sixty-five" 365, "a hundred" 100, "one thousand two hundred" 1200; an ordinal ends a
    compound ("twenty-first" and "one hundred and first" are 21 and 101, as "21st" and "101st"
    are; an ordinal alone, "nineteenth", states no number). A scale word after digits multiplies
    them ("2.5 million" -> ``"2500000"``). "one" alone is left out: it is far more often a
    pronoun ("the one that ...") than a count.
    """
    text, found = _times_and_decades(text)
    tokens = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text.replace("-", " "))]
    words = [token.lower() for token, _, _ in tokens]
    # Words of one number stand next to each other: "five hundred, twenty of them" is two.
    joined = [i > 0 and not text[tokens[i - 1][2]:tokens[i][1]].replace("-", " ").strip() for i in range(len(tokens))]
    i = 0
    while i < len(tokens):
        token = tokens[i][0]
        if token[0].isdigit():
            value, i = _value(token), i + 1
            while value is not None and i < len(tokens) and words[i] in _SCALES and joined[i]:
                value, i = value * _SCALES[words[i]], i + 1
            if value is not None:
                found.add(_canonical(value))
            continue
        read = _spelled(words, joined, i)
        if read is None:
            i += 1
            continue
        value, end = read
        if not (end == i + 1 and value == 1):  # "one" alone
            found.add(_canonical(value))
        i = end
    return frozenset(found)


_GROUP_SCALES = {w: v for w, v in _SCALES.items() if v > 100}
"""The scale words that close a group of three digits ("two thousand", "5k")."""


def _small(words: list[str], joined: list[bool], i: int) -> tuple[float, int] | None:
    """The number 0-99 that number words start at ``words[i]`` ("seven", "nineteen", "forty",
    "forty five"), and where it ends; None where no unit or tens word stands there."""
    word = words[i]
    if word in _UNITS:
        return float(_UNITS[word]), i + 1
    if word not in TENS_WORDS:
        return None
    value = float(TENS_WORDS[word])
    if i + 1 < len(words) and joined[i + 1] and 1 <= _UNITS.get(words[i + 1], 0) <= 9:
        return value + _UNITS[words[i + 1]], i + 2
    return value, i + 1


def _ordinal_at(words: list[str], joined: list[bool], i: int, lead: str) -> int | None:
    """The number of the ordinal word at ``words[i]`` that completes a spelled number
    ("twenty-first", "hundred and tenth"), or None. "second" only after a word that takes an
    ordinal (`_takes_ordinal`): "a twenty-second delay" is twenty seconds."""
    if i >= len(words) or not joined[i] or words[i] not in ORDINAL_WORDS:
        return None
    return None if words[i] == "second" and not _takes_ordinal(lead) else ORDINAL_WORDS[words[i]]


def _spelled(words: list[str], joined: list[bool], i: int) -> tuple[float, int] | None:
    """The number that number words starting at ``words[i]`` write, and the index after its
    last word; None where none starts there.

    Groups below a thousand ("three hundred and sixty-five") joined by scale words ("two
    thousand and five", "one million two hundred thousand"); "a" or "an" before a scale word
    counts one ("a hundred"); "and" joins only a number below a hundred after "hundred" or a
    scale word, so "between one hundred and two hundred" stays two numbers; "half a million"
    is 500,000, and "and a half" adds half of what it follows ("two and a half years" 2.5,
    "one and a half million" 1.5 million, "a million and a half" 1.5 million). An ordinal word
    after a bare tens word, after "hundred" or after such an "and" ends the number: "twenty-
    first" is 21 and "one hundred and first" 101."""
    lead = words[i - 1] if i > 0 else ""
    total, group, after, j, scale = 0.0, 0.0, "", i, 1.0
    if words[i] in ("a", "an") and i + 1 < len(words) and joined[i + 1] and words[i + 1] in SCALE_WORDS:
        group, after, j = 1.0, "small", i + 1
    elif words[i] == "half" and i + 2 < len(words) and joined[i + 1] and words[i + 1] in ("a", "an") and (
            joined[i + 2] and words[i + 2] in SCALE_WORDS):
        group, after, j = 0.5, "small", i + 2  # "half a million"
    while j < len(words) and (j == i or joined[j]):
        word = words[j]
        small = _small(words, joined, j) if after in ("", "hundred", "scale", "and") else None
        if small is not None:
            group, j, after = group + small[0], small[1], "small"
            ordinal = _ordinal_at(words, joined, j, lead) if words[j - 1] in TENS_WORDS else None
            if ordinal is not None and ordinal < 10:  # "twenty-first"
                return total + group + ordinal, j + 1
            continue
        if word == "hundred" and after == "small" and group < 100:
            group, after, j = group * 100, "hundred", j + 1
            continue
        if word in _GROUP_SCALES and after in ("small", "hundred", "half"):
            scale = _GROUP_SCALES[word]
            total, group, after, j = total + group * scale, 0.0, "scale", j + 1
            continue
        if after in ("small", "scale") and _and_a_half(words, joined, j):
            if after == "small":
                group += 0.5
            else:
                total += 0.5 * scale
            after, j = "half", j + 3
            continue
        if after in ("hundred", "scale"):
            step = 1 if word == "and" else 0
            ordinal = _ordinal_at(words, joined, j + step, lead)
            if ordinal is not None and (step or after == "hundred"):  # "one hundred and first"
                return total + group + ordinal, j + step + 1
            nxt = _small(words, joined, j + 1) if step and j + 1 < len(words) and joined[j + 1] else None
            # Below a hundred, and not a number of its own: "one hundred and two hundred" is two.
            if nxt is not None and not (nxt[1] < len(words) and joined[nxt[1]] and words[nxt[1]] in _SCALES):
                after, j = "and", j + 1
                continue
        break
    return None if after == "" else (total + group, j)


def and_a_half(words: Sequence[str]) -> bool:
    """Are ``words`` (lower case) "and a half" (or "and an half"), which adds half of the
    number before it? Read by the number reader here and by the parse-based checks' spans."""
    return len(words) == 3 and words[0] == "and" and words[1] in ("a", "an") and words[2] == "half"


def _and_a_half(words: list[str], joined: list[bool], j: int) -> bool:
    """Do ``words[j:j + 3]`` say "and a half", all in one run?"""
    return and_a_half(words[j:j + 3]) and all(joined[j:j + 3])


def number_value(number: str) -> float | None:
    """A canonical number of `numbers_in` as a float; None for a clock time ("14:00"), a decade
    ("1920s") or a word ("nan" would read as a float)."""
    if not number[:1].isdigit():
        return None
    try:
        return float(number)
    except ValueError:
        return None


def is_year(number: str) -> bool:
    """A canonical number that reads as a year: an integer from 1000 to 2100."""
    return number.isdigit() and 1000 <= int(number) <= 2100


# A number said as an approximation: "about 5,000 households" for 4,870, "almost a thousand
# years" for the 977 between two dates. "almost" / "nearly" stay below the true value.
BELOW_HEDGES = frozenset({"almost", "nearly"})
"""Hedges that keep a number above the value it approximates ("almost a thousand" for 977)."""
HEDGES = frozenset({"about", "around", "roughly", "approximately", "some"}) | BELOW_HEDGES
"""Words that make the number after them an approximation."""
_HEDGE = re.compile(rf"\b(?P<hedge>{'|'.join(sorted(HEDGES))}|close\s+to)\s+"
                    r"(?=(?P<rest>(?:\S+\s+){0,5}\S+))", re.IGNORECASE)  # (a look-ahead: hedges may be close)
_HEDGE_SHARE = 0.05
"""The farthest a hedged number may lie from what it approximates, as a share of it: "about two
million" is no approximation of 1.9 million, whatever its rounding."""


_SPANS_OF_TIME = frozenset({"year", "years", "decade", "decades", "century", "centuries"})


@remembered
def hedged_numbers(claim: str) -> dict[str, tuple[bool, bool]]:
    """The claim's numbers said with a hedge before them, each with whether the hedge keeps it
    above the true value ("almost", "nearly") and whether it counts years ("about 1,500 years":
    a span of time, never a year). The number a hedge governs is the longest run of the words
    after it that states one number ("almost a thousand years before ...": 1000)."""
    out: dict[str, tuple[bool, bool]] = {}
    for m in _HEDGE.finditer(claim):
        words, number, end = m["rest"].split(), None, 0
        for k in range(1, len(words) + 1):
            found = numbers_in(" ".join(words[:k]))
            if len(found) > 1:
                break
            if found and next(iter(found)) != number:
                number, end = next(iter(found)), k  # (the words that state it end here)
            elif not found and number is not None:
                break
        if number is not None:
            span = end < len(words) and words[end].lower().strip(".,;") in _SPANS_OF_TIME
            out[number] = (m["hedge"].lower() in BELOW_HEDGES, span)
    return out


def approximates(number: str, stated: frozenset[str] | set[str], below: bool = False, span: bool = False) -> bool:
    """Does the claim's hedged ``number`` approximate a stated number, or, for a span of years
    (``span``), the gap between two ("almost a thousand years" for 476 and 1453)? Within the rounding its digits
    imply (`_rounding`: "about 5,000" takes 4,501-5,499, "around 198" 197.5-198.5) and within
    `_HEDGE_SHARE` of it, and not above it where the hedge is "almost" (``below``). A year
    stands for itself only beside a year: a span of time is read against the gaps, not against
    a year. (Sums, and gaps for other numbers, are left out: with a table of numbers in the
    evidence, some pair lands near any number.)"""
    value = number_value(number)
    if value is None or value <= 0:
        return False
    reach = min(_rounding(number) / 2, _HEDGE_SHARE * value)
    numbers = [(x, v) for x in sorted(stated) if (v := number_value(x)) is not None]
    gaps = [abs(a - b) for i, (_, a) in enumerate(numbers) for _, b in numbers[i + 1:]] if span else []
    candidates = [v for x, v in numbers if (is_year(number) and not span) or not is_year(x)] + gaps
    return any(abs(c - value) < reach and not (below and c > value) for c in candidates)


def _rounding(number: str) -> float:
    """The unit a number's written digits round to: 1,000 for "5000", 1 for "198", 0.1 for "1.5"."""
    if "." in number:
        return 10.0 ** -len(number.split(".")[1])
    return 10.0 ** (len(number) - len(number.rstrip("0")))


def approximated(claim: str, numbers: set[str] | frozenset[str], stated: set[str] | frozenset[str]) -> set[str]:
    """Those of ``numbers`` (the claim's, missing from the evidence) that the claim says with a
    hedge and a number of ``stated`` approximates (`hedged_numbers`, `approximates`): every
    reader that asks whether the evidence holds a claim's number asks this too."""
    hedged = hedged_numbers(claim) if numbers else {}
    return {v for v in numbers if v in hedged and approximates(v, stated, *hedged[v])}


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


def _takes_ordinal(word: str) -> bool:
    """Does ``word``, before a "...-second", make it an ordinal: one of `ORDINAL_LEADS` or a
    possessive ("Ohio's", or its "s" as the number reader's tokens split it)?"""
    word = word.lower()
    return word in ORDINAL_LEADS or word == "s" or word.endswith("'s")


def _leads(before: str) -> bool:
    """Does the word before a "...-second" make it an ordinal (`_takes_ordinal`)?"""
    last = _LAST_WORD.search(before)
    return last is not None and _takes_ordinal(last[1])
