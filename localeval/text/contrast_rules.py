"""Contrasts a rule can see between a claim and one premise: the cases a small NLI judge misses.

A cross-encoder reads "closed on Mondays" and "open on Mondays" as near neighbours, and
"eight" and "eighteen" as the same kind of word. These checks compare what the claim states
with what the premise states, with no model:

- ``number``: the claim states a number the premise does not, while the premise states
  others ("eighteen members" against "eight members"; formats are normalised first, so
  "$3,000" and "3000 dollars" agree -- `localeval.text.numbers`);
- ``unit``: the same number with a different unit of the same kind ("45 euros" / "$45",
  "180 degrees Fahrenheit" / "180 °C", "12 miles" / "12 km");
- ``bound``: the same number bounded from the other side ("at least 8 kg" / "up to 8 kg") in
  clauses that deny alike (a bound turned round with its clause's denial is the statement's
  other side: "over 16 may use the gym" / "under 16 may not use the gym");
- ``opposite``: a word whose opposite the premise uses about the same thing ("increased" /
  "fell" for "operating costs"; "open" / "closed" for "Mondays"); an order only between the
  same two events ("take the tablet after breakfast" / "30 minutes before breakfast"; not "run
  at moderate speed before applying full loads" / "after full load operation, idle the
  engine"), open and closed only where the parse reads both said of one thing (not "open heart
  surgery", not two steps of a procedure);
- ``negated``: something the claim affirms that the premise negates or excepts ("sails on
  Wednesdays" / "sails daily except on Wednesdays"; "signed by ... but not by Britain"); a
  "not" on a verb only where the claim speaks of that act or what it is done to;
- ``role``: the claim's act done by someone else the premise names, or its two named
  arguments swapped ("Martin Hale wrote" / "written by Clara Voss ... adapted by Martin
  Hale"; a spaCy parse, `localeval.text.roles`);
- ``merge``: the claim's subject taken from one sentence of the premise and its predicate from
  another ("Sydney is the capital of Australia" / "Canberra is the capital of Australia.
  Sydney ... hosted the 2000 Olympic Games."; the same parse, `localeval.text.merges`);
- ``polarity``, ``swap``, ``order``: the contradiction checks of `localeval.text.checks`, read
  from the same parse: a negated instruction or permission ("Yes, you can use vinegar" / "Never
  use vinegar"), a role or attribute given to the wrong one of coordinated arguments ("B stayed
  in orbit while A and C walked" / "A and B walked ... while C remained in orbit"; "parts and
  labour for two years" / "parts for two years and labour for one year"), and an order or
  comparison the premise's dates or numbers refute ("X fell after Y" / X in 476, Y in 1453).

`contrast` returns the first that applies, as a short reason, or ``None``. Every rule fires
only on positive evidence of a contrast in the premise, never on mere absence of a word, so a
premise that says nothing about the claim is left to the judge. The rules are English-only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from localeval.text.lexical import normalise, states_in_order, stop_words
from localeval.text.memo import memo_scope, remembered
from localeval.text.numbers import NUMBER_WORDS, approximated, is_year, number_value, numbers_in, ordinals
from localeval.text.periods import century_numbers

__all__ = ["CONTRAST_RULES", "RULES_WITHOUT_PARSE", "Spoken", "confirmation", "contrast", "contrast_identity",
           "contrast_many", "parse_confirmations", "quantity", "same_value", "spoken_quantities"]

CONTRAST_RULES: tuple[str, ...] = ("number", "unit", "bound", "opposite", "negated", "role", "merge", "polarity",
                                   "swap", "order")
_PARSING_RULES = frozenset({"role", "merge", "polarity", "swap", "order"})
NOT_ON_COPIES = frozenset({"role", "merge", "swap", "order"})
"""The rules not read where the premise writes the claim word for word, with no negation near
(`localeval.text.lexical.states_in_order`): an act given to another, a subject taken from
another sentence, a slot swapped or an order turned round cannot be found in a copy, so a
finding there is a parse that took the two copies differently (a lower-cased summary, a
caption run into the next sentence)."""
RULES_WITHOUT_PARSE: tuple[str, ...] = tuple(r for r in CONTRAST_RULES if r not in _PARSING_RULES)
"""The rules that need no spaCy parse (a parse costs ~3 ms a unit on 2 CPU cores even in batches,
about three times what the other rules cost together)."""

_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[A-Za-z]+(?:'[a-z]+)?|[°€$£%]|[.;:!?]")
_CLAUSE_END = frozenset(".;:!?")

# ------------------------------------------------------------------ lexicons
# Opposite pairs: (class, side) per word form. Multi-word phrases are matched first.
_OPPOSITES: dict[str, tuple[str, int]] = {}


def _pair(name: str, plus: str, minus: str) -> None:
    for side, words in ((1, plus), (-1, minus)):
        for word in words.split(","):
            _OPPOSITES[word.strip()] = (name, side)


_pair("change", "increase,increased,increases,increasing,rise,rises,rose,risen,rising,grew,grow,grows,grown,"
      "went up,go up,goes up,gone up,climbed,climbs,soared,gained",
      "decrease,decreased,decreases,decreasing,fall,falls,fell,fallen,falling,declined,declines,declining,"
      "dropped,drops,shrank,shrinks,shrunk,went down,go down,goes down,gone down,plunged,slumped")
_pair("order", "before,earlier than,prior to", "after,later than")
_pair("level", "higher,highest,larger,largest,bigger,biggest,greater,greatest,hotter,hottest,warmer,warmest,"
      "faster,fastest,older,oldest,longer,longest,heavier,heaviest",
      "lower,lowest,smaller,smallest,lesser,least,colder,coldest,cooler,coolest,slower,slowest,younger,"
      "youngest,shorter,shortest,lighter,lightest")
_pair("open", "open,opens,opened", "closed,close,closes,shut")
_pair("permit", "allowed,permitted,legal,lawful",
      "banned,prohibited,forbidden,illegal,unlawful,may not,must not,cannot,can not,not allowed,not permitted")
_pair("outcome", "passed,won,wins,win,succeeded,survived", "failed,lost,loses,lose,died")
_pair("presence", "present,available", "absent,unavailable")
_NOT_ORDER_AFTER = frozenset("name names named naming look looks looked looking sought".split())
"""Verbs whose "after", right behind them, is no order: "named after his godfather" (in honour of),
"looks after the children" (cares for), "sought after". Only those that take no other reading:
"take after meals" and "called after the meeting" are orders."""

_AUXILIARIES = frozenset("is are was were be been do does did has have had will would can could may might must "
                         "should".split())
_NEGATORS = frozenset("not no never n't without nor neither cannot except excluding".split())
_VERB_NEGATORS = frozenset("not never n't cannot".split())  # those that negate a verb
# Words that negate what they govern without a "not": a claim using them restates a
# prohibition in its own words ("you should avoid ibuprofen" / "do not take ibuprofen").
_NEGATING_WORDS = frozenset("avoid avoids avoided avoiding refrain refrains rather instead prohibited forbidden "
                            "banned".split())
# "not only X but also Y" affirms X.
_NOT_NEGATING = (("not", "only"), ("not", "just"), ("no", "longer"), ("no", "doubt"), ("not", "until"))

# Bounds attached to a number: +1 = a lower bound ("at least 8"), -1 = an upper bound.
_BOUNDS: dict[str, int] = {
    "at least": 1, "no less than": 1, "not less than": 1, "no fewer than": 1, "a minimum of": 1, "minimum": 1,
    "more than": 1, "over": 1, "above": 1, "exceeding": 1, "greater than": 1,
    "at most": -1, "no more than": -1, "not more than": -1, "up to": -1, "a maximum of": -1, "maximum": -1,
    "less than": -1, "fewer than": -1, "under": -1, "below": -1, "within": -1,
}

# Units of measure and currencies: word -> (dimension, unit). "pounds" is left out (weight or
# sterling), as are one-letter abbreviations that are also words.
_UNITS: dict[str, tuple[str, str]] = {}


def _unit(dimension: str, unit: str, forms: str) -> None:
    for form in forms.split(","):
        _UNITS[form.strip()] = (dimension, unit)


_unit("money", "usd", "$,dollar,dollars,usd")
_unit("money", "eur", "€,euro,euros,eur")
_unit("money", "gbp", "£,sterling,gbp")
_unit("money", "jpy", "yen,jpy")
_unit("temperature", "c", "c,celsius,centigrade")
_unit("temperature", "f", "f,fahrenheit")
_unit("length", "km", "km,kilometre,kilometres,kilometer,kilometers")
_unit("length", "mile", "mile,miles,mi")
_unit("length", "m", "metre,metres,meter,meters")
_unit("length", "ft", "ft,foot,feet")
_unit("length", "cm", "cm,centimetre,centimetres,centimeter,centimeters")
_unit("length", "inch", "inch,inches")
_unit("mass", "kg", "kg,kilogram,kilograms,kilo,kilos")
_unit("mass", "g", "gram,grams")
_unit("mass", "lb", "lb,lbs")
_unit("time", "s", "second,seconds,secs")
_unit("time", "min", "minute,minutes,mins")
_unit("time", "h", "hour,hours,hrs")
_unit("time", "day", "day,days")
_unit("time", "week", "week,weeks")
_unit("time", "month", "month,months")
_unit("time", "year", "year,years")
_unit("share", "percent", "%,percent,per cent")
# Speeds: their own dimension, so "20 mph" against "20 km/h" is another unit and "80 km/h"
# no length of 80 km. "km/h" is read as the tokens "km h"; a length spelled out before "per
# hour" / "an hour" is read as a speed by `_unit_after`.
_unit("speed", "km/h", "kph,kmh,km h")
_unit("speed", "mph", "mph")
_SPEEDS = {"km": "km/h", "mile": "mph"}  # a length's speed, as the table names it
_PER, _HOUR = frozenset({"per", "an", "a"}), frozenset({"hour", "h"})  # "per hour", "an hour"
# Base-unit factors of the units that convert by a factor.
_FACTORS = {"km": 1000.0, "m": 1.0, "cm": 0.01, "mile": 1609.344, "ft": 0.3048, "inch": 0.0254,
            "kg": 1000.0, "g": 1.0, "lb": 453.59237, "s": 1.0, "min": 60.0, "h": 3600.0, "day": 86400.0,
            "week": 604800.0}
_SCALE_WORDS = frozenset("million billion thousand bn k".split())
_UNIT_SKIP = frozenset("° degree degrees of a an per".split())  # between a number and its unit


@dataclass(frozen=True)
class _Token:
    text: str  # lower case
    clause: int  # index of the clause (split at . ; : ! ?) the token is in


@remembered
def _tokens(text: str) -> tuple[_Token, ...]:
    out: list[_Token] = []
    clause = 0
    for match in _TOKEN.finditer(text.replace("’", "'")):
        word = match.group(0).lower()
        if word in _CLAUSE_END:
            # A decimal point never reaches here (numbers are one token).
            clause += 1
            continue
        if word.endswith("n't"):
            out.append(_Token(word[:-3] or word, clause))
            out.append(_Token("n't", clause))
            continue
        out.append(_Token(word, clause))
    return tuple(out)


def _first_words(lexicon: dict[str, object]) -> dict[str, tuple[int, ...]]:
    """First word of a lexicon's phrases -> the phrase lengths starting with it, longest first."""
    out: dict[str, set[int]] = {}
    for key in lexicon:
        words = key.split()
        out.setdefault(words[0], set()).add(len(words))
    return {w: tuple(sorted(n, reverse=True)) for w, n in out.items()}


