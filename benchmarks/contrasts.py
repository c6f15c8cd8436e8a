"""Do the contrast rules help where the judge is blind, and cost nothing where it is not?

    python benchmarks/contrasts.py [--units FILE] [--output PATH]

1. **Contrast set** (`benchmarks/contrast/contrast_test.jsonl`, hand-written): every claim
   judged as context recall judges it (`benchmarks.contrast.score`), with the rules
   (`localeval.text.contrast_rules`) and without; accuracy per category with its binomial SE, and
   the items whose verdict the rules changed (right and wrong).
2. **Development families** (WiCE dev, SummaC validation, BEGIN dev, FRANK validation,
   RAGBench adherence; the samples of `benchmarks/verdict.py` and the agreement harness):
   every claim judged against every one of its units (`attribute(..., accept_at=None,
   contrasts=False, units=True)`), so the rules can be replayed on the same probabilities:
   a unit a rule fires on has its probability multiplied by `CONTRAST_WEIGHT`, as the metrics
   do. Item score = lowest claim probability (faithfulness). Reported: AUROC with and without
   the rules and the paired bootstrap SE of the difference; BA out of fold (the harness's
   5-fold protocol, one threshold over all families); at the shipped threshold, the items the
   rules turned from supported to not supported, by label (right / wrong); word overlap beside.

``--units`` keeps the judged units in a file (read when it exists: no judge call).
Results: ``benchmarks/results/contrasts.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib.cli import add_data_dir, add_judge  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine, weights_sha256  # noqa: E402
from benchmarks.lib.metrics import auroc, paired_bootstrap_se  # noqa: E402


def judge_units(judge, items: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Per item: its claims, each with every judged unit's text and raw P(entailment)."""
    from benchmarks.lib.overlap import overlap_score
    from localeval.evidence.attribution import attribute
    from benchmarks.verdict import claims_of
    from localeval.text import split_sentences

    out: dict[str, list[dict]] = {}
    for family, rows in items.items():
        started = time.perf_counter()
        claims = claims_of([r["text"] for r in rows])
        supports = attribute(judge, [(c, r["contexts"]) for c, r in zip(claims, rows)], locate_sentence=False,
                             accept_at=None, units=True, contrasts=False)
        out[family] = []
        for row, texts, per_claim in zip(rows, claims, supports):
            judged = []
            for text, support in zip(texts, per_claim):
                units = []
                for u in support.units or []:
                    context = row["contexts"][u.context_index]
                    sentences = split_sentences(context)
                    start, end = sentences[u.sentence_indices[0]].start, sentences[u.sentence_indices[-1]].end
                    units.append({"text": context[start:end], "p": u.probability})
                judged.append({"text": text, "overlap": overlap_score(text, row["contexts"]), "units": units})
            out[family].append({"set": row["set"], "label": row["label"], "source": "\n".join(row["contexts"]),
                                "claims": judged})
        print(f"  {family}: {len(rows)} items, {time.perf_counter() - started:.0f} s", flush=True)
    return out


def replay(items: dict[str, list[dict]], rules: bool,
           rule_set: tuple[str, ...] | None = None, confirm: bool = False) -> tuple[dict[str, list[dict]], Counter]:
    """The verdict study's item format (``claims[].signals.p_best``, ``overlap``), each claim's
    probability the best over its units with (or without) the rules applied (``rule_set``:
    those rules only; default all); ``confirm``: with the order confirmation too, as
    `attribute` applies it (a claim no rule fired on and below the floor, its units best first)."""
    from localeval.evidence.attribution import CONTRAST_WEIGHT
    from localeval.text.contrast_rules import CONTRAST_RULES, confirmation, contrast
    from localeval.text.memo import TextMemo, remembering

    fired: Counter = Counter()
    out = {}
    for family, rows in items.items():
        out[family] = []
        for row in rows:
            with remembering(TextMemo()):  # as a run remembers a row's parses
                claims = []
                for claim in row["claims"]:
                    best = 0.0
                    # As `attribute` reads them: best unit first, until one no rule fires on.
                    vetoed = False
                    for unit in sorted(claim["units"], key=lambda u: -u["p"]):
                        reason = (contrast(claim["text"], unit["text"], row["source"], rule_set or CONTRAST_RULES)
                                  if rules else None)
                        if reason is None:
                            best = max(best, unit["p"])
                            break
                        vetoed = True
                        fired[(family, reason.split(":")[0])] += 1
                        best = max(best, unit["p"] * CONTRAST_WEIGHT)
                    if confirm and not vetoed and best < 1 - CONTRAST_WEIGHT:
                        for unit in sorted(claim["units"], key=lambda u: -u["p"]):
                            if confirmation(claim["text"], unit["text"]) is not None:
                                fired[(family, "confirmed")] += 1
                                best = max(best, 1 - (1 - unit["p"]) * CONTRAST_WEIGHT)
                                break
                    claims.append({"signals": {"p_best": best}, "overlap": claim["overlap"]})
                out[family].append({"set": row["set"], "label": row["label"], "claims": claims})
    return out, fired


