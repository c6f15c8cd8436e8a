"""A claim's numbers written the way the evidence writes them, for the judge.

The judge reads surfaces: it rejects "the room is held at twelve degrees Celsius" against
"keeps the room at 12 °C" and "up to 6 pm" against "until 18:00", though each states the same
value. Before a claim is judged against a unit, `restated` rewrites each number the claim shares
with the unit (the same canonical value, `localeval.text.numbers.numbers_in`, and the same unit,
`localeval.text.coverage.coverage_words`) in the unit's own notation. A number the unit does not
state is left as it is, so a wrong number still reads as wrong; words are never changed.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from localeval.text.coverage import UNIT_SPELLINGS, coverage_words
from localeval.text.memo import remembered
from localeval.text.numbers import NUMBER_WORDS, numbers_in

__all__ = ["restated"]

_SPELLED = "|".join(sorted((w for w in NUMBER_WORDS if len(w) > 2), key=len, reverse=True))
_UNIT = "|".join(sorted(map(re.escape, UNIT_SPELLINGS), key=len, reverse=True))
_MENTION = re.compile(
    r"(?<![\w.,:])"
    r"(?P<number>[$€£]\s?\d+(?:,\d{3})*(?:\.\d+)?|\d+(?:,\d{3})*(?:[.:]\d+)?(?:\s?[ap]\.?m\b\.?)?"
    rf"|(?:{_SPELLED})(?:[\s-]+(?:{_SPELLED}))*)"
    rf"(?P<unit>\s?(?:{_UNIT}))?(?![\w])",
    re.IGNORECASE,
)


_CURRENCY = re.compile(r"^[$€£]\s?")


class _Mention(NamedTuple):
    start: int
    end: int
    number_end: int  # where the number ends and its unit begins
    values: frozenset[str]
    units: frozenset[str]


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
        out.append(_Mention(m.start(), m.end(), m.end("number"), values, frozenset(units)))
    return tuple(out)


@remembered
def _restate(pair: tuple[str, str]) -> str:
    claim, unit = pair
    theirs = _mentions(unit)
    if not theirs:
        return claim
    pieces, last = [], 0
    for mine in _mentions(claim):
        same = [t for t in theirs if t.values == mine.values and mine.units <= t.units]
        if not same:
            continue
        t = same[0]
        if mine.units:  # "twelve degrees Celsius" -> "12 °C": the number with its unit
            surface, end = unit[t.start:t.end], mine.end
        else:  # a bare number takes the unit's number only ("twelve rooms" -> "12 rooms")
            surface, end = _CURRENCY.sub("", unit[t.start:t.number_end]), mine.number_end
        pieces += [claim[last:mine.start], surface.strip()]
        last = end
    return claim if not pieces else "".join(pieces) + claim[last:]


def restated(claim: str, unit: str) -> str:
    """``claim`` with each number it shares with ``unit`` written as ``unit`` writes it (see the
    module); ``claim`` itself when they share none or already write them alike."""
    if not any(c.isdigit() for c in claim + unit) or not numbers_in(claim):
        return claim
    return _restate((claim, unit))