# Built once: each lexicon's phrases by first word, so a scan tries only words that can start one.
_FIRST_WORDS = {id(lexicon): _first_words(lexicon) for lexicon in (_OPPOSITES, _BOUNDS)}


def _phrases(tokens: tuple[_Token, ...], lexicon: dict) -> Iterator[tuple[int, int, str]]:
    """(start, end, phrase) of lexicon entries, longest match first, not overlapping."""
    first = _FIRST_WORDS[id(lexicon)]
    i = 0
    while i < len(tokens):
        for size in first.get(tokens[i].text, ()):
            phrase = " ".join(t.text for t in tokens[i:i + size])
            if phrase in lexicon and i + size <= len(tokens):
                yield i, i + size, phrase
                i += size
                break
        else:
            i += 1


def _content(tokens: tuple[_Token, ...]) -> set[str]:
    stops = stop_words()
    return {normalise(t.text) for t in tokens
            if t.text.isalpha() and t.text not in stops and t.text not in _OPPOSITES and len(t.text) > 2}


def _anchors_near(tokens: tuple[_Token, ...], at: int, span: int = 6) -> set[str]:
    """Content words within ``span`` tokens of position ``at``, inside its clause."""
    clause = tokens[at].clause
    near = tokens[max(0, at - span): at + span + 1]
    return _content(tuple(t for t in near if t.clause == clause))


