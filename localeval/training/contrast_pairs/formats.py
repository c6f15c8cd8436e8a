"""Currency, percent, temperature, unit, large-number and date reformatting: the faithful
rewrite (entailed) and the same rewrite with the value or unit changed (not entailed)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from ..examples import NLI2, NLI3
from ..synthetic import _change_number
from .edits import ENT, NOT_ENTAILED, Edit, _sub_at

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
