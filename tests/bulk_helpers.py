"""Shared by the runner/evaluate/cache tests: tiny judges whose verdicts vary, and rows.

The conftest tiny model is freshly initialised, so every pair gets about the same
probability and every score is the same: useless to check that batching changes nothing.
Here its weights are redrawn with a larger spread, so verdicts differ from pair to pair.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from conftest import TINY_WORDS, build_tiny_model

THREE_LABELS = {0: "contradiction", 1: "neutral", 2: "entailment"}
FIVE_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}


def sharp_tiny_model(directory: Path, id2label: dict[int, str], extra: dict | None = None) -> Path:
    import torch
    from transformers import BertForSequenceClassification

    build_tiny_model(directory, id2label, extra)
    config = (directory / "config.json").read_text()
    model = BertForSequenceClassification.from_pretrained(directory)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for param in model.parameters():
            if param.dim() >= 2:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.3)
    model.save_pretrained(directory, safe_serialization=True)
    (directory / "config.json").write_text(config)  # keep the localeval section as written
    return directory


WORDS = [w for w in TINY_WORDS if w.isalpha()]


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))).capitalize() + "."


def make_rows(n: int, seed: int = 0) -> list[dict]:
    """Rows with shared contexts (so pairs repeat across rows) and some degenerate ones."""
    rng = random.Random(seed)
    pool = [" ".join(_sentence(rng) for _ in range(rng.randint(1, 4))) for _ in range(12)]
    rows = []
    for i in range(n):
        contexts = rng.sample(pool, rng.randint(1, 3))
        row = {
            "id": f"r{i}",
            "user_input": " ".join(rng.choice(WORDS) for _ in range(5)) + "?",
            "response": " ".join(_sentence(rng) for _ in range(2)),
            "reference": " ".join(_sentence(rng) for _ in range(3)),
            "retrieved_contexts": contexts,
            "retrieved_context_ids": [f"d{pool.index(c)}" for c in contexts],
            "reference_context_ids": [f"d{rng.randrange(12)}" for _ in range(2)],
        }
        if i % 11 == 5:
            row["reference"] = ""  # no claim to check
        if i % 13 == 7:
            del row["retrieved_contexts"]  # missing column
        rows.append(row)
    return rows


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def same_up_to(a, b, tol: float = 1e-6) -> bool:
    """``a == b`` for nested records (dicts, lists, JSON text), floats within ``tol``.

    Engines that run the judge with other torch thread counts (Ray actors take one each) sum
    in another order: probabilities move by about 1e-7 and may round to the next 6th decimal,
    which the runner's promise (scores equal to 1e-6) allows."""
    if isinstance(a, str) and isinstance(b, str) and a[:1] in "[{" and a != b:
        try:
            return same_up_to(json.loads(a), json.loads(b), tol)
        except ValueError:
            return False
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= tol + 1e-12 or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_up_to(a[k], b[k], tol) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_up_to(x, y, tol) for x, y in zip(a, b))
    return a == b


def spy_on_sessions(monkeypatch) -> list[list[tuple[str, str]]]:
    """The pairs of every judge call made through any `JudgeSession` (the one path metrics
    take to a judge), one list per call, as asked (before identical pairs are merged)."""
    from localeval.judge.session import JudgeSession

    calls: list[list[tuple[str, str]]] = []
    original = JudgeSession.predict

    def predict(self, judge, pairs, **kwargs):
        calls.append(list(pairs))
        return original(self, judge, pairs, **kwargs)

    monkeypatch.setattr(JudgeSession, "predict", predict)
    return calls
