"""The one record type every reader and generator produces.

Three kinds of supervision share the 5-logit output layer:

* ``nli3``: 3-way label (0 entailment, 1 neutral, 2 contradiction) over logits[0:3];
* ``nli2``: binary label (0 entailed, 1 not entailed) from sources that never separated
  neutral from contradiction (FEVER-RTE, SciTail). Its loss uses the same 3 NLI logits:
  "not entailed" is the probability mass of neutral + contradiction, so these sources teach
  the entailment decision without inventing a 3-way label they do not have;
* ``rel``: 0 relevant, 1 not relevant over logits[3:5]; text_a is the passage, text_b the question.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

NLI3 = "nli3"
NLI2 = "nli2"
REL = "rel"
TASKS = (NLI3, NLI2, REL)

ID2LABEL = {
    0: "entailment",
    1: "neutral",
    2: "contradiction",
    3: "relevant",
    4: "not_relevant",
}
NLI3_LABELS = {"entailment": 0, "neutral": 1, "contradiction": 2}


@dataclass(frozen=True)
class Example:
    text_a: str
    """Evidence first: the premise (NLI) or the passage/sentence (relevance)."""
    text_b: str
    """The hypothesis/claim (NLI) or the question (relevance)."""
    label: int
    task: str
    source: str
    group: str = ""
    """Items sharing a group (same premise, same paragraph) land on the same side of the split."""

    @property
    def key(self) -> str:
        """Stable id of the text pair, used for the split manifest and de-duplication."""
        return pair_key(self.text_a, self.text_b)

    def is_positive(self) -> bool:
        """Entailed (NLI) or relevant: label 0 in every task."""
        return self.label == 0


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def pair_key(text_a: str, text_b: str) -> str:
    raw = f"{_norm(text_a)}\t{_norm(text_b)}".encode()
    return hashlib.sha1(raw).hexdigest()[:16]


def stable_hash(text: str, seed: int = 0) -> int:
    """A process-independent hash (Python's hash() is salted per process)."""
    return int.from_bytes(
        hashlib.sha1(f"{seed}:{_norm(text)}".encode()).digest()[:8], "big"
    )
