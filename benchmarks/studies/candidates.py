"""Candidate selection for claim attribution: judge pairs per row against agreement.

    python -m benchmarks.studies.candidates [--n 200] [--cache /tmp/localeval-candidates.sqlite]

For each configuration (``max_units`` x candidate selector, `localeval.evidence.candidates`),
`ContextRecall` scores the development families the agreement harness uses for claim
attribution -- WiCE dev (claim vs whole article), SummaC validation (four subsets pooled), BEGIN
dev, FRANK validation, RAGBench validation (adherence) -- through the harness's own loaders and
scoring (`benchmarks.agreement`): every item is a reference of claims vs its contexts, labelled
supported / not by humans (GPT-4 for RAGBench).

Agreement is the harness's: the item statistic is the lowest claim probability (exhaustive
judging, so each claim has its highest probability over the units judged); the threshold is
chosen by 5-fold CV to maximise the families' mean balanced accuracy (`cv_binary`); BA (CV)
and AUROC per family, each with its standard error (binomial per class for BA, Hanley-McNeil
for AUROC). A configuration keeps agreement when no family's BA (CV) or AUROC is more than one
standard error below today's default (``max_units=6``, ``"overlap"``).

Pairs per row are counted at the verdict cache (pairs looked up = pairs the judge is asked,
whether answered from the cache or the model): in the harness's exhaustive mode and in the
metric's default mode (early acceptance at the stored threshold), and on the synthetic rows of
`benchmarks.bulk_speed` (the workload behind "16 pairs per row"). Every (premise, claim) pair
is judged once across configurations (a SQLite cache under /tmp), so the study costs about one
pass over the union of the pairs.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.agreement import attribution, frank, ragbench
from benchmarks.agreement.scoring import Harness
from benchmarks.agreement.thresholds import cv_binary
from benchmarks.lib.cli import add_data_dir
from benchmarks.lib.files import REPO_ROOT, command_line, publish
from benchmarks.lib.machine import describe_machine
from benchmarks.lib.metrics import auroc

__all__ = ["CONFIGS", "auroc_se", "ba_se", "parse_config", "run"]

CONFIGS = [
    "overlap@6/judge", "overlap@6/words", "overlap@4/judge", "overlap@3/judge", "overlap@2/judge",
    "bm25@4/judge", "bm25@3/judge", "bm25@2/judge", "bm25@3/words", "hybrid@3/judge", "hybrid@2/judge",
]
"""selector@max_units/locate; the first is the default before this study, the reference of
every comparison (``locate``: how evidence is narrowed to a sentence, `attribute`)."""


TARGET_PAIRS = 10
"""Pairs per row the issue asks for (context recall, the bulk benchmark's rows)."""


def ba_se(labels: np.ndarray, predicted: np.ndarray) -> float:
    """Standard error of a balanced accuracy: half the root of the two recalls' variances."""
    var = 0.0
    for c in (0, 1):
        mask = labels == c
        n = int(mask.sum())
        if n:
            r = float(np.mean(predicted[mask] == c))
            var += r * (1 - r) / n
    return 0.5 * math.sqrt(var)


def auroc_se(a: float, n_pos: int, n_neg: int) -> float:
    """Hanley & McNeil (1982) standard error of an AUROC."""
    if not n_pos or not n_neg:
        return float("nan")
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    var = (a * (1 - a) + (n_pos - 1) * (q1 - a * a) + (n_neg - 1) * (q2 - a * a)) / (n_pos * n_neg)
    return math.sqrt(max(var, 0.0))


def load_families(data: Path, n: int) -> dict[str, tuple[list[dict], list[int], list[str], int]]:
    """family -> (rows with ``reference`` and ``retrieved_contexts``, labels, original labels,
    items in the split), through the agreement harness's loaders and seeded samples."""
    caps = {"wice/dev-article": n, "begin/dev": n, **{f"summac/{s}": n // 4 for s in ("factcc", "polytope", "summeval", "xsumfaith")}}
    out: dict[str, tuple[list[dict], list[int], list[str], int]] = {}
    for family, _, task in attribution.load_attribution_sets(data, caps):
        rows, labels, original, total = out.get(family, ([], [], [], 0))
        rows += [{"reference": " ".join(it.claims), "retrieved_contexts": it.contexts} for it in task.items]
        labels += [it.label for it in task.items]
        original += [it.original_label for it in task.items]
        out[family] = (rows, labels, original, total + task.n_total)
    frank_rows, frank_total = frank.load_frank(data, n)
    out["frank"] = ([{"reference": r["summary"], "retrieved_contexts": [r["article"]]} for r in frank_rows],
                    [int(r["Factuality"] >= 1.0) for r in frank_rows],
                    [str(round(r["Factuality"], 3)) for r in frank_rows], frank_total)
    per_subset = max(1, n // len(ragbench.SUBSETS))
    rb = ragbench.load_ragbench(data, {s: per_subset for s in ragbench.SUBSETS})
    rb_rows = [r for s in rb for r in rb[s][0]]
    out["ragbench"] = ([{"reference": r.response, "retrieved_contexts": r.contexts} for r in rb_rows],
                       [r.adherence for r in rb_rows], [str(r.adherence) for r in rb_rows],
                       sum(t for _, t in rb.values()))
    return out


def parse_config(label: str) -> tuple[str, int, str]:
    """``"bm25@3/words"`` -> (selector, max_units, locate); ``/judge`` when no locate is given."""
    head, _, locate = label.partition("/")
    selector, _, k = head.partition("@")
    return selector, int(k), locate or "judge"


def _metric(judge, max_units: int, selector: str, exhaustive: bool, locate: str):
    from localeval.metrics import ContextRecall

    return ContextRecall(judge, max_units=max_units, exhaustive=exhaustive, candidates=selector, locate=locate)


def _evidence(results) -> list[tuple | None]:
    return [(c.evidence.context_index, c.evidence.start, c.evidence.end) if c.evidence else None
            for r in results for c in r.claims]


def _looked_up(cache) -> int:
    return cache.hits + cache.misses


def run(data: Path, n: int, cache_path: Path, configs: list[str], synthetic_rows: int, log=print) -> dict:
    from benchmarks.bulk_speed import make_rows
    from localeval.judge import get_judge
    from localeval.judge.cache import JudgementCache

    judge = get_judge(None)
    cache = JudgementCache(cache_path)
    families = load_families(data, n)
    synthetic = [{"reference": r["reference"], "retrieved_contexts": r["retrieved_contexts"]}
                 for r in make_rows(synthetic_rows)]
    results = []
    evidence: dict[str, dict[str, list]] = {}
    for label in configs:
        selector, max_units, locate = parse_config(label)
        entry: dict = {"config": label, "max_units": max_units, "selector": selector, "locate": locate, "families": {}}
        evidence[label] = {}
        stats: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        start = time.perf_counter()
        for family, (rows, labels, original, total) in families.items():
            exhaustive = Harness(judge, {"context_recall": _metric(judge, max_units, selector, True, locate)}, cache)
            before = _looked_up(cache)
            scored = attribution.score_binary_set(exhaustive, family, family, "context_recall", rows, labels,
                                                  original, total, "reference")
            pairs_exhaustive = _looked_up(cache) - before
            default = Harness(judge, {"context_recall": _metric(judge, max_units, selector, False, locate)}, cache)
            before = _looked_up(cache)
            evidence[label][family] = _evidence(default.score(rows, ["context_recall"])["context_recall"])
            pairs_default = _looked_up(cache) - before
            claims = sum(len(p) for p in scored.claim_probs)
            stats[family] = (scored.labels, scored.stat)
            entry["families"][family] = {
                "n": len(rows), "n_total": total, "unscored": scored.unscored,
                "claims_per_row": round(claims / len(rows), 2),
                "pairs_per_claim_default": round(pairs_default / max(claims, 1), 2),
                "pairs_per_row_exhaustive": round(pairs_exhaustive / len(rows), 2),
                "pairs_per_row_default": round(pairs_default / len(rows), 2),
            }
        before = _looked_up(cache)
        Harness(judge, {"context_recall": _metric(judge, max_units, selector, False, locate)}, cache).score(synthetic, ["context_recall"])
        entry["synthetic_pairs_per_row_default"] = round((_looked_up(cache) - before) / len(synthetic), 2)
        choice = cv_binary(stats, judge.thresholds.get("context_recall", 0.5))
        entry["threshold_cv"] = choice["threshold"]
        for family, (labels, stat) in stats.items():
            oof = np.asarray(choice["oof"][family], int)
            fig = choice["families"][family]
            n_pos, n_neg = int(labels.sum()), int(len(labels) - labels.sum())
            entry["families"][family].update({
                "ba_cv": fig["ba_cv"], "ba_cv_se": round(ba_se(labels, oof), 4),
                "auroc": round(auroc(labels, stat), 4),
                "auroc_se": round(auroc_se(auroc(labels, stat), n_pos, n_neg), 4),
            })
        fams = entry["families"].values()
        entry["mean_ba_cv"] = round(float(np.mean([f["ba_cv"] for f in fams])), 4)
        entry["mean_auroc"] = round(float(np.mean([f["auroc"] for f in fams])), 4)
        entry["pairs_per_row_exhaustive"] = round(float(np.mean([f["pairs_per_row_exhaustive"] for f in fams])), 2)
        entry["pairs_per_row_default"] = round(float(np.mean([f["pairs_per_row_default"] for f in fams])), 2)
        entry["pairs_per_claim_default"] = round(float(np.mean([f["pairs_per_claim_default"] for f in fams])), 2)
        entry["seconds"] = round(time.perf_counter() - start, 1)
        log(f"{label}: mean BA(CV) {entry['mean_ba_cv']}, mean AUROC {entry['mean_auroc']}, pairs/row "
            f"{entry['pairs_per_row_exhaustive']} exhaustive, {entry['pairs_per_row_default']} default, "
            f"{entry['synthetic_pairs_per_row_default']} synthetic ({entry['seconds']} s)")
        results.append(entry)
    cache.close()
    for entry in results:
        # Same evidence sentence as judge-located evidence of the same selection (default mode).
        twin = entry["config"].split("/")[0] + "/judge"
        if entry["locate"] == "words" and twin in evidence:
            same = total = 0
            for family, spans in evidence[entry["config"]].items():
                for a, b in zip(spans, evidence[twin][family]):
                    if a is not None and b is not None:
                        total += 1
                        same += a == b
            entry["evidence_same_as_judge_located"] = round(same / max(total, 1), 4)
            entry["evidence_claims_compared"] = total
    reference = results[0]
    for entry in results:
        entry["keeps_agreement"] = all(
            f["ba_cv"] >= reference["families"][name]["ba_cv"] - reference["families"][name]["ba_cv_se"]
            and f["auroc"] >= reference["families"][name]["auroc"] - reference["families"][name]["auroc_se"]
            for name, f in entry["families"].items()
        )
    return {"judge": judge.name, "n_per_family_requested": n, "synthetic_rows": synthetic_rows,
            "reference": reference["config"], "configs": results}


def markdown(result: dict, command: str, machine: dict) -> str:
    configs = result["configs"]
    families = list(configs[0]["families"])
    ref = configs[0]["families"]
    lines = [
        f"# Candidate selection for claim attribution: {result['judge']}",
        "",
        f"- command: `{command}`",
        f"- machine: {machine.get('cpu')} ({machine.get('cpu_cores')} cores, shared with other jobs), "
        f"{machine.get('date_utc')}",
        "- metric: `ContextRecall`; config = selector@max_units; reference: today's default "
        f"`{result['reference']}`. Agreement as the agreement harness computes it (threshold by 5-fold "
        "CV over families, out-of-fold balanced accuracy; AUROC of the lowest claim probability); "
        "± one standard error.",
        "- pairs/row: judge pairs per row looked up (cache hits + model), exhaustive = every chosen "
        "unit (what agreement is computed from); default = the metric's defaults (early acceptance "
        "at the stored threshold); synthetic = `benchmarks.bulk_speed` rows, default mode.",
        "- n per family: " + ", ".join(f"{f} {ref[f]['n']}/{ref[f]['n_total']}" for f in families),
        "",
        "| config | keeps agreement | mean BA (CV) | mean AUROC | pairs/row exhaustive | pairs/row default "
        "| pairs/claim default | pairs/row synthetic | evidence = judge-located |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in configs:
        same, compared = c.get("evidence_same_as_judge_located"), c.get("evidence_claims_compared")
        located = "—" if same is None else f"{100 * same:.1f} % of {compared}"
        lines.append(f"| {c['config']} | {'yes' if c['keeps_agreement'] else 'no'} | {100 * c['mean_ba_cv']:.1f} | "
                     f"{c['mean_auroc']:.3f} | {c['pairs_per_row_exhaustive']} | {c['pairs_per_row_default']} | "
                     f"{c['pairs_per_claim_default']} | {c['synthetic_pairs_per_row_default']} | {located} |")
    meets = [c["config"] for c in configs if c["keeps_agreement"] and c["synthetic_pairs_per_row_default"] <= TARGET_PAIRS]
    lines += ["", f"Target: at most {TARGET_PAIRS} pairs per row on the bulk rows (default mode) with agreement kept: "
              + (", ".join(f"`{m}`" for m in meets) if meets else "no configuration") + "."]
    lines += ["", "Per family: BA (CV) ± SE / AUROC ± SE / pairs per row (exhaustive, default).", "",
              "| config | " + " | ".join(families) + " |", "|---|" + "---|" * len(families)]
    for c in configs:
        cells = []
        for f in families:
            x = c["families"][f]
            cells.append(f"{100 * x['ba_cv']:.1f}±{100 * x['ba_cv_se']:.1f} / {x['auroc']:.3f}±{x['auroc_se']:.3f} / "
                         f"{x['pairs_per_row_exhaustive']}, {x['pairs_per_row_default']}")
        lines.append(f"| {c['config']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_dir(p, flag="--data", sub="meta-eval")
    p.add_argument("--n", type=int, default=200, help="items per family (seeded, class-balanced samples)")
    p.add_argument("--synthetic-rows", type=int, default=200)
    p.add_argument("--cache", type=Path, default=Path("/tmp/localeval-candidates.sqlite"))
    p.add_argument("--configs", default=",".join(CONFIGS),
                   help="selector@max_units[/locate], comma-separated; the first is the reference")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/candidates.json")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    result = run(args.data, args.n, args.cache, configs, args.synthetic_rows,
                 log=lambda m: print(m, file=sys.stderr, flush=True))
    machine = describe_machine()
    result["machine"] = machine
    report = markdown(result, command_line("python -m benchmarks.studies.candidates", argv), machine)
    publish(args.output, result, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
