"""Numbers in text, in one canonical form, so that lexical checks compare values, not spellings.

"$3,000", "3000 dollars" and "three thousand dollars" all hold the number ``3000``; "25%"
and "25 percent" hold ``25``; "eight" is ``8`` and "eighteen" ``18``. Used by the lexical
signals of a claim's verdict (`localeval.backends.verdict`): a number the claim states and
the evidence does not is a strong sign the claim is not supported, whatever its format.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["numbers_in"]

_UNITS = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000,
           "trillion": 1_000_000_000_000, "k": 1_000, "bn": 1_000_000_000}  # not "m": metres
_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[a-z]+", re.IGNORECASE)
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")
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
    if word in _TENS:
        return float(_TENS[word])
    return None


def _canonical(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


@lru_cache(maxsize=16384)
def numbers_in(text: str) -> frozenset[str]:
    """Canonical numbers stated in ``text`` ("3,000" / "three thousand" -> ``"3000"``).

    A number word joined to a tens word ("twenty-five") is one number; a scale word after a
    number multiplies it ("2.5 million" -> ``"2500000"``). "one" alone is left out: it is
    far more often a pronoun ("the one that ...") than a count.
    """
    found: set[str] = set()
    current: float | None = None  # the number being read
    spelled = True  # read from words only (so "one" alone can be skipped)

    def close() -> None:
        if current is not None and not (spelled and current == 1):
            found.add(_canonical(current))

    for token in _TOKEN.findall(text.replace("-", " ")):
        lowered = token.lower()
        value = _value(token)
        if value is not None:
            if current is not None and lowered in _UNITS and 20 <= current < 100 and current % 10 == 0:
                current += value  # "twenty five"
                continue
            close()
            current, spelled = value, not token[0].isdigit()
        elif current is not None and lowered in _SCALES:
            current *= _SCALES[lowered]
            spelled = False
        else:
            close()
            current = None
    close()
    return frozenset(found)