def _negation(tokens: tuple[_Token, ...], start: int, end: int) -> int | None:
    """The position of the word that negates the phrase at ``tokens[start:end]``: a negator
    among the two words before it ("not allowed"), or right after it ("allowed not"); None
    where it is not negated."""
    clause = tokens[start].clause
    before = next((j for j in range(max(0, start - 2), start)
                   if tokens[j].clause == clause and _negator_at(tokens, j, _NEGATORS)), None)
    if before is not None:
        return before
    after = tokens[end] if end < len(tokens) else None
    return end if after is not None and after.text in ("not", "n't") and after.clause == clause else None


def _negator_at(tokens: tuple[_Token, ...], j: int, words: frozenset[str]) -> bool:
    """Is ``tokens[j]`` one of ``words`` and negating: not "not only", "no longer" (`_NOT_NEGATING`)?"""
    nxt = tokens[j + 1].text if j + 1 < len(tokens) else ""
    return tokens[j].text in words and (tokens[j].text, nxt) not in _NOT_NEGATING


# ------------------------------------------------------------------ the rules

def _missing_numbers(claim: str, premise: str, source: str) -> list[str]:
    """The claim's numbers the premise neither states nor implies (a quantity it says in words
    implies one: `_spoken`), nor its source states."""
    claimed, stated = numbers_in(claim), numbers_in(premise)
    if not (claimed and stated) or claimed <= stated:
        return []
    # Absent from the whole source too: a window of a long document may hold only part of
    # what the claim draws on.
    known = (stated | numbers_in(source) | century_numbers(claim, source or premise)
             | _shared_ordinals(claim, premise) | _shared_ordinals(claim, source))
    near = approximated(claim, claimed - known, stated | numbers_in(source))  # "about 5,000" for 4,870
    return sorted(v for v in claimed - known - near if not _follows(v, premise, stated) and not _spoken(v, claim, premise)
                  and not (is_year(v) and _says_relative_year(source or premise)))


def _shared_ordinals(claim: str, premise: str) -> set[str]:
    """The claim's ordinals the premise (or the source around it: the rule's numbers come from
    both) states as ordinals in any form: "the 3rd largest" is read as the number 3,
    "third-largest" as none (an ordinal word alone), yet they agree."""
    if not premise:
        return set()
    theirs = {o.value for o in ordinals(premise)}
    return {str(o.value) for o in ordinals(claim) if o.value in theirs}


# A quantity said in words: "half an hour", "a quarter of an hour", "an hour and a half",
# "two and a half days", "a week".
_SPOKEN = re.compile(
    r"\b(?:(?:(?:a|an|one)\s+)?(?P<fraction>half|quarter)(?:[\s-]+of)?(?:[\s-]+(?:a|an))?"
    r"|(?P<count>[a-z]+|\d+)\s+and\s+a\s+half(?:\s+of)?(?:\s+(?:a|an))?"
    r"|(?P<one>a|an|one))[\s-]+(?P<unit>[a-z]+)(?P<half>\s+and\s+a\s+half)?\b", re.IGNORECASE)
_FRACTIONS = {"half": 0.5, "quarter": 0.25}


class Spoken(NamedTuple):
    """A quantity said in words, where ``text[start:end]`` says it, in its dimension's base unit."""

    start: int
    end: int
    dimension: str
    value: float


@remembered
def spoken_quantities(text: str) -> tuple[Spoken, ...]:
    """Each quantity ``text`` says in words, of a unit that converts by a factor (time, length,
    mass): "half an hour" is 1,800 seconds, "a week" 604,800."""
    out = []
    for m in _SPOKEN.finditer(text):
        found = _UNITS.get(m["unit"].lower())
        if found is None or found[1] not in _FACTORS:
            continue
        if m["fraction"]:
            amount = _FRACTIONS[m["fraction"].lower()]
        elif m["count"]:
            # (the number reader leaves "one" out: it is more often a pronoun)
            counted = {"1"} if m["count"].lower() == "one" else numbers_in(m["count"])
            if len(counted) != 1 or (whole := number_value(next(iter(counted)))) is None:
                continue
            amount = whole + 0.5
        elif m["half"]:
            amount = 1.5
        elif _rate_before(text, m.start()):
            continue  # "twice a day", "5 days a week": a rate's denominator, no length of time
        else:
            amount = 1.0
        out.append(Spoken(m.start(), m.end(), found[0], amount * _FACTORS[found[1]]))
    return tuple(out)


_RATE_WORDS = frozenset({"once", "twice", "thrice", "times", "per", "every", "each"})
_LAST_WORD = re.compile(r"([\w-]+)\W*$")


def _rate_before(text: str, start: int) -> bool:
    """Does the word before ``text[start:]`` make "a day" there a rate's denominator: a
    frequency ("twice", "times", "per"), a number or a unit ("7 days a week", "10 km an hour")?"""
    last = _LAST_WORD.search(text, max(0, start - 40), start)
    if last is None:
        return False
    word = last.group(1).lower()
    return word in _RATE_WORDS or word in _UNITS or bool(numbers_in(word)) or word[:1].isdigit()


def _spoken(number: str, claim: str, premise: str) -> bool:
    """Does the claim state ``number`` with a unit, as a quantity the premise says in words
    ("30 minutes" / "half an hour", "24 hours" / "a day")?"""
    said = spoken_quantities(premise)
    if not said:
        return False
    value = number_value(number)
    return value is not None and any(
        s.dimension == dimension and same_value(value * _FACTORS[unit], s.value)
        for s in said for dimension, unit in _measures(claim).get(number, ()) if unit in _FACTORS)


def same_value(a: float, b: float) -> bool:
    """Are two quantities in base units the same, but for rounding ("1.2 km" / "1,200 metres")?"""
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _number_rule(claim: str, premise: str, source: str) -> str | None:
    missing = _missing_numbers(claim, premise, source)
    if missing and confirmation(claim, premise) is None:
        # (A gap or factor the premise's numbers bear out is not missing: "70 cents more" from
        # 1.80 and 1.10 euros; `localeval.text.checks.order_confirmation`.)
        return f"number: the claim's {', '.join(missing)} is not in the evidence, which states {', '.join(sorted(numbers_in(premise)))}"
    return None


_RELATIVE_YEAR = re.compile(r"\b(?:this|last|next|previous|past|coming) year\b", re.IGNORECASE)


@remembered
def _says_relative_year(text: str) -> bool:
    """Whether ``text`` dates by "this / last / next year": asked of a whole source for every
    pair and number, so its answer is kept."""
    return _RELATIVE_YEAR.search(text) is not None


