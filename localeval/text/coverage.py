"""The words a claim's *coverage* is counted in: is each word the claim states somewhere in the
contexts? (`localeval.evidence.verdict`'s ``coverage`` and ``coverage_all`` signals.)

Coverage catches what a small judge misses most on summaries and long answers: a detail that
no context mentions (a date, a place, a name). It must not punish the same fact in other
forms, so both sides are read into one vocabulary first:

- words are Snowball stems ("descaling" and "descaled" are one word); irregular verbs and
  plurals go to their base form first ("took", "taken" -> "take"; "children" -> "child");
- units and currency signs are one word whatever their spelling ("°C" = "degrees Celsius",
  "5 km" = "5 kilometres", "%" = "per cent", "€" = "euros");
- numbers are canonical (`localeval.text.numbers.numbers_in`: "3,000" = "three thousand"), and
  a number word is not also a word ("thirteen" is the number 13 only).

What it does not know: synonyms and derived facts ("higher" from two heights). Those are the
judge's to decide; coverage only lowers a verdict by the share of words missing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from localeval.text.lexical import stem, stop_words
from localeval.text.memo import remembered
from localeval.text.numbers import NUMBER_WORDS, numbers_in

__all__ = ["UNIT_SPELLINGS", "coverage_words"]

# English irregular verbs (base, then past and participle forms where they differ) and a few
# irregular plurals. Standard grammar-book forms.
_IRREGULAR = """
arise arose arisen|awake awoke awoken|be was were been|bear bore borne born|beat beaten|
become became|begin began begun|bend bent|bind bound|bite bit bitten|bleed bled|
blow blew blown|break broke broken|breed bred|bring brought|build built|burn burnt|buy bought|
catch caught|choose chose chosen|cling clung|come came|creep crept|deal dealt|dig dug|
do did done does|draw drew drawn|dream dreamt|drink drank drunk|drive drove driven|
eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought|find found|flee fled|
fly flew flown|forbid forbade forbidden|foresee foresaw foreseen|forget forgot forgotten|
forgive forgave forgiven|freeze froze frozen|get got gotten|give gave given|go went gone goes|
grind ground|grow grew grown|hang hung|have had has|hear heard|hide hid hidden|hold held|
keep kept|kneel knelt|know knew known|lay laid|lead led|lean leant|leap leapt|learn learnt|
leave left|lend lent|lie lain|light lit|lose lost|make made|mean meant|meet met|
mislead misled|overcome overcame|oversee oversaw overseen|overtake overtook overtaken|pay paid|
prove proven|rebuild rebuilt|ride rode ridden|ring rang rung|rise rose risen|run ran|say said|
see saw seen|seek sought|sell sold|send sent|sew sewn|shake shook shaken|shine shone|
shoot shot|show shown|shrink shrank shrunk|sing sang sung|sink sank sunk|sit sat|sleep slept|
slide slid|speak spoke spoken|speed sped|spend spent|spin spun|spring sprang sprung|
stand stood|steal stole stolen|stick stuck|sting stung|strike struck stricken|
strive strove striven|swear swore sworn|sweep swept|swim swam swum|swing swung|
take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown|
undergo underwent undergone|understand understood|undertake undertook undertaken|
uphold upheld|wake woke woken|wear wore worn|weave wove woven|weep wept|win won|
withdraw withdrew withdrawn|withhold withheld|write wrote written|
child children|person people|man men|woman women|foot feet|tooth teeth|mouse mice
"""
_BASE: dict[str, str] = {}
for _group in _IRREGULAR.replace("\n", "").split("|"):
    _forms = _group.split()
    for _form in _forms:
        _BASE.setdefault(_form, _forms[0])

# Unit and currency spellings -> one word. A one- or two-letter abbreviation counts only right
# after a number (`_AFTER_NUMBER`): "m" alone is not a metre, "5 m" is.
_UNIT_NAMES = {
    "percent": "percent pct",
    "euro": "euro euros eur",
    "dollar": "dollar dollars usd",
    "pound": "pound pounds gbp sterling",
    "degree": "degree degrees",
    "celsius": "celsius centigrade",
    "kilometre": "kilometre kilometres kilometer kilometers",
    "metre": "metre metres meter meters",
    "centimetre": "centimetre centimetres centimeter centimeters",
    "millimetre": "millimetre millimetres millimeter millimeters",
    "kilogram": "kilogram kilograms kilogramme kilogrammes kilo kilos",
    "gram": "gram grams gramme grammes",
    "milligram": "milligram milligrams",
    "litre": "litre litres liter liters",
    "millilitre": "millilitre millilitres milliliter milliliters",
    "hour": "hour hours",
    "minute": "minute minutes",
    "second": "second seconds",
    "kilobyte": "kilobyte kilobytes",
    "megabyte": "megabyte megabytes",
    "gigabyte": "gigabyte gigabytes",
    "terabyte": "terabyte terabytes",
    "watt": "watt watts",
    "kilowatt": "kilowatt kilowatts",
    "mile": "mile miles",
}
_UNITS = {alias: name for name, aliases in _UNIT_NAMES.items() for alias in aliases.split()}
_ABBREVIATIONS = {
    "km": "kilometre", "m": "metre", "cm": "centimetre", "mm": "millimetre", "kg": "kilogram",
    "kgs": "kilogram", "g": "gram", "mg": "milligram", "l": "litre", "ml": "millilitre", "h": "hour",
    "hr": "hour", "hrs": "hour", "min": "minute", "mins": "minute", "s": "second", "sec": "second",
    "secs": "second", "kb": "kilobyte", "mb": "megabyte", "gb": "gigabyte", "tb": "terabyte",
    "w": "watt", "kw": "kilowatt", "mi": "mile", "kph": "kilometre hour", "kmh": "kilometre hour",
    "km/h": "kilometre hour", "mph": "mile hour",
}
_AFTER_NUMBER = re.compile(
    r"(?<=\d)\s?(" + "|".join(sorted(map(re.escape, _ABBREVIATIONS), key=len, reverse=True)) + r")\b",
    re.IGNORECASE)
_SYMBOLS = {"°c": "degree celsius", "℃": "degree celsius", "°f": "degree fahrenheit", "℉": "degree fahrenheit",
            "°": "degree", "%": "percent", "€": "euro", "$": "dollar", "£": "pound"}
_SYMBOL = re.compile(r"°\s?[CF]\b|[°%€$£℃℉]")
_PER_CENT = re.compile(r"\bper\s+cent\b", re.IGNORECASE)
_MERIDIEM = re.compile(r"(?<=\d)\s?[ap]\.?m\b\.?", re.IGNORECASE)  # "6 pm": the time itself is a number
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")

UNIT_SPELLINGS: frozenset[str] = frozenset(
    set(_UNITS) | set(_ABBREVIATIONS) | set(_SYMBOLS) | {"° C", "° F", "per cent"}
    | {f"{d} {n}" for d in ("degree", "degrees") for n in ("celsius", "centigrade", "fahrenheit")}
)
"""Every spelling of a unit or currency these tables know (what may follow a number)."""


def _spelled(text: str) -> str:
    """``text`` with unit symbols and abbreviations written out as their one word."""
    text = _SYMBOL.sub(lambda m: f" {_SYMBOLS[m.group(0).replace(' ', '').lower()]} ", text)
    text = _AFTER_NUMBER.sub(lambda m: f" {_ABBREVIATIONS[m.group(1).lower()]} ", text)
    text = _PER_CENT.sub(" percent ", text)
    text = _MERIDIEM.sub(" ", text)
    return _ORDINAL.sub(" ", text)


@lru_cache(maxsize=1 << 16)
def _word(word: str) -> str | None:
    """One word in the shared vocabulary, or ``None`` for a stop word or a number word."""
    w = word.lower().replace("’", "'").removesuffix("'s").rstrip("'")
    if len(w) < 2 or w in stop_words() or w in NUMBER_WORDS:
        return None
    if w in _UNITS:
        return _UNITS[w]
    w = _BASE.get(w, w)
    return None if w in stop_words() else stem(w)  # "taken" is "take", itself a stop word


@remembered
def coverage_words(text: str) -> frozenset[str]:
    """The words and canonical numbers of ``text`` that coverage compares (see the module)."""
    words = {w for token in _WORD.findall(_spelled(text)) if (w := _word(token)) is not None}
    return frozenset(words | numbers_in(text))
