"""Reading a classifier's label layout from its own ``config.json``.

Public NLI checkpoints disagree on label order (MNLI models put entailment first or last,
2-way models say ``not_entailment`` or ``non-entailment``), so the order is never assumed:
it is read from ``id2label``. localeval's own judge adds a ``"localeval"`` block that names a
second head (relevance) living in the same output layer.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

__all__ = ["LabelLayout", "read_label_layout"]


class LabelLayout(BaseModel):
    """Which logits belong to which task, and which index inside a task means 'yes'."""

    nli: list[int]
    """Logit indices of the NLI head (2 or 3 of them), in config order."""
    nli_labels: list[str]
    entailment: int
    """Position of the entailment class within ``nli`` (not a raw logit index)."""
    contradiction: int | None = None
    relevance: list[int] | None = None
    relevant: int | None = None
    """Position of the 'relevant' class within ``relevance``."""


def _norm(label: str) -> str:
    return re.sub(r"[^a-z]", "", label.lower())


def _nli_role(label: str) -> str | None:
    n = _norm(label)
    if n in {"entailment", "entailed", "entails", "entail", "supports", "supported"}:
        return "entailment"
    if n in {"notentailment", "nonentailment", "notentailed", "notsupported", "unsupported"}:
        return "not_entailment"
    if n in {"neutral", "notenoughinfo", "nei"}:
        return "neutral"
    if n in {"contradiction", "contradicts", "contradict", "refutes", "refuted"}:
        return "contradiction"
    return None


def read_label_layout(config: dict[str, Any]) -> LabelLayout:
    """Build the layout from a model's config dict; raise ValueError when it is ambiguous."""
    id2label = {int(k): str(v) for k, v in config.get("id2label", {}).items()}
    if not id2label:
        raise ValueError("config.json has no id2label: localeval cannot tell which logit is entailment")
    tasks = config.get("localeval", {}).get("tasks")
    nli = list(tasks["nli"]) if tasks and "nli" in tasks else sorted(id2label)
    relevance = list(tasks["relevance"]) if tasks and "relevance" in tasks else None

    roles = [_nli_role(id2label[i]) for i in nli]
    if "entailment" not in roles or len(nli) not in (2, 3):
        raise ValueError(
            "Cannot read an NLI head from id2label "
            f"{id2label}: expected 2 or 3 labels including one named 'entailment' "
            "(e.g. entailment/neutral/contradiction or entailment/not_entailment). "
            "Fix the model's config.json id2label."
        )
    layout: dict[str, Any] = {
        "nli": nli,
        "nli_labels": [id2label[i] for i in nli],
        "entailment": roles.index("entailment"),
        "contradiction": roles.index("contradiction") if "contradiction" in roles else None,
    }
    if relevance:
        names = [_norm(id2label[i]) for i in relevance]
        if "relevant" not in names:
            raise ValueError(f"relevance head {relevance} has no label named 'relevant'")
        layout["relevance"] = relevance
        layout["relevant"] = names.index("relevant")
    return LabelLayout(**layout)