def _follows(number: str, premise: str, stated: frozenset[str]) -> bool:
    """Can the premise give ``number`` without stating it? A year of a decade ("1920s"), a
    difference or sum of two stated numbers ("six years before" from 1998 and 2004), a value
    inside a stated range ("19" between "at least 18" and "under 21"), or the same quantity in
    another unit ("1,200 metres" for "1.2 km")."""
    if number.endswith("s"):  # a decade
        start = number_value(number[:-1])
        return start is not None and any((v := number_value(x)) is not None and start <= v < start + 10 for x in stated)
    value = number_value(number)
    if value is None:
        return False
    values = [v for x in stated if (v := number_value(x)) is not None]
    # (A ratio too: "eight times the standard dose" from 500 mg and 4,000 mg.)
    if any(abs(abs(a - b) - value) < 1e-9 or abs(a + b - value) < 1e-9
           or (min(a, b) > 0 and abs(max(a, b) / min(a, b) - value) < 1e-9)
           for i, a in enumerate(values) for b in values[i + 1:]):
        return True
    bounds = {key: {b.side for b in found} for key, found in _bounds(premise).items()}
    lows = [v for (x, _), sides in bounds.items() if 1 in sides and (v := number_value(x)) is not None]
    highs = [v for (x, _), sides in bounds.items() if -1 in sides and (v := number_value(x)) is not None]
    if any(lo <= value <= hi for lo in lows for hi in highs):
        return True
    return any(abs(value * factor - base) < 1e-6 * max(1.0, base) for factor in _FACTORS.values()
               for base in _base_values(premise))


def quantity(number: str, unit: str) -> tuple[str, float] | None:
    """A number said with a unit word ("1.2", "km") as its dimension and its value in the
    dimension's base unit (metres, grams, seconds): ("length", 1200.0); None where the word is no
    unit that converts by a factor."""
    value, found = number_value(number), _UNITS.get(unit)
    if value is None or found is None or found[1] not in _FACTORS:
        return None
    return found[0], value * _FACTORS[found[1]]


def _base_values(text: str) -> set[float]:
    """Every stated quantity in its dimension's base unit (metres, grams, seconds)."""
    out = set()
    for number, units in _measures(text).items():
        value = number_value(number)
        if value is None:
            continue
        out |= {value * _FACTORS[unit] for _, unit in units if unit in _FACTORS}
    return out


@remembered
def _measures(text: str) -> dict[str, set[tuple[str, str]]]:
    """Number -> the (dimension, unit) pairs it is stated with."""
    tokens = _tokens(text)
    out: dict[str, set[tuple[str, str]]] = {}
    for i, token in enumerate(tokens):
        values = numbers_in(token.text) if token.text[0].isdigit() else frozenset()
        if len(values) != 1:
            continue
        value = next(iter(values))
        before = tokens[i - 1].text if i > 0 else ""
        found = _UNITS[before] if before in ("$", "€", "£") else _unit_after(tokens, i)
        if found is not None:
            out.setdefault(value, set()).add(found)
    return out


def _unit_rule(claim: str, premise: str, source: str) -> str | None:
    if not numbers_in(claim):
        return None
    stated = _measures(premise)
    for value, units in _measures(claim).items():
        theirs = stated.get(value)
        if not theirs:
            continue
        for dimension, unit in units:
            same_kind = {u for d, u in theirs if d == dimension}
            if same_kind and unit not in same_kind:
                return f"unit: the claim's {value} {unit} is {value} {'/'.join(sorted(same_kind))} in the evidence"
    return None


def _unit_after(tokens: tuple[_Token, ...], i: int) -> tuple[str, str] | None:
    """(dimension, unit) stated right after the number at ``i`` ("4 grams" -> mass, g), if any."""
    for j in range(i + 1, min(i + 4, len(tokens))):
        word = tokens[j].text
        if word in _UNIT_SKIP or word in _SCALE_WORDS:
            continue
        two = f"{word} {tokens[j + 1].text}" if j + 1 < len(tokens) else ""
        found = _UNITS.get(two) or _UNITS.get(word)
        if found is not None and found[0] == "length" and j + 2 < len(tokens) and (
                tokens[j + 1].text in _PER and tokens[j + 2].text in _HOUR):
            return "speed", _SPEEDS.get(found[1], f"{found[1]}/h")  # "30 miles an hour", "110 kilometres per hour"
        return found
    return None


@dataclass(frozen=True)
class _Bound:
    """One bound on a number: the side it bounds it from (+1 a lower bound, -1 an upper one),
    whether its clause denies what it says of it (`_denied`), and the position of the negator
    that turned it round, if one did ("must not carry more than 8": an upper bound)."""

    side: int
    denied: bool
    turner: int | None = None


@remembered
def _bounds(text: str) -> dict[tuple[str, str | None], set[_Bound]]:
    """(number, unit) -> each bound on it (`_Bound`)."""
    tokens = _tokens(text)
    out: dict[tuple[str, str | None], set[_Bound]] = {}
    for start, end, phrase in _phrases(tokens, _BOUNDS):
        # "cannot carry over more than five": a negated lower bound is an upper one.
        turner = _negator_before(tokens, start)
        side = -_BOUNDS[phrase] if turner is not None else _BOUNDS[phrase]
        # The bounded number follows the phrase, possibly after "of", "the" or a currency sign.
        for k in range(end, min(end + 3, len(tokens))):
            values = numbers_in(tokens[k].text)
            if values:
                unit = _unit_after(tokens, k)
                key = (next(iter(values)), unit[1] if unit else None)
                out.setdefault(key, set()).add(_Bound(side, _denied(tokens, start, k + 1), turner))
                break
            if tokens[k].text not in ("of", "the", "a", "$", "€", "£"):
                break
    return out


def _other_side(claim: str, premise: str) -> bool:
    """Does the claim speak of the other side of a bound the premise draws, with the denial
    turned round too ("over 16 may use the gym" / "under 16 may not use the gym")? Then the
    premise's denial is not the claim's, whatever words they share."""
    stated = _bounds(premise)
    return any(theirs.side == -mine.side and theirs.denied != mine.denied
               for (value, unit), found in _bounds(claim).items() for mine in found
               for theirs in _bounds_on(stated, value, unit))


def _restated(claim: str, premise: str) -> set[int]:
    """The positions of the premise's negators that only turn a bound round where the claim
    states the same bound without them: "must not carry more than 8 people" is "can carry at
    most 8 people", no denial of carrying."""
    stated = _bounds(premise)
    return {theirs.turner for (value, unit), found in _bounds(claim).items() for mine in found if not mine.denied
            for theirs in _bounds_on(stated, value, unit)
            if theirs.turner is not None and theirs.side == mine.side and not theirs.denied}


