"""Edits found by regular expressions alone: number words and quantifier / direction flips."""

from __future__ import annotations

import random
import re

from ..examples import NLI2, NLI3
from .edits import CON, ENT, NOT_ENTAILED, Edit, _case_like, _sub_at
from .formats import _MONTH, _UNITS

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
