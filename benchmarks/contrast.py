"""Contrast benchmark: does the judge's verdict survive one small change of meaning?

The set (``benchmarks/contrast/contrast_test.jsonl``, written by hand for this project; see the
README there) pairs short multi-sentence premises with one-sentence claims that differ by a
negated list member, a flipped quantifier or direction, facts of two sentences merged, roles
swapped across a voice change, an attribute moved to another item, a confusable number word,
or only a reformatted currency, unit, percent or date; plain paraphrases and plain unrelated
claims are the controls.

Each claim is scored exactly as context recall scores a reference claim: through
`localeval.evidence.attribution.attribute` with the premise as the only retrieved context and
the metric's unit options, and it counts as supported when its probability reaches the judge's
threshold for context recall (``thresholds.context_recall`` in the judge's config.json, else
its generic entailment threshold), the value `ContextRecall.resolved_threshold` gives. Every
unit is judged (``accept_at=None``) so each claim reports its highest probability; the verdicts
are the ones the metric reaches.

Reported per category and overall: n, accuracy and its standard error (binomial,
sqrt(p(1-p)/n)), accuracy on the supported and on the not-supported claims, and each wrong item.

Run: ``python benchmarks/contrast.py [--model PATH_OR_NAME] [--limit N] [--output PATH]``;
results go to ``benchmarks/results/contrast.{json,md}``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from pathlib import Path
from typing import Literal

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script: make `benchmarks` and `localeval` importable
    sys.path.insert(0, str(REPO_ROOT))

from pydantic import BaseModel, Field, ValidationError  # noqa: E402

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine, weights_sha256  # noqa: E402

DATA = REPO_ROOT / "benchmarks/contrast/contrast_test.jsonl"
CATEGORIES = (
    "list_negation",
    "range_or_quantifier_flip",
    "cross_sentence_merge",
    "role_swap_voice",
    "attribute_move",
    "number_words",
    "format_paraphrase",
    "plain_supported",
    "plain_unsupported",
)


class ContrastItem(BaseModel):
    """One line of the contrast set."""

    id: str = Field(min_length=1)
    category: Literal[CATEGORIES]  # type: ignore[valid-type]
    premise: str = Field(min_length=1)
    claim: str = Field(min_length=1)
    label: Literal["supported", "not_supported"]
    note: str = ""


def load_items(path: Path = DATA) -> list[ContrastItem]:
    """The items of a contrast file; a malformed line or a repeated id stops with its line
    number rather than being skipped."""
    items: list[ContrastItem] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                item = ContrastItem.model_validate(json.loads(line))
            except (json.JSONDecodeError, ValidationError) as err:
                raise ValueError(f"{path.name} line {number}: {err}") from err
            if item.id in seen:
                raise ValueError(f"{path.name} line {number}: id {item.id!r} already on line {seen[item.id]}")
            seen[item.id] = number
            items.append(item)
    return items


def limit_per_category(items: list[ContrastItem], limit: int | None) -> list[ContrastItem]:
    """At most ``limit`` items of each category, in file order (quick runs)."""
    if limit is None:
        return items
    taken: dict[str, int] = {}
    out = []
    for item in items:
        taken[item.category] = taken.get(item.category, 0) + 1
        if taken[item.category] <= limit:
            out.append(item)
    return out


def _summary(rows: list[dict]) -> dict:
    n = len(rows)
    correct = sum(r["correct"] for r in rows)
    acc = correct / n if n else float("nan")
    side = {}
    for label in ("supported", "not_supported"):
        part = [r for r in rows if r["label"] == label]
        side[label] = {
            "n": len(part),
            "accuracy": sum(r["correct"] for r in part) / len(part) if part else None,
        }
    return {
        "n": n,
        "correct": correct,
        "accuracy": acc,
        "standard_error": math.sqrt(acc * (1 - acc) / n) if n else float("nan"),
        "supported": side["supported"],
        "not_supported": side["not_supported"],
    }


def score(items: list[ContrastItem], model: str | None, device: str | None, batch_size: int,
          contrasts: bool = True) -> dict:
    """Judge every item as context recall would; per-item rows plus the threshold used."""
    from localeval.judge import get_judge
    from localeval.evidence.attribution import attribute
    from localeval.metrics import ContextRecall

    judge = get_judge(model, device=device)
    metric = ContextRecall(judge)
    threshold = metric.resolved_threshold()
    key = metric.threshold_key()
    started = time.perf_counter()
    supports = attribute(
        judge,
        [([item.claim], [item.premise]) for item in items],
        batch_size=batch_size,
        max_units=metric.max_units,
        accept_at=None,
        contrasts=contrasts,
    )
    seconds = time.perf_counter() - started
    rows = []
    for item, (support,) in zip(items, supports):
        supported = support.evidence is not None and support.probability >= threshold
        rows.append(
            {
                "id": item.id,
                "category": item.category,
                "label": item.label,
                "probability": support.probability,
                "verdict": "supported" if supported else "not_supported",
                "correct": supported == (item.label == "supported"),
                "contrast": support.contrast,
            }
        )
    return {
        "judge": judge,
        "threshold": {"value": threshold, "key": key if key in judge.thresholds else "entailment"},
        "rows": rows,
        "seconds": round(seconds, 2),
    }


def _pct(x: float | None) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def markdown(result: dict, items: dict[str, ContrastItem]) -> str:
    t = result["threshold"]
    lines = [
        "# Contrast benchmark",
        "",
        f"Judge `{result['model']['name']}` (weights sha256 `{result['model']['weights_sha256'][:12]}`), "
        f"verdict = P(entailment) >= {t['value']:.4f} (`{t['key']}`), premise as the only context, "
        "scored through `localeval.evidence.attribution.attribute` as context recall scores claims, "
        + ("with the contrast rules (`localeval.text.contrast_rules`) on. " if result.get("contrasts", True)
           else "the judge alone (contrast rules off). ") +
        f"Data: `{result['data']['path']}` ({result['data']['n']} pairs, hand-written; sha256 "
        f"`{result['data']['sha256'][:12]}`).",
        "",
        f"Command: `{result['command']}`  ",
        f"Machine: {result['machine']['cpu']}, {result['machine']['date_utc']}; judged in {result['seconds']} s.",
        "",
        "| category | n | accuracy % | SE | supported acc % (n) | not supported acc % (n) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in [*result["categories"], {"category": "**overall**", **result["overall"]}]:
        sup, neg = row["supported"], row["not_supported"]
        lines.append(
            f"| {row['category']} | {row['n']} | {_pct(row['accuracy'])} | {_pct(row['standard_error'])} | "
            f"{_pct(sup['accuracy'])} ({sup['n']}) | {_pct(neg['accuracy'])} ({neg['n']}) |"
        )
    overruled = [r for r in result["items"] if r.get("contrast")]
    if overruled:
        right = sum(r["correct"] for r in overruled)
        lines += ["", f"A contrast rule overruled the judge's best unit on {len(overruled)} claims; "
                  f"{right} of those verdicts are right."]
    wrong = [r for r in result["items"] if not r["correct"]]
    lines += ["", f"## Wrong verdicts ({len(wrong)})", ""]
    if wrong:
        lines += ["| id | label | P(entailment) | claim |", "|---|---|---:|---|"]
        for r in wrong:
            claim = items[r["id"]].claim.replace("|", "\\|")
            lines.append(f"| {r['id']} | {r['label']} | {r['probability']:.3f} | {claim} |")
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_judge(p)
    p.add_argument("--data", type=Path, default=DATA, help="contrast set (JSON lines)")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/contrast.json")
    p.add_argument("--limit", type=int, default=None, help="at most N items per category (quick runs)")
    p.add_argument("--device", default=None, help="cpu, cuda, ... (default: CUDA when available)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--no-contrasts", dest="contrasts", action="store_false",
                   help="the judge alone: no contrast rule overrules it (localeval.text.contrast_rules)")
    args = p.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        items = load_items(args.data)
    except (OSError, ValueError) as err:
        print(f"contrast: cannot read the contrast set: {err}", file=sys.stderr)
        return 2
    chosen = limit_per_category(items, args.limit)
    scored = score(chosen, args.model, args.device, args.batch_size, args.contrasts)
    judge = scored.pop("judge")
    rows = scored["rows"]
    categories = [
        {"category": c, **_summary([r for r in rows if r["category"] == c])}
        for c in CATEGORIES
        if any(r["category"] == c for r in rows)
    ]
    result = {
        "benchmark": "contrast",
        "command": command_line("python benchmarks/contrast.py", sys.argv[1:] if argv is None else argv),
        "model": {"name": judge.name, "weights_sha256": weights_sha256(judge.path)},
        "data": {
            "path": portable_path(args.data),
            "sha256": hashlib.sha256(args.data.read_bytes()).hexdigest(),
            "n": len(chosen),
            "limit_per_category": args.limit,
        },
        "machine": describe_machine(),
        "threshold": scored["threshold"],
        "contrasts": args.contrasts,
        "seconds": scored["seconds"],
        "categories": categories,
        "overall": _summary(rows),
        "items": rows,
    }
    write_results(args.output, result, markdown(result, {i.id: i for i in chosen}))
    print(f"{'category':26} {'n':>4} {'acc %':>6} {'SE':>5}")
    for row in [*categories, {"category": "overall", **result["overall"]}]:
        print(f"{row['category']:26} {row['n']:4d} {_pct(row['accuracy']):>6} {_pct(row['standard_error']):>5}")
    print(f"threshold {scored['threshold']['value']:.4f} ({scored['threshold']['key']}); wrote {portable_path(args.output)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
