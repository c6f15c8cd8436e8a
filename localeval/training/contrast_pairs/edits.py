"""The record every contrast edit produces, its labels, and the string helpers all kinds share."""

from __future__ import annotations

import re
from dataclasses import dataclass

SOURCE = "contrast"
KINDS = ("merge", "voice", "attribute", "list_negation", "flip", "number_words", "format", "addition")
ENT, NEU, CON = 0, 1, 2
NOT_ENTAILED = 1  # the binary (nli2) "not entailed" label


@dataclass(frozen=True)
class Edit:
    """One hypothesis made from a sentence: its label under ``task`` and the kind of edit."""

    text: str
    label: int
    task: str
    kind: str


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