def _bounds_on(stated: dict[tuple[str, str | None], set[_Bound]], value: str, unit: str | None) -> set[_Bound]:
    """The bounds ``stated`` on the same number with the same unit, or with no unit on either side."""
    return {bound for (v, u), bounds in stated.items() if v == value and (u == unit or None in (u, unit))
            for bound in bounds}


def _denied(tokens: tuple[_Token, ...], start: int, end: int, span: int = 4) -> bool:
    """Does the clause of the bound at ``tokens[start:end]`` deny its verb, with a negator
    outside the bound and the ``span`` words before it (those turn the bound round,
    `_negator_before`)? "Children under 16 may not use the gym": what is denied below the
    bound is left open above it, so "over 16 may use" is its other side, no contradiction."""
    clause = tokens[start].clause
    return any(token.clause == clause and not start - span <= j < end and _negator_at(tokens, j, _VERB_NEGATORS)
               for j, token in enumerate(tokens))


def _negator_before(tokens: tuple[_Token, ...], start: int, span: int = 4) -> int | None:
    """The position of a negator among the ``span`` words before ``start``, inside its clause."""
    clause = tokens[start].clause
    return next((j for j in range(max(0, start - span), start)
                 if tokens[j].text in _NEGATORS and tokens[j].clause == clause), None)


def _bound_rule(claim: str, premise: str, source: str) -> str | None:
    if not numbers_in(claim):
        return None
    stated = _bounds(premise)
    for (value, unit), found in _bounds(claim).items():
        # In a clause that denies its verb as the claim's does or does not: a bound turned round
        # together with the denial ("under 16 may not" / "over 16 may") is the statement's other side.
        stated_here = _bounds_on(stated, value, unit)
        for denied in (False, True):
            sides = {b.side for b in found if b.denied == denied}
            theirs = {b.side for b in stated_here if b.denied == denied}
            if sides and theirs and not (sides & theirs):
                word = {1: "at least", -1: "at most"}
                return (f"bound: the claim has {word[next(iter(sides))]} {value}, the evidence "
                        f"{word[next(iter(theirs))]} {value}")
    return None


@dataclass(frozen=True)
class _Polar:
    name: str
    side: int
    anchors: frozenset[str]  # content words near the word, in its clause
    left: frozenset[str]  # the two content words just before it in its clause
    right: frozenset[str]  # and just after it
    negated: bool = False  # a denial: a "not" before it ("do not open") or in it ("not allowed")
    before: frozenset[str] = frozenset()  # every content word before it in its clause (orders only)
    after: frozenset[str] = frozenset()  # and after it
    timed: bool = False  # followed by a span of time: "after 15 minutes", "before a week"
    clause: int = 0  # its clause's index (`_Token.clause`)
    negator: int | None = None  # the position of the word that flips it ("cannot increase"), if one does


def _nearest(tokens: tuple[_Token, ...], clause: int, k: int = 2) -> frozenset[str]:
    words = [w for t in tokens if t.clause == clause for w in _content((t,))]
    return frozenset(words[:k])


@functools.cache
def _time_words() -> frozenset[str]:
    """The stems of the units of time ("minutes", "years")."""
    return frozenset(normalise(w) for w, (dimension, _) in _UNITS.items() if dimension == "time")


@functools.cache
def _measure_words() -> frozenset[str]:
    """Units and scales ("percent", "dollars", "billion"), as the anchors' stems: any two figures
    share them, so they do not say two statements are about the same thing ("Net profit rose 8
    percent" / "Revenue fell 3 percent"). Units of time are kept: "on weekdays" names a thing."""
    words = [w for w, (dimension, _) in _UNITS.items() if dimension != "time"] + list(_SCALE_WORDS)
    return frozenset(normalise(w) for w in words)


@remembered
def _polar_of(text: str) -> tuple[_Polar, ...]:
    return tuple(_polar(_tokens(text)))


def _polar(tokens: tuple[_Token, ...]) -> list[_Polar]:
    """Every opposite-pair word; a negated word flips its side. Words inside a bound phrase
    ("no less than") belong to the bound rule."""
    bound_at = {i for start, end, _ in _phrases(tokens, _BOUNDS) for i in range(start, end)}
    out = []
    for start, end, phrase in _phrases(tokens, _OPPOSITES):
        if start in bound_at or _idiom(tokens, start, end, phrase):
            continue
        name, side = _OPPOSITES[phrase]
        negator = _negation(tokens, start, end)
        flipped = negator is not None
        clause = tokens[start].clause
        # Negated by a "not" before it or by its own ("not allowed", "must not"): a denial.
        negated = flipped or any(w in _NEGATORS for w in phrase.split())
        # The whole clause on each side is read for an order only (`_traded`): each text is
        # scanned for opposite words on every unit, so the other pairs skip the work.
        sides = (_content(tuple(t for t in tokens[:start] if t.clause == clause)),
                 _content(tuple(t for t in tokens[end:] if t.clause == clause))) if name == "order" else ((), ())
        out.append(_Polar(name, -side if flipped else side, frozenset(_anchors_near(tokens, start)),
                          _nearest(tokens[:start][::-1], clause), _nearest(tokens[end:], clause), negated,
                          frozenset(sides[0]), frozenset(sides[1]), _timed(tokens[end:end + 2]), clause, negator))
    return out


def _idiom(tokens: tuple[_Token, ...], start: int, end: int, phrase: str) -> bool:
    """Is the pair word at ``start:end`` part of a phrase that means something else: "close to
    the TV" (near, not shut), "named after his godfather" (`_NOT_ORDER_AFTER`: no order)?"""
    if phrase == "close":
        return end < len(tokens) and tokens[end].text == "to"
    return phrase == "after" and start > 0 and tokens[start - 1].text in _NOT_ORDER_AFTER


def _timed(tokens: tuple[_Token, ...]) -> bool:
    """Do ``tokens`` open with a span of time: a count, then a unit of time ("15 minutes")?"""
    return len(tokens) == 2 and (tokens[0].text[0].isdigit() or tokens[0].text in NUMBER_WORDS
                                 or tokens[0].text in ("a", "an", "few", "several")) \
        and normalise(tokens[1].text) in _time_words()


def _neighbours(mine: _Polar, theirs: _Polar) -> int:
    """How many of their nearest words two mentions share, on the same side of each."""
    return len(((mine.left & theirs.left) | (mine.right & theirs.right)) - _measure_words())