def _item_scores(rows: list[dict], key: str) -> np.ndarray:
    pick = (lambda c: c["signals"]["p_best"]) if key == "judge" else (lambda c: c["overlap"])
    return np.asarray([min((pick(c) for c in r["claims"]), default=0.0) for r in rows])


def family_figures(plain: dict, ruled: dict, threshold: float) -> dict:
    from benchmarks.verdict import pooled_cv

    cv_plain, cv_ruled = pooled_cv(plain, ["p_best"]), pooled_cv(ruled, ["p_best"])

    def defined_auroc(scores: np.ndarray, gold: np.ndarray) -> float | None:
        return None if gold.min() == gold.max() else auroc(gold, scores)

    out = {}
    for family in plain:
        y = np.asarray([r["label"] for r in plain[family]])
        s0, s1 = _item_scores(plain[family], "judge"), _item_scores(ruled[family], "judge")
        so = _item_scores(plain[family], "overlap")
        se = paired_bootstrap_se(y, s0, s1, {"auroc": defined_auroc})["auroc"]
        flipped = (s0 >= threshold) & (s1 < threshold)
        out[family] = {
            "n": len(y), "positives": int(y.sum()),
            "auroc_judge": auroc(y, s0), "auroc_rules": auroc(y, s1), "auroc_overlap": auroc(y, so),
            "auroc_gain": auroc(y, s1) - auroc(y, s0), "auroc_gain_se": se,
            "ba_cv_judge": cv_plain[family]["judge"], "ba_cv_rules": cv_ruled[family]["judge"],
            "ba_cv_overlap": cv_plain[family]["overlap"],
            "flipped_right": int((flipped & (y == 0)).sum()), "flipped_wrong": int((flipped & (y == 1)).sum()),
            "items_changed": int((np.abs(s0 - s1) > 1e-12).sum()),
        }
    return out


def contrast_set(judge_name: str | None) -> dict:
    from benchmarks.contrast import CATEGORIES, DATA, _summary, load_items

    items = load_items(DATA)
    runs = {}
    for rules in (False, True):
        scored = score_contrast(items, judge_name, rules)
        runs["rules" if rules else "judge"] = scored
    rows = {k: v["rows"] for k, v in runs.items()}
    categories = []
    for c in CATEGORIES:
        a = [r for r in rows["judge"] if r["category"] == c]
        b = [r for r in rows["rules"] if r["category"] == c]
        if a:
            categories.append({"category": c, "judge": _summary(a), "rules": _summary(b)})
    changed = [(a, b) for a, b in zip(rows["judge"], rows["rules"]) if a["correct"] != b["correct"]]
    return {
        "n": len(items), "threshold": runs["rules"]["threshold"], "categories": categories,
        "overall": {"judge": _summary(rows["judge"]), "rules": _summary(rows["rules"])},
        "made_right": [b["id"] for a, b in changed if b["correct"]],
        "made_wrong": [b["id"] for a, b in changed if not b["correct"]],
        "reasons": {b["id"]: b["contrast"] for b in rows["rules"] if b["contrast"]},
    }


