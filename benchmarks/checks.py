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

With ``--metric`` each claim is scored instead through the whole `ContextRecall` metric (its
second pass included: atomic parts), supported when the score is 1.0.

Run: ``python benchmarks/checks.py [--no-contrasts] [--metric] [--output PATH]``; results go to
``benchmarks/results/checks.{json,md}``.
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
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from pydantic import BaseModel, Field, ValidationError  # noqa: E402

from benchmarks.contrast import ContrastItem, score  # noqa: E402
from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine, weights_sha256  # noqa: E402

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
        "the only context, scored as context recall scores a claim"
        + (" (the whole metric: second pass with atomic parts included; supported = score 1.0), "
           if result.get("metric") else ", ")
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


RULES_BEFORE = ("number", "unit", "bound", "opposite", "negated", "role", "merge")
"""The contrast rules before the checks (polarity, swap, order) were added."""


def family_figures(units_files: list[Path]) -> dict:
    """Per development family: faithfulness AUROC (an item's lowest claim probability) with the
    rules before the checks and with every rule now, the paired bootstrap SE of the change, and
    word overlap's AUROC with each margin over it (the judged units of
    `benchmarks.contrasts.judge_units`, replayed: no judge call)."""
    import numpy as np

    from benchmarks.contrasts import _item_scores, replay
    from benchmarks.lib.metrics import auroc, paired_bootstrap_se

    def defined(scores: np.ndarray, gold: np.ndarray) -> float | None:
        return None if gold.min() == gold.max() else auroc(gold, scores)

    units: dict[str, list[dict]] = {}
    for path in units_files:
        units.update(json.loads(path.read_text()))
    before, _ = replay(units, rules=True, rule_set=RULES_BEFORE)
    after, fired = replay(units, rules=True, confirm=True)
    out = {}
    for family in units:
        y = np.asarray([r["label"] for r in before[family]])
        s0, s1 = _item_scores(before[family], "judge"), _item_scores(after[family], "judge")
        so = _item_scores(before[family], "overlap")
        se = paired_bootstrap_se(y, s0, s1, {"auroc": defined})["auroc"]
        se_margin = paired_bootstrap_se(y, so, s1, {"auroc": defined})["auroc"]
        out[family] = {"n": len(y), "positives": int(y.sum()), "auroc_before": auroc(y, s0), "auroc_after": auroc(y, s1),
                       "change": auroc(y, s1) - auroc(y, s0), "change_se": se, "auroc_overlap": auroc(y, so),
                       "margin_over_overlap": auroc(y, s1) - auroc(y, so), "margin_se": se_margin,
                       "items_changed": int((np.abs(s0 - s1) > 1e-12).sum()),
                       "checks_fired": {r: n for (f, r), n in fired.items()
                                        if f == family and r in ("polarity", "swap", "order", "confirmed")}}
    return out


def families_markdown(figures: dict, command: str, machine: dict, sources: list[str]) -> str:
    lines = ["# Contradiction checks on the development families", "",
             "Faithfulness's item score (the lowest claim probability) with the contrast rules before the checks "
             f"({', '.join(RULES_BEFORE)}) and with the checks added (polarity, swap, order, and the order "
             "confirmation that lifts a claim its unit's numbers bear out); every claim judged "
             "against every unit once, the rules replayed on the same probabilities (`benchmarks.contrasts.replay`). "
             f"Units: {', '.join(sources)}. AUROC in %; SEs are paired bootstraps over items (1,000 resamples).", "",
             f"Command: `{command}`  ", f"Machine: {machine['cpu']}, {machine['date_utc']}.", "",
             "| family | n (pos) | AUROC before | AUROC with checks | change ± SE | AUROC overlap | margin over overlap ± SE "
             "| items changed | checks fired |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for family, f in figures.items():
        fired = ", ".join(f"{k} {v}" for k, v in sorted(f["checks_fired"].items())) or "-"
        lines.append(f"| {family} | {f['n']} ({f['positives']}) | {100 * f['auroc_before']:.1f} | {100 * f['auroc_after']:.1f} | "
                     f"{100 * f['change']:+.1f} ± {100 * f['change_se']:.1f} | {100 * f['auroc_overlap']:.1f} | "
                     f"{100 * f['margin_over_overlap']:+.1f} ± {100 * f['margin_se']:.1f} | {f['items_changed']} | {fired} |")
    return "\n".join(lines) + "\n"


def score_by_metric(items: list[ContrastItem], model: str | None, device: str | None) -> dict:
    """Each claim scored as `ContextRecall` scores a one-claim reference, second pass included
    (a claim no unit supports is judged again, whole and by its atomic parts); supported when the
    score is 1.0. The same row fields as `score` gives."""
    from localeval.judge import get_judge
    from localeval.judge.session import JudgeSession
    from localeval.metrics import ContextRecall
    from localeval.options import RunOptions

    judge = get_judge(model, device=device)
    metric = ContextRecall(judge)
    started = time.perf_counter()
    samples = [{"user_input": "", "retrieved_contexts": [i.premise], "response": "", "reference": i.claim} for i in items]
    with JudgeSession(RunOptions(model=judge)) as session:
        results = metric.score_many(samples, session=session)
    rows = []
    for item, res in zip(items, results):
        first = res.claims[0] if res.claims else None
        supported = res.score == 1.0
        rows.append({"id": item.id, "category": item.category, "label": item.label,
                     "probability": first.probability if first else 0.0,
                     "verdict": "supported" if supported else "not_supported",
                     "correct": supported == (item.label == "supported"),
                     "contrast": first.contrast if first else None, "pieced": bool(first and first.pieced)})
    key = metric.threshold_key()
    return {"judge": judge, "threshold": {"value": metric.resolved_threshold(),
                                          "key": key if key in judge.thresholds else "entailment"},
            "rows": rows, "seconds": round(time.perf_counter() - started, 2)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_judge(p)
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/checks.json")
    p.add_argument("--device", default=None)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--no-contrasts", dest="contrasts", action="store_false")
    p.add_argument("--metric", action="store_true",
                   help="score each claim through the whole ContextRecall metric (its second pass included: atomic "
                        "parts, `localeval.metrics.pieced`), not the first-pass verdict alone")
    p.add_argument("--families", type=Path, nargs="+", default=None,
                   help="judged units of the development families (benchmarks.contrasts.judge_units output): "
                        "report the AUROC before and after the checks instead of the check set")
    args = p.parse_args(argv)
    command = command_line("python benchmarks/checks.py", sys.argv[1:] if argv is None else argv)
    if args.families:
        figures = family_figures(args.families)
        output = args.output.with_name("checks_families.json")
        sources = [portable_path(f) for f in args.families]
        result = {"benchmark": "checks_families", "command": command, "machine": describe_machine(),
                  "units": sources, "families": figures}
        write_results(output, result, families_markdown(figures, command, result["machine"], sources))
        print(families_markdown(figures, command, result["machine"], sources))
        return 0
    try:
        items = load_items(args.data)
    except (OSError, ValueError) as err:
        print(f"checks: cannot read the check set: {err}", file=sys.stderr)
        return 2
    # Scored by the contrast benchmark's own scorer: the same verdict, the same threshold.
    as_contrast = [ContrastItem(id=i.id, category="plain_supported", premise=i.premise, claim=i.claim, label=i.label)
                   for i in items]
    scored = (score_by_metric(as_contrast, args.model, args.device) if args.metric
              else score(as_contrast, args.model, args.device, args.batch_size, args.contrasts))
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
        "metric": args.metric,
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