def _traded(mine: _Polar, theirs: _Polar) -> bool | None:
    """Did the two sides of a relation trade places ("A before B" / "B after A")? ``None`` when
    the premise's sentence does not hold the claim's two sides, one on each side of its word:
    "X before B" and "Y after B" say nothing against each other unless X is Y ("Operate the
    engine at moderate speeds before applying full loads" / "After full load operation, idle
    the engine"). A claim's side is its two nearest words (`_sides`), placed on the premise's
    side that holds more of them: the premise may put more between ("signed in June 1919, seven
    months after the armistice")."""
    ours, sides = _sides(mine, near=True), _sides(theirs, near=False)
    if not all(ours) or not all(sides):
        return None
    places = [_place(words, sides) for words in ours]
    # A side found as often on each side (often a verb the two events share: "The armistice was
    # *signed* after the Treaty") goes where the other side leaves it.
    tied = places.index(0) if places.count(0) == 1 else None
    if tied is not None and ours[tied] & (sides[0] ^ sides[1]):
        places[tied] = -sum(places)
    return {(-1, 1): False, (1, -1): True}.get((places[0], places[1]))


def _sides(mention: _Polar, near: bool) -> tuple[frozenset[str], frozenset[str]]:
    """The words of A and of B in "A before B": the two nearest on each side when ``near``, else
    all the clause's. A relation that opens its clause ("Before driving off-road, check the
    tyres") has B in its two nearest words after it and A in the rest. Units of time are left
    out: "30 minutes before" states the gap, not either event; a relation to a span of time
    has no B (both sides come back empty)."""
    if mention.timed:
        return frozenset(), frozenset()  # "After 15 minutes, the engine stops": B is no event
    if mention.left:
        pair = (mention.left, mention.right) if near else (mention.before, mention.after)
    else:
        pair = (mention.after - mention.right, mention.right)
    return pair[0] - _time_words(), pair[1] - _time_words()


def _place(words: frozenset[str], sides: tuple[frozenset[str], frozenset[str]]) -> int:
    """-1 when more of ``words`` are on the first of ``sides`` only than on the second only, 1
    when more are on the second, 0 when as many (none included): a word on both sides tells
    nothing ("connect to the *internet* ... refer to Before Using the *Internet*")."""
    before, after = len(words & (sides[0] - sides[1])), len(words & (sides[1] - sides[0]))
    return (after > before) - (before > after)


_PASSIVE = re.compile(r"\b(?:am|is|are|was|were|be|been|being)\s+(?:[a-z]+ly\s+)?[a-z]+\s+by\b", re.IGNORECASE)


def _passive(text: str) -> bool:
    """Does ``text`` state an act in the passive with its doer ("was outperformed by")?"""
    return _PASSIVE.search(text) is not None


def _opposite_rule(claim: str, premise: str, source: str) -> str | None:
    mentions = _polar_of(claim)
    if not mentions:
        return None
    premise_polar = _polar_of(premise)
    if not premise_polar:
        return None
    for mine in mentions:
        needed = min(2, len(mine.anchors - _measure_words()))
        if not needed:
            continue
        # The premise's words of the same pair about the same thing; every one of them must
        # say the opposite. "The same thing" is first the word's complement ("open *on
        # Mondays*", "higher *than at any time*"), else two shared words nearby.
        same = [t for t in premise_polar if t.name == mine.name]
        rivals = [m for m in mentions if m.name == mine.name and m.side != mine.side and m.clause == mine.clause]
        if rivals and mine.name != "order":
            if _passive(claim) != _passive(premise):
                # Across a change of voice the words trade places with their roles ("the older
                # mice were outperformed by the younger mice" / "the younger mice outperformed
                # the older mice"): which side is whose is the parse's to read (the swap check).
                continue
            # The claim draws the contrast itself ("turning it forward increases the support,
            # turning it rearward decreases it"): a premise word answers the side whose
            # neighbours it shares more of, and no side when as many.
            about = [t for t in same if _neighbours(mine, t) > max(_neighbours(r, t) for r in rivals)]
        else:
            about = [t for t in same if (mine.right & t.right) - _measure_words()] or [
                t for t in same if len((mine.anchors & t.anchors) - _measure_words()) >= needed]
        sides, negations, negators = set(), False, set()
        for theirs in about:
            side = theirs.side
            if mine.name == "order":
                traded = _traded(mine, theirs)
                if traded is None:
                    continue
                side = -side if traded else side
            elif mine.name == "level":
                crossed = len(mine.left & theirs.right) + len(mine.right & theirs.left)
                straight = len(mine.left & theirs.left) + len(mine.right & theirs.right)
                side = -side if crossed > straight else side  # "A higher than B" is "B lower than A"
            sides.add(side)
            negations = negations or theirs.negated != mine.negated
            negators.add(theirs.negator)
        if sides != {-mine.side}:
            continue
        # A "not" that makes the opposite ("do not open the cap while the engine is hot" /
        # "open the cap") is a denial: the parse may find it about something else, as for the
        # negated rule, or the claim may speak of the other side of a bound (`_other_side`);
        # and one that only turns a bound the claim states ("cannot increase by more than 5%"
        # / "can increase by up to 5%") denies nothing (`_restated`).
        if negations and (_other_side(claim, premise) or _parse_clears(claim, premise)
                          or (not mine.negated and negators <= _restated(claim, premise))):
            continue
        if not (mine.name == "open" and not _states_conflict(claim, premise)):
            return (f"opposite: the evidence says the opposite about {', '.join(sorted(mine.anchors)[:3])} "
                    f"({mine.name})")
    return None