def score_contrast(items, judge_name, rules: bool) -> dict:
    from benchmarks.contrast import score

    scored = score(items, judge_name, "cpu", 32, contrasts=rules)
    scored.pop("judge")
    return scored


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def markdown(result: dict) -> str:
    cs, fam = result["contrast_set"], result["families"]
    lines = [
        "# Contrast rules: the hand-written contrast set and the development families",
        "",
        f"Judge `{result['model']}` (weights sha256 `{result['weights_sha256'][:12]}`). "
        f"Machine: {result['machine']['cpu']}, {result['machine']['date_utc']}. Command: `{result['command']}`.",
        "",
        "A unit a rule fires on (`localeval.text.contrast_rules`: another number, another unit of the same "
        f"kind, a bound from the other side, the opposite direction or state, a negated or excepted "
        f"item, an act given to another named agent or its arguments swapped, a subject taken from another sentence) has its P(entailment) multiplied by {result['weight']}; the claim keeps the best unit.",
        "",
        f"## Contrast set ({cs['n']} hand-written pairs; verdict at {cs['threshold']['value']:.4f}, "
        f"`{cs['threshold']['key']}`)",
        "",
        "| category | n | judge alone % | with the rules % | SE (rules) |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in [*cs["categories"], {"category": "**overall**", **cs["overall"]}]:
        lines.append(f"| {row['category']} | {row['judge']['n']} | {_pct(row['judge']['accuracy'])} | "
                     f"{_pct(row['rules']['accuracy'])} | {_pct(row['rules']['standard_error'])} |")
    lines += [
        "",
        f"Verdicts the rules changed: {len(cs['made_right'])} made right, {len(cs['made_wrong'])} made wrong"
        + (f" ({', '.join(cs['made_wrong'])})" if cs["made_wrong"] else "") + ".",
        "",
        "## Development families (faithfulness: an item's lowest claim probability)",
        "",
        "AUROC and BA in %; the AUROC gain's SE is a paired bootstrap over items (1,000 resamples). "
        "BA (CV): the agreement harness's protocol (5 folds per family, one threshold chosen over all "
        f"families on the other folds). Flips: items supported at the shipped threshold "
        f"({result['threshold']:.4f}) that the rules turn to not supported, by gold label.",
        "",
        "| family | n (pos) | AUROC judge | AUROC rules | gain +- SE | AUROC overlap | BA (CV) judge | BA (CV) rules | BA (CV) overlap | flips right / wrong | items changed |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, f in fam.items():
        lines.append(
            f"| {name} | {f['n']} ({f['positives']}) | {_pct(f['auroc_judge'])} | {_pct(f['auroc_rules'])} | "
            f"{100 * f['auroc_gain']:+.1f} +- {100 * f['auroc_gain_se']:.1f} | {_pct(f['auroc_overlap'])} | "
            f"{_pct(f['ba_cv_judge'])} | {_pct(f['ba_cv_rules'])} | {_pct(f['ba_cv_overlap'])} | "
            f"{f['flipped_right']} / {f['flipped_wrong']} | {f['items_changed']} |")
    fired = result["fired"]
    lines += ["", "Units each rule overruled (read best first, until one passes): "
              + "; ".join(f"{k} {v}" for k, v in sorted(fired.items())) + "."]
    lines += ["", "BA (CV) moves by a few points when one pooled threshold moves, so read the flips and "
              "the AUROC gain with its SE; a change inside two SEs is not a result."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    from benchmarks.verdict import load_items
    from localeval.judge import NLIJudge
    from localeval.evidence.attribution import CONTRAST_WEIGHT
    from localeval.metrics import Faithfulness

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_judge(p)
    add_data_dir(p, sub="meta-eval")
    p.add_argument("--units", type=Path, default=None, help="judged units: read if it exists, else written there")
    p.add_argument("--limit", type=int, default=None, help="at most N items per set (plumbing runs)")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/contrasts.json")
    args = p.parse_args(argv)

    judge = NLIJudge(args.model, device="cpu")
    if args.units and args.units.exists():
        units = json.loads(args.units.read_text())
    else:
        units = judge_units(judge, load_items(args.data_dir, args.limit))
        if args.units:
            args.units.write_text(json.dumps(units))
    plain, _ = replay(units, rules=False)
    ruled, fired = replay(units, rules=True)
    threshold = Faithfulness(judge).resolved_threshold()
    result = {
        "model": judge.name, "weights_sha256": weights_sha256(judge.path), "machine": describe_machine(),
        "command": command_line("python benchmarks/contrasts.py", sys.argv[1:] if argv is None else argv),
        "weight": CONTRAST_WEIGHT, "threshold": threshold, "limit": args.limit,
        "contrast_set": contrast_set(args.model),
        "families": family_figures(plain, ruled, threshold),
        "fired": {f"{family}/{rule}": n for (family, rule), n in sorted(fired.items())},
    }
    report = markdown(result)
    print(report)
    write_results(args.output, result, report)
    print(f"wrote {portable_path(args.output)}")
    return result


if __name__ == "__main__":
    main()
