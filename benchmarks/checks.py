"""Contradiction-check benchmark: do the checks fire on a contradiction, and leave a true
restatement alone?

The set (``benchmarks/checks/checks_test.jsonl``, written by hand for this project; see the
README there) pairs a passage of realistic RAG material (manuals, policies, medical leaflets,
news, encyclopaedic text) with two claims: one that contradicts it by a negated instruction or
permission, a role swapped across coordinated arguments, an attribute moved to the wrong item,
or an order / comparison the passage's dates or numbers refute (``must: fire``), and one that
restates it truly in other words, a reordered list or the other side of the same relation
(``must: not_fire``). It is separate from the hand-written contrast set
(``benchmarks/contrast.py``) and nothing is tuned on it.

Each claim is scored exactly as `benchmarks/contrast.py` scores one (context recall's verdict,
the passage as the only context). Reported per category and overall: n, accuracy ± its binomial
standard error, the share of must-fire pairs a contrast rule or check overruled, and the share
of must-not-fire pairs left alone (no rule overruled the unit the judge liked best), each ± SE.

Run: ``python benchmarks/checks.py [--no-contrasts] [--output PATH]``; results go to
``benchmarks/results/checks.{json,md}``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Literal

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from pydantic import BaseModel, Field, ValidationError  # noqa: E402

from benchmarks.contrast import ContrastItem, score  # noqa: E402
from benchmarks.files import command_line, portable_path, write_results  # noqa: E402
from benchmarks.machine import describe_machine, weights_sha256  # noqa: E402

DATA = REPO_ROOT / "benchmarks/checks/checks_test.jsonl"
CATEGORIES = ("negated_instruction", "role_swap", "attribute_distribution", "order_with_dates",
              "comparison_with_numbers")


class CheckItem(BaseModel):
    """One line of the check set: ``must`` says whether a check must fire on it."""

    id: str = Field(min_length=1)
    category: Literal[CATEGORIES]  # type: ignore[valid-type]
    premise: str = Field(min_length=1)
    claim: str = Field(min_length=1)
    label: Literal["supported", "not_supported"]
    must: Literal["fire", "not_fire"]


def load_items(path: Path = DATA) -> list[CheckItem]:
    """The items of a check file; a malformed line, a repeated id or a ``must`` that
    disagrees with the label stops with its line number."""
    items: list[CheckItem] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = CheckItem.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as err:
            raise ValueError(f"{path.name} line {number}: {err}") from err
        if item.id in seen or (item.must == "fire") != (item.label == "not_supported"):
            raise ValueError(f"{path.name} line {number}: repeated id or must/label mismatch ({item.id})")
        seen.add(item.id)
        items.append(item)
    return items


def _share(hits: int, n: int) -> dict:
    p = hits / n if n else float("nan")
    return {"n": n, "share": p, "standard_error": math.sqrt(p * (1 - p) / n) if n else float("nan")}


def summary(rows: list[dict]) -> dict:
    """Accuracy, must-fire pairs overruled and must-not-fire pairs left alone, each with n and SE."""
    fire = [r for r in rows if r["must"] == "fire"]
    keep = [r for r in rows if r["must"] == "not_fire"]
    return {
        "accuracy": _share(sum(r["correct"] for r in rows), len(rows)),
        "fired_on_must_fire": _share(sum(r["contrast"] is not None for r in fire), len(fire)),
        "left_alone": _share(sum(r["contrast"] is None for r in keep), len(keep)),
        "correct_on_must_not_fire": _share(sum(r["correct"] for r in keep), len(keep)),
    }


def _pct(d: dict) -> str:
    return "-" if not d["n"] else f"{100 * d['share']:.1f} ± {100 * d['standard_error']:.1f}"


def markdown(result: dict, items: dict[str, CheckItem]) -> str:
    t = result["threshold"]
    lines = [
        "# Contradiction-check benchmark", "",
        f"Judge `{result['model']['name']}`, verdict = P(entailment) >= {t['value']:.4f} (`{t['key']}`), premise as "
        "the only context, scored as context recall scores a claim, "
        + ("contrast rules and checks on. " if result["contrasts"] else "the judge alone (rules and checks off). ")
        + f"Data: `{result['data']['path']}` ({result['data']['n']} pairs, hand-written; sha256 "
        f"`{result['data']['sha256'][:12]}`).", "",
        f"Command: `{result['command']}`  ",
        f"Machine: {result['machine']['cpu']}, {result['machine']['date_utc']}; judged in {result['seconds']} s.", "",
        "| category | n | accuracy % ± SE | must-fire overruled % ± SE | must-not-fire left alone % ± SE "
        "| must-not-fire correct % ± SE |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, s in [*result["categories"].items(), ("**overall**", result["overall"])]:
        lines.append(f"| {name} | {s['accuracy']['n']} | {_pct(s['accuracy'])} | {_pct(s['fired_on_must_fire'])} | "
                     f"{_pct(s['left_alone'])} | {_pct(s['correct_on_must_not_fire'])} |")
    wrong = [r for r in result["items"] if not r["correct"]]
    lines += ["", f"## Wrong verdicts ({len(wrong)})", "", "| id | must | P | rule | claim |", "|---|---|---:|---|---|"]
    for r in wrong:
        claim = items[r["id"]].claim.replace("|", "\\|")
        rule = (r["contrast"] or "").split(":")[0]
        lines.append(f"| {r['id']} | {r['must']} | {r['probability']:.3f} | {rule} | {claim} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=None)
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/checks.json")
    p.add_argument("--device", default=None)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--no-contrasts", dest="contrasts", action="store_false")
    args = p.parse_args(argv)
    try:
        items = load_items(args.data)
    except (OSError, ValueError) as err:
        print(f"checks: cannot read the check set: {err}", file=sys.stderr)
        return 2
    # Scored by the contrast benchmark's own scorer: the same verdict, the same threshold.
    as_contrast = [ContrastItem(id=i.id, category="plain_supported", premise=i.premise, claim=i.claim, label=i.label)
                   for i in items]
    scored = score(as_contrast, args.model, args.device, args.batch_size, args.contrasts)
    judge = scored.pop("judge")
    by_id = {i.id: i for i in items}
    rows = [{**r, "category": by_id[r["id"]].category, "must": by_id[r["id"]].must} for r in scored["rows"]]
    result = {
        "benchmark": "checks",
        "command": command_line("python benchmarks/checks.py", sys.argv[1:] if argv is None else argv),
        "model": {"name": judge.name, "weights_sha256": weights_sha256(judge.path)},
        "data": {"path": portable_path(args.data), "sha256": hashlib.sha256(args.data.read_bytes()).hexdigest(),
                 "n": len(items)},
        "machine": describe_machine(),
        "threshold": scored["threshold"],
        "contrasts": args.contrasts,
        "seconds": scored["seconds"],
        "categories": {c: summary([r for r in rows if r["category"] == c]) for c in CATEGORIES},
        "overall": summary(rows),
        "items": rows,
    }
    write_results(args.output, result, markdown(result, by_id))
    for name, s in [*result["categories"].items(), ("overall", result["overall"])]:
        print(f"{name:26} n={s['accuracy']['n']:3d} acc {_pct(s['accuracy']):>12}  fired {_pct(s['fired_on_must_fire']):>12}"
              f"  alone {_pct(s['left_alone']):>12}")
    print(f"wrote {portable_path(args.output)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