@remembered
def _normalised(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """Each token's crude stem, and the set of its raw words."""
    tokens = _tokens(text)
    return tuple(normalise(t.text) for t in tokens), frozenset(t.text for t in tokens)


@remembered
def _content_of(text: str) -> frozenset[str]:
    return frozenset(_content(_tokens(text)))


def _negated_rule(claim: str, premise: str, source: str) -> str | None:
    stems, words = _normalised(premise)
    if not (words & _NEGATORS or words & _AUXILIARIES):
        return None
    if _normalised(claim)[1] & (_NEGATORS | _NEGATING_WORDS):
        # The claim negates something itself ("not", or "avoid ibuprofen", "by hand rather
        # than in the dishwasher"): comparing scopes needs a parse (the polarity check).
        return None
    wanted = _content_of(claim)
    tokens = _tokens(premise)
    negated: dict[str, set[int]] = {}  # word -> the clauses that negate it
    affirmed: set[str] = set()
    places: set[int] = set()  # the positions of the words that negate them
    for i, token in enumerate(tokens):
        word = stems[i]
        if word not in wanted:
            continue
        # A negator at most three words before, inside the clause ("except on Wednesdays",
        # "but not by Britain", "may not sublet").
        window = [j for j in range(max(0, i - 3), i) if tokens[j].clause == token.clause]
        words = [tokens[j].text for j in window]
        before = {j for j in window if tokens[j].text in _NEGATORS} if not any(
            (a, b) in _NOT_NEGATING for a, b in zip(words, words[1:] + [token.text])) else set()
        # Or negated right after it: "weight gain was not observed", "but cars are not".
        after = [t.text for t in tokens[i + 1: i + 3] if t.clause == token.clause]
        behind = {i + 2} if len(after) == 2 and after[0] in _AUXILIARIES and after[1] in ("not", "n't") else set()
        if before or behind:
            negated.setdefault(word, set()).add(token.clause)
            places |= before | behind
        else:
            affirmed.add(word)
    only_negated = set(negated) - affirmed
    # What the claim is about, negated in the evidence and never affirmed there: a name, or
    # at least a quarter of the claim's content words.
    names = {normalise(t) for t in re.findall(r"(?<!^)(?<![.!?] )\b[A-Z][\w-]+", claim.strip())}
    if only_negated and (only_negated & names or 4 * len(only_negated) >= len(wanted)) and _about(
            wanted, tokens, set().union(*(negated[w] for w in only_negated))):
        # Words alone cannot tell "wash the lid by hand" from "the lid must not go in the
        # dishwasher": when the parse finds the claim's own statement affirmed in the premise
        # (the same predicate, an agreeing argument, none conflicting), or denied only inside a
        # condition ("if you do not prime the pump, ...") or somewhere the claim does not place
        # it ("do not store the paint in direct sunlight" / "in a dry shed"), the finding is dropped.
        # And a "not" that only turns a bound the claim states ("must not carry more than 8" /
        # "can carry at most 8") denies nothing.
        if places <= _restated(claim, premise) or _other_side(claim, premise) or _parse_clears(claim, premise) or (
                {tokens[j].text for j in places} <= _VERB_NEGATORS and _denies_other_acts(claim, premise)):
            return None
        return f"negated: the evidence negates {', '.join(sorted(only_negated))}"
    return None


def _parse_clears(claim: str, premise: str) -> bool:
    """Does the parse find a word-level denial unfounded: the claim's own statement affirmed in
    the premise (`checks.supported_atom`), or denied only where the claim does not speak
    (`checks.restricted_denial`: inside a condition, in another circumstance, of another act)?"""
    from localeval.text import checks, roles  # spaCy: loaded only when words find a denial

    claim_facts, premise_facts = roles.facts(claim), roles.facts(premise)
    return checks.supported_atom(claim_facts, premise_facts) or checks.restricted_denial(claim_facts, premise_facts)


def _denies_other_acts(claim: str, premise: str) -> bool:
    """Does the parse find the premise's "not"s on acts the claim never names
    (`checks.denies_other_acts`)? "The system cannot reprogram a key fob" says nothing of what
    the Sentry Key Immobilizer does. Asked only where a "not" on a verb negated the claim's
    words: the parse does not mark "except on Wednesdays" or "no pets" as a negated act."""
    from localeval.text import checks, roles  # spaCy: loaded only when words find a denial

    return checks.denies_other_acts(roles.facts(claim), roles.facts(premise))


def _states_conflict(claim: str, premise: str) -> bool:
    """Does the parse read an opening or closing word of each text said of the same thing, one
    against the other (`checks.states_conflict`): not "open heart operations", not "when the
    hood is open", not two steps of a procedure?"""
    from localeval.text import checks, roles  # spaCy: loaded only when words find a contrast

    return checks.states_conflict(roles.facts(claim), roles.facts(premise))


def _about(wanted: frozenset[str], tokens: tuple[_Token, ...], clauses: set[int]) -> bool:
    """Are the clauses that negate the claim's words about the claim: do they share at least half
    of the content words of the shorter of the two (the overlap coefficient)? A clause sharing
    one word of many negates something else: "Do not start or run an engine in a closed garage"
    says nothing of "Press the Remote Start button on the key fob", nor "Do not use Cruise
    Control in heavy traffic" of what Cruise Control does; "This vaccine must not be frozen"
    is short and all about the vaccine."""
    said = _content(tuple(t for t in tokens if t.clause in clauses))
    return 2 * len(said & wanted) >= min(len(said), len(wanted))


def _role_rule(claim: str, premise: str, source: str) -> str | None:
    from localeval.text.roles import role_contrast  # spaCy: loaded only when a claim names someone

    return role_contrast(claim, premise)


def _merge_rule(claim: str, premise: str, source: str) -> str | None:
    from localeval.text.merges import merge_contrast  # spaCy, as for the role rule

    return merge_contrast(claim, premise)


def _check_rule(name: str):
    def rule(claim: str, premise: str, source: str) -> str | None:
        from localeval.text import checks, roles  # spaCy, as for the role rule

        if not checks.reads_premise(claim, premise, name):
            return None
        return getattr(checks, f"{name}_contrast")(roles.facts(claim), roles.facts(premise))

    return rule


_order_check = _check_rule("order")


def _order_rule(claim: str, premise: str, source: str) -> str | None:
    """The order check, and a decade or century the premise's dates of the same act lie
    outside ("published in the nineteenth century" / "first published in 1798";
    `localeval.text.periods`)."""
    from localeval.text import periods

    return _order_check(claim, premise, source) or periods.contrast(claim, premise)


_RULES = {"number": _number_rule, "unit": _unit_rule, "bound": _bound_rule, "opposite": _opposite_rule,
          "negated": _negated_rule, "role": _role_rule, "merge": _merge_rule, "order": _order_rule,
          **{name: _check_rule(name) for name in ("polarity", "swap")}}


def contrast(claim: str, premise: str, source: str = "", rules: tuple[str, ...] = CONTRAST_RULES) -> str | None:
    """The first contrast ``rules`` find between ``claim`` and ``premise``, as a reason, or None.

    ``source`` is the whole text the premise was taken from (a window of a long document): a
    number the claim states counts as missing only when the source lacks it too. The reason
    itself is not remembered here (a long source in every key made a process-wide memo grow
    by hundreds of MB): a run's session remembers and stores the reasons
    (`JudgeSession.contrasts`); the texts' tokens and parses are kept in the run's text
    memo (`localeval.text.memo`), or for this call when no run is active.
    """
    with memo_scope():  # the rules share the texts' tokens and parses
        copied: bool | None = None
        for name in rules:
            if name in NOT_ON_COPIES:
                copied = states_in_order(claim, premise) if copied is None else copied
                if copied:
                    continue
            reason = _RULES[name](claim, premise, source)
            if reason is not None:
                return reason
    return None


def contrast_many(triples: Sequence[tuple[str, str, str]],
                  rules: tuple[str, ...] = CONTRAST_RULES) -> list[str | None]:
    """``[contrast(*t, rules) for t in triples]``, with the parses of the rules that need one
    (role, merge) made in batches: spaCy parses many short texts about twice as fast as one
    at a time (`localeval.text.roles.parse_many`). Only the texts those rules would parse
    are parsed: the claims of pairs no earlier rule decided that a rule's gate lets through
    (`roles.may_name_someone`, the word gates), then the premises that the rules'
    ``reads_premise`` let through."""
    with memo_scope():  # kept for the call at least: the batched parses are read from it
        first = next((k for k, name in enumerate(rules) if name in _PARSING_RULES), len(rules))
        if rules[:1] == ("number",):
            _parse_confirmations(triples)
        reasons = [contrast(*t, rules[:first]) for t in triples]
        later = rules[first:]
        open_ = [k for k, reason in enumerate(reasons) if reason is None]
        if not later or not open_:
            return reasons
        from localeval.text import checks, merges, periods, roles

        gates = {"role": roles.reads_premise, "merge": merges.reads_premise,
                 **{n: lambda c, p, n=n: checks.reads_premise(c, p, n) for n in checks.CHECKS},
                 "order": lambda c, p: checks.reads_premise(c, p, "order") or periods.reads_premise(c, p)}
        readers = [(gates[name], name in NOT_ON_COPIES) for name in later if name in gates]
        # Only the claims some rule will parse: the word gates first, then the role rule's
        # (its own `reads_premise` parses the claim); a pair whose premise writes the claim
        # word for word only for the rules that still read it there.
        todo = dict.fromkeys((triples[k][0], triples[k][1]) for k in open_)

        def opens(c: str, p: str, gates: list) -> bool:
            return any(reads(c, p) for reads, blind in gates if not (blind and states_in_order(c, p)))

        claim_gates = [(reads, blind) for reads, blind in readers if reads is not roles.reads_premise]
        if "role" in later:
            claim_gates.append((lambda c, p: roles.may_name_someone(c), "role" in NOT_ON_COPIES))
        roles.parse_many(c for c, p in todo if opens(c, p, claim_gates))
        roles.parse_many(p for c, p in todo if opens(c, p, readers))
        for k in open_:
            reasons[k] = contrast(*triples[k], later)
        return reasons


def _parse_confirmations(triples: Sequence[tuple[str, str, str]]) -> None:
    """Parse, in batches, what the number rule's `confirmation` will read: the claims of the
    pairs it finds a number missing in, then the premises of those whose claim relates two
    things (the only ones a confirmation reads)."""
    from localeval.text import checks

    parse_confirmations([(c, p) for c, p, source in triples
                         if checks.reads_premise(c, p, "order") and _missing_numbers(c, p, source)])


def parse_confirmations(pairs: Sequence[tuple[str, str]]) -> None:
    """Parse, in batches, what `confirmation` reads on each ``(claim, premise)`` pair: the
    claims its word gate lets through, then the premises of those whose claim relates two
    things. A run's text memo keeps the parses (`localeval.text.roles.parse_many`); a pair
    read one at a time would be parsed alone, about half as fast."""
    from localeval.text import checks, roles

    asked = [(c, p) for c, p in pairs if checks.reads_premise(c, p, "order")]
    roles.parse_many(c for c, _ in asked)
    roles.parse_many(p for c, p in asked if _relates(roles.facts(c)))


def _relates(said) -> bool:
    return bool(said.relations or said.durations or said.extremes)


def confirmation(claim: str, premise: str) -> str | None:
    """Why ``premise`` bears out what the judge cannot check in ``claim``, or None: an order or
    comparison its dates or numbers confirm, a stated gap included ("dedicated three years
    before" / "completed in 1889 ... dedicated in 1886"; `localeval.text.checks.order_confirmation`).
    The mirror of the ``order`` rule: positive evidence only, English only."""
    from localeval.text import checks, roles  # spaCy, as for the role rule

    if not checks.reads_premise(claim, premise, "order"):
        return None
    with memo_scope():
        said = roles.facts(claim)
        if not _relates(said):
            return None  # nothing for the premise's numbers to bear out: its parse (the costly one) is not needed
        return checks.order_confirmation(said, roles.facts(premise))


ACROSS_RULES: tuple[str, ...] = ("order",)
"""The rules read on a claim's `dated_passage` as well as on its units: an order or first/last
claim whose other side is dated in another chunk ("The Panama Canal opened first" against
one chunk dating it 1914 and another dating the Suez Canal 1869) is decided by no single unit."""

_MOST_SENTENCES = 12  # a passage longer than a few of its sides' sentences pairs the wrong numbers


def dated_passage(claim: str, contexts: Sequence[str]) -> str | None:
    """For a claim that orders or compares things (`localeval.text.checks.reads_premise`'s word
    gate): the sentences of all ``contexts`` that hold a number -- or the claim's own "first"
    / "last" -- and a content word of the claim, in reading order, joined into one passage;
    ``None`` when fewer than two sentences qualify (a single unit already held what there is)
    or more than a dozen do (a passage that long pairs sides with the wrong numbers)."""
    from localeval.text import checks
    from localeval.text.lexical import content_words
    from localeval.text.sentences import split_sentences

    if not checks.RELATION_WORDS.search(claim):
        return None
    wanted = content_words(claim)
    extreme = bool(checks.EXTREME_WORDS.search(claim))
    chosen = [s.text for context in contexts if context and context.strip() for s in split_sentences(context)
              if (any(ch.isdigit() for ch in s.text) or (extreme and checks.EXTREME_WORDS.search(s.text)))
              and wanted & content_words(s.text)]
    if not 2 <= len(chosen) <= _MOST_SENTENCES:
        return None
    return " ".join(chosen)


def contrast_identity() -> str:
    """What a stored `contrast` result depends on (`localeval.text.analyses.code_identity`):
    the rules' code, the spaCy version and the pipeline the role rule parses with."""
    import os

    from localeval.text.analyses import code_identity
    from localeval.text.entities import DEFAULT_SPACY_MODEL, SPACY_MODEL_ENV

    pipeline = os.environ.get(SPACY_MODEL_ENV) or DEFAULT_SPACY_MODEL
    modules = ("localeval.text.contrast_rules", "localeval.text.roles", "localeval.text.merges", "localeval.text.numbers",
               "localeval.text.lexical", "localeval.text.checks", "localeval.text.periods",
               "localeval.text.sentences")  # (sentence starts marked before the parser)
    return code_identity(modules, ("spacy", pipeline))
