"""A claim's numbers written the way the evidence writes them, for the judge.

The judge reads surfaces: it rejects "the room is held at twelve degrees Celsius" against
"keeps the room at 12 °C" and "up to 6 pm" against "until 18:00", though each states the same
value. Before a claim is judged against a unit, `restated` rewrites each number the claim shares
with the unit (the same canonical value, `localeval.text.numbers.numbers_in`, and the same unit,
`localeval.text.coverage.coverage_words`) in the unit's own notation. A quantity the unit states
in another unit of the same dimension, or in words, is written as the unit writes it too:
"1,200 metres" against "1.2 km", "30 minutes" against "half an hour" (the same value in the
dimension's base unit, `localeval.text.contrast_rules.quantity` and `spoken_quantities`; the
judge gave "The suspension bridge is 1,200 metres long" 0.12 against "... is 1.2 km long"). A
number the unit does not state is left as it is, so a wrong number still reads as wrong. A rate
is read whole ("80 kilometres per hour" is "80 km/h"), and a rate the unit adds is not given to
the claim ("took 20 mg" stays as it is against "20 mg a day"). An ordinal the unit writes
otherwise is written as the unit writes it ("the forty-fourth president" against "the 44th
president": 0.004 as written). A decade or century the claim dates an act to is written as
the one date the unit gives that act inside it (`localeval.text.periods.narrowed`). Other
words are never changed.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from localeval.text.contrast_rules import quantity, same_value, spoken_quantities
from localeval.text.coverage import UNIT_SPELLINGS, coverage_words
from localeval.text.memo import remembered
from localeval.text.numbers import SCALE_WORDS, SPELLED_NUMBERS, numbers_in, ordinals
from localeval.text.periods import narrowed

__all__ = ["restated"]

_UNIT = "|".join(sorted(map(re.escape, UNIT_SPELLINGS), key=len, reverse=True))
_SCALE = "|".join(sorted(SCALE_WORDS))
_AFTER_SCALE = "(?:" + "|".join(f"(?<={w})" for w in sorted(SCALE_WORDS)) + ")"  # (a look-behind has one width)
_MENTION = re.compile(
    r"(?<![\w.,:])"
    # Digits with the scale word after them ("1.5 million", "$2 billion") are one number; a
    # period after "pm" ends the sentence, one after "p.m" the abbreviation.
    rf"(?P<number>[$€£]\s?\d+(?:,\d{{3}})*(?:\.\d+)?(?:\s+(?:{_SCALE})\b)?"
    rf"|\d+(?:,\d{{3}})*(?:\.\d+(?:\s+(?:{_SCALE})\b)?|\s+(?:{_SCALE})\b|:\d+)?(?:\s?(?:[ap]\.m\.?|[ap]m\b))?"
    rf"|(?:an?\s+(?={_SCALE}))?(?:{SPELLED_NUMBERS})"
    # "and" inside a number only after a scale word: "three hundred and sixty-five".
    rf"(?:(?:[\s-]+|{_AFTER_SCALE}\s+and\s+)(?:{SPELLED_NUMBERS}))*"
    # "two and a half", "one and a half million", "a million and a half".
    rf"(?:\s+and\s+an?\s+half(?:\s+(?:{_SCALE}))?)?)"
    # A unit, and after it a rate's other unit ("80 kilometres per hour", "25 mg a day"): read
    # as one quantity, or "80 kilometres" alone would be written "80 km/h" before "per hour".
    rf"(?:(?P<unit>\s?(?:{_UNIT}))(?P<rate>\s+(?:per|an?|each)\s+(?:{_UNIT}))?)?(?![\w])",
    re.IGNORECASE,
)


_CURRENCY = re.compile(r"^[$€£]\s?")


class _Mention(NamedTuple):
    start: int
    end: int  # after the rate, where there is one
    number_end: int  # where the number ends and its unit begins
    unit_end: int  # where its unit ends and a rate ("per hour") begins
    values: frozenset[str]
    units: frozenset[str]
    per: frozenset[str]  # the rate's unit ("hour" in "80 kilometres per hour"); empty without one


@remembered
def _mentions(text: str) -> tuple[_Mention, ...]:
    """The number mentions of ``text``; remembered, since a unit is read against every claim
    of its row."""
    out = []
    for m in _MENTION.finditer(text):
        values = numbers_in(m.group(0))
        if len(values) != 1:  # "one" alone, or two numbers read as one span: leave it
            continue
        # The unit read after a digit, as coverage reads it ("25 mg" and "twenty-five mg" alike).
        sign = _CURRENCY.match(m.group("number"))
        units = coverage_words(f"{sign.group(0) if sign else ''}1{m.group('unit') or ''}") - {"1"}
        per = coverage_words(f"1{m.group('rate')}") - {"1"} if m.group("rate") else set()
        unit_end = m.end("unit") if m.group("unit") else m.end("number")
        out.append(_Mention(m.start(), m.end(), m.end("number"), unit_end, values, frozenset(units), frozenset(per)))
    return tuple(out)


@remembered
def _restate(pair: tuple[str, str]) -> str:
    claim, unit = pair
    theirs = _mentions(unit)
    if not theirs and not spoken_quantities(unit):
        return claim
    pieces, last = [], 0
    for mine in _mentions(claim):
        found = next(filter(None, (_same_number(mine, t, unit) for t in theirs)), None)
        if found is None:
            found = _same_quantity(mine, claim, theirs, unit)  # "1,200 metres" -> "1.2 km", "30 minutes" -> "half an hour"
        if found is None:
            continue
        surface, end = found
        pieces += [claim[last:mine.start], surface.strip()]
        last = end
    return claim if not pieces else "".join(pieces) + claim[last:]


@remembered
def _reordinal(pair: tuple[str, str]) -> str:
    """The claim's ordinals that the unit states in another form, in the unit's form."""
    claim, unit = pair
    theirs: dict[int, str] = {}
    for o in ordinals(unit):
        theirs.setdefault(o.value, unit[o.start:o.end])
    pieces, last = [], 0
    for mine in ordinals(claim):
        surface = theirs.get(mine.value)
        if surface is not None and surface.lower() != claim[mine.start:mine.end].lower():
            pieces += [claim[last:mine.start], surface]
            last = mine.end
    return claim if not pieces else "".join(pieces) + claim[last:]


def _same_number(mine: _Mention, theirs: _Mention, unit: str) -> tuple[str, int] | None:
    """How ``unit``'s mention ``theirs`` writes the claim's number ``mine`` (the number with as
    much of its unit and rate as the claim states), and where the claim's mention of it ends;
    None where they differ in value or unit."""
    if theirs.values != mine.values:
        return None
    stated, written = mine.units | mine.per, theirs.units | theirs.per
    if stated and not (mine.units <= theirs.units or stated == written):
        return None  # another unit ("12 km" / "12 miles"; "20 hours" / "20 km per hour")
    if not stated or (written - stated) & _TIME:
        # A bare number, or a unit that adds a rate the claim does not state ("80 km" against
        # "80 km/h", "took 20 mg" against "20 mg a day"): the unit's number only.
        return _CURRENCY.sub("", unit[theirs.start:theirs.number_end]), mine.number_end
    if stated <= written:
        # The whole quantity, rate and all: "twelve degrees Celsius" -> "12 °C", "80 kilometres
        # per hour" -> "80 km/h" and back.
        return unit[theirs.start:theirs.end], mine.end
    if not (theirs.units - mine.units) & mine.per:
        # The number with its unit, the claim's rate kept ("twenty mg a day" against "20 mg").
        return unit[theirs.start:theirs.unit_end], mine.unit_end
    return None


_TIME = frozenset({"second", "minute", "hour", "day", "week", "month", "year"})
"""Units of time, as `coverage_words` reads them: in a unit's quantity and not in the claim's,
a rate ("per hour", "a day") the claim does not state."""


_NEXT_WORD = re.compile(r"\s*([A-Za-z]+)")


def _quantity(mention: _Mention, text: str) -> tuple[tuple[str, float], int] | None:
    """A mention's dimension and value in the dimension's base unit, where it has one unit word
    that converts by a factor ("1.2 km": ("length", 1200.0)), and where that word ends. A unit
    the notation does not read as one ("7 days", "two weeks") is the word after the number."""
    if len(mention.values) != 1 or len(mention.units) > 1:
        return None
    value = next(iter(mention.values))
    if mention.units:  # a rate's "per hour" stays as the text writes it
        found = quantity(value, next(iter(mention.units)))
        return (found, mention.unit_end) if found else None
    word = _NEXT_WORD.match(text, mention.number_end)
    found = quantity(value, word.group(1).lower()) if word else None
    return (found, word.end()) if found else None


def _same_quantity(mine: _Mention, claim: str, theirs: tuple[_Mention, ...], unit: str) -> tuple[str, int] | None:
    """How ``unit`` writes the claim's quantity in another unit or in words, and where the
    claim's mention of it ends; None where it does not state it."""
    wanted = _quantity(mine, claim)
    if wanted is None:
        return None
    (dimension, value), end = wanted
    for t in theirs:
        found = _quantity(t, unit)
        if found and found[0][0] == dimension and same_value(found[0][1], value):
            return unit[t.start:found[1]], end
    return next(((unit[s.start:s.end], end) for s in spoken_quantities(unit)
                 if s.dimension == dimension and same_value(s.value, value)), None)


def restated(claim: str, unit: str) -> str:
    """``claim`` with each number and ordinal it shares with ``unit`` written as ``unit``
    writes it, and a decade or century written as the date ``unit`` gives the same act (see the
    module);
    ``claim`` itself when they share none or already write them alike."""
    if any(c.isdigit() for c in claim + unit):
        if numbers_in(claim):
            claim = _restate((claim, unit))
        if ordinals(claim) and ordinals(unit):
            claim = _reordinal((claim, unit))
    return narrowed(claim, unit)

