"""A decade or century a claim dates an act to, against the dates a text gives the same act.

"The castle was restored in the twentieth century" against "... restored in the 1950s": the
judge gave 0.33 as written and 0.90 to "restored in the 1950s"; it gave "The poem was first
published in the nineteenth century" 0.99 against "first published in 1798". It reads dates
as words and knows no calendar. Two uses, one reading:

- `narrowed` (through `localeval.text.notation.restated`, before the judge reads a pair):
  the claim's period is written as the one date the unit gives the same act (the same verb)
  inside it. The claim this makes is the stronger one (it entails the claim as written), so
  a unit that supports the rewrite supports the claim: a rewrite can only cost a verdict,
  never make a wrong claim right. That holds after "in" and "during" only ("before the
  1950s" is weaker than "before 1952") and not under a negation ("not restored in 1955" is
  the weaker claim), so such claims are left alone. The verb must match because the judge
  reads dates loosely: it gave "The castle was damaged in the 1950s" 0.94 against "damaged
  in a fire in 1740 and restored in the 1950s".
- `contrast` (the ``order`` rule, `localeval.text.contrast_rules`): the text dates the same
  act of the same thing, and none of its dates lies in the claim's period ("published in
  1798" / "published in the nineteenth century").

A century counts the years both ways of counting agree on (1901-1999 for the twentieth); a
decade ending in "00s" ("the 1900s") may be a century, and is read as neither.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from localeval.text.memo import remembered
from localeval.text.numbers import ORDINAL_WORDS, numbers_in

if TYPE_CHECKING:
    from localeval.text.checks import Atom

__all__ = ["century_numbers", "contrast", "narrowed", "reads_premise"]

# The centuries' ordinals in words, in order: "first" to "twentieth", and "twenty-first".
_ORDINALS = [*(w for w, v in ORDINAL_WORDS.items() if v <= 20), "twenty-first"]
_NTH = r"(?:(?P<nth>\d{1,2})(?:st|nd|rd|th)|(?P<word>" + "|".join(reversed(_ORDINALS)) + r"))[\s-]+centur"
_PERIOD = re.compile(
    r"\b(?:in|during)\s+(?P<span>the\s+(?:(?P<decade>1\d(?!00)\d0|20(?!00)\d0)s|" + _NTH + r"y))\b",
    re.IGNORECASE,
)
_CENTURY = re.compile(r"\b" + _NTH + r"(?:y|ies)\b", re.IGNORECASE)
_HUNDREDS = re.compile(r"(?<![\d,.])(1\d|20)00s\b")  # "the 1700s": the eighteenth century, as often as not
_DATE = re.compile(r"(?<![\d,.])(?:1\d{3}|20\d{2})s?(?![\d,])")
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|without)\b|n't\b", re.IGNORECASE)
_DATE_SLOTS = frozenset({"prep:in", "prep:during", "prep:on"})
_CORE = frozenset({"agent", "patient"})


def reads_premise(claim: str, premise: str) -> bool:
    """Worth a parse? The claim dates something to a decade or century ("in the 1950s",
    "during the 19th century") and the premise holds a year."""
    return bool(_PERIOD.search(claim) and _DATE.search(premise))


def narrowed(claim: str, unit: str) -> str:
    """``claim`` with its period written as the one date ``unit`` gives the same act inside it
    ("restored in the twentieth century" -> "restored in the 1950s"); ``claim`` itself
    otherwise (see the module)."""
    if not reads_premise(claim, unit):
        return claim
    return _narrowed((claim, unit))


@remembered
def _narrowed(pair: tuple[str, str]) -> str:
    claim, unit = pair
    found = _dated(claim)
    if found is None:
        return claim
    period, years, acts = found
    if not any(_within(m.group(0), years) for m in _DATE.finditer(unit)):
        return claim  # no date of the period at all: no parse of the unit
    from localeval.text import roles

    lemmas = {a.lemma for a in acts}
    dates = {d for atom in roles.facts(unit).atoms if not atom.negated and atom.lemma in lemmas
             for d in _dates(atom) if _within(d, years)}
    if len(dates) != 1:  # none, or two dates of the act in the period: no one date to give
        return claim
    date = next(iter(dates))
    return claim[:period.start("span")] + (f"the {date}" if date.endswith("s") else date) + claim[period.end("span"):]


def contrast(claim: str, premise: str) -> str | None:
    """Why ``premise`` contradicts the claim's period, or None: it dates the same act of the
    same thing, and none of its dates lies in the period (see the module)."""
    if not reads_premise(claim, premise):
        return None
    found = _dated(claim)
    if found is None:
        return None
    period, years, acts = found
    from localeval.text import roles

    theirs = roles.facts(premise).atoms
    for mine in acts:
        dates = {d for atom in theirs if atom.lemma == mine.lemma and not atom.negated and _same_thing(mine, atom)
                 for d in _dates(atom)}
        if dates and not any(_within(d, years) for d in dates):
            return (f"order: the evidence dates '{mine.lemma}' {', '.join(sorted(dates))}, "
                    f"not {period['span']}")
    return None


@remembered
def _dated(claim: str) -> tuple[re.Match, tuple[int, int], tuple[Atom, ...]] | None:
    """The claim's one period, the years it spans and the acts it dates (the atoms holding it
    after "in", "during" or "on"); None for a claim with a negation, with two periods, or whose
    parse puts the period on no act."""
    periods = list(_PERIOD.finditer(claim))
    if len(periods) != 1 or _NEGATION.search(claim):
        return None
    period = periods[0]
    from localeval.text import roles

    words = set(period["span"].lower().replace("-", " ").split())
    decade = f"{period['decade']}s" if period["decade"] else None
    acts = tuple(atom for atom in roles.facts(claim).atoms if not atom.negated and any(
        k in _DATE_SLOTS and (arg.head in words if decade is None else decade in arg.numbers) for k, arg in atom.slots))
    return (period, _years(period), acts) if acts else None


def century_numbers(claim: str, premise: str) -> frozenset[str]:
    """The numbers the claim's centuries are read as ("17" in "the 17th century", "21" in
    "the twenty-first century", `localeval.text.numbers.numbers_in`) where the premise names
    the same century ("the 18th century", "the 1700s") or states a year of it: no number the
    premise lacks (the number rule asks)."""
    named = list(_CENTURY.finditer(claim))
    if not named:  # most claims: the premise (often a whole source) need not be read
        return frozenset()
    theirs = {_nth(m) for m in _CENTURY.finditer(premise)} | {int(m[1]) + 1 for m in _HUNDREDS.finditer(premise)}
    stated = [int(m.group(0)) for m in _DATE.finditer(premise) if not m.group(0).endswith("s")]
    out: set[str] = set()
    for m in named:
        nth = _nth(m)
        if nth in theirs or any((nth - 1) * 100 <= year <= nth * 100 for year in stated):
            out |= numbers_in(m.group(0))
    return frozenset(out)


def _nth(century: re.Match) -> int:
    return int(century["nth"]) if century["nth"] else _ORDINALS.index(century["word"].lower()) + 1


def _years(period: re.Match) -> tuple[int, int]:
    """The years a period spans: a decade's ten, a century's inner 99."""
    if period["decade"]:
        start = int(period["decade"])
        return start, start + 9
    nth = _nth(period)
    return (nth - 1) * 100 + 1, nth * 100 - 1


def _dates(atom: Atom) -> set[str]:
    """The years ("1928") and decades ("1950s") an act is dated with ("in March 1928"); not a
    decade ending in "00s" (maybe a century)."""
    return {n for k, arg in atom.slots if k in _DATE_SLOTS for n in arg.numbers
            if _DATE.fullmatch(n) and not n.endswith("00s")}


def _within(value: str, years: tuple[int, int]) -> bool:
    """Does a year or decade lie wholly inside ``years``?"""
    decade = value.endswith("s")
    if decade and value.endswith("00s"):
        return False
    start = int(value[:-1] if decade else value)
    return years[0] <= start and start + (9 if decade else 0) <= years[1]


def _same_thing(mine: Atom, theirs: Atom) -> bool:
    """Is ``theirs`` said of what the claim's act is said of? Each named doer or patient of the
    claim's act is a doer or patient there too, in either role (a parse may read the second
    verb of "was completed in 1864 and strengthened in 1931" as active), or a pronoun there
    stands for one of them ("The tramway closed" / "It closed in 1957"); not "The chapel was
    built in 1870" for "The lighthouse was built"."""
    named = {arg.head for k, arg in mine.slots if k in _CORE and not arg.pronoun}
    core = [arg for k, arg in theirs.slots if k in _CORE]
    missing = named - {arg.head for arg in core if not arg.pronoun}
    return bool(named) and (not missing or (len(missing) == 1 and any(arg.pronoun for arg in core)))
